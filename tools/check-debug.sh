#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-debug: make check's kernel-side tests on the debug kernel
# (tools/qemu/kernel-debug.config: KASAN, lockdep with PROVE_RCU,
# DEBUG_ATOMIC_SLEEP, kmemleak), each VM run ending with the debug
# kernel's verdict (tools/qemu/tests/kernel-reports.sh): zero reports.
# Ends with "N passed, N failed", like make check; slow (TCG and KASAN).
#
# The debug kernel is cached apart from the normal one
# (kernel-<version>-debug-<hash>), and the modules built against it are in
# build/debug, with the logs and the VM runs' output: nothing make check
# uses is overwritten, except build/bin, which both build the same way.
#
# RUNS="a b"          only these VM runs, of: basic wire lifecycle
#                     (default: all three)
# VM_TIMEOUT=s        every VM run's time limit (default: per run, below)
# RTE_WAIT_SCALE=n    the guest's waits (guest-lib.sh's wait_for) last n
#                     times longer (default 5): the debug kernel under TCG
#                     starts dumpcap or an rping server several times slower
#                     than the normal one, well past make check's bounds
export RTE_DEBUG=1
export RTE_WAIT_SCALE=${RTE_WAIT_SCALE:-5}
. "$(dirname "$0")/build/common.sh"
set +e

RUNS=${RUNS:-basic wire lifecycle}
for r in $RUNS; do
	case $r in
	basic|wire|lifecycle) ;;
	*) die "RUNS: unknown VM run '$r' (want some of: basic wire lifecycle)" ;;
	esac
done

PASS=0 FAIL=0
start=$SECONDS
mkdir -p "$MODBUILD"
LOG=$MODBUILD/check-debug.log
: > "$LOG"

finish() {
	echo "make check-debug: $((SECONDS - start)) s; details in $LOG and $MODBUILD/vm/" |
		tee -a "$LOG"
	echo "$PASS passed, $FAIL failed" | tee -a "$LOG"
	[ "$FAIL" = 0 ]
	exit
}

stage "Debian packages" "$REPO/tools/build/deps.sh"
stage "debug kernel (KASAN, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, KMEMLEAK)" \
	"$REPO/tools/build/kernel.sh"
stage "out-of-tree modules against the debug kernel" "$REPO/tools/build/modules.sh"
# The wire and lifecycle tests drive rxe with roce-ping and judge captures
# with roce-entropy.
stage "C++ tools (roce-ping, roce-entropy)" "$REPO/tools/build/tools.sh"

# vm_tests NAME TIMEOUT SCRIPT...: one VM run on the debug kernel, the
# verdict script last; its ok/not ok lines count.  A log buffer big enough
# for the whole run: the verdict reads the log since boot.
vm_tests() {
	[[ " $RUNS " == *" $1 "* ]] || return 0
	local name=$1 timeout=${VM_TIMEOUT:-$2} log=$MODBUILD/vm-$1.log
	local t=$SECONDS rc

	shift 2
	say "VM tests on the debug kernel ($name): $(for s in "$@"; do basename "$s" .sh; done |
		paste -sd' '), time limit $timeout s"
	VM_TIMEOUT=$timeout VM_APPEND=log_buf_len=16M \
		VM_OUT=$MODBUILD/vm/$(date +%Y%m%d-%H%M%S)-$name \
		"$REPO/tools/qemu/vm-run.sh" "$@" "$REPO/tools/qemu/tests/kernel-reports.sh" \
		> "$log" 2>&1
	rc=$?
	tally "$log"
	echo "# VM run $name: $((SECONDS - t)) s" | tee -a "$LOG"
	if [ $rc != 0 ]; then
		tail -n 30 "$log"
		result 1 "VM run $name on the debug kernel (exit $rc, see $log)"
	fi
}

t=$REPO/tools/qemu/tests
vm_tests basic 3600 "$t/kunit-module.sh" "$t/smoke.sh" "$t/knob.sh" "$t/mlx5.sh"
vm_tests wire 7200 "$t/wire.sh" "$t/wire-many.sh"
vm_tests lifecycle 5400 "$t/lifecycle.sh"

finish
