#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kABI check against an installed distribution kernel: can the modules of
# that kernel that we do not rebuild (ib_ipoib, rpcrdma, nvme-rdma, irdma,
# ...) still load beside ours?  With CONFIG_MODVERSIONS, modprobe refuses a
# module whose imported symbol has another CRC than the exporting module's
# ("disagrees about version of symbol").  KTAP on stdout:
#  - per module we replace: every symbol the distribution's module exports,
#    ours exports with the same CRC (new symbols are allowed);
#  - per module of the kernel that depends on one we replace (modules.dep):
#    each symbol it imports from them (modprobe --dump-modversions) is
#    exported by ours with the CRC it was built against.
# Ours are the modules modprobe takes for RELEASE, which DKMS (the roce-entropy-dkms package)
# put under updates/, or those in DIR (after make modules KDIR=, say); their
# CRCs are read from the modules themselves (ko-crcs.py).
#
#   tools/buildlib/kabi-check.sh RELEASE [DIR]
. "$(dirname "$0")/common.sh"

rel=${1:-}
[ -n "$rel" ] || die "usage: tools/buildlib/kabi-check.sh RELEASE [DIR] (RELEASE: an installed kernel, e.g. $(uname -r))"
moddir=/lib/modules/$rel
[ -f "$moddir/modules.dep" ] && [ -f "$moddir/build/Module.symvers" ] ||
	die "Linux $rel is not installed with its headers ($moddir/modules.dep, $moddir/build/Module.symvers)"
ksrc_init rdma
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"

export LC_ALL=C
REPLACED="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib"
# In a DIR, the modules built for this kernel's configuration (no rxe in
# Debian's cloud kernel): those replace the kernel's.
if [ -n "${2:-}" ]; then
	REPLACED=$(for m in $REPLACED; do ls "$2/$m".ko* > /dev/null 2>&1 && echo "$m"; done)
	REPLACED=$(echo $REPLACED)
	[[ " $REPLACED " == *" ib_core "* ]] || die "no ib_core.ko in $2: run 'make modules KDIR=$moddir/build'"
fi
ours=()
for m in $REPLACED; do
	if [ -n "${2:-}" ]; then
		f=$(ls "$2/$m".ko* 2>/dev/null | head -n 1)
	else
		f=$(modinfo -k "$rel" -F filename "$m" 2>/dev/null) || f=
		case $f in
		"$moddir/updates/"*) ;;
		*) die "Linux $rel's modprobe takes ${f:-no file} for $m, not ours under updates/: install the roce-entropy-dkms package, or name a DIR" ;;
		esac
	fi
	ours+=("$f")
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# SYMBOL<tab>CRC lines, sorted: ours, and the distribution's per module.
"$REPO/tools/buildlib/ko-crcs.py" "${ours[@]}" | sort -u > "$tmp/ours" ||
	die "could not read the CRCs of ${ours[*]}"
for m in $REPLACED; do
	awk -F'\t' -v m="$m" '$3 ~ "(^|/)" m "$" { print $2 "\t" $1 }' \
		"$moddir/build/Module.symvers" | sort > "$tmp/dist-$m"
done
cat "$tmp"/dist-* | cut -f1 | sort -u > "$tmp/replaced-symbols"

# The kernel's modules that need one of ours, without ours: their paths.
pattern=$(echo "$REPLACED" | sed 's/ /|/g; s/_/[-_]/g')
awk -F: -v re="/($pattern)\\\\.ko" '$2 ~ re && $1 !~ re { print $1 }' "$moddir/modules.dep" |
	sort > "$tmp/dependents"

# mismatches FILE: the lines of FILE (SYMBOL<tab>CRC) that ours lacks.
mismatches() {
	comm -23 "$1" "$tmp/ours"
}

ktap_print_header
ktap_set_plan $((1 + $(echo $REPLACED | wc -w) + $(wc -l < "$tmp/dependents")))
# The reader first: the distribution's own modules read as its
# Module.symvers says, or nothing below means anything.
for m in $REPLACED; do
	find "$moddir/kernel" -name "$m.ko*"
done > "$tmp/files-dist"
if xargs -a "$tmp/files-dist" "$REPO/tools/buildlib/ko-crcs.py" | sort -u |
	cmp -s - <(sort -u "$tmp"/dist-*); then
	ktap_test_pass "ko-crcs.py reads Linux $rel's own $(wc -l < "$tmp/files-dist") modules as its Module.symvers has them"
else
	ktap_test_fail "ko-crcs.py reads Linux $rel's own modules as its Module.symvers has them"
fi
for m in $REPLACED; do
	n=$(wc -l < "$tmp/dist-$m")
	bad=$(mismatches "$tmp/dist-$m")
	if [ -z "$bad" ]; then
		ktap_test_pass "$m: the $n symbols Linux $rel's $m exports keep their CRCs in ours"
	else
		echo "$bad" | sed 's/^/# changed or missing: /'
		ktap_test_fail "$m: $(echo "$bad" | wc -l) of the $n symbols Linux $rel's $m exports differ in ours"
	fi
done
while read -r path; do
	name=$(basename "$path" | sed 's/\.ko.*//')
	# SYMBOL<tab>CRC of its imports that the replaced modules export
	modprobe --dump-modversions "$moddir/$path" | awk '{ print $2 "\t" $1 }' | sort |
		join -t "$(printf '\t')" - "$tmp/replaced-symbols" > "$tmp/imports"
	n=$(wc -l < "$tmp/imports")
	bad=$(mismatches "$tmp/imports")
	if [ -z "$bad" ]; then
		ktap_test_pass "$name: its $n imports from the replaced modules match ours"
	else
		echo "$bad" | sed 's/^/# changed or missing: /'
		ktap_test_fail "$name: $(echo "$bad" | wc -l) of its $n imports from the replaced modules differ in ours"
	fi
done < "$tmp/dependents"
ktap_finished
