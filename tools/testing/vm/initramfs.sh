#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The initramfs that boots an installed distribution kernel in the test VM
# (run.sh, VM_KERNEL=<release>): that kernel has 9p as modules, so the
# 9p root needs them before it can be mounted.  Busybox (Debian's static
# build) and a small /init: load netfs, 9pnet, 9pnet_virtio and 9p (taken
# from the kernel's own modules, decompressed for busybox's insmod), mount
# the host's root over 9p as run.sh's test kernel would, and switch to the
# init= of the kernel command line with the environment the kernel gave.
# Debian's mkinitramfs would do as well, but brings udev, a root-device
# search and a hook for 9p into a VM that needs four modules.
#
#   initramfs.sh RELEASE OUTPUT.cpio.gz [ROOT]   the kernel's modules from
#                                               ROOT (default /)
. "$(dirname "$0")/../../buildlib/common.sh"

rel=${1:-}
out=${2:-}
[ -n "$rel" ] && [ -n "$out" ] || die "usage: tools/testing/vm/initramfs.sh RELEASE OUTPUT"
mods=${3:-}/lib/modules/$rel
[ -f "$mods/modules.dep" ] || die "Linux $rel is not installed ($mods)"
bb=$(command -v busybox) || die "busybox is missing: apt install busybox-static"
file -L "$bb" | grep -q 'statically linked' || die "$bb is not static: apt install busybox-static"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,modules}
cp "$bb" "$tmp/bin/busybox"
for a in sh mount umount insmod switch_root mkdir cat sed; do
	ln -s busybox "$tmp/bin/$a"
done
n=0
for m in netfs 9pnet 9pnet_virtio 9p; do
	f=$(awk -F: -v m="$m" '$1 ~ ("/" m "\\.ko(\\.(xz|gz|zst))?$") { print $1 }' "$mods/modules.dep")
	[ -n "$f" ] || die "Linux $rel has no $m module"
	n=$((n + 1))
	case $f in
	*.xz) xz -dc "$mods/$f" ;;
	*.gz) gzip -dc "$mods/$f" ;;
	*.zst) zstd -dc "$mods/$f" ;;
	*) cat "$mods/$f" ;;
	esac > "$tmp/modules/$n-$m.ko"
done
cat > "$tmp/init" <<'INIT'
#!/bin/sh
# The initramfs's init (tools/testing/vm/initramfs.sh).
mount -t proc proc /proc
for m in /modules/*.ko; do
	insmod "$m" || echo "initramfs: insmod $m failed"
done
flags=trans=virtio,version=9p2000.L,msize=262144
init=
for a in $(cat /proc/cmdline); do
	case $a in
	rootflags=*) flags=${a#rootflags=} ;;
	init=*) init=${a#init=} ;;
	esac
done
mount -t 9p -o "ro,$flags" /dev/root /newroot || { echo "initramfs: no 9p root"; sh; }
umount /proc
exec switch_root /newroot "${init:-/sbin/init}"
INIT
chmod 755 "$tmp/init"
mkdir -p "$(dirname "$out")"
# two guests of vm/pair.sh may make it at once: each its own file
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -9) > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
