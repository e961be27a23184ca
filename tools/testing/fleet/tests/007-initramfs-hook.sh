# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 007: root on RDMA, the headers' hook.
#
# DESCRIPTION: root on NVMe over RDMA or iSER, ib_core in the initramfs:
# with the real update-initramfs, the initramfs written while ours are
# not installed holds the distribution's ib_core, and the headers' hook,
# which installs ours later in a kernel update, writes it again with ours
# and says so.  Such a host loads ib_core from the initramfs, before
# anything on its root runs.
#
# NEEDS: root A's /etc/initramfs-tools, ib_core listed (fleet.sh
# install); update-initramfs diverted by updates, which this test undoes:
# from here on update-initramfs is the real one.  Leaves ours installed
# for Linux $DIST_REL and in its initramfs; 011 reads that initramfs.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=3

fleet_test() {
	# Root on NVMe over RDMA or iSER: ib_core in the initramfs (root A's
	# /etc/initramfs-tools), with the real update-initramfs.  The image's initramfs-tools hook wrote it
	# with the distribution's ib_core; the headers' hook, later, installs
	# ours and must write it again.
	logged inroot "$r" sh -c 'rm -f /usr/sbin/update-initramfs &&
		dpkg-divert --local --rename --remove /usr/sbin/update-initramfs'
	logged inroot "$r" dkms uninstall -m "$NAME" -v "$v" -k "$DIST_REL"
	logged inroot "$r" update-initramfs -u -k "$DIST_REL"
	check "root on RDMA: the initramfs written without ours holds the distribution's ib_core" \
		initrd_has "$r" "$DIST_REL" kernel
	logged inroot "$r" /etc/kernel/header_postinst.d/roce-entropy "$DIST_REL"
	check "root on RDMA: after the headers' hook the initramfs holds ours" \
		initrd_has "$r" "$DIST_REL" updates/dkms
	check "root on RDMA: the hook said it updated the initramfs" \
		grep -q "^roce-entropy: updated /boot/initrd.img-$DIST_REL" "$log"
}
