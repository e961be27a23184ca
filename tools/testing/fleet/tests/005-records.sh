# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 005: the package's records.
#
# DESCRIPTION: roce-entropy-dkms install of a release that is not one
# (../../etc/passwd) exits 2 and changes no record; roce-entropy-dkms
# forget removes a removed kernel's record and build tree.  The command
# runs as root, from the kernel hooks and by hand.
#
# NEEDS: the package installed (fleet.sh install), with its records.
# Leaves the records as they were.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=2

fleet_test() {
	local rc

	# A release that is not one: refused before anything is touched; a
	# removed kernel's record and build tree go.
	cp -a "$r/var/lib/roce-entropy" "$FLEET/records"
	inroot "$r" roce-entropy-dkms install ../../etc/passwd >> "$log" 2>&1
	rc=$?
	check "roce-entropy-dkms install ../../etc/passwd: exit 2, nothing recorded" \
		eval "[ $rc = 2 ] && diff -r '$FLEET/records' '$r/var/lib/roce-entropy' > /dev/null"
	rm -rf "$FLEET/records"
	mkdir -p "$r/var/cache/roce-entropy/build/6.12.1-gone-amd64"
	echo state=installed > "$r/var/lib/roce-entropy/6.12.1-gone-amd64"
	inroot "$r" roce-entropy-dkms forget 6.12.1-gone-amd64 >> "$log" 2>&1
	check "roce-entropy-dkms forget: the kernel's record and build tree are gone" \
		eval "! ls -d '$r/var/cache/roce-entropy/build/6.12.1-gone-amd64' \
			'$r/var/lib/roce-entropy/6.12.1-gone-amd64' 2> /dev/null | grep -q ."
}
