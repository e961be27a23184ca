#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test VM (see vm-run.sh): mount the basics, load the RDMA
# stack, build the standard topology, run the scripts, report their status
# on the "result" virtio port and power off.  Settings come from the kernel
# command line (rte_*), which the kernel hands to init as environment.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
# A tmpfs on /tmp hides the host's /tmp: keep the paths we need visible.
mkdir -p /run/host-tmp
mount --bind /tmp /run/host-tmp
mount -t tmpfs tmpfs /tmp
for p in "$rte_repo" "$rte_out" "$rte_modroot" "$rte_modules"; do
	case $p in
	/tmp/*)
		mkdir -p "$p"
		mount --bind "/run/host-tmp/${p#/tmp/}" "$p"
		;;
	esac
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$rte_out"
mount -t tmpfs tmpfs /var/tmp 2>/dev/null
hostname rte-vm

. "$rte_repo/tools/qemu/guest-lib.sh"

status=1
if vm_load_stack && vm_topology; then
	status=0
	IFS=, read -r -a scripts <<< "$rte_scripts"
	for s in "${scripts[@]}"; do
		echo "==> running $s"
		(cd /tmp && bash "$s") || status=1
	done
fi
vm_dmesg_clean || status=1

for port in /sys/class/virtio-ports/*; do
	if [ "$(cat "$port/name")" = result ]; then
		echo "$status" > "/dev/$(basename "$port")"
	fi
done
sync
# LINUX_REBOOT_CMD_RESTART: QEMU runs with -no-reboot, so it exits.
python3 -c 'import ctypes; ctypes.CDLL(None).reboot(0x01234567)'
exit "$status"
