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

ktap_print_header
ktap_set_plan ${#scripts[@]}
for f in "${scripts[@]}"; do
	if out=$(cd "$REPO" && shellcheck -x -S warning -f gcc "$f" 2>&1); then
		ktap_test_pass "shellcheck: $f"
	else
		sed 's/^/# /' <<< "$out"
		ktap_test_fail "shellcheck: $f"
	fi
done
ktap_finished
