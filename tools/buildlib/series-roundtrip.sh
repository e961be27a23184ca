# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# series.sh check, the round trip as a test (KTAP on stdout): cmd_check,
# and edit_changes and signed_by, which only it uses.  Sourced by
# series.sh, never run; it takes from it, besides common.sh's settings and
# helpers (REPO, KSRC, stage_src), DATE, the git identity and
# configuration it exports, and the commands cmd_edit, cmd_export and
# cmd_final.

# edit_changes ROOT: for each file of git repository ROOT that differs from
# its HEAD, "FILE LINE" for each line that it has more or less than HEAD's,
# ("+LINE" or "-LINE"), a patch's hunk headers and context left out: what
# a patch changes, not where.
edit_changes() {
	local f

	for f in $(git -C "$1" diff --name-only); do
		case $f in
		*.patch)
			diff <(git -C "$1" show "HEAD:$f" | grep -E '^[-+]' | grep -vE '^(\+\+\+|---) ' | sort) \
				<(grep -E '^[-+]' "$1/$f" | grep -vE '^(\+\+\+|---) ' | sort) ;;
		*)
			diff <(git -C "$1" show "HEAD:$f" | sort) <(sort "$1/$f") ;;
		esac | sed -n "s|^> |$f +|p; s|^< |$f -|p"
	done
}

# cmd_check: the round trip, in KTAP: the repository's series as commits
# and back changes nothing; an edit of a patch's commit changes exactly
# its patch and the new file it edits; the staged source is the commits'
# last tree.
cmd_check() {
	local t ed root c changed want edited=0 p f

	. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"
	t=$(mktemp -d "${TMPDIR:-/tmp}/series-check.XXXXXX")
	CHECK_TMP=$t
	trap 'rm -rf "$CHECK_TMP"' EXIT
	ed=$t/edit root=$t/root
	ktap_print_header
	ktap_set_plan 8

	# ROOT: a copy of what the series is made of, as a git repository
	mkdir -p "$root"
	(cd "$REPO" && git ls-files -co --exclude-standard -- patches compat include drivers Documentation |
		while read -r f; do [ ! -f "$f" ] || echo "$f"; done | cpio -pdm --quiet "$root")
	git -C "$root" init -q
	git -C "$root" add -A
	GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_AUTHOR_DATE=$DATE git -C "$root" commit -q -m copy

	if (cmd_edit "$ed" && cmd_export "$ed" "$root") > "$t/log" 2>&1 &&
		git -C "$root" diff --exit-code --stat > "$t/diff" &&
		[ -z "$(git -C "$root" status --porcelain)" ]; then
		ktap_test_pass "series-edit, then series-export: git diff --exit-code"
	else
		sed 's/^/# /' "$t/log" "$t/diff"
		git -C "$root" status --porcelain | sed 's/^/# /'
		ktap_test_fail "series-edit, then series-export: git diff --exit-code"
	fi

	# stage_src applies what the commits hold: its tree is the last one's
	mkdir -p "$t/tree"
	if (stage_src "$t/src" compat && git -C "$ed" archive series | tar -x -C "$t/tree") \
		> "$t/log" 2>&1 && diff -r "$t/tree" "$t/src" > "$t/diff" 2>&1; then
		ktap_test_pass "the staged source (make modules, DKMS) is the commits' last tree"
	else
		sed 's/^/# /' "$t/log"
		head -n 40 "$t/diff" | sed 's/^/# /'
		ktap_test_fail "the staged source (make modules, DKMS) is the commits' last tree"
	fi

	# make final needs no kernel tree: its files are the staged source's
	# shellcheck disable=SC2034 # BUILD: cmd_final's (series.sh)
	if (BUILD=$t && cmd_final compat) > "$t/log" 2>&1 &&
		while read -r p f; do
			case $p in ''|'#'*) continue ;; esac
			cmp "$t/final-compat/$f" "$t/src/$f" || exit 1
		done < "$REPO/patches/new-files" > "$t/diff" 2>&1; then
		ktap_test_pass "make final: the new files as in the staged source, without a kernel tree"
	else
		sed 's/^/# /' "$t/log" "$t/diff"
		ktap_test_fail "make final: the new files as in the staged source, without a kernel tree"
	fi

	# An edit of 0001's commit: one line in a file it adds, one in a
	# kernel file it changes; the later commits rebase over it.
	c=$(git -C "$ed" log --format=%H --grep='^Patch: patches/0001-' base..series)
	want=$(git -C "$ed" log -1 --format=%b "$c" | sed -n 's/^Patch: //p')
	if [ -n "$c" ] && (
		cd "$ed" &&
		GIT_SEQUENCE_EDITOR="sed -i '1s/^pick/edit/'" git rebase -q -i base &&
		sed -i '0,/^#include/s//\/* round trip *\/\n#include/' drivers/infiniband/core/roce_entropy.c &&
		sed -i '0,/^#include/s//\/* round trip *\/\n#include/' drivers/infiniband/core/core_priv.h &&
		git commit -q -a --amend --no-edit &&
		git rebase --continue &&
		cmd_export "$ed" "$root"
	) > "$t/log" 2>&1 && changed=$(edit_changes "$root") &&
		[ "$changed" = "drivers/infiniband/core/roce_entropy.c +/* round trip */
$want ++/* round trip */" ]; then
		ktap_test_pass "an edit of a patch's commit: one line more in its new file and in its patch, the others only moved"
		edited=1
	else
		sed 's/^/# /' "$t/log"
		echo "# changed lines, by file: ${changed:-none}; want one in each of drivers/infiniband/core/roce_entropy.c and $want"
		ktap_test_fail "an edit of a patch's commit: one line more in its new file and in its patch, the others only moved"
	fi

	# the edited export, made commits again, is the edited series
	if [ $edited = 1 ] && (cmd_edit "$t/edit2" "$root") > "$t/log" 2>&1 &&
		[ "$(git -C "$ed" log --format=%T base..series)" = \
			"$(git -C "$t/edit2" log --format=%T base..series)" ]; then
		ktap_test_pass "the edited export made commits again: every commit's tree is the edited one's"
	else
		sed 's/^/# /' "$t/log"
		ktap_test_fail "the edited export made commits again: every commit's tree is the edited one's"
	fi
	# an edit made before the stored series changed is refused, and the
	# stored series stays as it is
	if (cmd_edit "$t/edit3" "$root") > "$t/log" 2>&1 &&
		sed -i '1s/^/# changed after the edit\n/' "$root/patches/series" &&
		GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@x GIT_COMMITTER_NAME=x GIT_COMMITTER_EMAIL=x@x \
			git -C "$root" commit -q -a -m changed &&
		! (cmd_export "$t/edit3" "$root") >> "$t/log" 2>&1 &&
		grep -q 'another state of the stored series' "$t/log" &&
		[ -z "$(git -C "$root" status --porcelain)" ]; then
		ktap_test_pass "series-export refuses an edit made before the stored series changed, and changes nothing"
	else
		sed 's/^/# /' "$t/log"
		git -C "$root" status --porcelain | sed 's/^/# /'
		ktap_test_fail "series-export refuses an edit made before the stored series changed, and changes nothing"
	fi
	# The posting: signed by whoever posts it, or not written at all.
	if PATCHSET_SIGNER="Ann Example <ann@example.org>" PATCHSET_OUT=$t/signed \
		"$REPO/tools/buildlib/patchset.sh" > "$t/log" 2>&1 &&
		signed_by "$t/signed" "Ann Example <ann@example.org>"; then
		ktap_test_pass "make patchset: every patch and cover letter is the signer's, signed once, by them"
	else
		sed 's/^/# /' "$t/log"
		ktap_test_fail "make patchset: every patch and cover letter is the signer's, signed once, by them"
	fi
	if ! GIT_DIR=/nonexistent GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		PATCHSET_SIGNER='' PATCHSET_OUT=$t/unsigned "$REPO/tools/buildlib/patchset.sh" \
		> "$t/log" 2>&1 && grep -q 'no git identity' "$t/log" && [ ! -e "$t/unsigned" ]; then
		ktap_test_pass "make patchset without a git identity writes nothing and says why"
	else
		sed 's/^/# /' "$t/log"
		ktap_test_fail "make patchset without a git identity writes nothing and says why"
	fi
	ktap_finished
}

# signed_by DIR SIGNER: every patch of DIR and DIR/rfc, cover letters
# included, is From: SIGNER; every patch but the cover letters ends its
# message with one Signed-off-by:, SIGNER's, and has no other.
signed_by() {
	local p n=0

	for p in "$1"/*.patch "$1"/rfc/*.patch; do
		grep -qxF "From: $2" "$p" || { echo "# $p: not From: $2"; return 1; }
		case $p in */0000-cover-letter.patch) continue ;; esac
		[ "$(grep -c '^Signed-off-by: ' "$p")" = 1 ] &&
			[ "$(sed -n '/^---$/q; /^Signed-off-by: /p' "$p")" = "Signed-off-by: $2" ] ||
			{ echo "# $p: not signed once, by $2"; return 1; }
		n=$((n + 1))
	done
	echo "# $n patches signed by $2"
	[ "$n" -gt 0 ]
}
