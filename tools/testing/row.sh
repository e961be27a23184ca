#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The rows of tools/testing/runs, each one boot of the test VM (or of two:
# vm/pair.sh) with its tests in order.  make check's scheduler
# (tools/testing/check.mk) lists them and runs each as a job of its own.
#
#   tools/testing/row.sh list MODE ROWS STACK...
#        the names of MODE's rows (check, debug, kcsan or quick) whose stack is
#        one of STACK, in the table's order; ROWS ("a b", or empty for
#        all): only those.  A STACK of @ours, @dist or @removed is a group:
#        the stacks that boot the test kernel, those that boot Debian's
#        kernel from the fleet's root with ours installed, and those that
#        boot it after the purge (make check runs and counts each group in
#        its own place)
#   tools/testing/row.sh stacks
#        every stack a row may name, the groups' in order
#   tools/testing/row.sh names MODE ROWS
#        fails, naming them, unless every name of ROWS is a row of MODE
#   tools/testing/row.sh run NAME
#        boot row NAME: its results in $MODBUILD/vm/NAME/results.ktap
#
# run reads ENTROPY_DEBUG (1 or kcsan: the debug kernels' rows, every one on
# two CPUs, timeouts four times as long, the kernel's reports checked by a
# last test) and DIST, the release of Debian's kernel that the dist stacks
# boot from build/fleet/a/root (tools/testing/fleet.sh makes it).
. "$(dirname "$0")/../buildlib/common.sh"

TESTING=$REPO/tools/testing
RUNS_TABLE=$TESTING/runs

# the groups of stacks (list's @GROUP)
declare -A GROUPS_OF=(
	[ours]="ours compat stock"
	[dist]="dist dist-initrd dist-pair stock-dist-pair"
	[removed]="dist-removed dist-initrd-removed"
)

# rows MODE: "name stack timeout words..." of MODE's rows.
rows() {
	local name stack in timeout rest

	while read -r name stack in timeout rest; do
		case $name in '' | '#'*) continue ;; esac
		[[ ",$in," == *",$1,"* ]] || continue
		echo "$name $stack $timeout $rest"
	done < "$RUNS_TABLE"
}

# cpus_of TEST...: the most CPUs any of the TESTs declares (its CPUS=).
cpus_of() {
	local t n max=1

	for t in "$@"; do
		n=$("$TESTING/test-headers.sh" cpus "$t") || die "$t: no CPUS= in its header"
		[ "$n" -le "$max" ] || max=$n
	done
	echo "$max"
}

# run NAME: boot the row.
run() {
	local name=$1 stack timeout words w far='' vm=$TESTING/vm/run.sh
	local tests=() names=() env=() out=$MODBUILD/vm/$1 root=$BUILD/fleet/a/root

	read -r _ stack _ timeout words < <(grep "^$name " "$RUNS_TABLE") ||
		die "no row '$name' in $RUNS_TABLE"
	for w in $words; do
		case $w in
		ENTROPY_*=* | VM_APPEND=* | VM_CPUS=*) env+=("$w") ;;
		FAR=*) far+="${far:+ }${w#FAR=}" ;;
		*)
			names+=("$w")
			tests+=("$TESTING/tests/$w.sh")
			;;
		esac
	done
	# one CPU unless a test asks for two (under TCG a second vCPU costs a
	# third more host CPU); the debug kernels' rows on two, where races
	# are what they look for
	if [ "${ENTROPY_DEBUG:-0}" = 0 ]; then
		env=("VM_CPUS=$(cpus_of "${names[@]}")" "${env[@]}")
	else
		env=(VM_CPUS=2 "${env[@]}" VM_APPEND=log_buf_len=16M)
		if [ "$ENTROPY_DEBUG" = 1 ]; then
			tests+=("$TESTING/tests/kernel-reports.sh")
		else
			tests+=("$TESTING/tests/kcsan-reports.sh")
		fi
		timeout=$((timeout * 4))
	fi
	case $stack in
	dist* | stock-dist-pair) [ -n "${DIST:-}" ] || die "row $name boots Debian's kernel: give its release, DIST=" ;;
	esac
	case $stack in
	stock) env+=(STOCK=1) ;;
	compat) env+=(VM_MODULES="$MODBUILD/modules-compat") ;;
	dist | dist-removed) env+=(VM_KERNEL="$DIST" VM_ROOT="$root") ;;
	dist-pair) env+=(VM_KERNEL="$DIST" VM_ROOT="$root") vm=$TESTING/vm/pair.sh ;;
	stock-dist-pair)
		env+=(STOCK=1) vm=$TESTING/vm/pair.sh
		far="VM_KERNEL=$DIST VM_ROOT=$root${far:+ $far}"
		;;
	dist-initrd | dist-initrd-removed)
		env+=(VM_KERNEL="$DIST" VM_ROOT="$root" VM_INITRD="$root/boot/initrd.img-$DIST") ;;
	esac
	[ -z "$far" ] || env+=(FAR="$far")
	rm -rf "$out"
	exec env "${env[@]}" VM_STACK="$stack" VM_OUT="$out" VM_TIMEOUT="$timeout" "$vm" "${tests[@]}"
}

case ${1:-} in
list)
	[ $# -ge 4 ] || die "usage: row.sh list MODE ROWS STACK..."
	mode=$2 only=$3 stacks=
	shift 3
	for s in "$@"; do
		case $s in
		@*)
			[ -n "${GROUPS_OF[${s#@}]:-}" ] || die "row.sh list: no group $s (@ours, @dist, @removed)"
			stacks+=" ${GROUPS_OF[${s#@}]}"
			;;
		*) stacks+=" $s" ;;
		esac
	done
	while read -r name stack _; do
		[ -z "$only" ] || [[ " $only " == *" $name "* ]] || continue
		[[ "$stacks " == *" $stack "* ]] && echo "$name"
	done < <(rows "$mode")
	;;
stacks)
	echo "${GROUPS_OF[ours]}" "${GROUPS_OF[dist]}" "${GROUPS_OF[removed]}"
	;;
names)
	[ $# = 3 ] || die "usage: row.sh names MODE ROWS"
	all=$(rows "$2" | cut -d ' ' -f 1 | tr '\n' ' ')
	for r in $3; do
		[[ " $all" == *" $r "* ]] || die "ROWS: no row '$r' in make check's $2 mode (tools/testing/runs has: $all)"
	done
	;;
run)
	[ $# = 2 ] || die "usage: row.sh run NAME"
	run "$2"
	;;
*)
	die "usage: tools/testing/row.sh list MODE ROWS STACK... | stacks | names MODE ROWS | run NAME"
	;;
esac
