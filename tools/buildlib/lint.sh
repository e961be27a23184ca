#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make lint, the first step of make check: shellcheck on every shell script
# of the repository (*.sh, and the files whose first line runs sh or bash),
# following what each sources (-x), a result per script in KTAP.
#
# At severity warning: shellcheck's info and style notes (quote a number,
# prefer ${var//} to sed, ...) are advice, not defects.  The VM's scripts
# (tools/testing, tools/demo, tools/bench, tools/fabric) read their settings from the
# kernel command line as environment: their .shellcheckrc says so.  Any
# other exclusion is a directive on the line it concerns, with its reason.
. "$(dirname "$0")/common.sh"
set +e
trap - ERR

command -v shellcheck > /dev/null || die "shellcheck is missing: run 'make deps'"
ksrc_init rdma > /dev/null
# shellcheck source=/dev/null # the kernel tree's
. "$KSRC/$KTAP_HELPERS"

# scripts: the shell scripts git tracks (or will: not ignored)
mapfile -t scripts < <(cd "$REPO" && git ls-files -co --exclude-standard | while read -r f; do
	[ -f "$f" ] || continue
	case $f in
	*.sh) echo "$f" ;;
	*) head -n 1 "$f" 2> /dev/null | grep -qE '^#!(/usr)?/bin/(env )?(ba)?sh' && echo "$f" ;;
	esac
done | sort)
[ ${#scripts[@]} -gt 0 ] || die "no shell script found in $REPO"

# A script that passed is not checked again while nothing shellcheck reads
# for it changed: its text, the files scripts source (any of them: -x
# follows them), the .shellcheckrc files, shellcheck and this script.  Only
# passes are kept, in $CACHE/lint.
LINT_CACHE=$CACHE/lint
mkdir -p "$LINT_CACHE"
mapfile -t sourced < <(cd "$REPO" && cat "${scripts[@]}" | grep -E '^\s*(\.|source) ' |
	grep -oE '[A-Za-z0-9_.-]+\.sh' | sort -u)
common_key=$( (shellcheck --version; cat "$0" "$KSRC/$KTAP_HELPERS"
	cd "$REPO" && git ls-files -co --exclude-standard | grep -E '(^|/)\.shellcheckrc$' | xargs -r cat
	for f in "${scripts[@]}"; do
		[[ " ${sourced[*]} " != *" ${f##*/} "* ]] || { echo "$f"; cat "$f"; }
	done) | sha256sum | cut -c1-64)

ktap_print_header
ktap_set_plan ${#scripts[@]}
for f in "${scripts[@]}"; do
	key=$( (echo "$common_key $f"; cat "$REPO/$f") | sha256sum | cut -c1-64)
	if [ -e "$LINT_CACHE/$key" ]; then
		ktap_test_pass "shellcheck: $f (unchanged since it passed)"
	elif out=$(cd "$REPO" && shellcheck -x -S warning -f gcc "$f" 2>&1); then
		touch "$LINT_CACHE/$key"
		ktap_test_pass "shellcheck: $f"
	else
		sed 's/^/# /' <<< "$out"
		ktap_test_fail "shellcheck: $f"
	fi
done
ktap_finished
