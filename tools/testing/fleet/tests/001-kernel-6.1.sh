# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 001: Debian 12's own kernel, 6.1.
#
# DESCRIPTION: apt install of linux-headers-amd64, which pulls in Debian
# 12's 6.1 image, on a host with ours: apt succeeds, the package's hook
# says in one line that the kernel is not 6.12, every package is
# configured, and dkms autoinstall for it exits 0, where the old
# dkms.conf's AUTOINSTALL made it exit 11.  Every Debian 12 host may get
# this kernel in an update, and a kernel update must never fail because
# of this package.
#
# NEEDS: root B over A (updates); ours of $v installed by fleet.sh
# install, its dkms.conf in /usr/src/roce-entropy-$v.  Leaves Linux 6.1's
# image and headers installed.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=5

fleet_test() {
	local rel61 rc d

	# Debian 12's own kernel: its headers pull its image and its DKMS hooks.
	check "apt install linux-headers-amd64 (Debian 12's 6.1) succeeds" \
		apt_in "$r" "$log" install linux-headers-amd64
	rel61=
	for d in "$r"/lib/modules/6.1.*; do
		[ -d "$d" ] && rel61=${d##*/} && break
	done
	check "the hook said in one line that Linux $rel61 is not 6.12" \
		said "$log" "roce-entropy: Linux $rel61 is not 6.12: nothing to do"
	check "every package is configured after the 6.1 update" configured "$r"
	check "dkms autoinstall -k $rel61 exits 0" logged inroot "$r" dkms autoinstall -k "$rel61"
	# The old dkms.conf's AUTOINSTALL, put back for a moment: bookworm's
	# dkms then fails the same call (exit 11), as it failed kernel updates.
	sed -i '1i AUTOINSTALL="yes"' "$r/usr/src/$NAME-$v/dkms.conf"
	inroot "$r" dkms autoinstall -k "$rel61" >> "$log" 2>&1
	rc=$?
	sed -i '1d' "$r/usr/src/$NAME-$v/dkms.conf"
	check "with AUTOINSTALL it would have failed (dkms autoinstall exits 11)" test $rc = 11
}
