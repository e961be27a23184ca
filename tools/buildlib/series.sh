#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel change as git commits, and back: every line of it is stored
# once, in one of two forms.
#
#   - A file the change adds (patches/new-files names the patch that adds
#     it) is at its kernel path here, in include/, drivers/ or
#     Documentation/, as that patch adds it.
#   - Every other change, to one of the kernel's files or to a file an
#     earlier patch added, is a section of its patch: patches/series (the
#     series), patches/rfc/series (re-path, on top of it), compat/series
#     (the DKMS build's kABI, on top of both).
#
# Usage (tools/buildlib/series.sh, or the make targets):
#   series.sh edit [DIR]        make series-edit: DIR (default build/edit) a
#                               git repository of pristine Linux 6.12's
#                               $TREE_DIRS, tag "base", and one commit per
#                               patch of the three series on the branch
#                               "series", checked out
#   series.sh export [DIR [ROOT]]
#                               make series-export: the commits of DIR's
#                               base..HEAD written back as patches, series
#                               files, patches/new-files and new files, into
#                               ROOT (default the repository)
#   series.sh src [compat]      make src: build/src, the kernel's directories
#                               as both series leave them (build/src-compat:
#                               compat/ too)
#   series.sh final [compat]    make final: build/final, the project's own
#                               files (patches/new-files) as both series
#                               leave them: the code that runs, readable
#                               without a kernel tree (build/final-compat:
#                               compat/ too)
#   series.sh check             the round trip as a test, KTAP on stdout
#
# Each commit's message is its patch's subject and description with a last
# line "Patch: <path of the patch in the repository>", which says which
# series the commit belongs to and what its file is called (export drops
# that line).  Edit with git: `git rebase -i base` (edit, reword, reorder,
# squash), `git commit --fixup` and `git rebase -i --autosquash base`; a new
# commit needs its Patch: line, after the commits of its series and before
# those of the next.  Export keeps the comment lines at the top of the
# series files and of patches/new-files, and removes a patch or a new file
# that no commit has any more.
. "$(dirname "$0")/common.sh"

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
DATE=${PATCHSET_DATE:-2026-11-23T00:00:00+0000}
export GIT_COMMITTER_NAME="RoCE entropy maintainers"
export GIT_COMMITTER_EMAIL=roce-entropy@localhost
export GIT_COMMITTER_DATE=$DATE
# The series, in the order they apply: directory of the patches in the
# repository, as "Patch:" lines and patches/new-files name them.
SERIES_DIRS="patches patches/rfc compat"

# series_patches DIR ROOT: the patches DIR/series lists, as paths
# relative to ROOT.
series_patches() {
	local p

	[ -f "$2/$1/series" ] || die "$1/series is missing"
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$2/$1/$p" ] || die "$1/series names $p, which is missing"
		echo "$1/$p"
	done < "$2/$1/series"
}

# read_new_files ROOT: OWNER[file] = the patch (its path) that adds file.
read_new_files() {
	local p f rest

	declare -gA OWNER=()
	while read -r p f rest; do
		case $p in ''|'#'*) continue ;; esac
		[ -n "$f" ] && [ -z "$rest" ] ||
			die "patches/new-files: want 'PATCH FILE', got '$p $f $rest'"
		[ -f "$1/$p" ] || die "patches/new-files: $p does not exist"
		[ -f "$1/$f" ] || die "patches/new-files: $f does not exist"
		[ -z "${OWNER[$f]:-}" ] || die "patches/new-files: $f is listed twice"
		OWNER[$f]=$p
	done < "$1/patches/new-files"
}

# hdr_from / hdr_subject / hdr_body PATCH: the parts of a patch's header.
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

# gitbase_init: $GITBASE, the pristine source of $TREE_DIRS as a git
# repository, tag "base", made once per kernel version (a few seconds).
# Its blobs are the kernel's, so the patches are those of a whole tree.
gitbase_init() {
	local d tmp=$GITBASE.tmp

	git -C "$GITBASE" rev-parse -q --verify refs/tags/base > /dev/null 2>&1 && return
	say "committing pristine Linux $KVER's $TREE_DIRS to $GITBASE (once)"
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
}

# chain GIT ROOT TRAILER [SIGNER]: in repository GIT, one commit per patch
# of ROOT's three series on top of the tag base, each with the new files its
# patch adds, through a temporary index (no working tree is written); with
# TRAILER 1 each message ends with its "Patch:" line.  The patches are
# stored unsigned: with SIGNER ("Name <address>"), the submitter's, each
# commit is SIGNER's, its message ending with SIGNER's Signed-off-by:.
# The branches series-patches, series-rfc and series-compat end where each
# series does; "series" is the last.  Fixed dates: the same input, the
# same commits.
chain() {
	local git=$1 root=$2 trailer=$3 signer=${4:-} dir rel f blob tree msg from email
	local idx parent n=0

	read_new_files "$root"
	idx=$(mktemp)
	GIT_INDEX_FILE=$idx git -C "$git" read-tree base
	parent=$(git -C "$git" rev-parse base)
	for dir in $SERIES_DIRS; do
		for rel in $(series_patches "$dir" "$root"); do
			n=$((n + 1))
			grep -q '^+++ ' "$root/$rel" &&
				! GIT_INDEX_FILE=$idx git -C "$git" apply --cached "$root/$rel" \
					> "$idx.log" 2>&1 && {
				cat "$idx.log" >&2
				rm -f "$idx" "$idx.log"
				die "$rel does not apply to Linux $KVER with the patches before it"
			}
			for f in $(printf '%s\n' "${!OWNER[@]}" | sort); do
				[ "${OWNER[$f]}" = "$rel" ] || continue
				[ -z "$(GIT_INDEX_FILE=$idx git -C "$git" ls-files -- "$f")" ] ||
					die "patches/new-files: $f already exists when $rel is applied"
				blob=$(git -C "$git" hash-object -w --no-filters -- "$root/$f")
				GIT_INDEX_FILE=$idx git -C "$git" update-index --add \
					--cacheinfo "100644,$blob,$f"
			done
			tree=$(GIT_INDEX_FILE=$idx git -C "$git" write-tree)
			from=$(hdr_from "$root/$rel")
			grep -qE '^[^<>]+ <[^<>@ ]+@[^<>@ ]+>$' <<< "$from" ||
				die "$rel: no 'From: Name <address>' line in its header"
			[ -n "$(hdr_subject "$root/$rel")" ] || die "$rel: no 'Subject:' line in its header"
			! grep -q '^Signed-off-by: ' <<< "$(hdr_body "$root/$rel")" ||
				die "$rel: the stored patches are unsigned; make patchset signs them: remove its Signed-off-by:"
			msg=$(printf '%s\n\n%s\n' "$(hdr_subject "$root/$rel")" "$(hdr_body "$root/$rel")")
			if [ -n "$signer" ]; then
				from=$signer
				msg=$(printf '%s\n\nSigned-off-by: %s\n' "$msg" "$signer")
			fi
			[ "$trailer" = 0 ] || msg=$(printf '%s\n\nPatch: %s\n' "$msg" "$rel")
			email=${from##*<}
			parent=$(GIT_AUTHOR_NAME=${from% <*} GIT_AUTHOR_EMAIL=${email%>} \
				GIT_AUTHOR_DATE=$DATE git -C "$git" commit-tree "$tree" \
				-p "$parent" <<< "$msg")
		done
		git -C "$git" update-ref "refs/heads/series-${dir##*/}" "$parent"
	done
	git -C "$git" update-ref refs/heads/series "$parent"
	rm -f "$idx" "$idx.log"
	CHAIN_PATCHES=$n
}

# cmd_edit [DIR [ROOT]]: make series-edit, of ROOT's series (default the
# repository's).
# stored_key ROOT: a hash of the kernel change as ROOT stores it: the
# series files, every patch and patches/new-files with the files it names.
stored_key() {
	local d

	(
		cd "$1" || exit
		for d in $SERIES_DIRS; do
			cat "$d/series" "$d"/[0-9][0-9][0-9][0-9]-*.patch 2> /dev/null
		done
		# shellcheck disable=SC2046 # a list of paths
		cat patches/new-files $(awk '!/^#/ && NF == 2 { print $2 }' patches/new-files)
	) | sha256sum | cut -c1-16
}

cmd_edit() {
	local dir=${1:-$BUILD/edit} root=${2:-$REPO}

	[ ! -e "$dir" ] ||
		die "$dir exists: export it first (make series-export) if it holds work, then remove it"
	gitbase_init
	mkdir -p "$(dirname "$dir")"
	git clone -q --no-checkout "$GITBASE" "$dir"
	git -C "$dir" config gc.auto 0
	chain "$dir" "$root" 1
	git -C "$dir" checkout -q series
	# what the commits were made from: series-export refuses them once
	# that has changed
	stored_key "$root" > "$dir/.git/rte-stored"
	say "$dir: $CHAIN_PATCHES commits on base, branch series (patches/series, then patches/rfc/series, then compat/series)"
	say "edit with git (git rebase -i base), then: make series-export"
}

# trailer_of COMMIT: its "Patch:" line's path.
trailer_of() {
	git -C "$EDIT" log -1 --format=%B "$1" | sed -n 's/^Patch: //p' | tail -n 1
}

# series_rank REL: the position of REL's series in $SERIES_DIRS (from 1).
series_rank() {
	local d i=0

	for d in $SERIES_DIRS; do
		i=$((i + 1))
		[ "${1%/*}" != "$d" ] || { echo $i; return; }
	done
	echo 0
}

# write_patch COMMIT REL ADDED: ROOT/REL from COMMIT, without the files in
# ADDED (they go to their paths).
write_patch() {
	local c=$1 out=$ROOT/$2 f bad
	local -a skip=()

	for f in $3; do
		skip+=(":(exclude)$f")
	done
	bad=$(git -C "$EDIT" diff --no-renames --name-status --diff-filter=DTUXB "$c^" "$c")
	[ -z "$bad" ] || die "commit $(git -C "$EDIT" log -1 --format='%h %s' "$c") deletes or changes the type of a file, which a patch here cannot carry: $bad"
	mkdir -p "$(dirname "$out")"
	{
		git -C "$EDIT" log -1 --format='From: %an <%ae>%nSubject: [PATCH] %s%n' "$c"
		git -C "$EDIT" log -1 --format=%b "$c" | sed '/^Patch: /d' |
			awk '{ l[n++] = $0 } END { e = n - 1; while (e >= 0 && l[e] == "") e--;
				for (i = 0; i <= e; i++) print l[i] }'
		git -C "$EDIT" diff --no-color --no-renames --no-ext-diff -U3 "$c^" "$c" -- . "${skip[@]}" |
			grep -v -e '^diff --git ' -e '^index '
	} > "$out.tmp"
	! grep -qE '^(old|new) mode ' "$out.tmp" ||
		die "commit $(git -C "$EDIT" log -1 --format='%h %s' "$c") changes a file's mode"
	mv "$out.tmp" "$out"
}

# keep_comments FILE: the comment lines at its top.
keep_comments() {
	[ -f "$1" ] || return 0
	awk '!/^#/ { exit } { print }' "$1"
}

# cmd_export [DIR [ROOT]]: make series-export.
cmd_export() {
	local c rel rank last=0 f added old d p n=0
	local -A seen=() newfiles=() lists=()
	local -a order=()

	EDIT=${1:-$BUILD/edit}
	ROOT=${2:-$REPO}
	git -C "$EDIT" rev-parse -q --verify refs/tags/base > /dev/null 2>&1 ||
		die "$EDIT is no repository of make series-edit (no tag base): run make series-edit"
	[ -z "$(git -C "$EDIT" status --porcelain --untracked-files=no)" ] ||
		die "$EDIT has changes that are not committed: commit them (git commit --fixup=<commit>, git rebase -i --autosquash base) first"
	[ -z "$(git -C "$EDIT" rev-list --merges base..HEAD)" ] ||
		die "$EDIT: base..HEAD has merges; a series is a line of commits"
	[ -z "$(git -C "$EDIT" rev-parse -q --verify REBASE_HEAD 2> /dev/null)" ] ||
		die "$EDIT: a rebase is under way: finish it (git rebase --continue) first"
	if [ -f "$EDIT/.git/rte-stored" ] && [ "${ENTROPY_EXPORT_STALE:-0}" = 0 ] &&
		[ "$(cat "$EDIT/.git/rte-stored")" != "$(stored_key "$ROOT")" ]; then
		die "$EDIT was made from another state of the stored series: $ROOT's patches changed since make series-edit (or the last export), and exporting it would put the older ones back; remove $EDIT, run make series-edit and redo the edit there (ENTROPY_EXPORT_STALE=1 exports it anyway)"
	fi
	for c in $(git -C "$EDIT" rev-list --reverse base..HEAD); do
		rel=$(trailer_of "$c")
		[ -n "$rel" ] ||
			die "commit $(git -C "$EDIT" log -1 --format='%h %s' "$c") has no 'Patch: <path>' line: add one (git commit --amend), e.g. Patch: patches/0015-RDMA-core-short-name.patch"
		[[ $rel =~ ^(patches|patches/rfc|compat)/[0-9]{4}-[A-Za-z0-9._-]+\.patch$ ]] ||
			die "commit $(git -C "$EDIT" log -1 --format=%h "$c"): 'Patch: $rel': want patches/, patches/rfc/ or compat/ and NNNN-name.patch"
		[ -z "${seen[$rel]:-}" ] || die "two commits say 'Patch: $rel'"
		seen[$rel]=1
		rank=$(series_rank "$rel")
		[ "$rank" -ge "$last" ] ||
			die "commit $(git -C "$EDIT" log -1 --format=%h "$c") ($rel) comes after a commit of a series that applies after its own: move it"
		last=$rank
		added=$(git -C "$EDIT" diff --no-renames --name-only --diff-filter=A "$c^" "$c")
		write_patch "$c" "$rel" "$added"
		for f in $added; do
			mkdir -p "$ROOT/$(dirname "$f")"
			git -C "$EDIT" cat-file blob "$c:$f" > "$ROOT/$f"
			newfiles[$f]=$rel
			order+=("$rel	$f")
		done
		lists[${rel%/*}]+="${rel##*/}"$'\n'
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || die "$EDIT: no commit on base"
	# the series files, and what no commit has any more
	for d in $SERIES_DIRS; do
		{
			keep_comments "$ROOT/$d/series"
			printf '%s' "${lists[$d]:-}"
		} > "$ROOT/$d/series.tmp"
		mv "$ROOT/$d/series.tmp" "$ROOT/$d/series"
		for p in "$ROOT/$d"/[0-9][0-9][0-9][0-9]-*.patch; do
			[ -e "$p" ] || continue
			[ -n "${seen[$d/${p##*/}]:-}" ] || rm -f "$p"
		done
	done
	old=$(awk '!/^#/ && NF == 2 { print $2 }' "$ROOT/patches/new-files")
	for f in $old; do
		[ -n "${newfiles[$f]:-}" ] || rm -f "$ROOT/$f"
	done
	{
		keep_comments "$ROOT/patches/new-files"
		printf '%s\n' "${order[@]}"
	} > "$ROOT/patches/new-files.tmp"
	mv "$ROOT/patches/new-files.tmp" "$ROOT/patches/new-files"
	[ ! -f "$EDIT/.git/rte-stored" ] || stored_key "$ROOT" > "$EDIT/.git/rte-stored"
	say "exported $n patches and ${#order[@]} new files from $EDIT to $ROOT"
}

# series.sh check, the round trip as a test: series-roundtrip.sh
# shellcheck source=tools/buildlib/series-roundtrip.sh
. "$(dirname "${BASH_SOURCE[0]}")/series-roundtrip.sh"

# Sourced (make patchset): the functions only.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

# cmd_src [compat]: make src.
cmd_src() {
	stage_src "$BUILD/src${1:+-$1}" "${1:-}"
	say "$BUILD/src${1:+-$1}: the sources make modules builds"
}

# cmd_final [compat]: the new files as every patch after the one that adds
# each leaves them, their other files' sections left out: git apply
# --include, outside any repository, applies only the sections of those
# files, with no fuzz.
cmd_final() {
	local out=$BUILD/final${1:+-$1} p f dir incl=() series=(patches patches/rfc)

	[ "${1:-}" != compat ] || series+=(compat)
	rm -rf "$out"
	while read -r p f; do
		case $p in ''|'#'*) continue ;; esac
		mkdir -p "$out/$(dirname "$f")"
		cp "$REPO/$f" "$out/$f"
		incl+=("--include=$f")
	done < "$REPO/patches/new-files"
	for dir in "${series[@]}"; do
		while read -r p; do
			GIT_CEILING_DIRECTORIES=$(dirname "$out") git -C "$out" apply -p1 "${incl[@]}" \
				"$REPO/$p" || die "$p does not apply to the new files as the patches before it leave them"
		done < <(series_patches "$dir" "$REPO")
	done
	say "$out: the new files of patches/new-files as ${series[*]} leave them"
}

case ${1:-} in
final)
	shift
	cmd_final "$@"
	;;
edit|export|check|src)
	cmd=$1
	shift
	ksrc_init
	"cmd_$cmd" "$@"
	;;
*)
	sed -n '/^# Usage/,/^$/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
