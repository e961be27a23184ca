#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build rdma-core with the patches of tools/rdma-core/series and run their
# tests: the distribution's rdma-core source (the upstream tarball of
# Debian 13's rdma-core 56.1-1 source package), the patches in order with
# no fuzz, then with rdma-core's own CMake and its warnings as errors the
# two providers the patches change (mlx5, hns), the patches' unit test
# (util/tests/roce_entropy_test) and tools/rdma-core/vectors-test.c, which
# checks the patched helpers and mlx5's WQE address against the kernel's
# golden vectors.
#
#   rdma-core.sh        build, and say where
#   rdma-core.sh test   build, run both tests, print KTAP
#
# The tree, in the cache, is rebuilt only when something it is made of
# changes (the tarball, the patches, the vectors, this script, the
# compiler); the tests run every time.  Two runs at once (make check in two
# clones) take turns.
#
# ENTROPY_DEBIAN_MIRROR  the Debian archive to fetch it from (default
#                    deb.debian.org; once the archive no longer has 56.1, a
#                    snapshot: http://snapshot.debian.org/archive/debian/20250601T000000Z)
. "$(dirname "$0")/common.sh"

# The tarball the patches are made for, and its SHA-256 as Debian's
# signed source index (trixie main, rdma-core 56.1-1) gives it.
TARBALL=rdma-core_56.1.orig.tar.gz
SHA256=63ce7f2baa7242c2dbc76375dac957c420187dd27f8c5e148efc07971ee522a8
MIRROR=${ENTROPY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SRC=$CACHE/rdma-core-src
OUT=$CACHE/rdma-core-build
PATCHES=$REPO/tools/rdma-core
VECTORS=$REPO/drivers/infiniband/core

# fetch: the tarball, once, checked by apt's helper against its SHA-256.
fetch() {
	local url=$MIRROR/pool/main/r/rdma-core/$TARBALL

	say "rdma-core: fetching $url"
	/usr/lib/apt/apt-helper download-file "$url" "$SRC/$TARBALL.part" "SHA256:$SHA256" \
		> "$SRC/fetch.log" 2>&1 ||
		{ tail -n 5 "$SRC/fetch.log"; die "fetching $url failed: check the network, or set ENTROPY_DEBIAN_MIRROR to a mirror or snapshot that has it"; }
	mv "$SRC/$TARBALL.part" "$SRC/$TARBALL"
}

# build: the patched tree and what the tests need, into $OUT.
build() {
	local tree=$OUT/src n

	rm -rf "$OUT"
	mkdir -p "$tree"
	tar -C "$tree" --strip-components=1 -xf "$orig"
	n=$(apply_series "$tree" "$PATCHES/series" "$TARBALL")
	mkdir -p "$OUT/build"
	(cd "$OUT/build" && cmake -GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DENABLE_WERROR=1 \
		-DCMAKE_BUILD_TYPE=Release "$tree") > "$OUT/configure.log" 2>&1 ||
		{ tail -n 20 "$OUT/configure.log"; die "rdma-core's cmake failed (log $OUT/configure.log)"; }
	ninja -C "$OUT/build" -j"$JOBS" mlx5 hns roce_entropy_test > "$OUT/build.log" 2>&1 ||
		{ grep -E 'error|warning' "$OUT/build.log" | head -n 30; die "rdma-core failed to build (log $OUT/build.log)"; }
	# rdma-core's own warnings (it builds with -Wno-sign-compare and
	# -Wno-unused-parameter, which its inline headers need)
	cc -std=gnu11 -O2 -Wall -Wextra -Wshadow -Wno-sign-compare -Wno-unused-parameter -Werror \
		-I "$OUT/build/include" -I "$tree/providers/mlx5" -I "$VECTORS" -o "$OUT/vectors-test" \
		"$PATCHES/vectors-test.c" > "$OUT/vectors.log" 2>&1 ||
		{ cat "$OUT/vectors.log"; die "tools/rdma-core/vectors-test.c failed to build"; }
	echo "$key" > "$OUT/key"
	say "rdma-core: $(basename "$orig") with $n patch(es) of tools/rdma-core: mlx5, hns and the tests in $OUT"
}

# test: KTAP on standard output, the rest on standard error
[ "${1:-}" != test ] || exec 3>&1 1>&2
command -v cmake > /dev/null && command -v ninja > /dev/null ||
	die "cmake or ninja is missing: run 'make deps'"
mkdir -p "$SRC"
exec 9> "$CACHE/rdma-core.lock"
flock 9
orig=$SRC/$TARBALL
[ -f "$orig" ] || fetch

key=$( (echo "$TARBALL $SHA256"; cat "$0" "$PATCHES/series" "$PATCHES"/*.patch \
	"$PATCHES/vectors-test.c" "$VECTORS"/roce_entropy_*vectors.h; cc --version; cmake --version) |
	sha256sum | cut -c1-64)
if [ "$(cat "$OUT/key" 2> /dev/null)" = "$key" ] && [ -x "$OUT/vectors-test" ] &&
	[ -x "$OUT/build/bin/roce_entropy_test" ]; then
	say "rdma-core: $OUT is up to date"
else
	build
fi
[ "${1:-}" = test ] || exit 0

exec 1>&3 3>&-
set +e
trap - ERR
ksrc_init rdma > /dev/null
# shellcheck source=/dev/null # the kernel tree's
. "$KSRC/$KTAP_HELPERS"
ktap_print_header
ktap_set_plan 3
ktap_test_pass "rdma-core $(basename "$orig") with tools/rdma-core: mlx5 and hns build, warnings as errors"
if out=$("$OUT/build/bin/roce_entropy_test" 2>&1); then
	ktap_test_pass "rdma-core: util/tests/roce_entropy_test (values worked out by hand, symmetry, the knob)"
else
	sed 's/^/# /' <<< "$out"
	ktap_test_fail "rdma-core: util/tests/roce_entropy_test"
fi
if out=$("$OUT/vectors-test" 2>&1); then
	ktap_test_pass "rdma-core: util/roce_entropy.h and mlx5's WQE address against the kernel's golden vectors (fold, UD)"
else
	sed 's/^/# /' <<< "$out"
	ktap_test_fail "rdma-core: util/roce_entropy.h against the kernel's golden vectors"
fi
ktap_finished
