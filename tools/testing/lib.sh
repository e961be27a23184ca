# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The guest side of the test harness, sourced by vm/init.sh and by every
# test.  It loads the helpers of tools/testing/common/, one file per
# domain, in this order: base.sh first (results in KTAP, the waits, the
# settings several domains read), then the RDMA stack, the standard
# topology, the two guests, the mixed fleet, connections, captures, NVMe
# over RDMA, the writable directories, NFS over RDMA, judging connections
# and the kernel's reports.  Loading them calls no function, so a function
# may call any other file's.

# shellcheck source=tools/testing/common/base.sh
. "$entropy_repo/tools/testing/common/base.sh"
# shellcheck source=tools/testing/common/stack.sh
. "$entropy_repo/tools/testing/common/stack.sh"
# shellcheck source=tools/testing/common/topology.sh
. "$entropy_repo/tools/testing/common/topology.sh"
# shellcheck source=tools/testing/common/guests.sh
. "$entropy_repo/tools/testing/common/guests.sh"
# shellcheck source=tools/testing/common/mixed-fleet.sh
. "$entropy_repo/tools/testing/common/mixed-fleet.sh"
# shellcheck source=tools/testing/common/connections.sh
. "$entropy_repo/tools/testing/common/connections.sh"
# shellcheck source=tools/testing/common/capture.sh
. "$entropy_repo/tools/testing/common/capture.sh"
# shellcheck source=tools/testing/common/nvme.sh
. "$entropy_repo/tools/testing/common/nvme.sh"
# shellcheck source=tools/testing/common/overlays.sh
. "$entropy_repo/tools/testing/common/overlays.sh"
# shellcheck source=tools/testing/common/nfs.sh
. "$entropy_repo/tools/testing/common/nfs.sh"
# shellcheck source=tools/testing/common/judge.sh
. "$entropy_repo/tools/testing/common/judge.sh"
# shellcheck source=tools/testing/common/reports.sh
. "$entropy_repo/tools/testing/common/reports.sh"

# common/test.sh, the test prologue (a test's requires() and the CPUs it
# declares, run when a test sources lib.sh), is another engineer's, being
# written now: loaded last, and only once it exists.
# shellcheck source=tools/testing/common/test.sh
[ ! -f "$entropy_repo/tools/testing/common/test.sh" ] ||
	. "$entropy_repo/tools/testing/common/test.sh"
