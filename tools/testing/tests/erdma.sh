#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# erdma, patched, loads on our ib_core: of the other RoCE v2 drivers the
# series changes, the one whose module needs no net driver, so the test
# kernel's configuration, without PCI MSI, can load it.  There is no
# erdma device in the VM: this proves the module links against the
# series' ib_core and iw_cm and registers its PCI driver, nothing about
# the wire (Documentation/infiniband/roce_entropy.rst, "The other RoCE v2
# drivers").  The module is the series check's, built with the series'
# last step into the modules the test kernel runs: on ours only.
STACKS="ours"
CPUS=1
. "$entropy_repo/tools/testing/lib.sh"

check "our erdma loads" step insmod "$entropy_modules/erdma.ko"
check "loaded erdma is ours (our build, out of tree)" module_is_ours erdma
check "erdma registered its PCI driver" test -d /sys/bus/pci/drivers/erdma
check "erdma unloads" step rmmod erdma
check "erdma is gone" test ! -d /sys/module/erdma
done_testing
