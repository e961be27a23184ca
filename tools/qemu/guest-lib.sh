# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest side of the QEMU harness: sourced by guest-init.sh
# and by the test scripts it runs.

# The standard topology (README.md): rxea on a0, rxeb on b0, both in
# init_net, routed through the router namespace r.
A4=10.1.0.2 B4=10.2.0.2 RA4=10.1.0.1 RB4=10.2.0.1
A6=fd01::2 B6=fd02::2 RA6=fd01::1 RB6=fd02::1
RDMA_MODULES="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe"

step() { echo "+ $*"; "$@"; }

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
# RTE_WAIT_SCALE=N multiplies SECONDS: the debug kernel (make check-debug)
# runs everything several times slower under TCG.
wait_for() {
	local deadline=$((SECONDS + $1 * ${RTE_WAIT_SCALE:-1}))

	shift
	until "$@" >/dev/null 2>&1; do
		if [ $SECONDS -ge $deadline ]; then
			echo "timed out waiting for: $*" >&2
			return 1
		fi
		sleep 0.1
	done
}

# vm_load_stack [PARAM...]: the RDMA stack, ours unless rte_stock=1; PARAMs
# go to our ib_core (roce_entropy=...).
vm_load_stack() {
	local m

	echo "==> loading the RDMA stack ($([ "$rte_stock" = 1 ] && echo stock || echo ours))"
	step modprobe -d "$rte_modroot" -a udp_tunnel ip6_udp_tunnel crc32_generic || return 1
	if [ "$rte_stock" = 1 ]; then
		step modprobe -d "$rte_modroot" -a $RDMA_MODULES || return 1
	else
		step insmod "$rte_modules/ib_core.ko" "$@" || return 1
		for m in ${RDMA_MODULES#ib_core }; do
			step insmod "$rte_modules/$m.ko" || return 1
		done
	fi
}

# The two rxe hosts in init_net, the router in netns r; every route between
# them leaves through the wire (FACTS.md has why the rules key on oif).
vm_topology() {
	echo "==> standard topology"
	step ip link set lo up || return 1
	step ip netns add r
	step ip link add a0 type veth peer name a1 netns r
	step ip link add b0 type veth peer name b1 netns r
	step ip addr add $A4/24 dev a0
	step ip addr add $B4/24 dev b0
	step ip -6 addr add $A6/64 dev a0 nodad
	step ip -6 addr add $B6/64 dev b0 nodad
	step ip -n r addr add $RA4/24 dev a1
	step ip -n r addr add $RB4/24 dev b1
	step ip -n r -6 addr add $RA6/64 dev a1 nodad
	step ip -n r -6 addr add $RB6/64 dev b1 nodad
	step ip -n r link set lo up
	step ip -n r link set a1 up
	step ip -n r link set b1 up
	step ip link set a0 up
	step ip link set b0 up
	step ip netns exec r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	step sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.a0.rp_filter=0 \
		net.ipv4.conf.b0.rp_filter=0 net.ipv4.conf.a0.accept_local=1 \
		net.ipv4.conf.b0.accept_local=1
	step ip route add 10.2.0.0/24 via $RA4 dev a0 table 100
	step ip route add 10.1.0.0/24 via $RB4 dev b0 table 101
	step ip rule add pref 10 to 10.2.0.0/24 oif a0 lookup 100
	step ip rule add pref 11 to 10.1.0.0/24 oif b0 lookup 101
	step ip -6 route add fd02::/64 via $RA6 dev a0 table 100
	step ip -6 route add fd01::/64 via $RB6 dev b0 table 101
	step ip -6 rule add pref 10 to fd02::/64 oif a0 lookup 100
	step ip -6 rule add pref 11 to fd01::/64 oif b0 lookup 101
	step ip -6 rule add pref 100 lookup local
	step ip -6 rule del pref 0 lookup local
	vm_rxe_links
}

# The rxe devices of the standard topology, rxea on a0 and rxeb on b0,
# active and with their IPv6 GIDs.
vm_rxe_links() {
	step rdma link add rxea type rxe netdev a0 || return 1
	step rdma link add rxeb type rxe netdev b0 || return 1
	wait_for 10 grep -q ACTIVE /sys/class/infiniband/rxea/ports/1/state || return 1
	wait_for 10 grep -q ACTIVE /sys/class/infiniband/rxeb/ports/1/state || return 1
	wait_for 10 rxe_has_gid rxea "$A6" || return 1
	wait_for 10 rxe_has_gid rxeb "$B6" || return 1
}

# rxe_has_gid DEV IPV6: the device's GID table holds that address.
rxe_has_gid() {
	local want

	want=$(python3 -c "import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]).exploded)" "$2")
	grep -qi "^${want}$" /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null
}

# What the kernel prints for a warning, a bug, an oops, a sanitizer
# (KASAN, UBSAN, kmemleak), lockdep, DEBUG_ATOMIC_SLEEP ("BUG: sleeping
# function called from invalid context"), an RCU stall or a hung task.
# kmemleak counts by its reports and by what stops or confuses it, never by
# its name: a debug kernel prints "kmemleak: Kernel memory leak detector
# initialized" at every boot.
KERNEL_REPORTS='WARNING:|BUG:|Oops|KASAN|UBSAN|general protection|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|INFO: rcu|rcu.*(stall|detected)|INFO: task|soft lockup|hard LOCKUP|suspected memory leak|kmemleak: .*(disabled|unknown object|Cannot|pool empty|Failed|alias|larger than)'

# kernel_reports [LINE]: print the reports in the kernel log after line
# LINE (default: all of it); fails if there is one.
kernel_reports() {
	! dmesg | tail -n +"$((${1:-0} + 1))" | grep -v 'traps:' | grep -E "$KERNEL_REPORTS"
}

# kmemleak's file; present only in a kernel with DEBUG_KMEMLEAK, once
# debugfs is mounted (kmemleak_mount).
KMEMLEAK=/sys/kernel/debug/kmemleak

kmemleak_mount() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -e $KMEMLEAK ]
}

# kmemleak_clean: two scans (an object must be unreferenced over a scan
# period to count), then nothing reported.  A scan is refused once kmemleak
# has turned itself off, so this also proves it was still on.
kmemleak_clean() {
	local leaks

	step sh -c "echo scan > $KMEMLEAK" || return 1
	sleep 6
	step sh -c "echo scan > $KMEMLEAK" || return 1
	leaks=$(cat $KMEMLEAK)
	[ -z "$leaks" ] || { echo "$leaks" | tee "$rte_out/kmemleak.txt" | head -n 60; return 1; }
}

# Any kernel warning, bug or sanitizer report fails the run.
vm_dmesg_clean() {
	if ! kernel_reports; then
		echo "vm: FAIL: the kernel reported a problem (above)"
		return 1
	fi
}

# ---- TAP-style results: the host counts "ok"/"not ok" lines ----
T_PASS=0 T_FAIL=0

# check DESCRIPTION CMD...: one test.
check() {
	local desc=$1

	shift
	if "$@"; then
		T_PASS=$((T_PASS + 1))
		echo "ok - $desc"
	else
		T_FAIL=$((T_FAIL + 1))
		echo "not ok - $desc"
	fi
}

# done_testing: end a test script; its status says whether all passed.
done_testing() {
	echo "# $T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" = 0 ]
}
