#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the roce_entropy KUnit suites with the kernel's own kunit.py, in QEMU,
# on a 6.12 tree with our series applied.  The tree is a hard-linked copy of
# the kernel source (patched files are replaced, never written through) and
# the build directory is cached, so a rerun rebuilds only what changed.
. "$(dirname "$0")/common.sh"

ksrc_init
KTREE=$CACHE/kunit-src-$KVER
KOUT=$CACHE/kunit-build-$KVER

if [ ! -f "$KTREE/.linked" ]; then
	say "kunit: hard-linking $KSRC to $KTREE"
	rm -rf "$KTREE"
	cp -al "$KSRC" "$KTREE"
	touch "$KTREE/.linked"
fi
stage_src
for d in $TREE_DIRS; do
	sync_tree "$BUILD/src/$d" "$KTREE/$d" --delete
done

say "kunit: building and running (the first build takes several minutes)"
mkdir -p "$BUILD"
rc=0
(cd "$KTREE" && python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--build_dir="$KOUT" --kunitconfig="$REPO/tools/testing/kunitconfig" \
	--jobs="$JOBS" --timeout=300) > "$BUILD/kunit.log" 2>&1 || rc=$?
grep -E '^\[[0-9:]+\] (=+ \[|Testing complete|Elapsed|.*(FAILED|CRASHED|ERROR))' \
	"$BUILD/kunit.log" | tail -n 40 || true
summary=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$BUILD/kunit.log" | tail -n 1)
[ -n "$summary" ] || { tail -n 30 "$BUILD/kunit.log"; die "kunit.py did not finish: see $BUILD/kunit.log"; }
echo "$summary" | sed 's/^\[[0-9:]*\] //' > "$BUILD/kunit.summary"
[ "$rc" = 0 ] || die "KUnit failed (kunit.py exit $rc): see $BUILD/kunit.log"
say "kunit: $(cat "$BUILD/kunit.summary")"
