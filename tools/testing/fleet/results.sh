# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh's results in KTAP: the kernel's KTAP helpers (and the release of
# the root's kernel), a result from a status, a check of a command, a skip
# with its reason.  Sourced by fleet.sh, never run.

# ktap_init: KTAP's helpers, and the release of the root's kernel.
ktap_init() {
	ksrc_init rdma
	. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"
	DIST_REL=$(dist_release) || die "linux-source-6.12 is not installed"
	# shellcheck disable=SC2034 # read by fleet.sh and its tests
	DIST_VER=${DIST_REL%%+*}
}

result() {
	if [ "$1" = 0 ]; then ktap_test_pass "$2"; else ktap_test_fail "$2"; fi
}

# check DESCRIPTION CMD...: one result from CMD's status.
check() {
	local d=$1

	shift
	"$@"
	result $? "$d"
}

# skip_result DESCRIPTION REASON: a result that was not judged, as
# "ok N DESCRIPTION # SKIP REASON" (ktap_test_skip takes no reason);
# counted as skipped, never as passed.
skip_result() {
	__ktap_test ok "$1" "SKIP $2"
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}
