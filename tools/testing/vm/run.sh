#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel in QEMU with our RDMA modules, bring up the standard
# topology and run SCRIPT(s) as root; print their output and exit with their
# status.  The results, in KTAP, are in the run's output directory,
# results.ktap.  See tools/testing/README.md.
#
#   tools/testing/vm/run.sh SCRIPT [SCRIPT...]
#
# STOCK=1       load the kernel's own RDMA modules instead of ours
# VM_KERNEL=r   boot the distribution kernel of release r of a Debian root
# VM_ROOT=d     (d/boot/vmlinuz-r, an initramfs from vm/initramfs.sh) and
#               load the RDMA stack with its modprobe, from d's modules and
#               modprobe.d: what DKMS installed there, or the kernel's own
#               (tools/testing/fleet.sh makes d; default VM_ROOT=/)
# VM_INITRD=f   with VM_KERNEL: boot initramfs f instead, the root's own
#               (initramfs-tools' init, with 9p and the modules it lists)
# ENTROPY_DEBUG=1   the debug kernel (kernel-debug.config), and by default the
#               modules built against it (build/debug/modules)
# VM_MODULES=d  our modules from d (default build/modules, or
#               build/debug/modules with ENTROPY_DEBUG=1); modprobe takes the
#               kernel's modules from d/modroot where make modules made one
#               (the ULPs built against the series' headers), from the
#               test kernel's own module tree otherwise (compat, stock)
# ACCEL=kvm     try KVM (default tcg: KVM is unusable on this machine kind)
# VM_TIMEOUT=s  kill the VM after s seconds (default 900): a failure
# VM_MEM=MiB    guest memory (default 2048)
# VM_APPEND=a   more kernel arguments (make bench: a TSC clocksource)
# VM_ICOUNT=n   -icount shift=n,sleep=off: the guest's clock counts the
#               instructions it runs (2^n ns each), not the host's time
# VM_OUT=dir    the run's output directory (default build/vm/<stamp>);
#               build/vm/last points to the newest run of either kind
# VM_STACK=s    the stack of tools/testing/runs that this boot is (ours,
#               compat, stock, dist, ...): the guest's entropy_stack, which its
#               init and tests may read
# VM_PAIR=role  one guest of two (vm/pair.sh starts them): near or far,
# VM_PAIR_DIR=d a directory both share (guest: /run/rte-pair), and
# VM_PAIR_NET=l:r a virtio NIC (eth0) whose frames go to and come from
#               UDP ports l and r on 127.0.0.1, the other guest's r and l
# ENTROPY_*=value   passed to the scripts' environment
. "$(dirname "$0")/../../buildlib/common.sh"

[ $# -ge 1 ] || die "usage: tools/testing/vm/run.sh SCRIPT [SCRIPT...]"
scripts=
for s in "$@"; do
	[ -f "$s" ] || die "no such script: $s"
	scripts="$scripts${scripts:+,}$(realpath "$s")"
done
case $scripts in
*' '*) die "script paths must not contain spaces" ;;
esac

ksrc_init
modules=$(realpath -m "${VM_MODULES:-$MODBUILD/modules}")
initrd=()
if [ -n "${VM_KERNEL:-}" ]; then
	vm_root=$(realpath "${VM_ROOT:-/}")
	kernel=$vm_root/boot/vmlinuz-$VM_KERNEL
	[ -f "$kernel" ] || die "no $kernel: tools/testing/fleet.sh install makes that root"
	if [ -n "${VM_INITRD:-}" ]; then
		rd=$VM_INITRD
		[ -f "$rd" ] || die "no $rd: update-initramfs -u -k $VM_KERNEL in $vm_root makes it"
	else
		rd=$CACHE/initramfs-$VM_KERNEL-$(sha256sum < "$REPO/tools/testing/vm/initramfs.sh" | cut -c1-8).cpio.gz
		[ -f "$rd" ] || "$REPO/tools/testing/vm/initramfs.sh" "$VM_KERNEL" "$rd" "$vm_root" ||
			die "no initramfs for Linux $VM_KERNEL"
	fi
	initrd=(-initrd "$rd")
	# Under TCG the distribution kernel's clocksource watchdog finds the TSC
	# unstable at run time, and the switch of sched_clock patches kernel
	# text that the other vCPU is running: an int3 Oops in sched_clock_cpu
	# was seen.  Deciding at boot patches nothing later.
	VM_APPEND="${VM_APPEND:+$VM_APPEND }tsc=unstable"
else
	kernel=$KBUILD/arch/x86/boot/bzImage
	[ -f "$KBUILD/.built-ok" ] || die "no test kernel: run 'make kernel'"
	[ "${STOCK:-0}" = 1 ] || [ -f "$modules/ib_core.ko" ] ||
		die "no modules in $modules: run 'make modules'${ENTROPY_DEBUG:+ with ENTROPY_DEBUG=$ENTROPY_DEBUG}"
	[ "${STOCK:-0}" = 1 ] || [ ! -d "$modules/modroot" ] || MODROOT=$modules/modroot
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run 'make deps'"
icount=()
if [ -n "${VM_ICOUNT:-}" ]; then
	case $VM_ICOUNT in
	*[!0-9]*) die "VM_ICOUNT=$VM_ICOUNT: give the icount shift, a number (0: 1 ns an instruction)" ;;
	esac
	icount=(-icount "shift=$VM_ICOUNT,sleep=off")
fi

out=${VM_OUT:-$BUILD/vm/$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$out" "$BUILD/vm"
out=$(realpath "$out")
[ "${VM_PAIR:-}" = far ] || ln -sfn "$out" "$BUILD/vm/last"
: > "$out/result"
rm -f "$out/known-reports"

accel=tcg
if [ "${ACCEL:-tcg}" = kvm ]; then
	if [ -w /dev/kvm ]; then accel=kvm; else say "no usable /dev/kvm, using TCG"; fi
fi
timeout=${VM_TIMEOUT:-900}
# VM_CPUS: the guest's CPUs (default 2); init fails the run unless the
# kernel runs on every one of them.
cpus=${VM_CPUS:-2}
case $cpus in
''|*[!0-9]*|0) die "VM_CPUS=$cpus: give the guest's number of CPUs (1 or more)" ;;
esac

case ${VM_STACK:-} in
*[!a-z-]*) die "VM_STACK=$VM_STACK: a stack of tools/testing/runs (ours, compat, stock, dist, ...)" ;;
esac

pair=()
if [ -n "${VM_PAIR:-}" ]; then
	case $VM_PAIR in
	near|far) ;;
	*) die "VM_PAIR=$VM_PAIR: near or far" ;;
	esac
	[ -d "${VM_PAIR_DIR:-}" ] || die "VM_PAIR_DIR=${VM_PAIR_DIR:-}: not a directory"
	[[ ${VM_PAIR_NET:-} =~ ^([0-9]+):([0-9]+)$ ]] ||
		die "VM_PAIR_NET=${VM_PAIR_NET:-}: give this guest's UDP port and the other's, l:r"
	# a locally administered MAC of the guest's own port
	mac=$(printf '52:54:00:%02x:%02x:%02x' $((BASH_REMATCH[1] >> 16 & 255)) \
		$((BASH_REMATCH[1] >> 8 & 255)) $((BASH_REMATCH[1] & 255)))
	pair=(-netdev "dgram,id=link,local.type=inet,local.host=127.0.0.1,local.port=${BASH_REMATCH[1]},remote.type=inet,remote.host=127.0.0.1,remote.port=${BASH_REMATCH[2]}"
		-device "virtio-net-pci,netdev=link,mac=$mac"
		-fsdev "local,id=pair,path=$(realpath "$VM_PAIR_DIR"),security_model=none,multidevs=remap"
		-device "virtio-9p-pci,fsdev=pair,mount_tag=pair")
fi

# The root's 9p tag is /dev/root, which the kernel and the tests' initramfs
# mount; initramfs-tools' init (VM_INITRD=) waits for a device by a name in
# /dev, so it mounts the same share by a second tag, hostroot.
root=/dev/root
hostroot=()
if [ -n "${VM_INITRD:-}" ]; then
	root=hostroot
	hostroot=(-fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap"
		-device "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot")
fi
append="console=ttyS0 root=$root rootfstype=9p ro"
# The root is the host's, read-only, and nothing the guest reads from it
# changes while it runs: cache=loose keeps its files and lookups in the
# guest's page cache.  Without it every exec reads the binary and its
# libraries through 9p again (TCG: python3 starts in 2.2 s instead of 0.3,
# tshark in 18 s instead of 3.8).  The output directory stays uncached.
append="$append rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
append="$append init=$REPO/tools/testing/vm/init.sh panic=-1 oops=panic"
# A KCSAN report is a warning: under panic_on_warn the first one of 6.12's
# own races (a virtqueue index the device writes, a race "of unknown
# origin" to KCSAN) ends the run.  The KCSAN kernel's runs judge its reports
# from the log instead (tests/kcsan-reports.sh), and every other warning
# as all runs do (init's kernel log check).
pow=1
[ "${ENTROPY_DEBUG:-0}" != kcsan ] || pow=0
append="$append panic_on_warn=$pow loglevel=4 net.ifnames=0"
append="$append entropy_repo=$REPO entropy_out=$out entropy_scripts=$scripts"
append="$append entropy_modules=$modules entropy_modroot=$MODROOT entropy_ksrc=$KSRC entropy_cache=$CACHE"
append="$append entropy_cpus=$cpus"
append="$append entropy_stock=${STOCK:-0} entropy_dist=$([ -n "${VM_KERNEL:-}" ] && echo 1 || echo 0)"
[ "${vm_root:-/}" = / ] || append="$append entropy_distroot=$vm_root"
[ -z "${VM_PAIR:-}" ] || append="$append entropy_pair=$VM_PAIR"
[ -z "${VM_STACK:-}" ] || append="$append entropy_stack=$VM_STACK"
[ -z "${VM_APPEND:-}" ] || append="$append $VM_APPEND"
# ENTROPY_* variables reach the scripts' environment.
for v in $(compgen -e | grep '^ENTROPY_' || true); do
	case ${!v} in
	*' '*|'') die "$v: values must be non-empty, without spaces" ;;
	esac
	append="$append $v=${!v}"
done

say "booting Linux ${VM_KERNEL:-$KVER} ($accel, timeout ${timeout} s), output in $out"
rc=0
timeout -k 10 "$timeout" qemu-system-x86_64 \
	-accel "$accel" "${icount[@]}" -cpu max -m "${VM_MEM:-2048}" -smp "$cpus" \
	-nographic -no-reboot -nodefaults -serial stdio \
	-kernel "$kernel" "${initrd[@]}" -append "$append" \
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
	"${hostroot[@]}" "${pair[@]}" \
	-fsdev local,id=out,path="$out",security_model=none,multidevs=remap \
	-device virtio-9p-pci,fsdev=out,mount_tag=out \
	-device virtio-serial-pci \
	-chardev file,id=result,path="$out/result" \
	-device virtserialport,chardev=result,name=result \
	</dev/null 2>&1 | tee "$out/console.log" || rc=$?
# tee's status hides qemu's; PIPESTATUS is gone after '||', so ask again.
if [ "$rc" = 0 ] && grep -q 'Kernel panic - not syncing' "$out/console.log" &&
	! grep -q 'Attempted to kill init' "$out/console.log"; then
	echo "vm: FAIL: the guest kernel panicked" >&2
	exit 1
fi

status=$(tr -dc '0-9' < "$out/result")
if [ -z "$status" ]; then
	echo "vm: FAIL: the VM gave no result (hung, crashed or timed out after ${timeout} s); see $out/console.log" >&2
	exit 1
fi
say "guest exit status $status"
exit "$status"
