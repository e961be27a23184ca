#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the C++ tooling (tools/roce-entropy) into build/bin/roce-entropy.
#   tools.sh          release build
#   tools.sh test     also an ASan/UBSan build, and its GoogleTest suite
. "$(dirname "$0")/common.sh"

src=$REPO/tools/roce-entropy
# ccache, when installed, keeps the compiler's work across build trees (a
# fresh clone builds from it): its files live in the cache.
launcher=()
if command -v ccache >/dev/null; then
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

build() {
	local dir=$1

	shift
	cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" "$@" \
		> "$dir.cmake.log" 2>&1 ||
		{ cat "$dir.cmake.log"; die "cmake failed in $dir"; }
	cmake --build "$dir" -j"$JOBS" > "$dir.build.log" 2>&1 ||
		{ grep -E 'error|warning' "$dir.build.log" | head -n 30; die "the C++ build failed: $dir.build.log"; }
}

mkdir -p "$BUILD/bin"
build "$BUILD/tools"
cp "$BUILD/tools/roce-entropy" "$BUILD/tools/roce-ping" "$BUILD/tools/roce-qps" \
	"$BUILD/tools/roce_entropy_bench" "$BUILD/tools/rxe-wqe-av/rxe-wqe-av" "$BUILD/bin/"
say "tools: $BUILD/bin/roce-entropy"

if [ "${1:-}" = test ]; then
	build "$BUILD/tools-asan" -DROCE_SANITIZE=ON
	say "tools: GoogleTest under ASan/UBSan"
	(cd "$BUILD/tools-asan" && ctest --output-on-failure -j"$JOBS" --output-junit junit.xml)
fi
