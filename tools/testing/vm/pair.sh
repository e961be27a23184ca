#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests on one virtual Ethernet link: near runs SCRIPT(s) with the
# standard topology's A side (rxea on a0) and the router r, whose b1 is
# near's end of the link; far holds B (rxeb on b0, its end) and runs what
# near's tests ask of it (lib.sh: remote, run_split).  Each guest boots as
# vm/run.sh boots one, each with its own kernel and RDMA stack: the
# environment is both guests', FAR="VAR=value ..." adds far's own (FAR=STOCK=1,
# FAR=VM_APPEND=roce_entropy.stock=1, ...).  Exit status: 0 when both
# guests passed.
#
#   tools/testing/vm/pair.sh SCRIPT [SCRIPT...]
#
# VM_OUT=dir    near's output directory (default build/vm/<stamp>); far's
#               is dir/far, the directory both share dir/pair
. "$(dirname "$0")/../../buildlib/common.sh"

[ $# -ge 1 ] || die "usage: tools/testing/vm/pair.sh SCRIPT [SCRIPT...]"
far_env=()
for v in ${FAR:-}; do
	[[ $v =~ ^[A-Z_][A-Z0-9_]*=. ]] || die "FAR=${FAR}: give VAR=value words, for far's run.sh"
	far_env+=("$v")
done
out=${VM_OUT:-$BUILD/vm/$(date +%Y%m%d-%H%M%S)-$$}
rm -rf "$out/far" "$out"/far.[0-9]* "$out/pair"
mkdir -p "$out/far" "$out/pair"
out=$(realpath "$out")

# Two UDP ports on the loopback that nothing holds now, one per guest.
read -r pnear pfar < <(python3 -c '
import socket
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))
') || die "no free UDP ports on 127.0.0.1"

say "two guests on 127.0.0.1 UDP ports $pnear and $pfar; far: ${FAR:-as near}"
# far_boots: far's boots, one after another while near asks for another
# (lib.sh: far_reboot writes pair/reboot, VAR=value words that join far's
# settings); then far.gone, at which near's waits for far end at once.
# Far outlives near: it serves near to the end.  Fails if a boot failed.
far_boots() {
	local n=1 rc=0 sfx='' more=() w

	while :; do
		env VM_TIMEOUT=$((${VM_TIMEOUT:-900} + 120)) "${far_env[@]}" VM_PAIR=far \
			VM_PAIR_DIR="$out/pair" VM_PAIR_NET="$pfar:$pnear" VM_OUT="$out/far$sfx" \
			"$REPO/tools/testing/vm/run.sh" "$REPO/tools/testing/tests/pair-far.sh" \
			> "$out/far$sfx.log" 2>&1 || { echo "pair: far's boot $n failed ($out/far$sfx.log)"; rc=1; }
		[ -e "$out/pair/reboot" ] && [ ! -e "$out/pair/done" ] || break
		read -r -a more < "$out/pair/reboot"
		mv "$out/pair/reboot" "$out/pair/reboot.$n"
		for w in "${more[@]}"; do
			[[ $w =~ ^[A-Z_][A-Z0-9_]*= ]] || { echo "pair: far_reboot $w: not VAR=value"; rc=1; break 2; }
			far_env+=("$w")
		done
		n=$((n + 1)) sfx=.$n
		echo "pair: far boots again ($n), with ${more[*]}"
	done
	touch "$out/pair/far.gone"
	return $rc
}
far_boots > "$out/far-boots.log" 2>&1 &
far=$!
# far_stop: far's run.sh and what it started (timeout, which stops its
# QEMU, and tee).
far_stop() {
	local p

	for p in $(pgrep -P "$far"); do
		pkill -P "$p" 2>/dev/null || :
		kill "$p" 2>/dev/null || :
	done
}
trap far_stop EXIT
rc=0
VM_PAIR=near VM_PAIR_DIR="$out/pair" VM_PAIR_NET="$pnear:$pfar" VM_OUT="$out" \
	"$REPO/tools/testing/vm/run.sh" "$@" || rc=$?
# near's init tells far's agent to end; far's own checks (its kernel log)
# then finish within a minute, or far failed
touch "$out/pair/done"
for _ in $(seq 120); do
	kill -0 "$far" 2>/dev/null || break
	sleep 0.5
done
if kill -0 "$far" 2>/dev/null; then
	echo "pair: FAIL: far did not end a minute after near; stopped (see $out/far*/console.log)" >&2
	far_stop
	rc=1
fi
frc=0
wait "$far" || frc=$?
cat "$out/far-boots.log"
for f in "$out"/far.log "$out"/far.[0-9]*.log; do
	[ -e "$f" ] || continue
	sed "s/^/${f##*/}: /" "$f" | tail -n 40
done
[ "$frc" = 0 ] || { echo "pair: FAIL: far exited $frc" >&2; rc=1; }
ln -sfn "$out" "$BUILD/vm/last"
exit "$rc"
