# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh's Debian 12 root: the packages it is made of, making it with
# mmdebstrap (cached), mounting it through overlayfs and unmounting it, and
# running commands in it (inroot, apt_in) with their output logged.
# Sourced by fleet.sh, never run.

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
