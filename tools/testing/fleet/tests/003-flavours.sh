# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 003: the rt and cloud flavours.
#
# DESCRIPTION: the headers of the rt and the cloud flavour of the root's
# release installed: apt succeeds for each, and ours are built for it with
# the kABI held and taken by modprobe.  A host of either flavour gets ours
# as a generic one does; a refusal would leave it the distribution's
# modules.
#
# NEEDS: root B over A (updates); nothing from the earlier tests.  Leaves
# both flavours' headers installed; 011 purges them.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=4

# flavour ROOT REL: the headers of another flavour installed: apt
# succeeds, and ours are built for it with the kABI held (each of Debian's
# 6.12 flavours is; a refusal would leave its modules, and fail here).
flavour() {
	local r=$1 rel=$2

	check "apt install linux-headers-$rel succeeds" apt_in "$r" "$log" install "linux-headers-$rel"
	echo "# Linux $rel: $(record "$r" "$rel" state)$(record "$r" "$rel" reason | sed 's/^./: &/')"
	check "Linux $rel: ours, built with the kABI held" \
		eval "[ '$(record "$r" "$rel" state)/$(record "$r" "$rel" kabi)' = installed/held ] &&
			takes '$r' '$rel' updates/dkms"
}

fleet_test() {
	# The other flavours of the same release.
	flavour "$r" "${DIST_REL%-*}-rt-amd64"
	flavour "$r" "${DIST_REL%-*}-cloud-amd64"
}
