#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The version of the packages and of DKMS's module: debian/changelog's
# newest version, and in a git tree "+git<commits>.g<commit>", so that a
# package built from a later commit upgrades the one before, with ".dirty"
# when tracked files differ from that commit: such a build is not the
# commit it names.
#   tools/buildlib/version.sh
. "$(dirname "$0")/common.sh"

base=$(sed -n '1s/^roce-entropy (\([^)]*\)).*/\1/p' "$REPO/debian/changelog")
[ -n "$base" ] || die "no version in the first line of debian/changelog"
if git -C "$REPO" rev-parse --git-dir > /dev/null 2>&1; then
	dirty=
	git -C "$REPO" diff --quiet HEAD -- || dirty=.dirty
	echo "$base+git$(git -C "$REPO" rev-list --count HEAD).g$(git -C "$REPO" rev-parse --short=7 HEAD)$dirty"
else
	echo "$base"
fi
