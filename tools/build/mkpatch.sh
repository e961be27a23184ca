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
	(cd "$(dirname "$a")" && diff -U3 -r "$(basename "$a")" "$(basename "$b")") |
		sed -e 's|^--- [^/]*/\([^\t]*\).*|--- a/\1|' \
		    -e 's|^+++ [^/]*/\([^\t]*\).*|+++ b/\1|' |
		grep -v '^diff -U3'
} > "$out.tmp" || true
mv "$out.tmp" "$out"
