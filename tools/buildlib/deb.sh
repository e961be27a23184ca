#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the Debian packages of debian/, built with debhelper
# (dpkg-buildpackage -b) from a copy of the tree whose changelog gains an
# entry of the git version (tools/buildlib/version.sh), then checked with
# lintian (errors and warnings fail):
#   roce-entropy-dkms   the sources, dkms.conf, roce-entropy-dkms and the
#                       kernel hooks that run it for 6.12 kernels
#   roce-entropy-tools  roce-entropy and roce-ping, with their man pages
#
#   deb.sh [OUTDIR [VERSION [indep]]]   default build/deb and the git
#                               version; "indep": roce-entropy-dkms only
#                               (make check builds an older VERSION of it,
#                               to upgrade from)
. "$(dirname "$0")/common.sh"

OUT=$(realpath -m "${1:-$BUILD/deb}")
VERSION=${2:-$("$REPO/tools/buildlib/version.sh")}
NAME=roce-entropy
command -v dpkg-buildpackage > /dev/null && command -v dh > /dev/null &&
	command -v lintian > /dev/null ||
	die "debhelper or lintian is missing: run tools/buildlib/deps.sh deb"

rm -rf "$OUT"
src=$OUT/src/$NAME-$VERSION
mkdir -p "$src"
# The tree as git sees it (tracked, and new files not ignored), or all of
# it but build/ outside git.
if git -C "$REPO" rev-parse --git-dir > /dev/null 2>&1; then
	(cd "$REPO" && git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$src")
else
	(cd "$REPO" && tar --exclude=./build -cf - .) | tar -C "$src" -xf -
fi
{
	printf '%s (%s) unstable; urgency=medium\n\n' "$NAME" "$VERSION"
	if git -C "$REPO" rev-parse --git-dir > /dev/null 2>&1; then
		git -C "$REPO" log -1 --format='Built from git commit %h: %s.' |
			fold -s -w 72 | sed '1s/^/  * /; 2,$s/^/    /; s/ *$//'
		echo
	else
		printf '  * Built from a tree without git.\n\n'
	fi
	printf ' -- %s  %s\n\n' "$(sed -n 's/^Maintainer: //p' "$REPO/debian/control")" "$(date -R)"
	cat "$REPO/debian/changelog"
} > "$src/debian/changelog"

say "building $NAME $VERSION with dpkg-buildpackage (log $OUT/build.log)"
# The tools compile through ccache when it is there.
if command -v ccache > /dev/null; then
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache} CCACHE_BASEDIR=$src CCACHE_NOHASHDIR=true
	export CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
(cd "$src" && dpkg-buildpackage "$([ "${3:-}" = indep ] && echo -A || echo -b)" -us -uc -j"$JOBS") > "$OUT/build.log" 2>&1 ||
	{ tail -n 30 "$OUT/build.log"; die "dpkg-buildpackage failed (log $OUT/build.log)"; }
mv "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT/"
say "lintian (log $OUT/lintian.log)"
if ! lintian --fail-on error,warning \
	"$OUT"/*.changes > "$OUT/lintian.log" 2>&1; then
	cat "$OUT/lintian.log"
	die "lintian found errors or warnings (above)"
fi
ls "$OUT"/*.deb
