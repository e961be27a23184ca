#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what the entropy costs, policy by policy, as ratios to stock
# 6.12 (the policy builtin, what users run today).
# Runs "roce-entropy simulate --grid" on the host, then one VM
# (tools/bench/guest.sh: perftest throughput, the UD message rate,
# the rdma_cm connect/disconnect rate, the policies interleaved in rounds,
# timed by the guest's instruction count), and prints the medians, spreads
# and ratios (tools/bench/report.py).
# Writes build/bench/report.json.  Fails if a run failed or a figure is
# missing; the figures themselves are printed against their goals, never
# asserted.
#
# ENTROPY_BENCH_ROUNDS, ENTROPY_BENCH_CYCLES, ENTROPY_BENCH_SETTLE and ENTROPY_BENCH_PING
# (a roce-ping other than build/bin/roce-ping) reach the guest script.
. "$(dirname "$0")/../buildlib/common.sh"

bench=$BUILD/bench
ping=${ENTROPY_BENCH_PING:-$BUILD/bin/roce-ping}

[ -x "$BUILD/bin/roce-entropy" ] || die "no $BUILD/bin/roce-entropy: run 'make tools'"
"$ping" client --help 2>/dev/null | grep -q -- --cycles ||
	die "$ping has no --cycles: run 'make tools' (or set ENTROPY_BENCH_PING)"

mkdir -p "$bench"
rm -rf "$bench/vm"
rm -f "$bench"/{raw.jsonl,plan.json,clock.json,repath.json,grid.json,meta.json,report.json}

# The guest's clock counts its instructions (QEMU -icount, 1 ns each), so
# that what else the host runs barely moves the figures; perftest times
# with the TSC, which then ticks at 1 GHz of that clock.
tsc="tsc_early_khz=1000000 tsc=reliable clocksource=tsc"

say "bench: roce-entropy simulate --grid on the host"
"$BUILD/bin/roce-entropy" simulate --grid --json > "$bench/grid.json"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "bench: booting the test VM (TCG with icount: about 40 minutes; host load average $load_before)"
rc=0
VM_OUT=$bench/vm VM_TIMEOUT=${VM_TIMEOUT:-3600} VM_ICOUNT=0 VM_APPEND=$tsc \
	"$REPO/tools/testing/vm/run.sh" "$REPO/tools/bench/guest.sh" > "$bench/vm.log" 2>&1 &
vm=$!
# One progress line per step and run.
tail -n +1 -f "$bench/vm.log" --pid=$vm |
	grep --line-buffered -E '^(==>|  round|vm-run|error|bench:)' || true
wait $vm || rc=$?
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

for f in raw.jsonl plan.json clock.json repath.json; do
	[ ! -s "$bench/vm/bench-$f" ] || cp "$bench/vm/bench-$f" "$bench/$f"
done
[ -s "$bench/plan.json" ] || die "the VM ran no measurement (exit $rc): see $bench/vm.log"
[ "$rc" = 0 ] || echo "bench: the VM run failed (exit $rc): see $bench/vm.log" >&2

jq -n --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson cpus "$(nproc)" \
	--arg cpu "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)" \
	--arg os "$(. /etc/os-release && echo "$PRETTY_NAME")" --arg kernel "$(uname -r)" \
	--argjson mem_mib "$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)" \
	--arg before "$load_before" --arg after "$load_after" \
	'{date: $date, host: {cpus: $cpus, cpu: $cpu, mem_mib: $mem_mib, os: $os,
	  kernel: $kernel}, accel: "tcg", guest_clock: "icount shift=0: 1 ns per instruction",
	  load_before: $before, load_after: $after}' > "$bench/meta.json"

echo
status=0
python3 "$REPO/tools/bench/report.py" "$bench" || status=$?
echo
say "report: $bench/report.json"
say "VM log: $bench/vm.log; each run's output: $bench/vm/bench-logs/"
if [ "$rc" != 0 ] || [ "$status" != 0 ]; then
	echo "make bench: FAIL: a run failed or a figure is missing (above)" >&2
	exit 1
fi
say "make bench: every figure measured; ratios against their goals above"
