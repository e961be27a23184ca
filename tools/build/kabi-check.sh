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
#
#   tools/build/kabi-check.sh RELEASE   after make modules KDIR=/lib/modules/RELEASE/build
. "$(dirname "$0")/common.sh"

rel=${1:-}
[ -n "$rel" ] || die "usage: tools/build/kabi-check.sh RELEASE (an installed kernel, e.g. $(uname -r))"
moddir=/lib/modules/$rel
tree=$BUILD/kdir/$rel/tree
[ -f "$moddir/modules.dep" ] && [ -f "$moddir/build/Module.symvers" ] ||
	die "Linux $rel is not installed with its headers ($moddir/modules.dep, $moddir/build/Module.symvers)"
[ -f "$tree/drivers/infiniband/core/Module.symvers" ] ||
	die "no modules built for Linux $rel: run 'make modules KDIR=$moddir/build'"
ksrc_init
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"

export LC_ALL=C
REPLACED="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# SYMBOL<tab>CRC lines, sorted: ours, and the distribution's per module.
cat "$tree"/drivers/infiniband/{core,sw/rxe,hw/mlx5}/Module.symvers |
	awk -F'\t' '{ print $2 "\t" $1 }' | sort -u > "$tmp/ours"
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
ktap_set_plan $(($(echo $REPLACED | wc -w) + $(wc -l < "$tmp/dependents")))
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
