# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # settings for the scripts that source it
# What every other file here uses, loaded first: results in KTAP through
# the kernel's own ktap_helpers.sh, jq, step, nap and wait_for, and the
# settings that several domains read: the standard topology's addresses,
# the two guests' shared directory and what far runs, the programs' paths,
# the directories of logs and captures.  Needs none of the others.
. "$entropy_ksrc/tools/testing/selftests/kselftest/ktap_helpers.sh"

# jq: gojq, jq's language in Go (Debian's gojq).  Under TCG jq 1.6 takes
# 250 ms to start, compiling its builtins each time, and gojq 30 ms; the
# tests run it hundreds of times.  The host's scripts keep jq.
jq() {
	gojq "$@"
}

# The standard topology (README.md): rxea on a0, rxeb on b0, both in
# init_net, routed through the router namespace r.
A4=10.1.0.2 B4=10.2.0.2 RA4=10.1.0.1 RB4=10.2.0.1
A6=fd01::2 B6=fd02::2 RA6=fd01::1 RB6=fd02::1

step() { echo "+ $*"; "$@"; }

# nap SECONDS: sleep without a process: read times out on a pipe that
# nobody writes (under TCG an exec of sleep costs 0.05-0.35 s, and
# wait_for polls ten times a second).
exec {NAP_FD}<> <(:)
nap() {
	read -r -t "$1" -u "$NAP_FD" _ || :
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
# ENTROPY_WAIT_SCALE=N multiplies SECONDS (WAIT_SCALE, for the tests' own
# timeouts too): the debug kernel (make check-debug) runs everything
# several times slower under TCG.
WAIT_SCALE=${ENTROPY_WAIT_SCALE:-1}
wait_for() {
	local deadline=$((SECONDS + $1 * WAIT_SCALE))

	shift
	until "$@" >/dev/null 2>&1; do
		if [ $SECONDS -ge $deadline ]; then
			echo "timed out waiting for: $*" >&2
			return 1
		fi
		nap 0.1
	done
}

# Two guests (guests.sh): the directory both share, and what far runs.
PAIR=/run/rte-pair
FAR_KIND=${ENTROPY_FAR:-stock}
FAR_POLICY=builtin
[ "$FAR_KIND" = stock ] || FAR_POLICY=${ENTROPY_FAR_POLICY:-rfc}

TOOL=$entropy_repo/build/bin/roce-entropy
PING=$entropy_repo/build/bin/roce-ping
# iproute2's rdma with tools/iproute2 (tools/buildlib/iproute2.sh); `rdma` is
# the distribution's
RDMA_SERIES=$entropy_repo/build/iproute2/rdma
LOGS=$entropy_out/logs
mkdir -p "$LOGS"

CAPS=$entropy_out/captures
mkdir -p "$CAPS"

# ---- results, in KTAP ----

# check DESCRIPTION CMD...: one result, ok when CMD succeeds, after its time
# (a "#" line, so a slow check shows, and with its own diagnostics).  Its
# status is CMD's (0 or 1), for the checks that depend on it.
check() {
	local desc=$1 start=$SECONDS rc=0

	shift
	"$@" || rc=1
	echo "# $((SECONDS - start)) s"
	if [ $rc = 0 ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
	return $rc
}

# skip DESCRIPTION: a result that was not judged, with the reason in
# DESCRIPTION (a known limitation); counted as skipped, never as passed.
skip() {
	ktap_test_skip "$1"
}

# done_testing: end a test script; its status says whether all passed.
done_testing() {
	ktap_print_totals
	[ "$KTAP_CNT_FAIL" = 0 ]
}
