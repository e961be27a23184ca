#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: RoCE v2 connections spread over an 8-link ECMP router, per
# policy.  Boots the test VM (tools/demo/ecmp.sh), then judges the
# routers' counters with roce-entropy ecmp-report: off must put everything
# on one link, rfc and mix must stay within random ports' p95.
# Writes build/demo/report.json and build/demo/ecmp.svg.
. "$(dirname "$0")/../build/common.sh"

demo=$BUILD/demo
mkdir -p "$demo"
rm -rf "$demo/raw.json" "$demo/report.json" "$demo/ecmp.svg" "$demo/vm"

say "demo: booting the test VM (TCG: about 5 minutes; the console follows)"
rc=0
VM_OUT=$demo/vm VM_TIMEOUT=${VM_TIMEOUT:-1200} "$REPO/tools/testing/vm/run.sh" "$REPO/tools/demo/ecmp.sh" \
	> "$demo/vm.log" 2>&1 &
vm=$!
# One progress line per step: the guest's "==> " lines and the counts.
tail -n +1 -f "$demo/vm.log" --pid=$vm | grep --line-buffered -E '^(==>|  A>B|vm-run|error)' || true
wait $vm || rc=$?
raw=$demo/vm/demo-raw.json
if [ ! -s "$raw" ]; then
	die "the VM produced no counts (exit $rc): see $demo/vm.log"
fi
cp "$raw" "$demo/raw.json"
[ "$rc" = 0 ] || echo "demo: the VM run failed (exit $rc); its counts so far follow" >&2

status=0
"$BUILD/bin/roce-entropy" ecmp-report "$demo/raw.json" --svg "$demo/ecmp.svg" \
	--output "$demo/report.json" || status=$?
echo
say "report: $demo/report.json"
say "chart:  $demo/ecmp.svg"
say "VM log: $demo/vm.log"
if [ "$rc" != 0 ] || [ "$status" != 0 ]; then
	echo "make demo: FAIL: the self-check did not pass (above)" >&2
	exit 1
fi
say "make demo: self-check passed: off on one link; rfc and mix within random ports' p95"
