#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make intree-check: take build/patchset/ as a maintainer would, one patch
# at a time, on a pristine copy of 6.12: `git am`, then an in-tree W=1 and
# sparse (C=1) build of drivers/infiniband (O= build directory, the test
# kernel's configuration plus the series' KUnit option once it exists, so
# ib_core, rdma_rxe, mlx5_ib and roce_entropy_test are all built), modpost
# on its modules, scripts/checkpatch.pl --strict, and get_maintainer.pl on
# the files the patch adds.  After each patch:
#   - no file the series touches or adds may have a warning that the same
#     file lacks in pristine 6.12 (compared without line numbers, as
#     lint.sh does; 6.12 has W=1 and sparse warnings of its own);
#   - every symbol the modules use must be defined: by these modules, or
#     by the test kernel built from the same source and configuration.
#
# The pristine copy is a git worktree of $GITBASE (tag "base", made by
# patchset.sh) reset to the tag at every run; it and its build directory
# stay in the cache, so a rerun recompiles what the series changes (the
# files the series touches are recompiled at every step so that sparse sees
# them; a header the series touches keeps the timestamp of its last build
# while its content is the same, so that it does not rebuild everything).
. "$(dirname "$0")/common.sh"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_COMMITTER_NAME="RoCE entropy maintainers"
export GIT_COMMITTER_EMAIL=roce-entropy@localhost
# scripts/spdxcheck.py needs Debian's python3 (python3-ply, python3-git).
export PATH=/usr/bin:$PATH

ksrc_init
[ -f "$KBUILD/.built-ok" ] || die "no test kernel in $KBUILD: run 'make kernel' first"
command -v sparse >/dev/null || die "sparse is missing: run 'make deps'"
git -C "$GITBASE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1 ||
	die "no pristine git tree in $GITBASE: run 'make patchset' first"
PSET=$BUILD/patchset
mapfile -t patches < <(find "$PSET" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
	! -name '0000-cover-letter.patch' | sort)
[ ${#patches[@]} -gt 0 ] || die "no patches in $PSET: run 'make patchset' first"

INTREE=$CACHE/intree-${KBUILD##*/kernel-}
WT=$INTREE/src
OUT=$INTREE/out
LOGS=$PSET/intree-check
MANIFEST=$OUT/.series-state
# The modules the configuration must build; roce_entropy_test once the
# series has added its option.
MODULES="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib"

mkdir -p "$INTREE" "$LOGS"
exec 9> "$INTREE/lock"
flock -n 9 || die "another intree-check is using $INTREE"
start=$SECONDS

# The files the series touches or adds.
series=$(sed -n 's|^+++ b/||p' "${patches[@]}" | sort -u)

# reset_tree: $WT = the tag base, nothing else, however the last run ended.
reset_tree() {
	if [ ! -f "$WT/.git" ]; then
		say "intree-check: checking out pristine Linux $KVER into $WT (once)"
		rm -rf "$WT"
		git -C "$GITBASE" worktree prune
		nice -n 19 git -C "$GITBASE" worktree add -q --detach "$WT" base
	else
		git -C "$WT" am --abort >/dev/null 2>&1 || true
		nice -n 19 git -C "$WT" checkout -q -f --detach base
		nice -n 19 git -C "$WT" clean -q -ffdx
	fi
	[ "$(git -C "$WT" rev-parse HEAD)" = "$(git -C "$GITBASE" rev-parse base)" ] &&
		[ -z "$(git -C "$WT" status --porcelain --ignored)" ] ||
		die "$WT is not pristine after the reset"
	say "intree-check: $WT is pristine Linux $KVER (tag base)"
}

# configure LOG: $OUT/.config = the test kernel's, plus the KUnit option
# when the tree has it; sets KUNIT=0/1.
configure() {
	local want=$OUT/.config.want opt

	mkdir -p "$OUT"
	cp "$KBUILD/.config" "$want"
	KUNIT=0
	if grep -qx 'config INFINIBAND_ROCE_ENTROPY_KUNIT_TEST' \
		"$WT/drivers/infiniband/Kconfig"; then
		"$WT/scripts/config" --file "$want" -m INFINIBAND_ROCE_ENTROPY_KUNIT_TEST
		KUNIT=1
	fi
	if ! cmp -s "$want" "$OUT/.config.input"; then
		cp "$want" "$OUT/.config"
		mv "$want" "$OUT/.config.input"
	fi
	make -C "$WT" O="$OUT" olddefconfig >> "$1" 2>&1 ||
		{ tail -n 20 "$1"; die "olddefconfig failed (log: $1)"; }
	for opt in INFINIBAND=m RDMA_RXE=m MLX5_INFINIBAND=m \
		$([ $KUNIT = 0 ] || echo INFINIBAND_ROCE_ENTROPY_KUNIT_TEST=m); do
		grep -qx "CONFIG_$opt" "$OUT/.config" ||
			die "CONFIG_$opt did not take in $OUT/.config"
	done
}

# build LOG: W=1 C=1 build of drivers/infiniband, then modpost and the
# modules' link; modules.order names what was built.
build() {
	local kos

	nice -n 19 make -C "$WT" O="$OUT" -j"$JOBS" W=1 C=1 KBUILD_MODPOST_WARN=1 \
		drivers/infiniband/ >> "$1" 2>&1 || return 1
	kos=$(sed -E 's/\.k?o$/.ko/' "$OUT/drivers/infiniband/modules.order")
	# shellcheck disable=SC2086
	nice -n 19 make -C "$WT" O="$OUT" -j"$JOBS" W=1 C=1 KBUILD_MODPOST_WARN=1 \
		$kos >> "$1" 2>&1
}

# warnings LOG: "file: warning: message" of every file, without line
# numbers; a header's warning once (every file that includes it repeats it).
warnings() {
	sed -E -n "s#^($WT/)?([^ :]+):[0-9]+:([0-9]+:)? ?((warning|error): .*)#\\2: \\4#p" "$1" |
		awk -F': ' '$1 !~ /\.h$/ || !seen[$0]++' | sort
}

# modpost_warnings LOG: modpost's warnings, but for unresolved symbols:
# without vmlinux.o it cannot know vmlinux's (unresolved() checks them).
modpost_warnings() {
	grep '^WARNING: modpost: ' "$1" |
		grep -vE ' undefined!$|suppressed [0-9]+ unresolved symbol' | sort -u || true
}

# unresolved: "module: symbol" for each symbol a module leaves undefined
# that neither these modules nor the test kernel (vmlinux and the modules
# outside drivers/infiniband, same source and configuration) export.
unresolved() {
	local ko

	[ -f "$OUT/modules-only.symvers" ] || die "modpost wrote no $OUT/modules-only.symvers"
	for ko in $(sed -E 's/\.k?o$/.ko/' "$OUT/drivers/infiniband/modules.order"); do
		nm -u "$OUT/$ko" | awk -v m="$ko" '{ print m ": " $2 }'
	done | awk 'NR == FNR { known[$1] = 1; next } !($2 in known)' \
		<(awk '{ print $2 }' "$OUT/modules-only.symvers" | cat - "$INTREE/known-symbols") -
}

# series_only: the lines of stdin about a file of the series.
series_only() {
	# shellcheck disable=SC2086
	awk -F': ' 'NR == FNR { s[$0] = 1; next } ($1 in s)' <(printf '%s\n' $series) -
}

# record_state / restore_state: the content and timestamp of the series'
# headers and build files at the last build; a file whose content is the
# same again gets its timestamp back.
record_state() {
	local f

	for f in $series; do
		[ -f "$WT/$f" ] || continue
		echo "$f $(git -C "$WT" hash-object -- "$f") $(stat -c %Y "$WT/$f")"
	done > "$MANIFEST"
}
restore_state() {
	local f sha mt

	[ -f "$MANIFEST" ] || return 0
	while read -r f sha mt; do
		case $f in *.c) continue ;; esac
		[ -f "$WT/$f" ] || continue
		[ "$(git -C "$WT" hash-object -- "$f")" = "$sha" ] || continue
		touch -m -d "@$mt" "$WT/$f"
	done < "$MANIFEST"
}

awk '$3 !~ /^drivers\/infiniband\// { print $2 }' "$KBUILD/Module.symvers" |
	sort -u > "$INTREE/known-symbols"
reset_tree

# Pristine 6.12's own warnings, once per compiler and sparse: a full build
# from an empty directory.
key="gcc $(gcc -dumpfullversion), sparse $(sparse --version)"
if [ ! -f "$INTREE/base.warnings" ] || [ ! -f "$INTREE/base.modpost" ] ||
	[ "$(cat "$INTREE/base.key" 2>/dev/null)" != "$key" ]; then
	say "intree-check: W=1 C=1 build of pristine $KVER drivers/infiniband (once; log $LOGS/base.log)"
	rm -rf "$OUT"
	: > "$LOGS/base.log"
	configure "$LOGS/base.log"
	build "$LOGS/base.log" || { tail -n 30 "$LOGS/base.log"; die "pristine $KVER does not build"; }
	record_state
	warnings "$LOGS/base.log" > "$INTREE/base.warnings.tmp"
	modpost_warnings "$LOGS/base.log" > "$INTREE/base.modpost"
	mv "$INTREE/base.warnings.tmp" "$INTREE/base.warnings"
	echo "$key" > "$INTREE/base.key"
fi

PASS=0 FAIL=0
result() {
	if [ "$1" = 0 ]; then
		PASS=$((PASS + 1))
		echo "ok - ${*:2}"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - ${*:2}"
	fi
}

applied=1
for p in "${patches[@]}"; do
	name=$(basename "$p" .patch)
	n=${name%%-*}
	log=$LOGS/$n.log
	: > "$log"
	if [ $applied = 0 ]; then
		result 1 "$name: not tried, an earlier patch did not apply"
		continue
	fi

	if ! git -C "$WT" am -q "$p" >> "$log" 2>&1; then
		grep -E '^(error|fatal):' "$log" || cat "$log"
		git -C "$WT" am --abort >/dev/null 2>&1 || true
		result 1 "$name: git am: does not apply to Linux $KVER with the patches before it"
		applied=0
		continue
	fi
	result 0 "$name: git am"

	# Build: the series' C files again (sparse checks what is compiled);
	# the object of one that this step lacks must not be used stale.
	restore_state
	for f in $series; do
		case $f in *.c) ;; *) continue ;; esac
		if [ -f "$WT/$f" ]; then
			touch "$WT/$f"
		else
			rm -f "$OUT/${f%.c}.o" "$OUT/$(dirname "$f")/.$(basename "${f%.c}").o.cmd"
		fi
	done
	configure "$log"
	say "intree-check: $n: W=1 C=1 build (log $log)"
	if ! build "$log"; then
		grep -m 20 -E 'error|Error|No rule|No such file' "$log" || true
		result 1 "$name: W=1 C=1 build of drivers/infiniband fails (log $log)"
	else
		record_state
		bad=
		mods=$(sed -E 's|.*/||; s/\.k?o$//' "$OUT/drivers/infiniband/modules.order")
		for m in $MODULES $([ $KUNIT = 0 ] || echo roce_entropy_test); do
			grep -qx "$m" <<< "$mods" || bad="$bad $m.ko was not built;"
		done
		# Every C file of the series in the tree went through sparse.
		for f in $series; do
			case $f in *.c) ;; *) continue ;; esac
			[ -f "$WT/$f" ] || continue
			grep -qE "^  CHECK +($WT/)?$f\$" "$log" || bad="$bad sparse did not check $f;"
		done
		new=$(comm -23 <(warnings "$log" | series_only) \
			<(series_only < "$INTREE/base.warnings"))
		[ -z "$new" ] || { echo "$new"; bad="$bad new warnings (above);"; }
		result "$([ -z "$bad" ]; echo $?)" "$name: W=1 C=1 build of drivers/infiniband," \
			"$(echo "$mods" | wc -l) modules, no new warnings in the series' files${bad:+:$bad}"

		bad=
		un=$(unresolved)
		[ -z "$un" ] || { echo "$un" | sed 's/^/undefined: /'; bad=" undefined symbols (above);"; }
		newmp=$(comm -23 <(modpost_warnings "$log") "$INTREE/base.modpost")
		[ -z "$newmp" ] || { echo "$newmp"; bad="$bad new modpost warnings (above);"; }
		result "$([ -z "$bad" ]; echo $?)" "$name: modpost: all symbols resolved, no new warnings${bad:+:$bad}"
	fi

	# FILE_PATH_CHANGES ("added, moved or deleted file(s), does MAINTAINERS
	# need updating?") fires for every new file; get_maintainer.pl below
	# checks instead that MAINTAINERS already covers the new files.
	out=$(cd "$WT" && scripts/checkpatch.pl --strict --quiet \
		--ignore FILE_PATH_CHANGES "$p" 2>&1) && rc=0 || rc=$?
	[ -z "$out" ] || echo "$out"
	result "$([ "$rc" = 0 ] && [ -z "$out" ]; echo $?)" \
		"$name: checkpatch --strict (FILE_PATH_CHANGES: see get_maintainer.pl)"

	added=$(git -C "$WT" diff --name-only --diff-filter=A HEAD~1 HEAD)
	if [ -n "$added" ]; then
		bad=
		for f in $added; do
			out=$(cd "$WT" && scripts/get_maintainer.pl --no-git \
				--no-git-fallback --no-rolestats -f "$f" 2>/dev/null) || true
			grep -qx 'linux-rdma@vger.kernel.org' <<< "$out" || bad="$bad $f"
		done
		result "$([ -z "$bad" ]; echo $?)" "$name: get_maintainer.pl: MAINTAINERS" \
			"covers its new files for linux-rdma${bad:+; not:$bad}"
	fi
done

echo "intree-check: $((SECONDS - start)) s; logs in $LOGS"
if [ $FAIL = 0 ]; then
	echo "intree-check: PASS ($PASS checks on ${#patches[@]} patches)"
else
	echo "intree-check: FAIL ($FAIL of $((PASS + FAIL)) checks failed)"
	exit 1
fi
