#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fabric: job completion time on a leaf-spine fabric, per policy,
# against stock 6.12 and the ideal.  Boots the test VM with our modules
# (tools/fabric/fabric.sh: the fabric, its calibration, every job under
# builtin, off, rfc and mix), then with the kernel's own modules (STOCK=1:
# the same jobs under stock), and judges the whole with roce-lab
# fabric-report: a table, build/fabric/report.json and build/fabric/jct.svg.
# A benchmark: it prints figures, it asserts none (a job that fails, or a
# calibration that shows rxe's CPU and not the fabric as the bottleneck,
# fails the run).
#
# The guest's clock counts its instructions (QEMU -icount, 1 ns each,
# sleep=off: an idle guest skips ahead to its next timer), so that the
# shaped links' rates, the jobs' times and so the figures do not depend on
# what else the host runs, and waiting on a shaped link costs no real time.
# The guest has one CPU: under icount QEMU runs every vCPU on one host
# thread in turn, so a second one adds no speed, and with two a whole run
# once ended in an RCU stall report (its grace-period kthread, runnable on
# the second vCPU, starved for 5 s of the guest's time).
#
# The report ends with this run against the last one (its jobs kept in
# runs-before.jsonl): which cells agree within their spread over seeds.
# FABRIC_STOCK=0 skips the stock boot; ENTROPY_FABRIC_* reach the guest script
# (its header lists them).  "run.sh smoke", which make check runs, is the
# same with a few small jobs of one seed, into build/fabric-smoke: it keeps
# make fabric working, its figures mean little.
# shellcheck source=tools/buildlib/common.sh
. "$(dirname "$0")/../buildlib/common.sh"

fabric=$BUILD/fabric
if [ "${1:-}" = smoke ]; then
	fabric=$BUILD/fabric-smoke
	export ENTROPY_FABRIC_HOSTS=${ENTROPY_FABRIC_HOSTS:-2} ENTROPY_FABRIC_BYTES=${ENTROPY_FABRIC_BYTES:-65536}
	export ENTROPY_FABRIC_A2A_BYTES=${ENTROPY_FABRIC_A2A_BYTES:-8192} ENTROPY_FABRIC_SEEDS=${ENTROPY_FABRIC_SEEDS:-1}
	export ENTROPY_FABRIC_A2A_SEEDS=${ENTROPY_FABRIC_A2A_SEEDS:-1}
	export ENTROPY_FABRIC_POLICIES=${ENTROPY_FABRIC_POLICIES:-rfc}
	export ENTROPY_FABRIC_HASHES=${ENTROPY_FABRIC_HASHES:-ipv6-label}
	export ENTROPY_FABRIC_QPS=${ENTROPY_FABRIC_QPS:-4}
elif [ $# != 0 ]; then
	die "usage: tools/fabric/run.sh [smoke]"
fi

[ -x "$BUILD/bin/roce-flows" ] || die "no $BUILD/bin/roce-flows: run 'make tools'"
[ -x "$BUILD/bin/roce-lab" ] || die "no $BUILD/bin/roce-lab: run 'make tools'"
mkdir -p "$fabric"
# The last run's jobs stay, for the report to say which cells agree.
[ ! -s "$fabric/runs.jsonl" ] || mv "$fabric/runs.jsonl" "$fabric/runs-before.jsonl"
rm -rf "$fabric/vm" "$fabric/vm-stock" "$fabric/runs.jsonl" "$fabric/report.json" \
	"$fabric/jct.svg"
start=$SECONDS

# boot NAME [VAR=VALUE...]: one VM run of fabric.sh, its progress lines
# followed; its runs appended to runs.jsonl.
boot() {
	local name=$1 vm rc=0

	shift
	say "fabric: booting the test VM ($name; TCG with icount: minutes)"
	: > "$fabric/$name.log"
	env "$@" VM_OUT="$fabric/$name" VM_TIMEOUT="${VM_TIMEOUT:-3600}" VM_ICOUNT=0 VM_CPUS=1 \
		VM_APPEND="tsc_early_khz=1000000 tsc=reliable clocksource=tsc" \
		"$REPO/tools/testing/vm/run.sh" "$REPO/tools/fabric/fabric.sh" > "$fabric/$name.log" 2>&1 &
	vm=$!
	tail -n +1 -f "$fabric/$name.log" --pid=$vm |
		grep --line-buffered -E '^(==>|  (one flow:|up in|rdma_cm|qpn) |  .*failed|vm-run|error)' |
		while IFS= read -r line; do
			printf '%5d s %s\n' $((SECONDS - start)) "$line"
		done || true
	wait $vm || rc=$?
	[ ! -s "$fabric/$name/fabric/runs.jsonl" ] ||
		cat "$fabric/$name/fabric/runs.jsonl" >> "$fabric/runs.jsonl"
	[ "$rc" = 0 ] || echo "fabric: the $name run failed (exit $rc): see $fabric/$name.log" >&2
	return $rc
}

rc=0
boot vm || rc=1
[ "${FABRIC_STOCK:-1}" = 0 ] || boot vm-stock STOCK=1 || rc=1
[ -s "$fabric/runs.jsonl" ] || die "the VM ran no job: see $fabric/vm.log"

echo
status=0
against=()
[ ! -s "$fabric/runs-before.jsonl" ] || against=(--against "$fabric/runs-before.jsonl")
"$BUILD/bin/roce-lab" fabric-report "$fabric/runs.jsonl" --svg "$fabric/jct.svg" \
	--output "$fabric/report.json" "${against[@]}" || status=$?
echo
say "report: $fabric/report.json; chart: $fabric/jct.svg"
say "VM logs: $fabric/vm.log, $fabric/vm-stock.log; every job: $fabric/runs.jsonl"
say "make fabric: $((SECONDS - start)) s"
if [ "$rc" != 0 ] || [ "$status" != 0 ]; then
	echo "make fabric: FAIL: a run or the report failed (above)" >&2
	exit 1
fi
