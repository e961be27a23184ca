# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What fleet.sh's tests put in a root besides the packages of make deb: the
# older 6.12 ABI whose headers they install (from the archive), a stand-in
# linux-source-6.12, a later upload of ours, MLNX_OFED's stand-ins and a
# stub mokutil.  Sourced by fleet.sh, never run.

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
