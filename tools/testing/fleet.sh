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
# FLEET (default build/fleet) holds the mounts; the distribution-kernel VM
# runs boot A's kernel with A's modules (run.sh VM_ROOT=).
. "$(dirname "$0")/../buildlib/common.sh"
set +e
trap - ERR

LOGDIR=${LOGDIR:-$BUILD/check}
FLEET=${FLEET:-$BUILD/fleet}
NAME=roce-entropy
mkdir -p "$LOGDIR"

# The operator's host: the kernel of linux-source-6.12's version, its
# headers and source, and what the package depends on (so that each run
# does not download it again); ccache makes DKMS's builds of a make check
# after the first one take seconds, and is the only thing an operator's
# host would not have.
root_packages() {
	local v rel

	v=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
		die "linux-source-6.12 is not installed: run tools/buildlib/deps.sh"
	rel=${v%%-*}+deb12-$(dpkg --print-architecture)
	echo "linux-image-$rel,linux-headers-$rel,linux-source-6.12=$v,dkms,kmod,openssl,make,gcc,patch,rsync,xz-utils,python3,python3-pyelftools,mokutil,ccache"
}

root_dir() {
	echo "$CACHE/fleet/root-$(root_packages | sha256sum | cut -c1-12)"
}

make_root() {
	local dir tmp pkgs

	command -v mmdebstrap > /dev/null || die "mmdebstrap is missing: run tools/buildlib/deps.sh"
	pkgs=$(root_packages) || exit 1
	dir=$(root_dir)
	if [ -f "$dir/.made" ]; then
		say "Debian 12 root: $dir (cached)"
		return
	fi
	tmp=$dir.tmp
	rm -rf "$tmp"
	mkdir -p "${dir%/*}"
	say "making a Debian 12 root with mmdebstrap into $dir (once; about 5 minutes)"
	mmdebstrap --mode=root --variant=apt --format=directory --skip=cleanup/apt/lists \
		--include="$pkgs" bookworm "$tmp" \
		"deb http://deb.debian.org/debian bookworm main" \
		"deb http://deb.debian.org/debian bookworm-updates main" \
		"deb http://deb.debian.org/debian-security bookworm-security main" \
		> "$LOGDIR/mmdebstrap.log" 2>&1 ||
		{ tail -n 20 "$LOGDIR/mmdebstrap.log"; die "mmdebstrap failed (log $LOGDIR/mmdebstrap.log): check the Debian mirror"; }
	touch "$tmp/.made"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	# Older roots go: one is kept.
	find "${dir%/*}" -maxdepth 1 -name 'root-*' ! -path "$dir" -exec rm -rf {} +
}

# mount_root NAME LOWER: an overlay of LOWER (colon-separated) at
# $FLEET/NAME/root, with /proc, /sys, /dev, the host's resolver and
# ccache's directory.
mount_root() {
	local d=$FLEET/$1 r

	r=$d/root
	umount_root "$1"
	rm -rf "$d"
	mkdir -p "$d/upper" "$d/work" "$r"
	mount -t overlay overlay -o "lowerdir=$2,upperdir=$d/upper,workdir=$d/work" "$r" ||
		die "cannot mount an overlay at $r (overlayfs, as root)"
	mount -t proc proc "$r/proc"
	mount --rbind /sys "$r/sys"
	mount --rbind /dev "$r/dev"
	cp /etc/resolv.conf "$r/etc/resolv.conf"
	mkdir -p "$r/var/cache/rte-ccache" "$CACHE/ccache"
	mount --bind "$CACHE/ccache" "$r/var/cache/rte-ccache"
}

umount_root() {
	local r=$FLEET/$1/root

	mountpoint -q "$r" || return 0
	umount -R "$r" 2> /dev/null || umount -R -l "$r"
}

# inroot ROOT CMD...: CMD in ROOT as its root user, with the environment of a
# root shell there (and ccache for Debian's kernel Makefile).
inroot() {
	local r=$1

	shift
	chroot "$r" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive DEBIAN_KERNEL_USE_CCACHE=1 \
		CCACHE_DIR=/var/cache/rte-ccache "$@"
}

# apt_in ROOT LOG ARGS...: apt-get ARGS in ROOT, its output added to LOG.
apt_in() {
	local r=$1 log=$2

	shift 2
	echo "# apt-get $*" >> "$log"
	inroot "$r" apt-get -y -q -o Dpkg::Use-Pty=0 "$@" >> "$log" 2>&1
}

# logged CMD...: CMD, its output added to $log.
logged() {
	"$@" >> "$log" 2>&1
}

result() {
	if [ "$1" = 0 ]; then ktap_test_pass "$2"; else ktap_test_fail "$2"; fi
}

# check DESCRIPTION CMD...: one result from CMD's status.
check() {
	local d=$1

	shift
	"$@"
	result $? "$d"
}

# takes ROOT REL DIR: the ib_core modprobe takes for Linux REL in ROOT lies
# under DIR (updates/dkms: ours; kernel: the distribution's).
takes() {
	local f

	f=$(inroot "$1" modinfo -k "$2" -F filename ib_core 2> /dev/null)
	case $f in
	"/lib/modules/$2/$3/"*) return 0 ;;
	esac
	echo "# ib_core for Linux $2: modprobe takes '${f:-nothing}', not one under $3/"
	return 1
}

# initrd_has ROOT REL DIR: Linux REL's initramfs in ROOT holds ours
# (DIR updates/dkms; the distribution's ib_core beside it is the escape
# hatch's), or only the distribution's ib_core (DIR kernel).
initrd_has() {
	local l ours=n

	l=$(inroot "$1" lsinitramfs "/boot/initrd.img-$2" | grep '/ib_core\.ko')
	! grep -q "lib/modules/$2/updates/dkms/" <<< "$l" || ours=y
	case $3:$ours in
	updates/dkms:y | kernel:n) ! grep -q "lib/modules/$2/$3/" <<< "$l" || return 0 ;;
	esac
	echo "# ib_core in the initramfs of Linux $2: '${l:-none}', not as $3/ wants"
	return 1
}

# record_build_id ROOT REL: the record of Linux REL names the build ID of
# the ib_core in updates/dkms.
record_build_id() {
	local f want t

	f=$(ls "$1/lib/modules/$2/updates/dkms/"ib_core.ko* | head -n 1)
	t=$(mktemp)
	case $f in
	*.xz) xz -dc "$f" ;;
	*) cat "$f" ;;
	esac > "$t"
	want=$(readelf -n "$t" | sed -n 's/^ *Build ID: //p')
	rm -f "$t"
	echo "# $f: build ID ${want:-none}; the record: $(record "$1" "$2" build_id)"
	[ -n "$want" ] && [ "$(record "$1" "$2" build_id)" = "$want" ]
}

# hatch_conf ROOT: the escape hatch's modprobe.d in ROOT sends each module
# we replace, and only those, through modprobe-stock with modprobe's
# options.
hatch_conf() {
	local got

	got=$(sed -n 's|^install \([a-z0-9_]*\) /usr/lib/roce-entropy/modprobe-stock \1 \$CMDLINE_OPTS$|\1|p' \
		"$1/usr/lib/modprobe.d/roce-entropy-stock.conf" | xargs)
	echo "# install lines: $got"
	[ "$got" = "ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib" ] &&
		[ "$(grep -c '^install ' "$1/usr/lib/modprobe.d/roce-entropy-stock.conf")" = 8 ] &&
		test -x "$1/usr/lib/roce-entropy/modprobe-stock"
}

# wire_files ROOT: the packages' files under modprobe.d and udev.
wire_files() {
	inroot "$1" dpkg -L roce-entropy-dkms roce-entropy-tools |
		grep -E '^/(etc|lib|usr/lib)/(modprobe\.d|udev)/.' || true
}

# initrd_hatch ROOT REL: Linux REL's initramfs carries the escape hatch:
# modprobe-stock, kmod's insmod and modinfo, the distribution's ib_core.
initrd_hatch() {
	local l

	l=$(inroot "$1" lsinitramfs "/boot/initrd.img-$2")
	grep -qx usr/lib/roce-entropy/modprobe-stock <<< "$l" &&
		grep -qx 'usr/sbin/insmod\|sbin/insmod' <<< "$l" &&
		grep -qx 'usr/sbin/modinfo\|sbin/modinfo' <<< "$l" &&
		grep -q "lib/modules/$2/kernel/drivers/infiniband/core/ib_core\.ko" <<< "$l"
}

# record ROOT REL KEY: a field of the package's record of Linux REL.
record() {
	sed -n "s/^$3=//p" "$1/var/lib/roce-entropy/$2" 2> /dev/null
}

# configured ROOT: no package is left half-installed (dpkg --audit).
configured() {
	local a

	a=$(inroot "$1" dpkg --audit)
	[ -z "$a" ] || { echo "$a" | sed 's/^/# /'; return 1; }
}

# last_apt LOG: the last apt run's output in LOG.
last_apt() {
	sed -n '/^# apt-get/h; /^# apt-get/!H; ${x;p}' "$1"
}

# said LOG TEXT: the last apt run's output has the line TEXT.  grep reads
# all of it (not -q): under pipefail a grep -q that found TEXT and left
# fails the pipeline when sed, still writing, dies of SIGPIPE (seen once:
# "not said" of a line that was there).
said() {
	last_apt "$1" | grep -F -- "$2" > /dev/null || { echo "# not said: $2"; return 1; }
}

# one_line LOG REL: the last apt run said one thing of kernel REL besides
# its build, and that it was installed (no false refusal on the way: the
# image's hook runs while the image is half-configured).
one_line() {
	local lines

	lines=$(last_apt "$1" | grep "^roce-entropy: .*Linux $2\b" | grep -v '^roce-entropy: building')
	[ "$lines" = "roce-entropy: installed for Linux $2 (policy unchanged: see /usr/share/doc/$NAME-dkms/README.Debian)" ] ||
		{ echo "$lines" | sed 's/^/# said: /'; return 1; }
}

# source_deb ROOT VERSION TARBALL: a stand-in linux-source-6.12 of
# VERSION holding TARBALL (the real one moved aside, or an empty one), as
# /root/linux-source.deb in ROOT, for apt to install.
source_deb() {
	local d=$FLEET/source-deb

	rm -rf "$d"
	mkdir -p "$d/DEBIAN" "$d/usr/src"
	printf 'Package: linux-source-6.12\nVersion: %s\nArchitecture: all\nMaintainer: fleet.sh <root@localhost>\nDescription: stand-in of linux-source-6.12\n' \
		"$2" > "$d/DEBIAN/control"
	ln "$3" "$d/usr/src/linux-source-6.12.tar.xz" 2> /dev/null ||
		cp "$3" "$d/usr/src/linux-source-6.12.tar.xz"
	dpkg-deb -Znone -b "$d" "$1/root/linux-source.deb" > /dev/null
	rm -rf "$d"
}

# next_debs DEBS V NV OUT [FAIL]: the two packages of DEBS (version V)
# as version NV in OUT, as a later upload would be; FAIL: its preinst
# fails on upgrade (the test of an upgrade that stops on the way).
next_debs() {
	local debs=$1 v=$2 nv=$3 out=$4 fail=${5:-} d p

	rm -rf "$out"
	mkdir -p "$out"
	for p in roce-entropy-dkms roce-entropy-tools; do
		d=$out/$p
		dpkg-deb -R "$debs/${p}_${v}_"*.deb "$d"
		sed -i "s/^Version: .*/Version: $nv/; s/(<< $v)/(<< $nv)/" "$d/DEBIAN/control"
		rm -f "$d/DEBIAN/md5sums"
		if [ $p = roce-entropy-dkms ]; then
			mv "$d/usr/src/$NAME-$v" "$d/usr/src/$NAME-$nv"
			sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$nv\"/" "$d/usr/src/$NAME-$nv/dkms.conf"
			sed -i "s/^VERSION=.*/VERSION=$nv/" "$d/usr/sbin/roce-entropy-dkms"
			# failing: alone in its apt run (no Breaks on the tools),
			# as an upgrade of the modules' package only
			[ -z "$fail" ] || {
				sed -i '2i [ "$1" != upgrade ] || { echo "preinst: failing on purpose (fleet.sh)" >&2; exit 1; }' \
					"$d/DEBIAN/preinst"
				sed -i '/^Breaks:/d' "$d/DEBIAN/control"
			}
		fi
		dpkg-deb -Zxz -b "$d" "$out/" > /dev/null
		rm -rf "$d"
	done
}

# ktap_init: KTAP's helpers, and the release of the root's kernel.
ktap_init() {
	ksrc_init rdma
	. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"
	DIST_REL=$(dist_release) || die "linux-source-6.12 is not installed"
	DIST_VER=${DIST_REL%%+*}
}

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

# older_abi: an older 6.12 ABI than linux-source's that the archive still
# has headers for, as "RELEASE DEBIAN-VERSION".
older_abi() {
	local v rel

	for v in $(apt-cache madison linux-source-6.12 | awk '{ print $3 }' | sort -rV); do
		rel=${v%%-*}+deb12-$(dpkg --print-architecture)
		[ "${rel%%+*}" != "$DIST_VER" ] || continue
		apt-cache show "linux-headers-$rel" > /dev/null 2>&1 || continue
		echo "$rel $v"
		return
	done
}

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

# ofed_standins ROOT: /root/ofed.deb and /root/ofed-utils.deb, stand-ins of
# MLNX_OFED's kernel package and of its utilities, which depend on it and
# ship ofed_info (what the package's trigger watches).
ofed_standins() {
	local d=$FLEET/ofed

	rm -rf "$d"
	mkdir -p "$d/dkms/DEBIAN" "$d/utils/DEBIAN" "$d/utils/usr/bin"
	printf 'Package: mlnx-ofed-kernel-dkms\nVersion: 24.10\nArchitecture: all\nMaintainer: test <test@example.org>\nDescription: stand-in for MLNX_OFED\n' \
		> "$d/dkms/DEBIAN/control"
	printf 'Package: mlnx-ofed-kernel-utils\nVersion: 24.10\nArchitecture: all\nDepends: mlnx-ofed-kernel-dkms\nMaintainer: test <test@example.org>\nDescription: stand-in for MLNX_OFED utilities\n' \
		> "$d/utils/DEBIAN/control"
	printf '#!/bin/sh\necho MLNX_OFED_LINUX-24.10\n' > "$d/utils/usr/bin/ofed_info"
	chmod 755 "$d/utils/usr/bin/ofed_info"
	dpkg-deb --root-owner-group --build "$d/dkms" "$1/root/ofed.deb" > /dev/null
	dpkg-deb --root-owner-group --build "$d/utils" "$1/root/ofed-utils.deb" > /dev/null
}

# installed_pkg ROOT PACKAGE: PACKAGE is installed and configured in ROOT.
installed_pkg() {
	inroot "$1" dpkg-query -W -f '${Status}' "$2" 2> /dev/null | grep -q 'ok installed' ||
		{ echo "# $2 is not installed"; return 1; }
}

# mokutil_stub ROOT: Secure Boot on; the key enrolled once /root/enrolled
# exists.
mokutil_stub() {
	cat > "$1/usr/local/bin/mokutil" <<-'STUB'
	#!/bin/sh
	case $1 in
	--sb-state) echo "SecureBoot enabled" ;;
	--test-key)
		if [ -f /root/enrolled ]; then echo "$2 is already enrolled"; exit 1; fi
		echo "$2 is not enrolled"
		;;
	esac
	STUB
	chmod 755 "$1/usr/local/bin/mokutil"
}

updates() {
	local debs=$1 r v old oldv rel61 rc symvers d srcver

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
	read -r old oldv < <(older_abi)
	ktap_print_header
	ktap_set_plan 63

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

	# An older 6.12 ABI than linux-source-6.12.
	[ -n "$old" ] || echo "# the archive has no older 6.12 ABI with headers"
	check "apt install linux-headers-$old (older than linux-source $DIST_VER) succeeds" \
		apt_in "$r" "$log" install "linux-headers-$old"
	check "every package is configured after it" configured "$r"
	check "apt's output has one line for Linux $old: installed" one_line "$log" "$old"
	check "its source was downloaded at its exact version, $oldv, during the update" \
		test -f "$r/var/cache/roce-entropy/linux-source-$oldv.tar.xz"
	check "linux-source-6.12 itself is unchanged ($DIST_VER)" \
		eval "inroot '$r' dpkg-query -W -f '\${Version}' linux-source-6.12 | grep -q '^$DIST_VER-'"
	check "the record of Linux $old: built from ${old%%+*}" test "$(record "$r" "$old" source)" = "${old%%+*}"
	check "Linux $old: ours installed with the kABI held" \
		test "$(record "$r" "$old" state)/$(record "$r" "$old" kabi)" = installed/held
	check "Linux $old: modprobe takes ours, built for it (vermagic)" \
		eval "takes '$r' '$old' updates/dkms && inroot '$r' modinfo -k '$old' -F vermagic ib_core | grep -q '^$old '"
	inroot "$r" make -C "/usr/src/$NAME-$v" dkms-build "KDIR=/lib/modules/$old/build" \
		CACHE=/tmp/refuse KDIR_WORK=/tmp/refuse-work > "$LOGDIR/fleet-refuse.log" 2>&1
	rc=$?
	check "make dkms-build refuses linux-source $DIST_VER for Linux $old" \
		eval "[ $rc != 0 ] && grep -q 'refusing to build RDMA core from another release' '$LOGDIR/fleet-refuse.log'"
	# The source not to be had (offline, or gone from the archive): refused,
	# with the command that fixes it.
	inroot "$r" dkms remove -m "$NAME" -v "$v" -k "$old" >> "$log" 2>&1
	rm -f "$r/var/cache/roce-entropy/linux-source-$oldv.tar.xz"
	# A full disk during the download (a 1 MB tmpfs over the cache): the
	# reason says so, and nothing partial is left for a retry to take.
	mount -t tmpfs -o size=1m tmpfs "$r/var/cache/roce-entropy"
	inroot "$r" roce-entropy-dkms install "$old" >> "$log" 2>&1
	check "a full disk during the source's download: refused, saying so" \
		eval "[ '$(record "$r" "$old" state)' = refused ] &&
			grep -q 'no space left in /var/cache/roce-entropy' '$r/var/lib/roce-entropy/$old'"
	check "a full disk during the source's download: nothing left in the cache" \
		eval "[ -z \"\$(ls -A '$r/var/cache/roce-entropy')\" ]"
	umount "$r/var/cache/roce-entropy"
	printf '#!/bin/sh\necho "E: Failed to fetch (stub)" >&2\nexit 100\n' > "$r/usr/local/bin/apt-get"
	chmod 755 "$r/usr/local/bin/apt-get"
	inroot "$r" roce-entropy-dkms install "$old" >> "$log" 2>&1
	rm -f "$r/usr/local/bin/apt-get"
	check "without its source: refused with 'apt install linux-source-6.12=$oldv' and apt's error" \
		eval "[ '$(record "$r" "$old" state)' = refused ] &&
			grep -qF 'apt install linux-source-6.12=$oldv' '$r/var/lib/roce-entropy/$old' &&
			grep -qF 'E: Failed to fetch (stub)' '$r/var/lib/roce-entropy/$old'"
	check "without its source: the distribution's modules for Linux $old" takes "$r" "$old" kernel

	# The other flavours of the same release.
	flavour "$r" "${DIST_REL%-*}-rt-amd64"
	flavour "$r" "${DIST_REL%-*}-cloud-amd64"

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

	# linux-source-6.12 arriving later in the same upgrade: a kernel refused
	# for want of its source (linux-source-6.12 of another version
	# installed, the archive out of reach) is built when the source of its
	# version is unpacked: the package's file trigger retries it.
	srcver=$(inroot "$r" dpkg-query -W -f '${Version}' linux-source-6.12)
	mv "$r/usr/src/linux-source-6.12.tar.xz" "$FLEET/source.tar.xz"
	: | xz > "$FLEET/empty.tar.xz"
	printf '#!/bin/sh\necho "E: Failed to fetch (stub)" >&2\nexit 100\n' > "$r/usr/local/bin/apt-get.stub"
	chmod 755 "$r/usr/local/bin/apt-get.stub"
	source_deb "$r" 0~other "$FLEET/empty.tar.xz"
	apt_in "$r" "$log" install --allow-downgrades ./root/linux-source.deb
	logged inroot "$r" dkms remove -m "$NAME" -v "$v" -k "$DIST_REL"
	mv "$r/usr/local/bin/apt-get.stub" "$r/usr/local/bin/apt-get"
	logged inroot "$r" roce-entropy-dkms install "$DIST_REL"
	mv "$r/usr/local/bin/apt-get" "$r/usr/local/bin/apt-get.stub"
	check "linux-source-6.12 of another version, the archive out of reach: refused" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = refused ] &&
			grep -qF 'apt install linux-source-6.12=$srcver' '$r/var/lib/roce-entropy/$DIST_REL'"
	source_deb "$r" "$srcver" "$FLEET/source.tar.xz"
	apt_in "$r" "$log" install ./root/linux-source.deb
	check "linux-source-6.12 $srcver installed later: its trigger built and installed ours" \
		eval "said '$log' 'roce-entropy: installed for Linux $DIST_REL' &&
			[ '$(record "$r" "$DIST_REL" state)' = installed ] &&
			[ '$(record "$r" "$DIST_REL" source)' = '$DIST_VER' ]"
	check "every package is configured after the trigger" configured "$r"
	# The tarball deleted after it was unpacked in /usr/src: the tree is the
	# source, nothing is downloaded (the archive still out of reach).
	logged inroot "$r" dkms remove -m "$NAME" -v "$v" -k "$DIST_REL"
	mv "$r/usr/src/linux-source-6.12.tar.xz" "$FLEET/source.tar.xz"
	# shellcheck disable=SC2046 # a list of paths
	tar -C "$r/usr/src" -xf "$FLEET/source.tar.xz" \
		$(for d in Makefile $TREE_DIRS $KTAP_HELPERS; do echo "linux-source-6.12/$d"; done)
	mv "$r/usr/local/bin/apt-get.stub" "$r/usr/local/bin/apt-get"
	logged inroot "$r" roce-entropy-dkms install "$DIST_REL"
	rm -f "$r/usr/local/bin/apt-get"
	check "the tarball deleted, its tree in /usr/src: built from the tree, nothing downloaded" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = installed ] &&
			! ls '$r'/var/cache/roce-entropy/linux-source-*.tar.xz > /dev/null 2>&1"
	rm -rf "$r/usr/src/linux-source-6.12"
	mv "$FLEET/source.tar.xz" "$r/usr/src/linux-source-6.12.tar.xz"
	rm -f "$FLEET/empty.tar.xz" "$r/root/linux-source.deb"

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

	# A kernel whose kABI is not the one ours keep: one CRC of ib_core's in
	# its Module.symvers changed, as a stable update that touched a
	# structure would change it.  The build's gate refuses.
	symvers=$r/usr/src/linux-headers-$DIST_REL/Module.symvers
	cp "$symvers" "$FLEET/Module.symvers"
	awk -F'\t' -v OFS='\t' '!done && $3 ~ /infiniband\/core\/ib_core$/ { $1 = "0x00000000"; done = 1 } 1' \
		"$FLEET/Module.symvers" > "$symvers"
	logged inroot "$r" dkms remove -m "$NAME" -v "$v" -k "$DIST_REL"
	logged inroot "$r" roce-entropy-dkms install "$DIST_REL"
	cp "$FLEET/Module.symvers" "$symvers"
	check "a kernel whose kABI differs from ours: refused by the kABI gate" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = refused ] &&
			grep -q 'kABI differs' '$r/var/lib/roce-entropy/$DIST_REL'"
	check "a kernel whose kABI differs from ours: the distribution's modules stay" \
		takes "$r" "$DIST_REL" kernel


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
