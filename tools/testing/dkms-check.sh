#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check on the installed distribution kernel, on the host (as root):
#
#   dkms-check.sh install RELEASE   make install for RELEASE through DKMS,
#                                   then: modprobe takes ours (updates/dkms,
#                                   the srcversion of our build), the /etc
#                                   files are there, bad input is refused
#                                   and changes nothing
#   dkms-check.sh remove RELEASE    make uninstall: the distribution's modules
#                                   are what modprobe takes again
#   dkms-check.sh package RELEASE   make deb, then apt install of both
#                                   packages (DKMS builds ours for RELEASE,
#                                   the kernel's own hook installs them
#                                   again), then apt purge: all as above
#
# KTAP on stdout, the commands' output in $LOGDIR (default build/check).
. "$(dirname "$0")/../build/common.sh"
set +e
trap - ERR

phase=${1:-}
rel=${2:-}
[ -n "$rel" ] && [[ $phase =~ ^(install|remove|package)$ ]] ||
	die "usage: tools/testing/dkms-check.sh install|remove|package RELEASE"
LOGDIR=${LOGDIR:-$BUILD/check}
mkdir -p "$LOGDIR"
ksrc_init
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"

MODS="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib"
DKMS_SH=$REPO/tools/build/dkms.sh

# result RC DESCRIPTION: one KTAP result.
result() {
	if [ "$1" = 0 ]; then ktap_test_pass "$2"; else ktap_test_fail "$2"; fi
}

# modprobe_takes M DIR: modprobe's file for module M of Linux $rel lies
# under /lib/modules/$rel/DIR.
modprobe_takes() {
	local f

	f=$(modinfo -k "$rel" -F filename "$1" 2>/dev/null)
	case $f in
	"/lib/modules/$rel/$2/"*) return 0 ;;
	esac
	echo "# $1: modprobe takes '$f', not one under $2/"
	return 1
}

# ours M: modprobe's M for Linux $rel is the file DKMS built from this
# tree.  (The distribution kernel has no CONFIG_MODULE_SRCVERSION_ALL: a
# module without MODULE_VERSION has no srcversion to compare.)
ours() {
	local built

	built=$(ls /var/lib/dkms/roce-entropy/*/"$rel"/*/module/"$1".ko* 2>/dev/null | head -n 1)
	modprobe_takes "$1" updates/dkms || return 1
	[ -n "$built" ] && cmp -s "$built" "$(modinfo -k "$rel" -F filename "$1")" ||
		{ echo "# $1: not the module DKMS built (${built:-none})"; return 1; }
}

# has_param REL M P: module M of Linux REL (modprobe's choice) has parameter P.
has_param() {
	modinfo -k "$1" -F parm "$2" | grep -q "^$3:"
}

# etc_files PRESENT|ABSENT: the files make install puts in /etc.
etc_files() {
	local f=/etc/modprobe.d/roce-entropy.conf g=/etc/udev/rules.d/70-roce-entropy.rules

	if [ "$1" = PRESENT ]; then
		cmp -s "$REPO/tools/packaging/roce-entropy.conf" $f &&
			cmp -s "$REPO/tools/packaging/70-roce-entropy.rules" $g
	else
		[ ! -e $f ] && [ ! -e $g ]
	fi
}

# refused WHAT CMD...: CMD fails with a message and leaves DKMS's state and
# the installed modules as they were.
refused() {
	local what=$1 before after out

	shift
	before=$(dkms status 2>&1; find "/lib/modules/$rel/updates" -type f 2>/dev/null | sort)
	out=$("$@" 2>&1) && { echo "# $what: accepted"; return 1; }
	echo "# $what: $(echo "$out" | tail -n 1)"
	after=$(dkms status 2>&1; find "/lib/modules/$rel/updates" -type f 2>/dev/null | sort)
	[ "$before" = "$after" ] || { echo "# $what changed the installation"; return 1; }
	[[ $out == *error:* ]]
}

# mismatch_refused: make modules against the headers of another 6.12
# (a fake build tree claiming 6.12.5) with a 6.12.117 source that the
# series does not apply to (the first file it changes cut short) stops,
# names both versions, and builds nothing.
mismatch_refused() {
	local tmp fake=6.12.5+deb12-amd64 f out rc

	tmp=$(mktemp -d) || return 1
	mkdir -p "$tmp/kdir/include/config" "$tmp/src"
	for f in Makefile Module.symvers .config; do
		ln -s "/lib/modules/$rel/build/$f" "$tmp/kdir/$f"
	done
	echo $fake > "$tmp/kdir/include/config/kernel.release"
	cp -al "$KSRC/Makefile" "$tmp/src/"
	for f in $TREE_DIRS; do
		mkdir -p "$tmp/src/$(dirname "$f")"
		cp -al "$KSRC/$f" "$tmp/src/$f"
	done
	f=$(sed -n 's|^+++ b/||p' "$REPO/$(sed -n '/^[^#]/{s|^|patches/|p;q}' "$REPO/patches/series")" |
		head -n 1)
	# a new file, not the hard link into KSRC
	head -n 10 "$KSRC/$f" > "$tmp/src/$f.new" && mv "$tmp/src/$f.new" "$tmp/src/$f"
	out=$(env -u KDIR make -C "$REPO" modules KDIR="$tmp/kdir" KSRC="$tmp/src" 2>&1)
	rc=$?
	echo "# $(echo "$out" | grep '^error:' | tail -n 1)"
	[ $rc != 0 ] && [[ $out == *"error:"*6.12.117*6.12.5* ]] &&
		[ ! -e "$BUILD/kdir/$fake/modules" ]
	rc=$?
	rm -rf "$tmp" "$BUILD/kdir/$fake"
	return $rc
}

# distribution_again: modprobe takes the distribution's own modules, whose
# ib_core has no roce_entropy parameter.
distribution_again() {
	local m bad=0

	for m in $MODS; do
		modprobe_takes "$m" kernel || bad=1
	done
	result $bad "modprobe takes the distribution's own $(echo $MODS | wc -w) modules again"
	! has_param "$rel" ib_core roce_entropy
	result $? "... whose ib_core has no roce_entropy parameter"
}

# owned_by PACKAGE FILE...: dpkg lists every FILE as PACKAGE's.
owned_by() {
	local pkg=$1 f

	shift
	for f; do
		[ "$(dpkg -S "$f" 2>/dev/null | cut -d: -f1)" = "$pkg" ] ||
			{ echo "# $f: not $pkg's"; return 1; }
	done
}

# package: make deb, apt install, the kernel hook, apt purge.
package() {
	local debs apt=(env DEBIAN_FRONTEND=noninteractive apt-get -y -q
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
	local tools=/usr/bin/roce-entropy

	ktap_set_plan $((14 + $(echo $MODS | wc -w)))
	make -C "$REPO" deb > "$LOGDIR/deb.log" 2>&1
	result $? "make deb (log $LOGDIR/deb.log)"
	debs=$(ls "$BUILD"/deb/roce-entropy-dkms_*_all.deb "$BUILD"/deb/roce-entropy-tools_*.deb 2>/dev/null)
	[ "$(echo "$debs" | grep -c .)" = 2 ]
	result $? "make deb built roce-entropy-dkms and roce-entropy-tools"
	# shellcheck disable=SC2086
	"${apt[@]}" install $debs > "$LOGDIR/apt-install.log" 2>&1
	result $? "apt install ./roce-entropy-dkms_*.deb ./roce-entropy-tools_*.deb (log $LOGDIR/apt-install.log)"
	for m in $MODS; do
		ours "$m"
		result $? "$m: modprobe takes the package's from updates/dkms, built by its postinst"
	done
	etc_files PRESENT &&
		owned_by roce-entropy-dkms /etc/modprobe.d/roce-entropy.conf /etc/udev/rules.d/70-roce-entropy.rules
	result $? "the default policy and the udev rules are the package's files in /etc"
	grep -qx /etc/modprobe.d/roce-entropy.conf /var/lib/dpkg/info/roce-entropy-dkms.conffiles
	result $? "... and conffiles: an admin's change survives an upgrade"
	"$tools" --version | grep -qx "roce-entropy [0-9.]*" && owned_by roce-entropy-tools "$tools"
	result $? "$tools is the package's and prints its version"
	# The RFC's fold of flow label 0x12345: 0x2345 ^ (0x12345 >> 14) = 0x2341,
	# | 0xc000 = 0xe341.
	[ "$("$tools" udp-sport --flow-label 0x12345)" = "udp_sport 0xe341 (58177)" ]
	result $? "$tools folds flow label 0x12345 into UDP source port 0xe341"
	for m in roce-entropy roce-ping roce-qps; do
		man -w "$m" > /dev/null 2>&1 || { echo "# no man page for $m"; false; } || break
	done
	result $? "man finds roce-entropy(1), roce-ping(1), roce-qps(1)"
	# A kernel update: the kernel's postinst hook runs dkms autoinstall,
	# which puts modules with AUTOINSTALL back.
	dkms uninstall -m roce-entropy -v "$VERSION" -k "$rel" > "$LOGDIR/dkms-hook.log" 2>&1 &&
		! modprobe_takes ib_core updates/dkms > /dev/null &&
		/etc/kernel/postinst.d/dkms "$rel" >> "$LOGDIR/dkms-hook.log" 2>&1 &&
		ours ib_core && ours rdma_rxe
	result $? "after dkms uninstall, the kernel's postinst hook installs ours again (AUTOINSTALL)"
	"${apt[@]}" purge roce-entropy-dkms roce-entropy-tools > "$LOGDIR/apt-purge.log" 2>&1
	result $? "apt purge roce-entropy-dkms roce-entropy-tools (log $LOGDIR/apt-purge.log)"
	distribution_again
	etc_files ABSENT
	result $? "the files in /etc are gone"
	[ ! -e "/usr/src/roce-entropy-$VERSION" ] && [ ! -e /var/lib/dkms/roce-entropy ] && [ ! -e "$tools" ]
	result $? "the sources, DKMS's tree and the programs are gone"
}

VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")

ktap_print_header
if [ "$phase" = package ]; then
	package
elif [ "$phase" = install ]; then
	ktap_set_plan $((8 + $(echo $MODS | wc -w)))
	[ "$(id -u)" = 0 ]
	result $? "make check runs as root, as make install must"
	"$DKMS_SH" install "$rel" > "$LOGDIR/dkms-install.log" 2>&1
	result $? "make install (dkms add, build, install) for Linux $rel (log $LOGDIR/dkms-install.log)"
	for m in $MODS; do
		ours "$m"
		result $? "$m: modprobe takes ours from updates/dkms, srcversion of our build"
	done
	has_param "$rel" ib_core roce_entropy
	result $? "ib_core is the series': it has the roce_entropy parameter"
	etc_files PRESENT
	result $? "the default policy (modprobe.d) and the udev rules are in /etc as shipped"
	refused "a kernel that is not 6.12" "$DKMS_SH" install 6.1.0-99-amd64
	result $? "make install for Linux 6.1.0-99-amd64 is refused and changes nothing"
	mismatch_refused
	result $? "headers of Linux 6.12.5, a 6.12.117 source the series does not apply to: refused, both named"
	refused "a 6.12 kernel without headers" "$DKMS_SH" install 6.12.0-nonexistent
	result $? "make install for a 6.12 kernel without headers is refused and changes nothing"
	refused "not root" setpriv --reuid=65534 --regid=65534 --clear-groups "$DKMS_SH" install "$rel"
	result $? "make install as a user who is not root is refused and changes nothing"
else
	ktap_set_plan 4
	"$DKMS_SH" remove > "$LOGDIR/dkms-remove.log" 2>&1
	result $? "make uninstall (dkms remove --all) (log $LOGDIR/dkms-remove.log)"
	distribution_again
	etc_files ABSENT
	result $? "the files in /etc are gone"
fi
ktap_finished
