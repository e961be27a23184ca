#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: RoCE v2 connections spread over an 8-link ECMP router and the
# sending host's next hops, per policy, stock 6.12 (builtin) first.  Boots the
# test VM (tools/demo/ecmp.sh), judges each phase's capture with
# roce-entropy pcap, then the whole with roce-lab ecmp-report: off on
# one link; rfc and mix every connection on one port and within random
# ports' p95; stock splitting exactly the connections its rules split.
# Then the failover act (tools/demo/failover.sh): with re-path on every
# connection survives a black-holed link; its longest gap is printed
# against its goal (DEMO_STALLS=judged: asserted, for a guest whose pace
# is not the host's load: under TCG 64 connections keep it busy); off, the
# baseline, is printed.
# Writes build/demo/report.json, build/demo/ecmp.svg and
# build/demo/failover.svg.
. "$(dirname "$0")/../buildlib/common.sh"

demo=$BUILD/demo
mkdir -p "$demo"
rm -rf "$demo/raw.json" "$demo/report.json" "$demo/ecmp.svg" "$demo/failover.svg" "$demo/vm" \
	"$demo/pcap"
start=$SECONDS

say "demo: booting the test VM (TCG: a few minutes; the console follows)"
rc=0
VM_OUT=$demo/vm VM_TIMEOUT=${VM_TIMEOUT:-1800} "$REPO/tools/testing/vm/run.sh" "$REPO/tools/demo/ecmp.sh" \
	> "$demo/vm.log" 2>&1 &
vm=$!
# One progress line per step: the guest's "==> " lines and the counts.
tail -n +1 -f "$demo/vm.log" --pid=$vm | grep --line-buffered -E '^(==>|  A>B|  host|  [0-9]+ connections|  (quiet|ab|ba|both):|vm-run|error)' || true
wait $vm || rc=$?
raw=$demo/vm/demo-raw.json
if [ ! -s "$raw" ]; then
	die "the VM produced no counts (exit $rc): see $demo/vm.log"
fi
[ "$rc" = 0 ] || echo "demo: the VM run failed (exit $rc); its counts so far follow" >&2

# Each phase's capture judged under its policy: which connection took
# which link, with which ports.  Exit status 1 (a connection off its
# prediction) is the report's to judge.
mkdir -p "$demo/pcap"
cp "$raw" "$demo/raw.json"
phases=$(jq '.phases | length' "$raw")
for i in $(seq 0 $((phases - 1))); do
	cap=$demo/vm/$(jq -r ".phases[$i].capture" "$raw")
	policy=$(jq -r ".phases[$i].policy" "$raw")
	out=$demo/pcap/$(basename "$cap" .pcapng).json
	"$BUILD/bin/roce-entropy" pcap "$cap" --policy "$policy" --json > "$out" 2> "$out.err" || true
	[ -s "$out" ] || { cat "$out.err" >&2; echo '{"connections": []}' > "$out"; }
	jq --argjson i "$i" --slurpfile p "$out" '.phases[$i].pcap = $p[0]' "$demo/raw.json" \
		> "$demo/raw.json.new" && mv "$demo/raw.json.new" "$demo/raw.json"
done

fail=$demo/vm/demo-failover.json
svg2=()
if [ -s "$fail" ]; then
	jq --slurpfile f "$fail" '.failover = $f[0]' "$demo/raw.json" > "$demo/raw.json.new" &&
		mv "$demo/raw.json.new" "$demo/raw.json"
	svg2=(--failover-svg "$demo/failover.svg")
else
	echo "demo: the VM produced no failover act (see $demo/vm.log)" >&2
	rc=1
fi

status=0
"$BUILD/bin/roce-lab" ecmp-report "$demo/raw.json" --svg "$demo/ecmp.svg" "${svg2[@]}" \
	--stalls "${DEMO_STALLS:-figure}" --output "$demo/report.json" || status=$?
echo
say "report: $demo/report.json"
say "charts: $demo/ecmp.svg, $demo/failover.svg"
say "VM log: $demo/vm.log; captures: $demo/vm/captures, judged in $demo/pcap"
say "make demo: $((SECONDS - start)) s"
if [ "$rc" != 0 ] || [ "$status" != 0 ]; then
	echo "make demo: FAIL: the self-check did not pass (above)" >&2
	exit 1
fi
say "make demo: self-check passed: stock splits what it splits; rfc and mix keep every connection on one port, within random ports' p95; off on one link; with re-path on every connection survives a black-holed link"
