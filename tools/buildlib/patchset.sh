#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make patchset: the series in upstream form, `git format-patch` output
# against Linux 6.12, in build/patchset/: 0000-cover-letter.patch (from
# patches/cover-letter.txt), then one commit per entry of patches/series:
# the patch plus the new files that patches/new-files gives it, with the
# patch's Subject: and description as its message.  The RFC series on top
# of it, patches/rfc/ (re-path), the same way in build/patchset/rfc/, its
# subjects "[RFC PATCH n/m]".
#
# The stored patches are unsigned: only a person can certify the
# Developer's Certificate of Origin.  The posting is the submitter's: its
# From: and Signed-off-by: are the git identity of this repository
# (git config user.name and user.email), or PATCHSET_SIGNER="Name
# <address>"; without one nothing is written.  PATCHSET_CHECK=1 (the series
# check and the cover letter check) writes build/patchset-check/ instead,
# signed by a stand-in that says so, never to be posted, with compat/'s
# patches in its compat/ for checkpatch.
#
# The commits are those of make series-edit (series.sh), without their
# "Patch:" lines, made on a git repository of the pristine directories the
# series touches, kept in the cache ($GITBASE), through a temporary index:
# no working tree is written.
REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
# The submitter's identity, read before series.sh keeps the user's git
# configuration out of everything else.
if [ "${PATCHSET_CHECK:-0}" = 1 ]; then
	SIGNER="Unsigned series check <unsigned@invalid>"
	OUT_NAME=patchset-check
else
	SIGNER=${PATCHSET_SIGNER:-}
	if [ -z "$SIGNER" ]; then
		name=$(git -C "$REPO_DIR" config user.name 2> /dev/null) || name=
		email=$(git -C "$REPO_DIR" config user.email 2> /dev/null) || email=
		[ -z "$name" ] || [ -z "$email" ] || SIGNER="$name <$email>"
	fi
	OUT_NAME=patchset
fi
. "$(dirname "$0")/series.sh"

# PATCHSET_OUT: another directory (the round trip's test writes there)
OUT=${PATCHSET_OUT:-$BUILD/$OUT_NAME}
COVER=$REPO/patches/cover-letter.txt
RFC_COVER=$REPO/patches/rfc/cover-letter.txt

[ -n "$SIGNER" ] ||
	die "no git identity to sign the posting with: the patches are stored unsigned, and only a person can certify the Developer's Certificate of Origin; set git config user.name and user.email, or PATCHSET_SIGNER='Name <address>'"
grep -qE '^[^<>]+ <[^<>@ ]+@[^<>@ ]+>$' <<< "$SIGNER" ||
	die "the signer '$SIGNER' is not 'Name <address>'"
[ -s "$COVER" ] || die "patches/cover-letter.txt is missing or empty"
[ -s "$RFC_COVER" ] || die "patches/rfc/cover-letter.txt is missing or empty"
ksrc_init
command -v git > /dev/null || die "git is missing: run 'make deps'"
gitbase_init
# The cover letters are the signer's too.
export GIT_COMMITTER_NAME=${SIGNER% <*}
GIT_COMMITTER_EMAIL=${SIGNER##*<}
export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL%>}
chain "$GITBASE" "$REPO" 0 "$SIGNER"
say "patchset: $CHAIN_PATCHES commits on $GITBASE's base (the series, rfc/, compat/), signed by $SIGNER"

work=$(mktemp -d "${TMPDIR:-/tmp}/patchset.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The cover letters: first paragraph the subject, the rest the body.
git -C "$GITBASE" config branch.series-patches.description "$(sed "s/@KVER@/$KVER/g" "$COVER")"
git -C "$GITBASE" format-patch -q --cover-letter --cover-from-description=subject \
	-o "$work/out" base..series-patches
git -C "$GITBASE" config branch.series-rfc.description "$(sed "s/@KVER@/$KVER/g" "$RFC_COVER")"
git -C "$GITBASE" format-patch -q --cover-letter --cover-from-description=subject \
	--subject-prefix="RFC PATCH" -o "$work/out/rfc" series-patches..series-rfc
# The check's copy signs compat/ too, for checkpatch (never posted).
[ "${PATCHSET_CHECK:-0}" != 1 ] ||
	git -C "$GITBASE" format-patch -q -o "$work/out/compat" series-rfc..series-compat
for c in "$work/out/0000-cover-letter.patch" "$work/out/rfc/0000-cover-letter.patch"; do
	! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$c" ||
		die "format-patch did not take the cover letter from patches/${c#"$work/out/"}"
done
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
mv "$work/out" "$OUT"
say "patchset: $OUT: $(cd "$OUT" && echo *)"
