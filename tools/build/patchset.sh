#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make patchset: the series in upstream form, `git format-patch` output
# against Linux 6.12, in build/patchset/: 0000-cover-letter.patch (from
# patches/cover-letter.txt), then one commit per entry of patches/series:
# the patch plus the new files that patches/new-files gives it, with the
# patch's From:, Subject: and description as author and message.  The RFC
# series on top of it, patches/rfc/ (re-path), the same way in
# build/patchset/rfc/, its subjects "[RFC PATCH n/m]".
#
# The commits are those of make series-edit (series.sh), without their
# "Patch:" lines, made on a git repository of the pristine directories the
# series touches, kept in the cache ($GITBASE), through a temporary index:
# no working tree is written.
. "$(dirname "$0")/series.sh"

OUT=$BUILD/patchset
COVER=$REPO/patches/cover-letter.txt
RFC_COVER=$REPO/patches/rfc/cover-letter.txt

[ -s "$COVER" ] || die "patches/cover-letter.txt is missing or empty"
[ -s "$RFC_COVER" ] || die "patches/rfc/cover-letter.txt is missing or empty"
ksrc_init
command -v git > /dev/null || die "git is missing: run 'make deps'"
gitbase_init
for rel in $(series_patches patches "$REPO") $(series_patches patches/rfc "$REPO"); do
	grep -q '^Signed-off-by: ' <<< "$(hdr_body "$REPO/$rel")" ||
		die "$rel: no Signed-off-by: in its description"
done
chain "$GITBASE" "$REPO" 0
say "patchset: $CHAIN_PATCHES commits on $GITBASE's base (the series, rfc/, compat/)"

work=$(mktemp -d "${TMPDIR:-/tmp}/patchset.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The cover letters: first paragraph the subject, the rest the body.
git -C "$GITBASE" config branch.series-patches.description "$(sed "s/@KVER@/$KVER/g" "$COVER")"
git -C "$GITBASE" format-patch -q --cover-letter --cover-from-description=subject \
	-o "$work/out" base..series-patches
git -C "$GITBASE" config branch.series-rfc.description "$(sed "s/@KVER@/$KVER/g" "$RFC_COVER")"
git -C "$GITBASE" format-patch -q --cover-letter --cover-from-description=subject \
	--subject-prefix="RFC PATCH" -o "$work/out/rfc" series-patches..series-rfc
for c in "$work/out/0000-cover-letter.patch" "$work/out/rfc/0000-cover-letter.patch"; do
	! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$c" ||
		die "format-patch did not take the cover letter from patches/${c#"$work/out/"}"
done
rm -rf "$OUT"
mkdir -p "$BUILD"
mv "$work/out" "$OUT"
say "patchset: $OUT: $(cd "$OUT" && echo *)"
