#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A rolling upgrade, two guests (vm/pair.sh, the stock-dist-pair stack):
# near on the test kernel, far on Debian's 6.12 with the package installed.
#   1. Both on the kernel's own RDMA modules: near booted with STOCK=1,
#      far with the escape hatch (roce_entropy.stock=1).
#   2. Far boots again onto the package's modules at their default, before
#      the opt-in (ENTROPY_DIST_OPTIN=0: builtin).
#   3. Near changes its RDMA stack for ours in place: every RDMA user
#      stopped, the kernel's own modules unloaded, ours loaded, rxea made
#      again (for RDMA, what its reboot would do).
#   4. Both opt in: near's knob to rfc, and far boots again with the
#      package's opt-in line (rfc).
# In each phase every connection type comes up and moves data, judged
# under each sender's policy (mixed.sh's passes), and an NVMe over RDMA
# session the other host holds lives through the change: its controller
# reconnects once the target is back, and I/O issued while the target was
# gone completes, data intact; when far rebooted, the session's new queues
# are judged too (stock against builtin, then rfc at both ends).
#
# The rolling row runs it first: mixed.sh and live.sh follow in the same
# boot, both hosts ours.
STACKS="stock-dist-pair"
CPUS=1
requires() {
	_have_pair near
	_have_module nvmet nvmet-rdma nvme-rdma null_blk
}
. "$entropy_repo/tools/testing/lib.sh"

MB=1
# nvme connect: retry every second, for up to five minutes
KEEP="--reconnect-delay=1 --ctrl-loss-tmo=300"

# near_becomes_ours: near's RDMA stack, the kernel's own, exchanged for
# ours: the target down, rxea deleted, the modules unloaded, ours loaded
# (and the kernel's consumers rebuilt against them, updates/), rxea made
# again on a0.
near_becomes_ours() {
	target_down && vm_unload_stack rxea || return 1
	entropy_stock=0
	[ ! -d "$entropy_modules/modroot" ] || entropy_modroot=$entropy_modules/modroot
	vm_load_stack && step rdma link add rxea type rxe netdev a0 &&
		wait_for 10 port_active rxea && wait_for 10 rxe_has_gid rxea "$A6"
}

# far_knob: far's rxeb's policy.
far_knob() {
	remote cat /sys/class/infiniband/rxeb/ports/1/roce_entropy
}

# far_is POLICY: far runs our ib_core (DKMS's), rxeb under POLICY.
far_is() {
	remote module_is_ours ib_core && [ "$(far_knob)" = "$1" ]
}

# io_through WHO IO_ID WHAT: the session of WHO (near, or far: far's
# command IO_ID) is live again within 120 s and its I/O, issued while the
# target was gone, completed the same.
io_through() {
	if [ "$1" = near ]; then
		wait_for 120 nvme_live && wait "$2"
	else
		wait_for 120 remote nvme_live && remote_wait "$2" 120
	fi
}

# judged_session POLICY: $CAP's NVMe queues from near's host to far's
# target that moved data, two at least (the admin queue and an I/O queue
# for each of near's CPUs), each packet as its sender's policy predicts,
# near under POLICY; the attempts refused while far's target was not back
# moved none, and are counted apart.
judged_session() {
	pair_pcap "$1" && judged_ulp 4 near $NVME_SVC 2 moved
}

t0=$SECONDS
NEAR_KIND=stock FAR_KIND=stock FAR_POLICY=builtin
if ! check "far is up and its agent runs" wait_for 300 far_ready ||
	! check "near runs the kernel's own ib_core" eval '! module_is_ours ib_core' ||
	! check "far runs the kernel's own ib_core (the escape hatch)" far_stock; then
	done_testing
	exit
fi

echo "# phase 1: both stock"
pass builtin near p1-near
check "far's nvmet-rdma exports a null_blk namespace on $B4 and $B6" remote target_up $B4 $B6
check "near's host holds a session to far's target, $MB MiB written and read back" \
	eval "nvme_connect $B4 $A4 $KEEP && nvme_io $MB"

echo "# phase 2: far reboots onto the package's modules, not opted in"
check "far boots again onto DKMS's modules" far_reboot VM_APPEND= ENTROPY_DIST_OPTIN=0
capture_start p2-session
nvme_io $MB > "$LOGS/p2-io.out" 2>&1 &
io=$!
FAR_KIND=ours
check "far runs our ib_core, rxeb under builtin" far_is builtin
check "far's nvmet-rdma exports its namespace again" remote target_up $B4 $B6
check "near's session reconnected, its I/O through far's reboot intact" io_through near $io
capture_end
cat "$LOGS/p2-io.out"
check "the session's new connections are as stock and builtin predict" judged_session builtin
pass builtin near p2-near
pass builtin far p2-far

echo "# phase 3: near exchanges the kernel's own RDMA stack for ours"
check "near's nvmet-rdma exports a null_blk namespace on $A4 and $A6" target_up $A4 $A6
check "far's host holds a session to near's target, $MB MiB written and read back" \
	remote eval "nvme_connect $A4 $B4 $KEEP && nvme_io $MB"
check "near's host ends its session to far" step nvme disconnect -n $NQN
remote_start nvme_io $MB
io=$FAR_CMD
check "near's RDMA stack is ours now" near_becomes_ours
NEAR_KIND=ours
check "near's ib_core is ours, rxea under builtin" eval 'module_is_ours ib_core &&
	[ "$(cat /sys/class/infiniband/rxea/ports/1/roce_entropy)" = builtin ]'
check "near's nvmet-rdma, ours, exports its namespace again" target_up $A4 $A6
check "far's session reconnected, its I/O through near's change intact" io_through far $io
cat "$PAIR/out.$io"
remote_forget "$io"
pass builtin far p3-far

echo "# phase 4: both opt in"
check "far's host ends its session to near" remote nvme disconnect -n $NQN
check "near's host holds a session to far's target again" nvme_connect $B4 $A4 $KEEP
check "near opts in: rxea under rfc" near_knobs rfc
check "far boots again with the package's opt-in line" far_reboot ENTROPY_DIST_OPTIN=1
FAR_POLICY=rfc
check "far runs our ib_core, rxeb under rfc" far_is rfc
capture_start p4-session
nvme_io $MB > "$LOGS/p4-io.out" 2>&1 &
io=$!
check "far's nvmet-rdma exports its namespace again" remote target_up $B4 $B6
check "near's session reconnected, its I/O through far's reboot intact" io_through near $io
capture_end
cat "$LOGS/p4-io.out"
check "the session's new connections are as rfc at both ends predicts" judged_session rfc
pass rfc near p4-near

check "near's host ends its session" step nvme disconnect -n $NQN
check "near's nvmet and nvme-rdma unload" target_down
check "far's nvmet and nvme-rdma unload" remote target_down
step near_knobs builtin
echo "# rolling.sh: $((SECONDS - t0)) s"
done_testing
