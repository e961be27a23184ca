#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The packages on an operator's Debian 12 host, without touching this one:
# a Debian 12 root made from the package archive with mmdebstrap (cached:
# Debian's 6.12 kernel of linux-source-6.12's version with its headers,
# linux-source-6.12, dkms), used through overlayfs, so that every make
# check starts from the same host.  As root.
#
#   fleet.sh root                       make the cached root (once)
#   fleet.sh install DEBS PREV_DEBS     mount root A; apt install the older
#                                       packages, then upgrade to DEBS; ours
#                                       are built for the kernel and what
#                                       modprobe takes; then the documented
#                                       opt-in line.  Prints A's path last.
#   fleet.sh updates DEBS               root B over A: the kernel updates
#                                       (Debian 12's own 6.1, an older 6.12
#                                       ABI than linux-source, the rt and
#                                       cloud flavours), Secure Boot without
#                                       the key enrolled, an OFED stand-in
#   fleet.sh purge                      apt purge in A: the distribution's
#                                       modules are back, nothing of ours
#                                       is left
#   fleet.sh umount                     unmount everything
#
# KTAP on stdout, the commands' output in $LOGDIR (default build/check).
# build/fleet holds the mounts; the distribution-kernel VM runs boot A's
# kernel with A's modules (row.sh: VM_ROOT=build/fleet/a/root).
#
# The helpers are in fleet/ (the root, the KTAP results, the judges of a
# root's state, the packages and stubs put in it); the tests of updates
# are fleet/tests/NNN-*.sh, run in the order of their names.
. "$(dirname "$0")/../buildlib/common.sh"
set +e
trap - ERR

LOGDIR=${LOGDIR:-$BUILD/check}
FLEET=$BUILD/fleet
NAME=roce-entropy
mkdir -p "$LOGDIR"

# shellcheck source=tools/testing/fleet/root.sh
. "$(dirname "$0")/fleet/root.sh"
# shellcheck source=tools/testing/fleet/results.sh
. "$(dirname "$0")/fleet/results.sh"
# shellcheck source=tools/testing/fleet/judges.sh
. "$(dirname "$0")/fleet/judges.sh"
# shellcheck source=tools/testing/fleet/packages.sh
. "$(dirname "$0")/fleet/packages.sh"

install_pkgs() {
	local debs=$1 prev=$2 r pv v tools

	log=$LOGDIR/fleet-install.log

	[ -n "$debs" ] && [ -n "$prev" ] || die "usage: fleet.sh install DEBS PREV_DEBS"
	make_root
	mount_root a "$(root_dir)"
	r=$FLEET/a/root
	: > "$log"
	mkdir -p "$r/root/debs" "$r/root/prev" "$r/etc/default"
	# DKMS's builds at the lane's own priority (the lane runs beside two
	# guests: at nice 19 a build would wait for them).
	echo BUILD_NICE=0 > "$r/etc/default/roce-entropy-dkms"
	cp "$debs"/*.deb "$r/root/debs/"
	cp "$prev"/*.deb "$r/root/prev/"
	pv=$(dpkg-deb -f "$prev"/roce-entropy-dkms_*.deb Version)
	v=$(dpkg-deb -f "$debs"/roce-entropy-dkms_*.deb Version)
	tools=$(basename "$(ls "$debs"/roce-entropy-tools_*.deb)")
	ktap_print_header
	ktap_set_plan 26
	# Root on NVMe over RDMA or iSER: ib_core in the initramfs, and 9p for
	# the root of the VM that boots it (tools/testing/tests/initramfs.sh);
	# MODULES=list keeps each update-initramfs to those and what they need.
	printf '%s\n' ib_core 9p 9pnet_virtio >> "$r/etc/initramfs-tools/modules"
	echo MODULES=list > "$r/etc/initramfs-tools/conf.d/roce-entropy-fleet"
	logged inroot "$r" update-initramfs -u -k "$DIST_REL"
	check "root on RDMA: the initramfs holds the distribution's ib_core" \
		initrd_has "$r" "$DIST_REL" kernel
	check "apt install of roce-entropy-dkms $pv on Debian 12 with Linux $DIST_REL" \
		apt_in "$r" "$log" install ./root/prev/roce-entropy-dkms_"$pv"_all.deb
	check "its postinst built and installed ours for Linux $DIST_REL" \
		test "$(record "$r" "$DIST_REL" package)/$(record "$r" "$DIST_REL" state)" = "$pv/installed"
	check "root on RDMA: the postinst updated the initramfs, which holds ours" \
		eval "initrd_has '$r' '$DIST_REL' updates/dkms &&
			said '$log' 'roce-entropy: updated /boot/initrd.img-$DIST_REL, which holds ib_core, with the modules now installed for Linux $DIST_REL'"
	check "apt upgrade to $v, with roce-entropy-tools" \
		apt_in "$r" "$log" install ./root/debs/roce-entropy-dkms_"$v"_all.deb "./root/debs/$tools"
	check "root on RDMA: the upgrade's postinst updated the initramfs with $v's build" \
		said "$log" "roce-entropy: updated /boot/initrd.img-$DIST_REL, which holds ib_core, with the modules now installed for Linux $DIST_REL"
	check "the upgrade built $v, then removed $pv from DKMS (its dkms.conf kept by the preinst)" \
		eval "[ \"\$(inroot '$r' dkms status -m $NAME | grep -c .)\" = 1 ] &&
			inroot '$r' dkms status -m $NAME -v '$v' -k $DIST_REL | grep -q ': installed' &&
			[ ! -e '$r/var/lib/dkms/$NAME/$pv' ] && [ -z \"\$(ls -A '$r/var/cache/roce-entropy/dkms' 2> /dev/null)\" ]"
	check "the record: installed, from linux-source $DIST_VER, kABI held" \
		test "$(record "$r" "$DIST_REL" state)/$(record "$r" "$DIST_REL" source)/$(record "$r" "$DIST_REL" kabi)/$(record "$r" "$DIST_REL" package)" = "installed/$DIST_VER/held/$v"
	check "the record carries the installed ib_core's GNU build ID (the tools' stale-module check)" \
		record_build_id "$r" "$DIST_REL"
	check "the modules break older tools (Breaks), the tools break nothing" \
		eval "[ \"\$(dpkg-deb -f '$debs'/roce-entropy-dkms_*.deb Breaks)\" = 'roce-entropy-tools (<< $v)' ] &&
			[ -z \"\$(dpkg-deb -f '$debs/$tools' Breaks)\" ]"
	check "debian/NEWS is installed (NEWS.Debian, for apt-listchanges)" \
		test -f "$r/usr/share/doc/roce-entropy-dkms/NEWS.Debian.gz"
	check "modprobe takes ours for Linux $DIST_REL (updates/dkms)" takes "$r" "$DIST_REL" updates/dkms
	check "the kABI gate ran in DKMS's build and passed" \
		eval "grep -h '^ok .*keep their CRCs' '$r'/var/lib/dkms/$NAME/'$v'/$DIST_REL/*/log/make.log | grep -q ib_core &&
			! grep -qh '^not ok' '$r'/var/lib/dkms/$NAME/'$v'/$DIST_REL/*/log/make.log"
	check "no AUTOINSTALL: dkms autoinstall leaves the package to its own hooks" \
		eval "! grep -q '^AUTOINSTALL' '$r'/usr/src/$NAME-'$v'/dkms.conf"
	check "installing changed nothing on the wire: no modprobe.d or udev file but the escape hatch's" \
		test "$(wire_files "$r")" = /usr/lib/modprobe.d/roce-entropy-stock.conf
	check "the escape hatch: an install line through modprobe-stock for each module we replace" \
		hatch_conf "$r"
	check "the initramfs of root on RDMA carries the escape hatch (modprobe-stock, the distribution's ib_core)" \
		initrd_hatch "$r" "$DIST_REL"
	check "the kernel hooks are in place" \
		test -x "$r/etc/kernel/postinst.d/roce-entropy" -a -x "$r/etc/kernel/header_postinst.d/roce-entropy" \
		-a -x "$r/etc/kernel/postrm.d/roce-entropy"
	check "the tools package holds roce-entropy and roce-ping, no test driver" \
		eval "inroot '$r' dpkg -L roce-entropy-tools | grep -qx /usr/bin/roce-entropy &&
			! inroot '$r' dpkg -L roce-entropy-tools | grep -E 'roce-qps|roce-flows|rxe-wqe-av'"
	check "the installed tools print the package's version, $v" \
		eval "[ \"\$(inroot '$r' roce-entropy --version)\" = 'roce-entropy $v' ] &&
			[ \"\$(inroot '$r' roce-ping --version)\" = 'roce-ping $v' ]"
	check "roce-entropy-dkms with a bad command exits 2 and changes nothing" \
		eval "inroot '$r' roce-entropy-dkms frobnicate > /dev/null 2>&1; [ \$? = 2 ]"
	check "every package is configured" configured "$r"
	# The operator's opt-in, as README.Debian gives it, and the initramfs
	# that carries it to early boot.
	echo 'options ib_core roce_entropy=rfc' > "$r/etc/modprobe.d/roce-entropy.conf"
	logged inroot "$r" update-initramfs -u -k "$DIST_REL"
	check "root on RDMA: then update-initramfs: ours and the opt-in line in the initramfs" \
		eval "initrd_has '$r' '$DIST_REL' updates/dkms &&
			inroot '$r' lsinitramfs /boot/initrd.img-$DIST_REL |
				grep 'etc/modprobe.d/roce-entropy.conf$' > /dev/null"
	check "roce-entropy status reads the record (installed for Linux $DIST_REL)" \
		eval "inroot '$r' roce-entropy status --json | grep -q '\"$DIST_REL\"'"
	check "the DKMS signing key exists for the Secure Boot steps" test -f "$r/var/lib/dkms/mok.pub"
	check "dkms autoinstall exits 0 for the kernel" \
		logged inroot "$r" dkms autoinstall -k "$DIST_REL"
	ktap_finished
}

# run_tests DIR: the tests of DIR, NNN-*.sh, in the order of their names,
# each sourced in this shell (blktests' shape).  A test sets RESULTS, the
# number of results it prints, and defines fleet_test, which runs it, and
# requires when it can be skipped: requires prints the reason and fails,
# and then fleet_test is not run and each of the RESULTS results is a
# skip with that reason.  fleet_test sees the caller's locals (bash's
# dynamic scope): they carry the state the tests share.
run_tests() {
	local t n why start

	for t in "$1"/[0-9][0-9][0-9]-*.sh; do
		unset -f requires fleet_test
		RESULTS=
		# shellcheck source=/dev/null # each test is linted on its own
		. "$t"
		n=$KTAP_TESTNO
		start=$SECONDS
		if declare -F requires > /dev/null && ! why=$(requires); then
			while [ "$KTAP_TESTNO" -lt $((n + RESULTS)) ]; do
				skip_result "${t##*/}, result $((KTAP_TESTNO - n + 1)) of $RESULTS" "$why"
			done
		else
			fleet_test
		fi
		[ $((KTAP_TESTNO - n)) = "$RESULTS" ] ||
			echo "# ${t##*/} printed $((KTAP_TESTNO - n)) results, not its RESULTS=$RESULTS"
		echo "# ${t##*/}: $((SECONDS - start)) s"
	done
}

# updates DEBS: root B over A, then the tests of fleet/tests/ in it.  The
# locals are what the tests share: the packages, the root, our version and
# the older 6.12 ABI; a test's own variables are local to its fleet_test.
updates() {
	local debs=$1 r v old oldv

	log=$LOGDIR/fleet-updates.log
	[ -d "$FLEET/a/upper" ] || die "fleet.sh install first"
	v=$(dpkg-deb -f "$debs"/roce-entropy-dkms_*.deb Version)
	mount_root b "$FLEET/a/upper:$(root_dir)"
	r=$FLEET/b/root
	: > "$log"
	# Every kernel image installed here would build an initramfs: not what
	# is tested (the VM runs boot A's kernel with an initramfs of their own).
	inroot "$r" dpkg-divert --local --rename --add /usr/sbin/update-initramfs >> "$log" 2>&1
	ln -sf /bin/true "$r/usr/sbin/update-initramfs"
	# shellcheck disable=SC2034 # read by the tests (002, 006)
	read -r old oldv < <(older_abi)
	ktap_print_header
	# the plan: what the tests say they print
	ktap_set_plan "$(sed -n 's/^RESULTS=//p' "$(dirname "$0")"/fleet/tests/*.sh | paste -sd + | bc)"

	run_tests "$(dirname "$0")/fleet/tests"
	umount_root b
	ktap_finished
}

purge() {
	local r=$FLEET/a/root

	log=$LOGDIR/fleet-purge.log
	mountpoint -q "$r" || die "fleet.sh install first"
	: > "$log"
	ktap_print_header
	ktap_set_plan 7
	# The rollback runbook: the opt-in line out, then the packages.
	rm -f "$r/etc/modprobe.d/roce-entropy.conf"
	check "apt purge roce-entropy-dkms roce-entropy-tools" \
		apt_in "$r" "$log" purge roce-entropy-dkms roce-entropy-tools
	check "root on RDMA: the removal updated the initramfs: the distribution's ib_core" \
		initrd_has "$r" "$DIST_REL" kernel
	check "modprobe takes the distribution's ib_core again" takes "$r" "$DIST_REL" kernel
	check "nothing of ours in DKMS" eval "! inroot '$r' dkms status -m $NAME | grep -q ."
	check "no record, cache, source or hook left" \
		eval "! ls -d '$r'/var/lib/roce-entropy '$r'/var/cache/roce-entropy '$r'/usr/src/$NAME-* \
			'$r'/etc/kernel/*.d/roce-entropy '$r'/usr/share/dkms/modules_to_force_install/$NAME 2> /dev/null | grep -q ."
	check "nothing of ours under /lib/modules" eval "! find '$r/lib/modules' -path '*/updates/dkms/*' | grep -q ."
	check "every package is configured" configured "$r"
	ktap_finished
}

case ${1:-} in
root) make_root ;;
install) shift; ktap_init; install_pkgs "$@" ;;
updates) shift; ktap_init; updates "$@" ;;
purge) ktap_init; purge ;;
umount) umount_root b; umount_root a ;;
*) die "usage: tools/testing/fleet.sh root | install DEBS PREV_DEBS | updates DEBS | purge | umount" ;;
esac
