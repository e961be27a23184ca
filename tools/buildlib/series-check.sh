#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: the series as a maintainer takes it, one patch at a
# time on pristine 6.12, with its results in KTAP on stdout (progress on
# stderr).  For each patch of build/patchset-check/ (make patchset with
# PATCHSET_CHECK=1: signed by a stand-in), then of
# the RFC series on top of it, its rfc/:
#   - git am, on a worktree of the pristine directories the series touches;
#   - a W=1 build of drivers/infiniband against the test kernel, out of
#     tree as `make modules` builds it, with the other RoCE v2 drivers the
#     test kernel leaves out (OTHER_CONFIG: the drivers/net headers they
#     include are the kernel's, the symbols their net drivers export are
#     known to modpost from net_exports), then sparse (C=2) on the series' C
#     files that this build compiled: Kbuild recompiles what the patch
#     changes and every file that includes a header it changes, and a file
#     it did not recompile is as the step before judged it (a header's
#     warnings come with a file that includes it; those of files outside
#     the series are not compared).  Every module built, every recompiled C
#     file of the series checked by sparse, no warning in a file of the
#     series that the same file lacks in pristine 6.12 (compared without
#     line numbers: 6.12 has W=1 and sparse warnings of its own), no symbol
#     left undefined;
#   - scripts/checkpatch.pl --strict;
#   - scripts/get_maintainer.pl, on the MAINTAINERS of that step: linux-rdma
#     for every file the patch adds (checkpatch's FILE_PATH_CHANGES, "does
#     MAINTAINERS need updating?", fires for every new file; this checks
#     that it does not);
#   - scripts/get_abi.pl validate, for a patch that touches
#     Documentation/ABI: its entries parse.
# Then the patched Kconfig takes the test kernel's configuration with the
# series' KUnit option, and the modules of the last step are copied to
# build/modules, those with compat/ to build/modules-compat: `make check`
# tests what this built; the C++ tool's rdma
# netlink values compile against the patched uAPI header; kernel-doc -Wall
# finds nothing in the series' new files.  Last, compat/ (the
# build for a distribution kernel, compat/README.md) on the whole series:
# it applies, the same W=1 build and sparse, checkpatch --strict on each of
# its patches.
#
# The worktree and its objects stay in the cache; a file whose content is
# what the last build saw keeps that build's timestamp, so a rerun rebuilds
# only what differs.  A run whose inputs (the patches, the kernel's
# configuration, gcc, sparse, this script) are those of the last passing run
# reports that run's results, says so, and copies its modules.
. "$(dirname "$0")/common.sh"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_COMMITTER_NAME="RoCE entropy maintainers"
export GIT_COMMITTER_EMAIL=roce-entropy@localhost
# checkpatch's spdxcheck.py needs Debian's python3 (python3-ply, python3-git).
export PATH=/usr/bin:$PATH

KUNIT_OPT=INFINIBAND_ROCE_ENTROPY_KUNIT_TEST

ksrc_init
[ -f "$KBUILD/.built-ok" ] || die "no test kernel in $KBUILD: run 'make kernel' first"
command -v sparse >/dev/null || die "sparse is missing: run 'make deps'"
PATCHSET_CHECK=1 "$REPO/tools/buildlib/patchset.sh" >&2 || die "make patchset (PATCHSET_CHECK=1) failed"
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"

PSET=$BUILD/patchset-check
# the series, then the RFC series on top of it (rfc/)
mapfile -t patches < <(posting_patches "$PSET")
[ ${#patches[@]} -gt 0 ] || die "no patches in $PSET"
mapfile -t rfcs < <(posting_patches "$PSET/rfc")
[ ${#rfcs[@]} -gt 0 ] || die "no patches in $PSET/rfc"
patches+=("${rfcs[@]}")

SC=$CACHE/series-${KBUILD##*/kernel-}-${GITBASE##*-}
WT=$SC/src
LOGS=$BUILD/series-check
mkdir -p "$SC" "$LOGS"
exec 9> "$SC/lock"
flock -n 9 || die "another series check is using $SC"

# uapi_agrees: the tool's rdma netlink values (tools/roce-entropy,
# nl/rdma_nl.h) are those of the patched uAPI header, compiled together.
uapi_agrees() {
	local d=$SC/uapi-check

	rm -rf "$d"
	mkdir -p "$d/rdma"
	cp "$WT/include/uapi/rdma/rdma_netlink.h" "$d/rdma/"
	cat > "$d/check.cpp" <<-'EOF'
		#include <rdma/rdma_netlink.h>
		#include "nl/rdma_nl.h"
		using namespace roce;
		static_assert(nl::kAttrResRoceEntropy == RDMA_NLDEV_ATTR_RES_ROCE_ENTROPY);
		static_assert(nl::kAttrResRoceFlowLabel == RDMA_NLDEV_ATTR_RES_ROCE_FLOW_LABEL);
		static_assert(nl::kAttrResRoceUdpSport == RDMA_NLDEV_ATTR_RES_ROCE_UDP_SPORT);
		static_assert(nl::kAttrDriverDetails == RDMA_NLDEV_ATTR_DRIVER_DETAILS);
		static_assert(nl::kAttrPortRoceEntropy == RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY);
		static_assert(nl::kSysAttrRoceEntropy == RDMA_NLDEV_SYS_ATTR_ROCE_ENTROPY);
		static_assert(nl::kSysAttrRoceRepath == RDMA_NLDEV_SYS_ATTR_ROCE_REPATH);
		static_assert(nl::kAttrPortRoceEntropyScope == RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_SCOPE);
		static_assert(nl::kAttrPortRoceEntropyDefault == RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_DEFAULT);
		static_assert(nl::kScopeSport == RDMA_NL_ROCE_ENTROPY_SCOPE_SPORT);
		static_assert(nl::kScopeFlowLabel == RDMA_NL_ROCE_ENTROPY_SCOPE_FLOW_LABEL);
		static_assert(nl::policy_from_nl(RDMA_NL_ROCE_ENTROPY_BUILTIN) == Policy::Builtin);
		static_assert(nl::policy_from_nl(RDMA_NL_ROCE_ENTROPY_OFF) == Policy::Off);
		static_assert(nl::policy_from_nl(RDMA_NL_ROCE_ENTROPY_RFC) == Policy::Rfc);
		static_assert(nl::policy_from_nl(RDMA_NL_ROCE_ENTROPY_MIX) == Policy::Mix);
		static_assert(!nl::policy_from_nl(RDMA_NL_ROCE_ENTROPY_MIX + 1));
	EOF
	g++ -std=c++20 -fsyntax-only -I "$d" -I "$REPO/tools/roce-entropy/lib" "$d/check.cpp"
}

# kdoc_clean: scripts/kernel-doc -Wall (what W=2 runs) says nothing of
# the series' new .c and .h files.
kdoc_clean() {
	local f files=() out

	for f in $(awk '!/^#/ && $2 ~ /\.[ch]$/ { print $2 }' "$REPO/patches/new-files"); do
		files+=("$WT/$f")
	done
	out=$("$KSRC/scripts/kernel-doc" -Wall -none "${files[@]}" 2>&1) || true
	[ -z "$out" ] || { echo "$out"; return 1; }
}

# compat/: applied on the whole series for a distribution kernel's build.
mapfile -t compats < <(sed -e '/^#/d' -e '/^$/d' -e "s|^|$REPO/compat/|" "$REPO/compat/series")

tools_key="gcc $(gcc -dumpfullversion), $(sparse --version)"
key=$( (cat "${patches[@]}" "${compats[@]}" "$KBUILD/.config" "$0" \
	"$REPO/tools/buildlib/series-check-build.sh" \
	"$REPO/tools/buildlib/common.sh" "$REPO/tools/roce-entropy/lib/nl/rdma_nl.h"
	echo "$tools_key") | sha256sum | cut -c1-16)
if [ "$(cat "$SC/passed" 2>/dev/null)" = "$key" ] && [ -f "$SC/ktap" ] &&
	[ -f "$SC/modules/ib_core.ko" ] && [ -d "$SC/modules/modroot" ] &&
	[ -f "$SC/modules-compat/ib_core.ko" ]; then
	say "series check: inputs unchanged since the run of $(date -r "$SC/passed" '+%F %T'): its results" >&2
	cat "$SC/ktap"
	echo "# series check: results of $(date -r "$SC/passed" '+%F %T'), inputs unchanged (key $key)"
	rm -rf "$MODBUILD/modules" "$MODBUILD/modules-compat"
	cp -a "$SC/modules" "$MODBUILD/modules"
	cp -a "$SC/modules-compat" "$MODBUILD/modules-compat"
	exit 0
fi
rm -f "$SC/passed"

# The files the series or compat/ touches or adds.
series=$(sed -n 's|^+++ b/||p' "${patches[@]}" "${compats[@]}" | sort -u)

# reset_tree: $WT at the tag base; the objects of the last build stay.
reset_tree() {
	if [ ! -f "$WT/.git" ]; then
		rm -rf "$WT"
		git -C "$GITBASE" worktree prune
		git -C "$GITBASE" worktree add -q --detach "$WT" base
	else
		git -C "$WT" am --abort >/dev/null 2>&1 || true
		git -C "$WT" checkout -q -f --detach base
	fi
	[ -z "$(git -C "$WT" status --porcelain --untracked-files=no)" ] ||
		die "$WT is not pristine after the reset"
	# the other RoCE v2 drivers include their net drivers' headers
	# through ../../../net/
	[ -L "$WT/drivers/net" ] || ln -s "$KSRC/drivers/net" "$WT/drivers/net"
}

# The W=1 build and sparse of a step, with the other RoCE v2 drivers:
# shellcheck source=tools/buildlib/series-check-build.sh
. "$(dirname "${BASH_SOURCE[0]}")/series-check-build.sh"

# ktap_rc RC DESCRIPTION: one KTAP result, "ok" when RC is 0.
ktap_rc() {
	if [ "$1" = 0 ]; then ktap_test_pass "$2"; else ktap_test_fail "$2"; fi
	[ "$1" = 0 ] || failed=1
}

# abi_tree: $SC/abi = 6.12's Documentation/ABI (symbolic links) with the
# worktree's ABI files in place, so that get_abi.pl sees every entry.
abi_tree() {
	local f

	rm -rf "$SC/abi"
	cp -as "$KSRC/Documentation/ABI" "$SC/abi"
	for f in $(cd "$WT/Documentation/ABI" && find . -type f); do
		rm -f "$SC/abi/$f"
		mkdir -p "$(dirname "$SC/abi/$f")"
		cp "$WT/Documentation/ABI/$f" "$SC/abi/$f"
	done
}

# checkpatch PATCH NAME: one result, scripts/checkpatch.pl --strict.  The
# kernel source is Debian's, without git history: checkpatch cannot find
# the commit a Fixes: tag names in it (UNKNOWN_COMMIT_ID), only check the
# tag's form, which it does.
checkpatch() {
	local out rc

	out=$(cd "$KSRC" && scripts/checkpatch.pl --strict --quiet \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$1" 2>&1) &&
		rc=0 || rc=$?
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
	ktap_rc "$([ "$rc" = 0 ] && [ -z "$out" ]; echo $?)" "$2: checkpatch --strict"
}


# checks_of PATCH: how many results one patch gives.
checks_of() {
	local n=3

	grep -q '^new file mode' "$1" && n=$((n + 1))
	grep -q '^+++ b/Documentation/ABI/' "$1" && n=$((n + 1))
	echo $n
}

plan=$((3 + 3 + ${#compats[@]}))
for p in "${patches[@]}"; do
	plan=$((plan + $(checks_of "$p")))
done

{
ktap_print_header
ktap_set_plan "$plan"
reset_tree

net_exports "$SC/net-exports.symvers"
# the files compared are the series' own: a new one needs pristine's
base_key=$(echo "$tools_key $(sha256sum < "$KBUILD/.config") $OTHER_CONFIG $series" |
	sha256sum | cut -c1-16)
if [ "$(cat "$SC/base.key" 2>/dev/null)" != "$base_key" ]; then
	# Only what the comparison reads: pristine's warnings in the files the
	# series changes (a header's come with any file that includes it).
	say "series check: W=1 build and sparse of pristine $KVER's files that the series changes (once)" >&2
	: > "$LOGS/base.log"
	# shellcheck disable=SC2046
	build "$LOGS/base.log" 2 $(series_objs) ||
		{ tail -n 30 "$LOGS/base.log" >&2; die "pristine $KVER does not build"; }
	record_state
	warnings "$LOGS/base.log" > "$SC/base.warnings"
	echo "$base_key" > "$SC/base.key"
fi

applied=1 failed=0
for p in "${patches[@]}"; do
	name=${p#"$PSET"/}
	name=${name%.patch}
	log=$LOGS/${name%%-*}.log
	log=${log/rfc\//rfc-}
	: > "$log"
	if [ $applied = 0 ]; then
		for i in $(seq "$(checks_of "$p")"); do
			ktap_test_fail "$name: not tried, an earlier patch did not apply"
		done
		continue
	fi
	if ! git -C "$WT" am -q "$p" >> "$log" 2>&1; then
		grep -E '^(error|fatal):' "$log" | sed 's/^/# /' || true
		git -C "$WT" am --abort >/dev/null 2>&1 || true
		ktap_test_fail "$name: git am on Linux $KVER with the patches before it"
		applied=0 failed=1
		for i in $(seq $(($(checks_of "$p") - 1))); do
			ktap_test_fail "$name: not tried, it does not apply"
		done
		continue
	fi
	ktap_test_pass "$name: git am on Linux $KVER with the patches before it"

	# The object of a series C file that this step lacks must not be used
	# stale.
	restore_state
	for f in $series; do
		case $f in *.c) ;; *) continue ;; esac
		[ -f "$WT/$f" ] ||
			rm -f "$WT/${f%.c}.o" "$WT/$(dirname "$f")/.$(basename "${f%.c}").o.cmd"
	done
	say "series check: $name: W=1 build, sparse on the series' files it recompiles (log $log)" >&2
	build_checks "$log" && rc=0 || rc=1
	ktap_rc $rc "$name: W=1 build, sparse, no new warnings in the series' files, no undefined symbol${bad:+:$bad}"

	checkpatch "$p" "$name"

	if grep -q '^new file mode' "$p"; then
		bad=
		for f in $(git -C "$WT" diff --name-only --diff-filter=A HEAD~1 HEAD); do
			out=$(cd "$KSRC" && printf -- '--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+\n' "$f" |
				scripts/get_maintainer.pl --mpath "$WT/MAINTAINERS" \
				--no-git --no-git-fallback --no-rolestats 2>/dev/null) || true
			grep -qx 'linux-rdma@vger.kernel.org' <<< "$out" || bad="$bad $f"
		done
		ktap_rc "$([ -z "$bad" ]; echo $?)" \
			"$name: get_maintainer.pl: linux-rdma for its new files${bad:+; not:$bad}"
	fi

	if grep -q '^+++ b/Documentation/ABI/' "$p"; then
		abi_tree
		out=$(cd "$KSRC" && scripts/get_abi.pl --dir "$SC/abi" validate 2>&1) && rc=0 || rc=$?
		[ -z "$out" ] || echo "$out" | sed 's/^/# /'
		ktap_rc "$([ "$rc" = 0 ] && [ -z "$out" ]; echo $?)" \
			"$name: get_abi.pl validate: its ABI entries parse beside 6.12's"
	fi
done

# The patched Kconfig, in a hard-linked copy of the kernel source kept in
# the cache (its Kconfig replaced, never written through).
kconfig_ok() {
	local kt=$SC/ktree

	if [ ! -f "$kt/.linked" ]; then
		rm -rf "$kt"
		cp -al "$KSRC" "$kt"
		touch "$kt/.linked"
	fi
	rm -f "$kt/drivers/infiniband/Kconfig"
	cp "$WT/drivers/infiniband/Kconfig" "$kt/drivers/infiniband/Kconfig"
	mkdir -p "$SC/kconfig-out"
	cp "$KBUILD/.config" "$SC/kconfig-out/.config"
	echo "CONFIG_$KUNIT_OPT=m" >> "$SC/kconfig-out/.config"
	make -s -C "$kt" O="$SC/kconfig-out" olddefconfig > "$LOGS/kconfig.log" 2>&1 &&
		grep -qx "CONFIG_$KUNIT_OPT=m" "$SC/kconfig-out/.config"
}
if [ $applied = 1 ]; then
	kconfig_ok && rc=0 || rc=1
	ktap_rc $rc "the patched Kconfig takes the test configuration and CONFIG_$KUNIT_OPT=m"
	uapi_agrees > "$LOGS/uapi.log" 2>&1 && rc=0 || rc=1
	sed 's/^/# /' "$LOGS/uapi.log"
	ktap_rc $rc "roce-entropy's rdma netlink values are the patched uAPI's"
	kdoc_clean > "$LOGS/kernel-doc.log" 2>&1 && rc=0 || rc=1
	sed 's/^/# /' "$LOGS/kernel-doc.log"
	ktap_rc $rc "kernel-doc -Wall: no warning in the series' new C files and headers"
else
	ktap_test_fail "the patched Kconfig: not tried, a patch did not apply"
	ktap_test_fail "roce-entropy's rdma netlink values: not tried, a patch did not apply"
	ktap_test_fail "kernel-doc -Wall: not tried, a patch did not apply"
fi

# compat/ on the whole series, as a distribution kernel's build has it
# (compat/README.md), once the series' own modules are kept: make check
# tests those.
if [ $failed = 0 ]; then
	# shellcheck disable=SC2086 # a list of words
	collect_modules "$WT" "$SC/modules" $MODULES $LOADABLE_MODULES
	ulp_modules "$WT" "$SC/modules" > "$LOGS/ulps.log" 2>&1 && rc=0 || rc=1
	[ $rc = 0 ] || tail -n 20 "$LOGS/ulps.log" | sed 's/^/# /'
	ktap_rc $rc "the kernel's other RDMA consumers build against the series' headers"
	log=$LOGS/compat.log
	: > "$log"
	for c in "${compats[@]}"; do
		git -C "$WT" apply "$c" >> "$log" 2>&1 || { failed=1; break; }
	done
	if [ $failed = 0 ]; then
		ktap_test_pass "compat: its ${#compats[@]} patch(es) apply on the series"
		say "series check: compat: W=1 build, sparse on the files it recompiles (log $log)" >&2
		build_checks "$log" && rc=0 || rc=1
		ktap_rc $rc "compat: W=1 build, sparse, no new warnings in the series' files, no undefined symbol${bad:+:$bad}"
		[ $rc != 0 ] || collect_modules "$WT" "$SC/modules-compat"
	else
		grep -E '^(error|fatal):' "$log" | sed 's/^/# /' || true
		ktap_test_fail "compat: ${c#"$REPO"/} does not apply on the series and the compat patches before it"
		ktap_test_fail "compat: not built, it does not apply"
	fi
else
	ktap_test_fail "the kernel's other RDMA consumers: not built, the series did not pass"
	ktap_test_fail "compat: not tried, the series did not pass"
	ktap_test_fail "compat: not built, the series did not pass"
fi
# checkpatch reads compat/'s patches as the patch set's check signed them
mapfile -t signed_compats < <(posting_patches "$PSET/compat")
for i in "${!compats[@]}"; do
	c=${compats[i]}
	if [ -f "${signed_compats[i]:-}" ]; then
		checkpatch "${signed_compats[i]}" "compat/${c##*/}"
	else
		ktap_test_fail "compat/${c##*/}: checkpatch --strict: no signed copy in $PSET/compat"
	fi
done
ktap_print_totals
} | tee "$SC/ktap.tmp"

[ "${PIPESTATUS[0]}" = 0 ] || exit 1
grep -q '^not ok' "$SC/ktap.tmp" && exit 1

rm -rf "$MODBUILD/modules" "$MODBUILD/modules-compat"
cp -a "$SC/modules" "$MODBUILD/modules"
cp -a "$SC/modules-compat" "$MODBUILD/modules-compat"
mv "$SC/ktap.tmp" "$SC/ktap"
echo "$key" > "$SC/passed"
say "series check: passed; the modules are in $MODBUILD/modules" >&2
