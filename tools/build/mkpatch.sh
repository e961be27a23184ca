#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Maintainer helper: write patches/NAME.patch from two trees A and B that
# hold the pristine and edited copies of the touched files (same layout as
# the kernel tree), keeping the header (description) of an existing patch.
#   tools/build/mkpatch.sh A B patches/NNNN-name.patch
set -euo pipefail
a=$1 b=$2 out=$3
header=
if [ -f "$out" ]; then
	header=$(sed -n '/^--- a\//q;p' "$out")
fi
{
	[ -z "$header" ] || printf '%s\n' "$header"
	# git's hunk headers: the whole line of the enclosing function
	(cd "$(dirname "$a")" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git diff --no-index --no-color -U3 \
		"$(basename "$a")" "$(basename "$b")") |
		sed -e 's|^--- a/[^/]*/|--- a/|' -e 's|^+++ b/[^/]*/|+++ b/|' |
		grep -v -e '^diff --git ' -e '^index '
} > "$out.tmp" || true
mv "$out.tmp" "$out"
