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
rm -rf "$out/far" "$out/pair"
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
# far outlives near: it serves near to the end
env VM_TIMEOUT=$((${VM_TIMEOUT:-900} + 120)) "${far_env[@]}" VM_PAIR=far \
	VM_PAIR_DIR="$out/pair" VM_PAIR_NET="$pfar:$pnear" VM_OUT="$out/far" \
	"$REPO/tools/testing/vm/run.sh" "$REPO/tools/testing/tests/pair-far.sh" \
	> "$out/far.log" 2>&1 &
far=$!
# far.gone: near's waits for far end at once when far is no more
( while kill -0 "$far" 2>/dev/null; do sleep 1; done; touch "$out/pair/far.gone" ) &
watch=$!
# far's run.sh's children (timeout, which stops its QEMU, and tee)
trap 'pkill -P "$far" 2>/dev/null || :; kill "$watch" 2>/dev/null || :' EXIT
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
	echo "pair: FAIL: far did not end a minute after near; stopped (see $out/far/console.log)" >&2
	pkill -P "$far" || :
	rc=1
fi
frc=0
wait "$far" || frc=$?
sed 's/^/far: /' "$out/far.log" | tail -n 40
[ "$frc" = 0 ] || { echo "pair: FAIL: far exited $frc" >&2; rc=1; }
ln -sfn "$out" "$BUILD/vm/last"
exit "$rc"
