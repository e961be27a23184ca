#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# W=1 and sparse (C=1) over drivers/infiniband with our series: no warning
# may name one of our files, and the files our patches touch may have no
# warning that the same file lacks in pristine 6.12 (cma.c, for one, has
# sparse "context imbalance" warnings of its own; line numbers are ignored
# in the comparison since patches move lines).  Built in $BUILD/tree-lint,
# so the flags do not force rebuilds of $BUILD/tree; the pristine warnings
# are computed once per kernel version and cached.
. "$(dirname "$0")/common.sh"

ksrc_init
[ -f "$KBUILD/.built-ok" ] || die "no test kernel: run 'make kernel' first"
command -v sparse >/dev/null || die "sparse is missing: run 'make deps'"

# lint_build TREE LOG: W=1 C=1 build of TREE/drivers/infiniband.
lint_build() {
	make -C "$KBUILD" M="$1/drivers/infiniband" -j"$JOBS" \
		NOSTDINC_FLAGS="-nostdinc -I$1/include" \
		CONFIG_INFINIBAND_ROCE_ENTROPY_KUNIT_TEST=m W=1 C=1 modules > "$2" 2>&1 ||
		{ tail -n 30 "$2"; die "the W=1 C=1 build in $1 failed"; }
}

# warnings LOG TREE FILE...: "file: message" lines, without line numbers.
warnings() {
	local log=$1 tree=$2 f

	shift 2
	for f in "$@"; do
		grep -E "^$tree/$f:[0-9]+:[0-9]+: (warning|error)" "$log" |
			sed -E "s|^$tree/($f):[0-9]+:[0-9]+: |\\1: |" || true
	done | sort
}

ours=$(cd "$REPO" && find drivers include -name '*.[ch]' | sort)
patched=$(sed -n 's|^+++ b/||p' "$REPO"/patches/*.patch | sort -u)

base=$CACHE/lint-base-$KVER.log
if [ ! -f "$base" ]; then
	say "W=1 C=1 build of pristine $KVER drivers/infiniband (once)"
	rm -rf "$BUILD/tree-base"
	for d in $TREE_DIRS; do
		mkdir -p "$BUILD/tree-base/$(dirname "$d")"
		cp -a "$KSRC/$d" "$BUILD/tree-base/$d"
	done
	lint_build "$BUILD/tree-base" "$base.tmp"
	sed -i "s|$BUILD/tree-base/|PRISTINE/|g" "$base.tmp"
	mv "$base.tmp" "$base"
	rm -rf "$BUILD/tree-base"
fi

stage_src
sync_tree "$BUILD/src" "$BUILD/tree-lint"
# Recompile them so that sparse sees them again.
for f in $ours $patched; do
	case $f in *.c) touch "$BUILD/tree-lint/$f" ;; esac
done
log=$BUILD/lint.log
say "W=1 C=1 build of drivers/infiniband with the series (log: $log)"
lint_build "$BUILD/tree-lint" "$log"

bad=$(warnings "$log" "$BUILD/tree-lint" $ours)
new=$(comm -23 <(warnings "$log" "$BUILD/tree-lint" $patched) \
	<(warnings "$base" PRISTINE $patched))
if [ -n "$bad$new" ]; then
	printf '%s\n' $bad "$new" | sed '/^$/d'
	die "W=1/sparse warnings in our files, or new ones in patched files (above)"
fi
say "W=1 and sparse: no warnings in our $(echo $ours | wc -w) files," \
	"none new in the $(echo $patched | wc -w) patched files"
