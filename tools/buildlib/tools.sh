#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the C++ tooling (tools/roce-entropy) into build/bin/roce-entropy.
#   tools.sh          release build
#   tools.sh test     also an ASan/UBSan build, its GoogleTest programs
#                     (results in build/tools-asan/gtest/*.xml) and an
#                     install check
. "$(dirname "$0")/common.sh"

src=$REPO/tools/roce-entropy
cmake_init
# The package's version, the one debian/rules gives its build too.
version=$("$REPO/tools/buildlib/version.sh")
CMAKE_ARGS+=(-DROCE_VERSION="$version")

build() {
	local dir=$1

	shift
	# A build tree left by an older layout of the sources cannot always be
	# generated over (a program's file where a folder now goes): once, start
	# it again.
	cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${CMAKE_ARGS[@]}" "$@" \
		> "$dir.cmake.log" 2>&1 ||
		{ rm -rf "$dir" && cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			"${CMAKE_ARGS[@]}" "$@" > "$dir.cmake.log" 2>&1; } ||
		{ cat "$dir.cmake.log"; die "cmake failed in $dir"; }
	cmake --build "$dir" -j"$JOBS" > "$dir.build.log" 2>&1 ||
		{ grep -E 'error|warning' "$dir.build.log" | head -n 30; die "the C++ build failed: $dir.build.log"; }
}

mkdir -p "$BUILD/bin"
# The GoogleTest programs are built and run in the sanitizer build only.
build "$BUILD/tools" -DBUILD_TESTING=OFF
# Every program lands in the build tree's bin/; the benchmark is not installed.
cp "$BUILD/tools/bin/roce-entropy" "$BUILD/tools/bin/roce-ping" "$BUILD/tools/bin/roce-lab" \
	"$BUILD/tools/bin/roce-qps" "$BUILD/tools/bin/roce-flows" "$BUILD/tools/bin/roce_entropy_bench" \
	"$BUILD/tools/bin/rxe-wqe-av" "$BUILD/bin/"
say "tools: $BUILD/bin/roce-entropy"

if [ "${1:-}" = test ]; then
	# -O0 -g1: line tables for the reports, no optimiser.  Cold, its
	# compiles take 409 CPU s against 547 at -O1; the tests 7 s against 6.
	build "$BUILD/tools-asan" -DROCE_SANITIZE=ON -DCMAKE_BUILD_TYPE=None \
		-DCMAKE_CXX_FLAGS="-O0 -g1"
	# Each test program runs once, writing GoogleTest's JUnit XML (one
	# process per case, as ctest runs them, costs 80 s of ASan start-ups
	# for 4 s of tests).  A failed case is in its XML; a program that
	# exits non-zero with none (a sanitizer report at exit, a crash before
	# the XML) fails here.
	say "tools: GoogleTest under ASan/UBSan"
	xml=$BUILD/tools-asan/gtest
	rm -rf "$xml"
	mkdir -p "$xml"
	failed=0
	for t in "$BUILD"/tools-asan/bin/*_tests; do
		rc=0
		timeout 600 "$t" --gtest_output="xml:$xml/${t##*/}.xml" || rc=$?
		if [ $rc != 0 ]; then
			failed=1
			grep -qs '<failure' "$xml/${t##*/}.xml" ||
				echo "error: ${t##*/} exited $rc, and no case failed (above)" >&2
		fi
	done
	# What "cmake --install" puts under a prefix: the programs, which
	# run, their man pages and bash completions.
	stage=$BUILD/tools-install
	rm -rf "$stage"
	cmake --install "$BUILD/tools" --prefix "$stage" > "$stage.log" 2>&1 ||
		{ cat "$stage.log"; die "cmake --install failed"; }
	for prog in roce-entropy roce-ping roce-lab roce-qps roce-flows rxe-wqe-av; do
		[ "$("$stage/bin/$prog" --version)" = "$prog $version" ] ||
			die "$stage/bin/$prog --version does not print the package's version, $version"
		[ -f "$stage/share/man/man1/$prog.1" ] || die "no man page $prog.1 installed"
		[ -f "$stage/share/bash-completion/completions/$prog" ] ||
			die "no bash completion installed for $prog"
		if command -v groff >/dev/null &&
			groff -man -Tutf8 -ww -z "$stage/share/man/man1/$prog.1" 2>&1 | grep .; then
			die "$prog.1: groff warns (above)"
		fi
	done
	say "tools: cmake --install: $(cd "$stage" && find . -type f | sort | tr '\n' ' ')"
	[ $failed = 0 ] || die "GoogleTest failed (above; its XML in $xml)"
fi
