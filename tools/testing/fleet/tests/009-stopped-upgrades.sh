# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 009: upgrades that stop on the way.
#
# DESCRIPTION: an upgrade of ours whose preinst fails (apt fails, $v stays
# configured, its modules installed and taken by modprobe, dpkg --audit
# clean), and one that cannot build for a kernel (Secure Boot on, the key
# not enrolled: apt's output says ours of $v stays, and it does).  A
# failed or refused upgrade must leave each kernel the modules it had.
#
# NEEDS: $debs, the packages of DEBS, of version $v; ours of $v installed
# for Linux $DIST_REL.  Leaves ours of $v installed.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=6

fleet_test() {
	local rc

	# Upgrades that stop on the way keep ours.  One whose preinst fails:
	# dpkg runs the old postinst's abort-upgrade, the old version stays
	# configured and its modules installed (the prerm no longer removes
	# them on upgrade).
	next_debs "$debs" "$v" "$v+next" "$FLEET/next" fail
	cp "$FLEET"/next/*.deb "$r/root/"
	apt_in "$r" "$log" install "./root/roce-entropy-dkms_${v}+next_all.deb"
	rc=$?
	check "an upgrade whose preinst fails: apt fails, and roce-entropy-dkms $v stays installed" \
		eval "[ $rc != 0 ] && [ \"\$(inroot '$r' dpkg-query -W -f '\${Version} \${db:Status-Status}' roce-entropy-dkms)\" = '$v installed' ]"
	check "... its modules still installed for Linux $DIST_REL, and modprobe takes them" \
		eval "inroot '$r' dkms status -m $NAME -v '$v' -k $DIST_REL | grep -q ': installed' &&
			takes '$r' '$DIST_REL' updates/dkms"
	check "... and dpkg --audit is clean" configured "$r"
	# One that cannot build for a kernel (Secure Boot on, the key not
	# enrolled: refused before any build): every kernel keeps $v, and says so.
	next_debs "$debs" "$v" "$v+next" "$FLEET/next"
	cp "$FLEET"/next/*.deb "$r/root/"
	mokutil_stub "$r"
	# apt gives dpkg a PATH of its own (DPkg::Path), without the stub's
	# /usr/local/bin
	apt_in "$r" "$log" -o DPkg::Path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		install "./root/roce-entropy-dkms_${v}+next_all.deb" \
		"./root/$(basename "$(ls "$FLEET"/next/roce-entropy-tools_*.deb)")"
	rm -f "$r/usr/local/bin/mokutil"
	check "an upgrade refused for Linux $DIST_REL: it says ours of $v stays" \
		said "$log" "roce-entropy: not installed for Linux $DIST_REL: Secure Boot is on"
	check "... ours of $v stays installed there (its dkms.conf kept), modprobe takes it" \
		eval "said '$log' 'ours of $v stays' &&
			inroot '$r' dkms status -m $NAME -v '$v' -k $DIST_REL | grep -q ': installed' &&
			test -f '$r/var/lib/dkms/$NAME/$v/source/dkms.conf' && takes '$r' '$DIST_REL' updates/dkms"
	check "every package is configured after it" configured "$r"
	rm -f "$r"/root/roce-entropy-*+next*.deb
	rm -rf "$FLEET/next"
}
