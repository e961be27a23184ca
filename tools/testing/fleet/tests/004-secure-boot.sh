# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 004: Secure Boot.
#
# DESCRIPTION: Secure Boot on (a stub mokutil) and the DKMS signing key
# not enrolled: roce-entropy-dkms install refuses with the steps
# (mokutil --import), exits 1, and the distribution's modules stay (the
# kernel would refuse modules signed by a key it does not trust); an
# organisation's key named in framework.conf.d is the key checked; once
# the key is enrolled, ours are installed.
#
# NEEDS: ours installed for Linux $DIST_REL (fleet.sh install).  Leaves
# them installed again, without the stub.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=5

fleet_test() {
	local rc

	# Secure Boot on, the DKMS key not enrolled (a stub mokutil).
	mokutil_stub "$r"
	inroot "$r" dkms uninstall -m "$NAME" -v "$v" -k "$DIST_REL" >> "$log" 2>&1
	inroot "$r" roce-entropy-dkms install "$DIST_REL" >> "$log" 2>&1
	rc=$?
	check "Secure Boot, key not enrolled: refused with the steps (mokutil --import)" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = refused ] &&
			grep -q 'not enrolled.*mokutil --import' '$r/var/lib/roce-entropy/$DIST_REL'"
	check "a refusal: roce-entropy-dkms install exits 1" test "$rc" = 1
	check "Secure Boot, key not enrolled: the distribution's modules stay" takes "$r" "$DIST_REL" kernel
	# An organisation's key in framework.conf.d: the one checked.
	mkdir -p "$r/etc/dkms/framework.conf.d" "$r/etc/org"
	printf 'mok_signing_key="/etc/org/db.key"\nmok_certificate="/etc/org/db.der"\n' \
		> "$r/etc/dkms/framework.conf.d/10-org.conf"
	echo cert > "$r/etc/org/db.der"
	inroot "$r" roce-entropy-dkms install "$DIST_REL" >> "$log" 2>&1
	check "Secure Boot, an organisation's key in framework.conf.d: that key is checked" \
		grep -q 'signing key /etc/org/db.der is not enrolled' "$r/var/lib/roce-entropy/$DIST_REL"
	rm -rf "$r/etc/dkms/framework.conf.d/10-org.conf" "$r/etc/org"
	touch "$r/root/enrolled"
	inroot "$r" roce-entropy-dkms install "$DIST_REL" >> "$log" 2>&1
	check "Secure Boot, key enrolled: ours installed" takes "$r" "$DIST_REL" updates/dkms
	rm -f "$r/usr/local/bin/mokutil" "$r/root/enrolled"
}
