#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make patchset: the series in upstream form, `git format-patch` output
# against Linux 6.12, in build/patchset/: 0000-cover-letter.patch (from
# patches/cover-letter.txt), then one commit per entry of patches/series:
# the quilt patch plus the new files that patches/new-files gives it, with
# the patch's From:, Subject: and description as author and message.  The
# RFC series on top of it, patches/rfc/ (re-path), the same way in
# build/patchset/rfc/, its subjects "[RFC PATCH n/m]".
#
# A later patch may change a file an earlier one added: the repository has
# the file as the whole series leaves it, and the earlier patch adds it
# with the later patches' sections for it taken back out (as_added).
#
# The commits are made, with fixed dates, on the branch "roce-entropy" of a
# git repository of the pristine directories the series touches, made once
# in the cache ($GITBASE: one commit, tag "base"), through a temporary
# index: no working tree is written.
. "$(dirname "$0")/common.sh"

DATE=${PATCHSET_DATE:-2026-11-23T00:00:00+0000}
BRANCH=roce-entropy
OUT=$BUILD/patchset
SERIES=$REPO/patches/series
NEWFILES=$REPO/patches/new-files
COVER=$REPO/patches/cover-letter.txt
RFC_SERIES=$REPO/patches/rfc/series
RFC_COVER=$REPO/patches/rfc/cover-letter.txt

# The user's git configuration must not change the output.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_COMMITTER_NAME="RoCE entropy maintainers"
export GIT_COMMITTER_EMAIL=roce-entropy@localhost
export GIT_COMMITTER_DATE=$DATE

# hdr_from / hdr_subject / hdr_body PATCH: the parts of a quilt header.
hdr_from() {
	sed -n '/^--- a\//q; s/^From: //p' "$1" | head -n 1
}
hdr_subject() {
	sed -n '/^--- a\//q; s/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$1" | head -n 1
}
hdr_body() {
	awk '/^--- a\//{exit} s{l[n++]=$0} /^Subject: /{s=1}
	END{b=0; while (b<n && l[b]=="") b++; e=n-1; while (e>=b && l[e]=="") e--;
	    for (i=b; i<=e; i++) print l[i]}' "$1"
}

# Everything is checked before anything is written.
[ -f "$SERIES" ] || die "patches/series is missing"
[ -f "$NEWFILES" ] || die "patches/new-files is missing"
[ -s "$COVER" ] || die "patches/cover-letter.txt is missing or empty"
[ -f "$RFC_SERIES" ] || die "patches/rfc/series is missing"
[ -s "$RFC_COVER" ] || die "patches/rfc/cover-letter.txt is missing or empty"
# patches: those of both series, by their path under patches/; the first
# nmain are patches/series'.
patches=()
# read_series FILE DIR: append FILE's patches, in DIR under patches/.
read_series() {
	local p f

	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		f=$REPO/patches/$2$p
		[ -f "$f" ] || die "patches/${2}series names $p, which is missing"
		grep -qE '^[^<>]+ <[^<>@ ]+@[^<>@ ]+>$' <<< "$(hdr_from "$f")" ||
			die "patches/$2$p: no 'From: Name <address>' line in its header"
		[ -n "$(hdr_subject "$f")" ] || die "patches/$2$p: no 'Subject:' line in its header"
		grep -q '^Signed-off-by: ' <<< "$(hdr_body "$f")" ||
			die "patches/$2$p: no Signed-off-by: in its description"
		patches+=("$2$p")
	done < "$1"
}
read_series "$SERIES" ""
nmain=${#patches[@]}
[ "$nmain" -gt 0 ] || die "patches/series lists no patch"
read_series "$RFC_SERIES" rfc/
[ ${#patches[@]} -gt "$nmain" ] || die "patches/rfc/series lists no patch"

declare -A owner=()
while read -r p f rest; do
	case $p in ''|'#'*) continue ;; esac
	[ -n "$f" ] && [ -z "$rest" ] || die "patches/new-files: want 'PATCH FILE', got '$p $f $rest'"
	grep -qxF "$p" <<< "$(printf '%s\n' "${patches[@]:0:nmain}")" ||
		die "patches/new-files: $p is not in patches/series"
	[ -f "$REPO/$f" ] || die "patches/new-files: $f does not exist"
	[ -z "${owner[$f]:-}" ] || die "patches/new-files: $f is listed twice"
	owner[$f]=$p
done < "$NEWFILES"
for f in $(cd "$REPO" && find include drivers Documentation/infiniband Documentation/ABI -type f | sort); do
	[ -n "${owner[$f]:-}" ] || die "$f is in no patch: add it to patches/new-files"
done

ksrc_init
command -v git >/dev/null || die "git is missing: run 'make deps'"

# The pristine source of the directories the series touches ($TREE_DIRS) as
# a git repository, once per kernel version: a few seconds.  Its blobs are
# the kernel's, so the patches are those of a whole-tree repository.
if ! git -C "$GITBASE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	tmp=$GITBASE.tmp
	say "patchset: committing pristine Linux $KVER's $TREE_DIRS to $GITBASE (once)"
	rm -rf "$tmp" "$GITBASE"
	mkdir -p "$tmp"
	for d in $TREE_DIRS; do
		mkdir -p "$tmp/$(dirname "$d")"
		cp -a "$KSRC/$d" "$tmp/$d"
	done
	git -C "$tmp" init -q
	git -C "$tmp" config gc.auto 0
	git -C "$tmp" config maintenance.auto false
	git -C "$tmp" add -f -A
	GIT_AUTHOR_NAME=$GIT_COMMITTER_NAME GIT_AUTHOR_EMAIL=$GIT_COMMITTER_EMAIL \
		GIT_AUTHOR_DATE=$DATE git -C "$tmp" commit -q \
		-m "Linux $KVER's $TREE_DIRS, as extracted from $KSRC"
	git -C "$tmp" tag base
	mv "$tmp" "$GITBASE"
fi
say "patchset: pristine Linux $KVER is $GITBASE, tag base ($(git -C "$GITBASE" rev-parse --short base))"

# as_added FILE I: FILE as the series' patch number I (from 0) adds it:
# the repository's FILE with the changes of every later patch to it taken
# back out, the last first; prints the path of that copy.
as_added() {
	local f=$1 out=$work/added/${1//\//_} q

	mkdir -p "$work/added"
	cp "$REPO/$f" "$out"
	for ((q = ${#patches[@]} - 1; q > $2; q--)); do
		patch_sections only "$f" "$REPO/patches/${patches[q]}" > "$work/sections"
		[ -s "$work/sections" ] || continue
		patch -R -F0 -s --no-backup-if-mismatch "$out" < "$work/sections" > "$work/apply.log" 2>&1 || {
			cat "$work/apply.log" >&2
			die "patches/${patches[q]}'s changes to $f do not come out of it: refresh that patch"
		}
	done
	echo "$out"
}

work=$(mktemp -d "$BUILD/patchset.XXXXXX" 2>/dev/null) || {
	mkdir -p "$BUILD"
	work=$(mktemp -d "$BUILD/patchset.XXXXXX")
}
trap 'rm -rf "$work"' EXIT
export GIT_INDEX_FILE=$work/index
git -C "$GITBASE" read-tree base
parent=$(git -C "$GITBASE" rev-parse base)
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	f=$REPO/patches/$p
	if ! git -C "$GITBASE" apply --cached "$f" > "$work/apply.log" 2>&1; then
		cat "$work/apply.log" >&2
		die "patches/$p does not apply to Linux $KVER on top of the patches before it"
	fi
	added=
	for nf in $(printf '%s\n' "${!owner[@]}" | sort); do
		[ "${owner[$nf]}" = "$p" ] || continue
		[ -z "$(git -C "$GITBASE" ls-files -- "$nf")" ] ||
			die "patches/new-files: $nf already exists when $p is applied"
		blob=$(git -C "$GITBASE" hash-object -w --no-filters -- "$(as_added "$nf" $((n - 1)))")
		git -C "$GITBASE" update-index --add --cacheinfo "100644,$blob,$nf"
		added="$added $nf"
	done
	tree=$(git -C "$GITBASE" write-tree)
	from=$(hdr_from "$f")
	email=${from##*<}
	parent=$(printf '%s\n\n%s\n' "$(hdr_subject "$f")" "$(hdr_body "$f")" |
		GIT_AUTHOR_NAME=${from% <*} GIT_AUTHOR_EMAIL=${email%>} GIT_AUTHOR_DATE=$DATE \
		git -C "$GITBASE" commit-tree "$tree" -p "$parent")
	say "patchset: $n/${#patches[@]} $(hdr_subject "$f")${added:+ (adds$added)}"
	[ "$n" != "$nmain" ] || git -C "$GITBASE" update-ref "refs/heads/$BRANCH" "$parent"
done
git -C "$GITBASE" update-ref "refs/heads/$BRANCH-rfc" "$parent"
# the series ends with the repository's files
for nf in "${!owner[@]}"; do
	git -C "$GITBASE" cat-file blob "$parent:$nf" | cmp -s - "$REPO/$nf" ||
		die "the series does not end with $nf as the repository has it: a patch's sections for it are stale"
done

# The cover letters: first paragraph the subject, the rest the body.
git -C "$GITBASE" config "branch.$BRANCH.description" "$(sed "s/@KVER@/$KVER/g" "$COVER")"
git -C "$GITBASE" format-patch -q --cover-letter --cover-from-description=subject \
	-o "$work/out" "base..$BRANCH"
git -C "$GITBASE" config "branch.$BRANCH-rfc.description" "$(sed "s/@KVER@/$KVER/g" "$RFC_COVER")"
git -C "$GITBASE" format-patch -q --cover-letter --cover-from-description=subject \
	--subject-prefix="RFC PATCH" -o "$work/out/rfc" "$BRANCH..$BRANCH-rfc"
for c in "$work/out/0000-cover-letter.patch" "$work/out/rfc/0000-cover-letter.patch"; do
	! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$c" ||
		die "format-patch did not take the cover letter from patches/${c#"$work/out/"}"
done
rm -rf "$OUT"
mv "$work/out" "$OUT"
say "patchset: $OUT: $(cd "$OUT" && echo *)"
