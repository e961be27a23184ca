# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 006: MLNX_OFED installed after ours.
#
# DESCRIPTION: stand-ins of MLNX_OFED's kernel package and of its
# utilities (which ship ofed_info) installed with apt-get -y install after
# ours: apt succeeds and removes neither, the package's trigger on
# ofed_info takes ours out of every kernel with the reason, and modprobe
# takes the other stack's ib_core; OFED removed, ours are back.  A host
# that gets OFED keeps both packages and runs one RDMA stack, OFED's.
#
# NEEDS: linux-headers-$old from 002 (purged first here); ours installed
# for Linux $DIST_REL.  Leaves /root/ofed.deb and /root/ofed-utils.deb
# in the root for 011, and ours installed again.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=6

fleet_test() {
	# MLNX_OFED installed after ours: apt removes neither, and the
	# package's trigger on ofed_info takes ours out of every kernel; OFED
	# removed, ours is back.  (Linux $old's headers go first: without its
	# source, ours would build for it again when OFED leaves.)
	apt_in "$r" "$log" purge "linux-headers-$old"
	ofed_standins "$r"
	check "MLNX_OFED installed after ours: apt-get -y install succeeds" \
		apt_in "$r" "$log" install ./root/ofed.deb ./root/ofed-utils.deb
	check "MLNX_OFED installed after ours: roce-entropy-dkms is still installed" \
		installed_pkg "$r" roce-entropy-dkms
	check "MLNX_OFED installed after ours: the trigger stepped aside, with the reason" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = refused ] &&
			grep -q 'another RDMA stack (MLNX_OFED or DOCA-OFED: package mlnx-ofed-kernel-dkms)' \
				'$r/var/lib/roce-entropy/$DIST_REL'"
	check "MLNX_OFED installed after ours: modprobe takes the other stack's (here the distribution's)" \
		takes "$r" "$DIST_REL" kernel
	apt_in "$r" "$log" remove mlnx-ofed-kernel-utils mlnx-ofed-kernel-dkms
	check "MLNX_OFED removed: ours is installed again for Linux $DIST_REL" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = installed ] && takes '$r' '$DIST_REL' updates/dkms"
	check "every package is configured after OFED came and went" configured "$r"
}
