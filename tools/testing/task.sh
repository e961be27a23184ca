#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One job of make check (tools/testing/check.mk): run CMD, its output in
# $LOGS, and leave $LOGS/ID.rc (its exit status) and $LOGS/ID.time ("wall|cpu"
# seconds, its CPU being everything it waited for).  check.sh counts the
# results from those files and what CMD wrote; Make sees a job that ended,
# whatever its status, so that the jobs after it still run, unless -g.
#
#   tools/testing/task.sh [-g] [-n] [-v] [-o FILE] [-e FILE] ID CMD...
#
# -g       a gate: CMD's failure fails the job, and Make starts nothing
#          that waits on it (the test kernel, our modules, the tools)
# -n       at nice 10 (libFuzzer in the guests' idle time)
# -v       boots guests: waits for one of VM_JOBS slots (default 2) and
#          holds it until CMD and all it started have ended
# -o FILE  CMD's standard output into $LOGS/FILE (default ID.log)
# -e FILE  its standard error into $LOGS/FILE (default: with the output)
set -u
gate=0 nice=0 guest=0 out='' err=''
while getopts gnvo:e: opt; do
	case $opt in
	g) gate=1 ;;
	n) nice=1 ;;
	v) guest=1 ;;
	o) out=$OPTARG ;;
	e) err=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] && [ -n "${LOGS:-}" ] || {
	echo "usage: LOGS=dir tools/testing/task.sh [-g] [-n] [-o FILE] [-e FILE] ID CMD..." >&2
	exit 2
}
id=$1
shift
out=$LOGS/${out:-$id.log}
err=${err:+$LOGS/$err}
# Our own scripts run their own make -jN: Make's jobserver is not theirs.
unset MAKEFLAGS MFLAGS MAKELEVEL

# slot: wait for a free guest slot, in the order the guests' jobs came
# (Make starts them longest first): each takes a ticket, and only the
# one that has waited longest tries the slots.  Without the tickets a job that
# Make starts as another ends takes the slot that job left before the
# waiting ones look again, and the longest row could wait to the end.
# The slot's lock is held by the descriptor, which CMD and what it starts
# inherit.
slot() {
	local i fd q ticket serving jobs=${VM_JOBS:-2}

	exec {q}> "$LOGS/slot.queue"
	flock "$q"
	read -r ticket 2> /dev/null < "$LOGS/slot.next" || ticket=0
	echo $((ticket + 1)) > "$LOGS/slot.next"
	flock -u "$q"
	while :; do
		read -r serving 2> /dev/null < "$LOGS/slot.serving" || serving=0
		if [ "$ticket" = "$serving" ]; then
			for ((i = 0; i < jobs; i++)); do
				exec {fd}> "$LOGS/slot.$i"
				if flock -n "$fd"; then
					echo $((ticket + 1)) > "$LOGS/slot.serving"
					exec {q}>&-
					return
				fi
				exec {fd}>&-
			done
		fi
		sleep 1
	done
}

[ $guest = 0 ] || slot
echo "==> started: $id"
t=$SECONDS
[ $nice = 0 ] || set -- nice -n 10 "$@"
if [ -n "$err" ]; then
	"$@" > "$out" 2> "$err" < /dev/null
else
	"$@" > "$out" 2>&1 < /dev/null
fi
rc=$?
read -r -a f < "/proc/$$/stat"
echo "$((SECONDS - t))|$(((f[15] + f[16]) / $(getconf CLK_TCK)))" > "$LOGS/$id.time"
echo "$rc" > "$LOGS/$id.rc"
echo "==> done: $id (exit $rc, $((SECONDS - t)) s)"
[ $gate = 0 ] || exit "$rc"
