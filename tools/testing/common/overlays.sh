# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # TOOLROOT: for nfs.sh and the tests (consumers.sh)
# The guest's writable directories, overlays of its read-only root, and
# where the consumers' daemons are unpacked (TOOLROOT).  Needs step
# (base.sh).

# ---- the guest's writable directories and the consumers' daemons ----
# Debian's NFS and iSCSI daemons, unpacked and never installed
# (tools/buildlib/consumer-tools.sh), with their state in overlays of the
# read-only root in the guest.

TOOLROOT=$(realpath -m "$entropy_cache/consumer-tools/root")
UNMOUNTS=/run/rte-unmount

# writable DIR: DIR (of the read-only root) writable, its changes in the
# guest's /tmp.  What is mounted below DIR (a distribution root's
# /etc/modprobe.d) is mounted again on the overlay, which would hide it.
# Each mount is added to the front of UNMOUNTS, for writable_undo: a file,
# so that far's agent, whose commands each run in a shell of their own,
# keeps the list too.
writable() {
	local up=/tmp/overlay/${1//\//_} subs=() m i

	while read -r _ _ _ _ m _; do
		[[ $m != "$1"/* ]] || subs+=("$m")
	done < /proc/self/mountinfo
	mkdir -p "$up/upper" "$up/work" || return 1
	for i in "${!subs[@]}"; do
		mkdir -p "$up/held/$i" && mount --bind "${subs[i]}" "$up/held/$i" || return 1
		unmount_later "$up/held/$i"
	done
	step mount -t overlay overlay -o "lowerdir=$1,upperdir=$up/upper,workdir=$up/work" "$1" ||
		return 1
	unmount_later "$1"
	for i in "${!subs[@]}"; do
		step mount --bind "$up/held/$i" "${subs[i]}" || return 1
		unmount_later "${subs[i]}"
	done
}

# unmount_later DIR: DIR first in UNMOUNTS.
unmount_later() {
	{ echo "$1"; [ ! -e "$UNMOUNTS" ] || cat "$UNMOUNTS"; } > "$UNMOUNTS.new" &&
		mv "$UNMOUNTS.new" "$UNMOUNTS"
}

# writable_undo: what writable mounted unmounted, the newest first.
writable_undo() {
	local m

	[ -e "$UNMOUNTS" ] || return 0
	while read -r m; do
		umount "$m"
	done < "$UNMOUNTS"
	rm -f "$UNMOUNTS"
}
