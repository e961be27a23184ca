#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test VM (see run.sh): mount the basics, load the RDMA stack,
# build the standard topology, run the tests, report on the "result" virtio
# port and power off.  Settings come from the kernel command line (entropy_*),
# which the kernel hands to init as environment.
#
# The run's results are one KTAP document, $entropy_out/results.ktap: a test per
# script, whose own results are its subtests, and last the kernel log.  A
# script prints what it likes; its "ok N"/"not ok N" lines (lib.sh's check)
# are its results and every other line becomes a diagnostic, so that the
# document parses with the kernel's kunit.py (the host reads it so).  A
# script that skips itself (exit 4, "SKIP: <reason>") is "ok N name # SKIP
# <reason>"; any other status but 0 fails it.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

mount -t proc proc /proc
# What an initramfs loaded before this init ran (run.sh VM_INITRD=: the
# distribution's own initramfs; the tests' initramfs loads 9p only).
entropy_early_modules=$(cut -d ' ' -f 1 /proc/modules | tr '\n' ' ')
export entropy_early_modules
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
# A tmpfs on /tmp hides the host's /tmp: keep the paths we need visible,
# the kernel source and the cache too (CACHE= or XDG_CACHE_HOME under /tmp).
mkdir -p /run/host-tmp
mount --bind /tmp /run/host-tmp
mount -t tmpfs tmpfs /tmp
for p in "$entropy_repo" "$entropy_out" "$entropy_cache" "$entropy_ksrc" "$entropy_modroot" \
	"$entropy_modules"; do
	case $p in
	/tmp/*)
		mkdir -p "$p"
		mount --bind "/run/host-tmp/${p#/tmp/}" "$p"
		;;
	esac
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$entropy_out"
# One guest of two (vm/pair.sh): the directory both share.
if [ -n "${entropy_pair:-}" ]; then
	mkdir -p /run/rte-pair
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 pair /run/rte-pair ||
		echo "init: the directory the two guests share did not mount" >&2
fi
mount -t tmpfs tmpfs /var/tmp 2>/dev/null
# The root is the host's, read-only.  A host that never had a kernel
# package has no /usr/lib/modules to mount a module tree on (the dist
# runs, consumers.sh), and the host has none of the package's own
# directories of /usr/lib that a dist run mounts from its root: an overlay
# of /usr/lib, its changes in the guest's memory, gives it them, empty.
# Without the overlay module, the runs that need the tree say what is
# missing.
if [ ! -d /usr/lib/modules ] || [ -n "${entropy_distroot:-}" ]; then
	modprobe -d "${entropy_distroot:-$entropy_modroot}" overlay &&
		mkdir -p /run/usr-lib/upper /run/usr-lib/work &&
		mount -t overlay overlay \
			-o lowerdir=/usr/lib,upperdir=/run/usr-lib/upper,workdir=/run/usr-lib/work /usr/lib &&
		mkdir -p /usr/lib/modules /usr/lib/modprobe.d /usr/lib/roce-entropy ||
		echo "init: no /usr/lib/modules, and no overlay to make one on" >&2
fi
# The distribution's kernel of a Debian root of its own (run.sh VM_ROOT=):
# that root's modules and modprobe configuration (the package's escape
# hatch, /usr/lib/modprobe.d and /usr/lib/roce-entropy, among it), as its
# kernel would see them booted there.
if [ -n "${entropy_distroot:-}" ]; then
	mount --bind "$entropy_distroot/usr/lib/modules" /usr/lib/modules
	for d in modprobe.d roce-entropy; do
		[ ! -d "$entropy_distroot/usr/lib/$d" ] ||
			mount --bind "$entropy_distroot/usr/lib/$d" "/usr/lib/$d"
	done
	mount --bind "$entropy_distroot/etc/modprobe.d" /etc/modprobe.d
	# ENTROPY_DIST_OPTIN=0: that modprobe.d without the package's opt-in line,
	# so that DKMS's modules load at their default, as the tests written
	# for the test kernel's runs expect.
	if [ "${ENTROPY_DIST_OPTIN:-1}" = 0 ]; then
		mount -t tmpfs tmpfs /etc/modprobe.d
		cp -a "$entropy_distroot/etc/modprobe.d/." /etc/modprobe.d/
		rm -f /etc/modprobe.d/roce-entropy.conf
	fi
fi
hostname rte-vm

. "$entropy_repo/tools/testing/lib.sh"

KTAP=$entropy_out/results.ktap

# nest FILE: a script's output as a subtest block: header, plan, results in
# order, everything else a diagnostic; indented by four spaces.
nest() {
	local n

	n=$(grep -cE '^(not )?ok [0-9]+' "$1")
	echo "    KTAP version 1"
	echo "    1..$n"
	sed -E -e '/^(K?TAP version [0-9]+|1\.\.[0-9]+)$/d' \
		-e '/^(not )?ok [0-9]+/!s/^/# /' -e 's/^/    /' "$1"
}

# result N OK NAME: one top-level result.
result() {
	if [ "$2" = 0 ]; then echo "ok $1 $3"; else echo "not ok $1 $3"; fi >> "$KTAP"
}

# A test that cannot run in this guest exits SKIPPED, kselftest's
# KSFT_SKIP, its last line "SKIP: <reason>" (common/test.sh: its CPUS,
# its requires()).  It becomes a skipped result, never a passed one; the
# host counts it so (results.py).
SKIPPED=4

# skip_reason FILE: a skipped test's reason, from its output; none when a
# result of its own failed, for then its exit is a failure.
skip_reason() {
	local reason

	! grep -q '^not ok [0-9]' "$1" || return 1
	reason=$(sed -n 's/^SKIP: //p' "$1" | tail -n 1)
	echo "${reason:-the test exited $SKIPPED, skipped, without a SKIP: line}"
}

# cpus_ok: the kernel runs on every CPU QEMU gives the guest (entropy_cpus).
# A race test on one CPU proves nothing: rxe's completer and responder
# never run at the same moment there.
cpus_ok() {
	local online

	online=$(grep -c '^processor' /proc/cpuinfo)
	[ "$online" = "${entropy_cpus:-1}" ] && return 0
	echo "init: the kernel runs on $online CPU(s) of the ${entropy_cpus:-1} QEMU gives it" \
		"(possible: $(cat /sys/devices/system/cpu/possible)): its configuration does not find them" >&2
	return 1
}

IFS=, read -r -a scripts <<< "$entropy_scripts"
echo "KTAP version 1" > "$KTAP"
echo "1..$((${#scripts[@]} + 1))" >> "$KTAP"

status=1
if [ -n "${entropy_pair:-}" ]; then
	topology=vm_pair_topology
else
	topology=vm_topology
fi
if cpus_ok && vm_load_stack && $topology; then
	status=0
	n=0
	for s in "${scripts[@]}"; do
		n=$((n + 1))
		name=$(basename "$s" .sh)
		echo "==> running $name"
		t=$SECONDS
		(cd /tmp && bash "$s") 2>&1 | tee "$entropy_out/$name.out"
		rc=${PIPESTATUS[0]}
		reason=
		[ "$rc" != $SKIPPED ] || reason=$(skip_reason "$entropy_out/$name.out")
		echo "time: $((SECONDS - t)) s" >> "$entropy_out/$name.out"
		nest "$entropy_out/$name.out" >> "$KTAP"
		if [ -n "$reason" ]; then
			echo "ok $n $name # SKIP $reason" >> "$KTAP"
			continue
		fi
		result $n "$rc" "$name"
		[ "$rc" = 0 ] || status=1
	done
else
	for s in "${scripts[@]}"; do
		echo "not ok $((++n)) $(basename "$s" .sh) # not all CPUs, or the stack or the topology did not come up (console.log)" >> "$KTAP"
	done
fi
# near is done: far's agent ends
[ "${entropy_pair:-}" != near ] || pair_done
vm_dmesg_clean > "$entropy_out/kernel-log.out" 2>&1
rc=$?
cat "$entropy_out/kernel-log.out"
result $((${#scripts[@]} + 1)) "$rc" "kernel log: no warning, bug, oops or sanitizer report"
[ "$rc" = 0 ] || status=1

for port in /sys/class/virtio-ports/*; do
	if [ "$(cat "$port/name")" = result ]; then
		echo "$status" > "/dev/$(basename "$port")"
	fi
done
sync
# LINUX_REBOOT_CMD_RESTART: QEMU runs with -no-reboot, so it exits.
python3 -c 'import ctypes; ctypes.CDLL(None).reboot(0x01234567)'
exit "$status"
