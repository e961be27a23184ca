#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mlx5_ib, patched, loads against the kernel's own mlx5_core and our ib_core.
# There is no ConnectX device in the VM: this proves the module links and
# registers its auxiliary driver, nothing about the wire (see README.md).
. "$rte_repo/tools/testing/lib.sh"

mlx5_ib_is_ours() {
	[ "$(cat /sys/module/mlx5_ib/srcversion)" = \
		"$(modinfo -F srcversion "$rte_modules/mlx5_ib.ko")" ] &&
		grep -qE '^mlx5_ib .*\(O' /proc/modules
}

check "kernel's mlx5_core loads" step modprobe -d "$rte_modroot" mlx5_core
check "our mlx5_ib loads on it" step insmod "$rte_modules/mlx5_ib.ko"
check "loaded mlx5_ib is ours (srcversion, out-of-tree taint)" mlx5_ib_is_ours
check "mlx5_ib registered its auxiliary drivers" \
	test -d /sys/bus/auxiliary/drivers/mlx5_ib.rdma
check "mlx5_ib unloads" step rmmod mlx5_ib
done_testing
