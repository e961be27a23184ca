#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Root on NVMe over RDMA or iSER: the distribution's kernel booted from the
# Debian root's own initramfs (run.sh VM_INITRD=), written by
# update-initramfs with ib_core in /etc/initramfs-tools/modules, after the
# package installed ours (its hooks update that initramfs).  ib_core was
# loaded by the initramfs, before this VM's init ran, and it is ours, the
# build DKMS installed, with the opt-in line's policy, which the initramfs
# carries from /etc/modprobe.d.  ENTROPY_INITRD_EXPECT=distribution: after apt
# purge, the kernel's own; ENTROPY_INITRD_EXPECT=hatch: booted with
# roce_entropy.stock=1, the kernel's own, which the initramfs carries
# beside ours for the escape hatch.
#
# make check runs it in dist-initrd (after apt install), dist-initrd-hatch
# (the same with the row's VM_APPEND=roce_entropy.stock=1) and
# dist-initrd-removed (the initramfs that the package's removal wrote
# again).
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_INITRD_EXPECT   what the initramfs loaded: ours (default), hatch
#                       or distribution
STACKS="dist-initrd dist-initrd-removed"
CPUS=1
: "${ENTROPY_INITRD_EXPECT:=ours}"
requires() {
	_have_dist_kernel
}
. "$entropy_repo/tools/testing/lib.sh"

EXPECT=$ENTROPY_INITRD_EXPECT
MODS=/lib/modules/$(uname -r)

# build_id_of FILE: the GNU build ID of a module file, compressed or not.
build_id_of() {
	local t

	t=$(mktemp)
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac > "$t"
	readelf -n "$t" | sed -n 's/^ *Build ID: //p'
	rm -f "$t"
}

# loaded_from DIR: the loaded ib_core is the file modprobe has under DIR of
# the kernel's modules: the same build ID (Debian's kernel records no
# srcversion for modules without a version).
loaded_from() {
	local f note loaded

	f=$(ls "$MODS/$1"/ib_core.ko* 2> /dev/null | head -n 1)
	note=/sys/module/ib_core/notes/.note.gnu.build-id
	# the note: namesz, descsz, type (4 bytes each), "GNU\0", the ID
	loaded=$(od -An -v -tx1 "$note" 2> /dev/null | tr -d ' \n' | cut -c33-)
	echo "  loaded ib_core: build ID ${loaded:-none}; ${f:-no ib_core under $MODS/$1}: $([ -z "$f" ] || build_id_of "$f")"
	[ -n "$f" ] && [ -n "$loaded" ] && [ "$loaded" = "$(build_id_of "$f")" ]
}

echo "  modules loaded before init: $entropy_early_modules"
check "ib_core was loaded by the initramfs, before init ran" \
	eval '[[ " $entropy_early_modules " == *" ib_core "* ]]'
if [ "$EXPECT" = ours ]; then
	check "that ib_core is ours: out of tree, DKMS's build in updates/dkms" \
		eval 'grep -q O /sys/module/ib_core/taint && loaded_from updates/dkms'
	want=$(sed -n 's/^options ib_core roce_entropy=//p' /etc/modprobe.d/roce-entropy.conf)
	check "it started from the opt-in line's policy (${want:-none})" \
		eval '[ -n "$want" ] && [ "$(cat /sys/module/ib_core/parameters/roce_entropy)" = "$want" ]'
elif [ "$EXPECT" = hatch ]; then
	check "that ib_core is the distribution's although ours is installed (roce_entropy.stock=1)" \
		eval '! grep -q O /sys/module/ib_core/taint && loaded_from kernel/drivers/infiniband/core &&
			[[ $(modinfo -F filename ib_core) == $MODS/updates/dkms/* ]]'
	check "it has no roce_entropy parameter" test ! -e /sys/module/ib_core/parameters/roce_entropy
else
	check "that ib_core is the distribution's: in tree, the kernel's own" \
		eval '! grep -q O /sys/module/ib_core/taint && loaded_from kernel/drivers/infiniband/core'
	check "it has no roce_entropy parameter" test ! -e /sys/module/ib_core/parameters/roce_entropy
fi
done_testing
