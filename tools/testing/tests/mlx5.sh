#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mlx5_ib, patched, loads against the kernel's own mlx5_core and our ib_core.
# There is no ConnectX device in the VM: this proves the module links and
# registers its auxiliary driver, nothing about the wire (see README.md).
#
# On every build of ours: dist-more runs it with DKMS's mlx5_ib on
# Debian's kernel.
STACKS="ours compat dist"
CPUS=1
requires() {
	_have_module mlx5_core
}
. "$entropy_repo/tools/testing/lib.sh"

# our_mlx5_ib: ours loaded, by insmod of the build, or on a distribution
# kernel by its modprobe (DKMS's file).
our_mlx5_ib() {
	if [ "${entropy_dist:-0}" = 1 ]; then
		step modprobe mlx5_ib
	else
		step insmod "$entropy_modules/mlx5_ib.ko"
	fi
}

check "kernel's mlx5_core loads" step vm_modprobe mlx5_core
check "our mlx5_ib loads on it" our_mlx5_ib
check "loaded mlx5_ib is ours (our build, out of tree)" module_is_ours mlx5_ib
check "mlx5_ib registered its auxiliary drivers" \
	test -d /sys/bus/auxiliary/drivers/mlx5_ib.rdma
check "mlx5_ib unloads" step rmmod mlx5_ib
done_testing
