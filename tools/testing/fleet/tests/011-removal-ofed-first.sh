# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 011: the package removed, then hosts it refuses.
#
# DESCRIPTION: apt purge of ours gives the initramfs of root on RDMA the
# distribution's ib_core again; on a host without a 6.12 kernel, apt would
# install ours without pulling in a kernel; with MLNX_OFED there first,
# apt-get -y install of ours fails in its preinst, says why, and removes
# nothing (no Conflicts, which apt resolves by removing OFED and what
# depends on it); with OFED's ib_core but no package of it, ours install
# and refuse, with the reason.  An operator's apt run must never take
# another RDMA stack away, nor pull a kernel onto a host.
#
# NEEDS: the initramfs holding ours (007); the rt and cloud headers (003),
# purged here with ours; /root/ofed.deb and /root/ofed-utils.deb (006);
# A's /root/debs (fleet.sh install).  The last test: updates unmounts B
# after it.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=13

fleet_test() {
	# MLNX_OFED: a stand-in package of its name, then its ib_core without a
	# package (as NVIDIA's install script may leave it).  The initramfs
	# still holds ours, written by the headers' hook above (the kABI case
	# took ours out of /lib/modules by hand): the package's removal must
	# give it the distribution's.
	check "root on RDMA: before the package's removal the initramfs holds ours" \
		initrd_has "$r" "$DIST_REL" updates/dkms
	apt_in "$r" "$log" purge roce-entropy-dkms roce-entropy-tools \
		"linux-headers-${DIST_REL%-*}-rt-amd64" "linux-headers-${DIST_REL%-*}-cloud-amd64"
	check "root on RDMA: after apt purge the initramfs holds the distribution's ib_core" \
		initrd_has "$r" "$DIST_REL" kernel

	# A host without a 6.12 kernel (Debian 12's 6.1, a container): what
	# apt would install with ours, recommends included, has no kernel.
	awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^Package: linux-(image|headers)-/' \
		"$r/var/lib/dpkg/status" > "$r/root/status-nokernel"
	inroot "$r" apt-get -s -o Dir::State::status=/root/status-nokernel \
		install ./root/debs/roce-entropy-dkms_"$v"_all.deb > "$LOGDIR/fleet-nokernel.log" 2>&1
	check "a host without 6.12: apt-get install of ours (simulated) pulls no linux-image" \
		eval "grep -q '^Inst roce-entropy-dkms' '$LOGDIR/fleet-nokernel.log' &&
			! grep '^Inst linux-image-' '$LOGDIR/fleet-nokernel.log'"

	# MLNX_OFED there first: plain apt-get -y install of ours fails in its
	# preinst, and removes nothing (no Conflicts, which apt resolves by
	# removing OFED and what depends on it).
	check "the package declares no Conflicts" \
		eval "[ -z \"\$(dpkg-deb -f '$debs'/roce-entropy-dkms_*.deb Conflicts)\" ]"
	inroot "$r" dpkg -i /root/ofed.deb /root/ofed-utils.deb >> "$log" 2>&1
	apt_in "$r" "$log" install ./root/debs/roce-entropy-dkms_"$v"_all.deb
	check "with MLNX_OFED installed, apt-get -y install of ours fails" test $? != 0
	check "... and its preinst says why" \
		said "$log" "another RDMA stack (MLNX_OFED or DOCA-OFED) provides ib_core"
	check "MLNX_OFED's packages are both still installed" \
		eval "installed_pkg '$r' mlnx-ofed-kernel-dkms && installed_pkg '$r' mlnx-ofed-kernel-utils"
	check "roce-entropy-dkms is not installed" eval "! installed_pkg '$r' roce-entropy-dkms > /dev/null"
	check "dpkg --audit is clean after the refusal" configured "$r"
	inroot "$r" dpkg -r mlnx-ofed-kernel-utils mlnx-ofed-kernel-dkms >> "$log" 2>&1
	mkdir -p "$r/lib/modules/$DIST_REL/updates"
	echo "not ours" > "$r/lib/modules/$DIST_REL/updates/ib_core.ko"
	check "OFED's ib_core without a package: apt install of ours succeeds" \
		apt_in "$r" "$log" install ./root/debs/roce-entropy-dkms_"$v"_all.deb
	check "OFED's ib_core without a package: refused with the reason" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = refused ] &&
			grep -q 'another RDMA stack' '$r/var/lib/roce-entropy/$DIST_REL'"
	check "OFED's ib_core without a package: nothing of ours in updates/dkms" \
		eval "! ls '$r/lib/modules/$DIST_REL/updates/dkms/ib_core.ko'* > /dev/null 2>&1"
	check "every package is configured at the end" configured "$r"
}
