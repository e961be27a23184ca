# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh's judges, the commands its checks run: what a root holds (the
# ib_core modprobe takes, the initramfs, the package's records, the escape
# hatch, dpkg's state) and what the last apt run said.  Sourced by
# fleet.sh, never run.

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

# installed_pkg ROOT PACKAGE: PACKAGE is installed and configured in ROOT.
installed_pkg() {
	inroot "$1" dpkg-query -W -f '${Status}' "$2" 2> /dev/null | grep -q 'ok installed' ||
		{ echo "# $2 is not installed"; return 1; }
}
