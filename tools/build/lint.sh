#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# W=1 and sparse (C=1) over our kernel files and every file our patches
# touch: any warning that names one of them fails.  (The untouched upstream
# files have warnings of their own in 6.12; those are not ours to judge.)
# Built in $BUILD/tree-lint so the flags do not force rebuilds of
# $BUILD/tree.
. "$(dirname "$0")/common.sh"

ksrc_init
[ -f "$KBUILD/.built-ok" ] || die "no test kernel: run 'make kernel' first"
command -v sparse >/dev/null || die "sparse is missing: run 'make deps'"
stage_src
sync_tree "$BUILD/src" "$BUILD/tree-lint"

ours=$(cd "$REPO" && find drivers include -name '*.[ch]' | sort)
patched=$(sed -n 's|^+++ b/||p' "$REPO"/patches/*.patch | sort -u)
files=$(printf '%s\n' $ours $patched | sort -u)
# Recompile them so that sparse sees them again.
for f in $files; do
	case $f in *.c) touch "$BUILD/tree-lint/$f" ;; esac
done

log=$BUILD/lint.log
say "W=1 C=1 build of drivers/infiniband (log: $log)"
make -C "$KBUILD" M="$BUILD/tree-lint/drivers/infiniband" -j"$JOBS" \
	NOSTDINC_FLAGS="-nostdinc -I$BUILD/tree-lint/include" \
	CONFIG_INFINIBAND_ROCE_ENTROPY_KUNIT_TEST=m W=1 C=1 modules > "$log" 2>&1 ||
	{ tail -n 30 "$log"; die "the W=1 C=1 build failed"; }

bad=0
for f in $files; do
	if grep -E "/$f:[0-9]+:[0-9]+: (warning|error)" "$log"; then
		bad=1
	fi
done
[ $bad = 0 ] || die "W=1/sparse warnings in our files or patched files (above)"
say "W=1 and sparse: no warnings in $(echo $files | wc -w) files"
