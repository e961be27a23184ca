# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 010: a kernel whose kABI differs.
#
# DESCRIPTION: one CRC of ib_core's changed in the kernel's Module.symvers,
# as a stable update that touched a structure would change it: the build's
# kABI gate refuses, and the distribution's modules stay.  Modules built
# for another kABI would keep the kernel's other RDMA modules (ib_ipoib,
# rpcrdma, nvme-rdma, ...) from loading.
#
# NEEDS: ours installed for Linux $DIST_REL; its headers' Module.symvers,
# which this test puts back.  Leaves ours refused for Linux $DIST_REL and
# out of /lib/modules, the initramfs as 007 wrote it.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=2

fleet_test() {
	local symvers

	# A kernel whose kABI is not the one ours keep: one CRC of ib_core's in
	# its Module.symvers changed, as a stable update that touched a
	# structure would change it.  The build's gate refuses.
	symvers=$r/usr/src/linux-headers-$DIST_REL/Module.symvers
	cp "$symvers" "$FLEET/Module.symvers"
	awk -F'\t' -v OFS='\t' '!done && $3 ~ /infiniband\/core\/ib_core$/ { $1 = "0x00000000"; done = 1 } 1' \
		"$FLEET/Module.symvers" > "$symvers"
	logged inroot "$r" dkms remove -m "$NAME" -v "$v" -k "$DIST_REL"
	logged inroot "$r" roce-entropy-dkms install "$DIST_REL"
	cp "$FLEET/Module.symvers" "$symvers"
	check "a kernel whose kABI differs from ours: refused by the kABI gate" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = refused ] &&
			grep -q 'kABI differs' '$r/var/lib/roce-entropy/$DIST_REL'"
	check "a kernel whose kABI differs from ours: the distribution's modules stay" \
		takes "$r" "$DIST_REL" kernel
}
