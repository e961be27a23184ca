# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# NVMe over RDMA: nvmet-rdma's target and nvme-rdma's host, on either
# guest.  Needs step and wait_for (base.sh), and vm_modprobe, ulps_rebuilt
# and ulps_loaded_rebuilt (stack.sh).

# ---- NVMe over RDMA ----
# nvmet-rdma exports a memory-backed null_blk namespace; nvme-rdma (nvme-cli)
# connects, writes NVME_MB of random data and reads it back.  Needs a
# kernel with nvmet-rdma, nvme-rdma and null_blk as modules.

NQN=nqn.2026-11.org.example:roce-entropy
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6f1c2b5e-1a57-4c1e-9d2a-5ad0f00dcafe
NS_UUID=5d0c7e1a-2b3f-4c6d-8e9f-0a1b2c3d4e5f
NVMET_CFG=/sys/kernel/config/nvmet
NVME_SVC=4420
IO_QUEUES=2
NVME_MB=4

# target_up ADDR4 ADDR6: the subsystem with its namespace, a port on each
# address.
target_up() {
	local n=0 fam addr

	step vm_modprobe null_blk nr_devices=1 memory_backed=1 gb=1 &&
		step vm_modprobe -a nvmet nvmet-rdma nvme-rdma || return 1
	{ ! ulps_rebuilt || ulps_loaded_rebuilt; } || return 1
	mountpoint -q /sys/kernel/config || step mount -t configfs none /sys/kernel/config
	wait_for 10 test -b /dev/nullb0 || return 1
	mkdir -p $NVMET_CFG/subsystems/$NQN/namespaces/1 || return 1
	# the namespace's identifiers a host checks when it reconnects: fixed,
	# as a real target's are, so that a session outlives the target's reboot
	echo 1 > $NVMET_CFG/subsystems/$NQN/attr_allow_any_host &&
		echo $NS_UUID > $NVMET_CFG/subsystems/$NQN/namespaces/1/device_uuid &&
		echo $NS_UUID > $NVMET_CFG/subsystems/$NQN/namespaces/1/device_nguid &&
		echo /dev/nullb0 > $NVMET_CFG/subsystems/$NQN/namespaces/1/device_path &&
		echo 1 > $NVMET_CFG/subsystems/$NQN/namespaces/1/enable || return 1
	for fam in ipv4 ipv6; do
		n=$((n + 1))
		if [ $fam = ipv4 ]; then addr=$1; else addr=$2; fi
		mkdir $NVMET_CFG/ports/$n &&
			echo rdma > $NVMET_CFG/ports/$n/addr_trtype &&
			echo $fam > $NVMET_CFG/ports/$n/addr_adrfam &&
			echo "$addr" > $NVMET_CFG/ports/$n/addr_traddr &&
			echo $NVME_SVC > $NVMET_CFG/ports/$n/addr_trsvcid &&
			ln -s $NVMET_CFG/subsystems/$NQN $NVMET_CFG/ports/$n/subsystems/$NQN || return 1
	done
}

# target_down: the ports, the subsystem, the modules.
target_down() {
	local p

	for p in $NVMET_CFG/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p/subsystems/$NQN"
		rmdir "$p"
	done
	echo 0 > $NVMET_CFG/subsystems/$NQN/namespaces/1/enable 2>/dev/null
	rmdir $NVMET_CFG/subsystems/$NQN/namespaces/1 $NVMET_CFG/subsystems/$NQN 2>/dev/null
	step vm_modprobe -r nvmet-rdma nvmet nvme-rdma null_blk
}

# nvme_namespace: the block device of $NQN's namespace on the host side.
nvme_namespace() {
	local c n

	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] || continue
		for n in "$c"/nvme*n1; do
			n=${n##*/}
			[[ $n =~ ^nvme[0-9]+(c[0-9]+)?n1$ ]] || continue
			echo "${n/c[0-9]*n/n}"
			return 0
		done
		return 0
	done
	return 1
}

# nvme_connect ADDR HOSTADDR [OPTION...]: nvme-rdma (loaded if need be)
# connects to the target at ADDR from HOSTADDR (nvme connect's OPTIONs), and the namespace's block
# device appears.
nvme_connect() {
	local addr=$1 host=$2

	shift 2
	step vm_modprobe nvme-rdma || return 1
	step nvme connect -t rdma -a "$addr" -w "$host" -s $NVME_SVC -n $NQN --hostnqn=$HOSTNQN \
		--hostid=${HOSTNQN##*:} -i $IO_QUEUES "$@" || return 1
	wait_for 30 nvme_namespace && wait_for 10 test -b "/dev/$(nvme_namespace)"
}

# nvme_io MB: MB of random data written to the namespace and read back the
# same.
nvme_io() {
	local dev

	dev=/dev/$(nvme_namespace) || return 1
	head -c $(($1 << 20)) /dev/urandom > /tmp/nvme.in
	step dd if=/tmp/nvme.in of="$dev" bs=1M oflag=direct status=none &&
		step dd if="$dev" of=/tmp/nvme.out bs=1M count="$1" iflag=direct status=none &&
		step cmp /tmp/nvme.in /tmp/nvme.out
}

# nvme_live: the host's controller of $NQN is connected (state live).
nvme_live() {
	local c

	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] || continue
		[ "$(cat "$c/state")" = live ]
		return
	done
	return 1
}

# write_read ADDR HOSTADDR [MB]: connect to the target at ADDR from
# HOSTADDR, write MB (default NVME_MB) of random data, read it back and
# compare, disconnect.
write_read() {
	local rc=0

	nvme_connect "$1" "$2" && nvme_io "${3:-$NVME_MB}" || rc=1
	step nvme disconnect -n $NQN > /dev/null || rc=1
	return $rc
}
