#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every test, from nothing.  Each stage's results are read from
# what it writes for machines: KTAP (the series check, the VM runs, the
# KUnit module) through the kernel's kunit.py, GoogleTest's JUnit XML, the
# demo's JSON.  Ends with the wall and CPU time of each stage and "N passed,
# N failed".
#
#   DEBUG=1      the VM runs marked "debug" in tools/testing/runs, on the
#                debug kernel (KASAN, lockdep, kmemleak), with our modules
#                built against it; nothing else
#   DEBUG=kcsan  the same with the runs marked "kcsan", on a KCSAN kernel
#   RUNS="a b"   only these VM runs of tools/testing/runs
#   FUZZ_SECONDS how long each fuzz target runs (default 30)
DEBUG=${DEBUG:-0}
dbg=
case $DEBUG in
0) ;;
1|kcsan)
	dbg=" ($([ "$DEBUG" = 1 ] && echo debug || echo kcsan))"
	export RTE_DEBUG=$DEBUG RTE_WAIT_SCALE=${RTE_WAIT_SCALE:-5}
	;;
*)
	echo "error: DEBUG=$DEBUG: 1 (KASAN, lockdep, kmemleak) or kcsan" >&2
	exit 1
	;;
esac
# shellcheck source=tools/buildlib/common.sh
. "$(dirname "$0")/../buildlib/common.sh"
set +e
trap - ERR

TESTING=$REPO/tools/testing
mode=check
[ "$DEBUG" = 1 ] && mode=debug
[ "$DEBUG" = kcsan ] && mode=kcsan
mkdir -p "$MODBUILD"
LOGS=$MODBUILD/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
PASS=0 FAIL=0 SKIP=0
TIMES=()
TICKS=$(getconf CLK_TCK)
start=$SECONDS

# The VM runs of this mode, checked before anything is built.
declare -a RUN_NAMES
while read -r name stack in timeout rest; do
	case $name in ''|'#'*) continue ;; esac
	[[ ",$in," == *",$mode,"* ]] || continue
	RUN_NAMES+=("$name")
done < "$TESTING/runs"
for r in ${RUNS:-}; do
	[[ " ${RUN_NAMES[*]} " == *" $r "* ]] ||
		die "RUNS: no VM run '$r' in make check$dbg (tools/testing/runs has: ${RUN_NAMES[*]})"
done

# count OK|FAIL NAME: one result of a stage.
count() {
	if [ "$1" = OK ]; then
		PASS=$((PASS + 1))
		echo "  ok: $2"
	else
		FAIL=$((FAIL + 1))
		echo "  not ok: $2"
	fi
}

# count_file ktap|junit FILE LABEL: the results a stage wrote, added up.
count_file() {
	local out rc p f s

	if [ "$1" = ktap ]; then
		out=$("$TESTING/results.py" ktap "$KSRC" "$2" 2>&1)
	else
		out=$("$TESTING/results.py" junit "$2" 2>&1)
	fi
	rc=$?
	read -r _ p _ f _ s <<< "$(head -n 1 <<< "$out")"
	if [ "$rc" = 2 ] || ! [[ $p =~ ^[0-9]+$ ]]; then
		echo "$out" | tail -n 5
		count FAIL "$3: no results could be read from $2"
		return
	fi
	PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
	echo "  $3: $p passed, $f failed, $s skipped"
	tail -n +2 <<< "$out" | sed 's/^/  /'
}

# cpu_ticks: CPU (user + system, in clock ticks) that this shell's waited-for
# children have used so far, in CPU.  Each lane is a subshell of its own,
# and a fork starts its counters at zero.
cpu_ticks() {
	local f

	read -r -a f < "/proc/$BASHPID/stat"
	CPU=$((f[15] + f[16]))
}

# measure CMD...: run CMD; its wall and CPU seconds in MEASURED, "wall|cpu".
measure() {
	local t=$SECONDS c rc

	cpu_ticks
	c=$CPU
	"$@"
	rc=$?
	cpu_ticks
	MEASURED="$((SECONDS - t))|$(((CPU - c) / TICKS))"
	return $rc
}

# timed NAME CMD...: run CMD, its times kept for the table.
timed() {
	local name=$1 rc

	shift
	measure "$@"
	rc=$?
	TIMES+=("$name|$MEASURED")
	return $rc
}

# task ID CMD...: run CMD (output to $LOGS/ID.log unless redirected by the
# caller), keep its status and its wall and CPU time.
task() {
	local id=$1 rc

	shift
	measure "$@"
	rc=$?
	echo $rc > "$LOGS/$id.rc"
	echo "$MEASURED" > "$LOGS/$id.time"
	return $rc
}

# task_rc ID: the status task ID left (1 if it left none: it never ran).
task_rc() {
	cat "$LOGS/$1.rc" 2>/dev/null || echo 1
}

# task_time ID: its wall and CPU seconds, "wall|cpu", for the table.
task_time() {
	cat "$LOGS/$1.time" 2>/dev/null || echo "0|0"
}

# count_task ID DESCRIPTION: one result from a task's status.
count_task() {
	TIMES+=("$2|$(task_time "$1")")
	if [ "$(task_rc "$1")" = 0 ]; then
		count OK "$2"
	else
		tail -n 20 "$LOGS/$1.log" 2>/dev/null
		count FAIL "$2 (log $LOGS/$1.log)"
	fi
}

# count_lint: shellcheck's results, once it is done.
count_lint() {
	wait "$lint_pid"
	lint_pid=
	TIMES+=("shellcheck (beside the stages before the lanes)|$(task_time lint)")
	count_file ktap "$LOGS/lint.ktap" "shellcheck (tools/buildlib/lint.sh)"
}

finish() {
	local row name wall cpu

	[ -z "${deps_pid:-}" ] || wait "$deps_pid"
	[ -z "${lint_pid:-}" ] || count_lint
	if [ -n "${dist_pid:-}" ]; then
		touch "$LOGS/lanes.stop"
		wait "$dist_pid"
	fi
	"$TESTING/fleet.sh" umount 2> /dev/null

	echo
	echo "time per stage (wall and CPU seconds; $(nproc) CPUs):"
	printf '  %-62s %6s %6s\n' stage wall cpu
	for row in "${TIMES[@]}"; do
		IFS='|' read -r name wall cpu <<< "$row"
		printf '  %-62s %6s %6s\n' "$name" "$wall" "$cpu"
	done
	cpu_ticks
	printf '  %-62s %6d %6d\n' "make check$dbg" "$((SECONDS - start))" "$((CPU / TICKS))"
	echo "logs: $LOGS"
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" = 0 ]
	exit
}

# prereq NAME CMD...: a stage the rest needs: one result; its failure ends
# the run.
prereq() {
	local name=$1 log=$LOGS/${2##*/}.log

	shift
	say "$name"
	if timed "$name" "$@" > "$log" 2>&1; then
		count OK "$name"
	else
		tail -n 20 "$log"
		count FAIL "$name (log $log)"
		finish
	fi
}

# The lanes: three run at once after the C++ stage (the dist lane from the
# packages on: its first steps need neither the test kernel nor the
# series), and their results are counted when all are done, in a fixed
# order:
#   VM lane      make demo, make fabric's smoke run and the rows of
#                tools/testing/runs, longest
#                first, VM_JOBS at a time (default 2: a TCG guest keeps
#                about one host core busy and spends much of a run
#                waiting on itself);
#   fuzz lane    libFuzzer on the capture reader and the command line,
#                at nice 10, in the VMs' idle time;
#   dist lane    (at the guests' priority: at nice 10 beside two guests
#                DKMS's build took over 20 minutes, and the lane waits for
#                it) the packages on an operator's host, never this one
#                (tools/testing/fleet.sh): make deb (and lintian), a Debian
#                12 root with Debian's own 6.12 kernel of linux-source's
#                version, apt install of an older build of the package and
#                the upgrade to this one there (DKMS, with the kABI gate),
#                its VM runs on that kernel and root (the dist rows), beside
#                them the kernel updates, Secure Boot and OFED in a root
#                over that one, then apt purge and the VM run that finds
#                the kernel's own modules.
# VM runs of every lane share the VM_JOBS slots; the dist lane's take the
# next free one first: each is a link of that lane's chain, which otherwise
# waited behind the VM lane's runs (364 s in one run) and ended alone, 277 s
# after the others.  (A third guest for them instead made make check
# slower: 951 s against 864, its CPU 1796 s against 1557; under TCG a guest
# starved of CPU spends more of it, polling.)  Each task leaves
# $LOGS/ID.rc, ID.time and its log or KTAP.
VM_JOBS=${VM_JOBS:-2}
[[ $VM_JOBS =~ ^[1-9][0-9]*$ ]] || die "VM_JOBS=$VM_JOBS: give a number of VMs to run at once (1 or more)"

# vm_slot: wait for one of the VM_JOBS slots; SLOT is then an open file
# descriptor holding its lock until the process that holds it closes it.
# With URGENT=1 (the dist lane's runs, each a link of that lane's chain)
# the caller takes the next free slot before the VM lane's next run, which
# waits while $LOGS/slot.urgent exists.
vm_slot() {
	local i fd urgent=$LOGS/slot.urgent

	[ "${URGENT:-0}" = 0 ] || touch "$urgent"
	while :; do
		if [ "${URGENT:-0}" = 0 ] && [ -e "$urgent" ]; then
			sleep 1
			continue
		fi
		for ((i = 0; i < VM_JOBS; i++)); do
			exec {fd}> "$LOGS/slot.$i"
			if flock -n "$fd"; then
				SLOT=$fd
				[ "${URGENT:-0}" = 0 ] || rm -f "$urgent"
				return
			fi
			exec {fd}>&-
		done
		sleep 1
	done
}

# vm_task ID CMD...: task ID once a VM slot is free, holding it until CMD
# and whatever it started have ended (they inherit the descriptor).
vm_task() {
	local id=$1

	shift
	vm_slot
	say "started: $id"
	task "$id" "$@" > "$LOGS/$id.log" 2>&1 < /dev/null
	exec {SLOT}>&-
}

# vm_run NAME STACK TIMEOUT TEST|VAR=VALUE...: one row of tools/testing/runs.
vm_run() {
	local name=$1 stack=$2 timeout=$3 out=$MODBUILD/vm/$1 w far=
	local tests=() env=(VM_CPUS=1) vm=$TESTING/vm/run.sh

	shift 3
	# make check's rows run on one CPU unless they say otherwise; the
	# debug and KCSAN kernels on two, where races are what they look for
	[ "$DEBUG" = 0 ] || env=(VM_CPUS=2)
	for w in "$@"; do
		case $w in
		RTE_*=* | VM_APPEND=* | VM_CPUS=*) env+=("$w") ;;
		FAR=*) far+="${far:+ }${w#FAR=}" ;;
		*) tests+=("$TESTING/tests/$w.sh") ;;
		esac
	done
	if [ "$DEBUG" != 0 ]; then
		if [ "$DEBUG" = 1 ]; then
			tests+=("$TESTING/tests/kernel-reports.sh")
		else
			tests+=("$TESTING/tests/kcsan-reports.sh")
		fi
		timeout=$((timeout * 4))
		env+=(VM_APPEND=log_buf_len=16M)
	fi
	case $stack in
	stock) env+=(STOCK=1) ;;
	compat) env+=(VM_MODULES="$MODBUILD/modules-compat") ;;
	dist|dist-removed) env+=(VM_KERNEL="$dist" VM_ROOT="$BUILD/fleet/a/root") ;;
	dist-pair) env+=(VM_KERNEL="$dist" VM_ROOT="$BUILD/fleet/a/root") vm=$TESTING/vm/pair.sh ;;
	stock-dist-pair) env+=(STOCK=1) vm=$TESTING/vm/pair.sh
		far="VM_KERNEL=$dist VM_ROOT=$BUILD/fleet/a/root${far:+ $far}" ;;
	dist-initrd|dist-initrd-removed) env+=(VM_KERNEL="$dist" VM_ROOT="$BUILD/fleet/a/root"
		VM_INITRD="$BUILD/fleet/a/root/boot/initrd.img-$dist") ;;
	esac
	[ -z "$far" ] || env+=(FAR="$far")
	rm -rf "$out"
	vm_task "vm-$name" env "${env[@]}" VM_OUT="$out" VM_TIMEOUT="$timeout" \
		"$vm" "${tests[@]}"
}

# runs_of STACK...: the rows of tools/testing/runs of this mode (and RUNS=)
# whose stack is one of STACK, as "name stack timeout rest".
runs_of() {
	local name stack in timeout rest

	while read -r name stack in timeout rest; do
		case $name in ''|'#'*) continue ;; esac
		[[ ",$in," == *",$mode,"* ]] || continue
		[ -z "${RUNS:-}" ] || [[ " $RUNS " == *" $name "* ]] || continue
		[[ " $* " == *" $stack "* ]] || continue
		echo "$name $stack $timeout $rest"
	done < "$TESTING/runs"
}

dist_lane() {
	local name stack timeout rest go=1 v

	# The root (once, cached) downloads while the packages build.
	LOGDIR=$LOGS "$TESTING/fleet.sh" root > "$LOGS/fleet-root.log" 2>&1 &
	task deb "$REPO/tools/buildlib/deb.sh" > "$LOGS/deb.log" 2>&1
	v=$("$REPO/tools/buildlib/version.sh")
	task deb-prev "$REPO/tools/buildlib/deb.sh" "$BUILD/deb-prev" "$v~prev" indep \
		> "$LOGS/deb-prev.log" 2>&1
	wait
	LOGDIR=$LOGS task fleet-install "$TESTING/fleet.sh" install "$BUILD/deb" "$BUILD/deb-prev" \
		> "$LOGS/fleet-install.ktap" 2>&1
	# The VM runs need our modules and tools: the lanes' start.
	until [ -e "$LOGS/lanes.go" ] || [ -e "$LOGS/lanes.stop" ]; do sleep 1; done
	[ -e "$LOGS/lanes.go" ] || go=0
	# a run that stops before the lanes does not wait for the kernel updates
	[ $go = 0 ] || LOGDIR=$LOGS task fleet-updates "$TESTING/fleet.sh" updates "$BUILD/deb" \
		> "$LOGS/fleet-updates.ktap" 2>&1 &
	# Each dist row takes the next free slot before the VM lane's next row,
	# in turn: the next waits until this one holds its slot.
	while read -r name stack timeout rest; do
		[ $go = 1 ] || break
		# shellcheck disable=SC2086
		URGENT=1 vm_run "$name" "$stack" "$timeout" $rest &
		until [ -f "$LOGS/vm-$name.log" ]; do sleep 0.2; done
	done < <(runs_of dist dist-initrd dist-pair stock-dist-pair)
	wait
	[ $go = 0 ] || LOGDIR=$LOGS task fleet-purge "$TESTING/fleet.sh" purge > "$LOGS/fleet-purge.ktap" 2>&1
	while read -r name stack timeout rest; do
		[ $go = 1 ] || break
		# shellcheck disable=SC2086
		URGENT=1 vm_run "$name" "$stack" "$timeout" $rest &
		until [ -f "$LOGS/vm-$name.log" ]; do sleep 0.2; done
	done < <(runs_of dist-removed dist-initrd-removed)
	wait
	"$TESTING/fleet.sh" umount
}

# host_state: what make check must leave as it found it: the packages,
# and every file (type, mode, contents) under /etc, /boot and /lib/modules.
host_state() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture} ${Version}\n' | sort
	find /etc /boot /usr/lib/modules -xdev -printf '%p %y %m\n' 2> /dev/null | sort
	find /etc /boot /usr/lib/modules -xdev -type f -print0 2> /dev/null | sort -z |
		xargs -0 -r sha256sum 2> /dev/null
}

prereq "Debian packages for the test kernel" "$REPO/tools/buildlib/deps.sh" kernel
# shellcheck disable=SC2119 # no argument: the whole source tree, not rdma's part
ksrc_init
# First, as blktests' make check does: shellcheck on every script, beside
# the stages up to the lanes (20 s of one core); counted before them.
say "shellcheck on every shell script (make lint), beside the next stages"
task lint "$REPO/tools/buildlib/lint.sh" > "$LOGS/lint.ktap" 2> "$LOGS/lint.log" &
lint_pid=$!
# The other packages (QEMU, rdma-core, tshark, the tools', Debian's kernel)
# install while the test kernel builds: apt waits on the mirror and the
# disk, the build on the CPUs.  Then rdma-core with tools/rdma-core and the
# C++ tools build and test beside the kernel and the series check, in their
# single-threaded stretches (links, git am, checkpatch).
{
	task deps "$REPO/tools/buildlib/deps.sh" > "$LOGS/deps.log" 2>&1 &&
		[ "$DEBUG" = 0 ] && {
		task rdma-core "$REPO/tools/buildlib/rdma-core.sh" test \
			> "$LOGS/rdma-core.ktap" 2> "$LOGS/rdma-core.log"
		task tools "$REPO/tools/buildlib/tools.sh" test > "$LOGS/tools.log" 2>&1
	}
} &
deps_pid=$!
prereq "test kernel$dbg" "$REPO/tools/buildlib/kernel.sh"
until [ -f "$LOGS/deps.rc" ]; do sleep 1; done
count_task deps "Debian packages: the rest (beside the test kernel)"
[ "$(task_rc deps)" = 0 ] || finish
# What make check must not change on this host, from here on (make deps
# may install what is missing before).
host_state > "$LOGS/host-before"
# The dist lane starts here: the packages and the Debian root need neither
# the test kernel nor the series check, and that lane's chain is the
# longest of the lanes.
dist=
if [ "$DEBUG" = 0 ] && [ -n "$(runs_of dist dist-initrd dist-pair stock-dist-pair dist-removed dist-initrd-removed)" ]; then
	dist=$(dist_release)
fi
rm -f "$LOGS/lanes.go" "$LOGS/lanes.stop"
if [ -n "$dist" ]; then
	say "distribution kernel's lane: the packages and their Debian root now, its VM runs with the others"
	dist_lane > "$LOGS/lane-dist.log" 2>&1 &
	dist_pid=$!
fi

if [ "$DEBUG" = 0 ]; then
	say "series check: each patch on pristine 6.12 (git am, W=1 + sparse, checkpatch, get_maintainer)"
	timed "series check" "$REPO/tools/buildlib/series-check.sh" \
		> "$LOGS/series.ktap" 2> "$LOGS/series-check.log"
	rc=$?
	count_file ktap "$LOGS/series.ktap" "series check"
	say "the series as commits and back: make series-edit, an edit, make series-export"
	timed "series round trip" "$REPO/tools/buildlib/series.sh" check \
		> "$LOGS/series-roundtrip.ktap" 2> "$LOGS/series-roundtrip.log"
	count_file ktap "$LOGS/series-roundtrip.ktap" "series round trip (tools/buildlib/series.sh check)"
	"$REPO/tools/buildlib/cover-check.sh" > "$LOGS/cover.ktap" 2> "$LOGS/cover.log"
	count_file ktap "$LOGS/cover.ktap" "cover letters name every interface the patches add; documentation parses"
	"$REPO/tools/buildlib/kconfig-check.sh" > "$LOGS/kconfig.ktap" 2> "$LOGS/kconfig.log"
	count_file ktap "$LOGS/kconfig.ktap" "the top-level Kconfig as make modules reads it"
	if [ ! -f "$MODBUILD/modules/ib_core.ko" ] || [ $rc != 0 ]; then
		tail -n 20 "$LOGS/series-check.log"
		count FAIL "series check: no modules to test (log $LOGS/series-check.log)"
		finish
	fi
else
	prereq "our modules against the debug kernel" "$REPO/tools/buildlib/modules.sh"
fi
# iproute2's rdma with tools/iproute2, for the VM tests (seconds, once the
# source is in the cache)
if "$REPO/tools/buildlib/iproute2.sh" > "$LOGS/iproute2.log" 2>&1; then
	count OK "iproute2's rdma with tools/iproute2 builds on the series' uAPI header, warnings as errors"
else
	tail -n 20 "$LOGS/iproute2.log"
	count FAIL "iproute2's rdma with tools/iproute2 (log $LOGS/iproute2.log)"
fi
# checkpatch_series DIR [OPTION...]: checkpatch.pl --no-tree on each patch
# of DIR/series (user space: not --strict, which asks for the kernel's
# u32 types).
checkpatch_series() {
	local dir=$1 p

	shift
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		if "$KSRC/scripts/checkpatch.pl" --no-tree -q "$@" "$REPO/$dir/$p" \
			> "$LOGS/checkpatch.log" 2>&1 < /dev/null; then
			count OK "checkpatch: $dir/$p"
		else
			cat "$LOGS/checkpatch.log"
			count FAIL "checkpatch: $dir/$p"
		fi
	done < "$REPO/$dir/series"
}
checkpatch_series tools/iproute2
# rdma-core's MAINTAINERS names no file of util/, where the series adds one
checkpatch_series tools/rdma-core --ignore FILE_PATH_CHANGES

wait "$deps_pid"
deps_pid=
count_lint
if [ "$DEBUG" = 0 ]; then
	TIMES+=("rdma-core with tools/rdma-core (beside the kernel)|$(task_time rdma-core)")
	[ "$(task_rc rdma-core)" = 0 ] || tail -n 20 "$LOGS/rdma-core.log"
	count_file ktap "$LOGS/rdma-core.ktap" "rdma-core with tools/rdma-core (log $LOGS/rdma-core.log)"
	say "C++ tooling: build, clang-format, GoogleTest under ASan/UBSan (beside the kernel and the series check)"
	TIMES+=("C++ tooling (beside the kernel and the series check)|$(task_time tools)")
	rc=$(task_rc tools)
	if [ -n "$(ls "$BUILD"/tools-asan/gtest/*.xml 2>/dev/null)" ]; then
		count_file junit "$BUILD/tools-asan/gtest" "GoogleTest (its JUnit XML)"
	fi
	if [ "$rc" != 0 ]; then
		tail -n 30 "$LOGS/tools.log"
		count FAIL "C++ tooling: build, GoogleTest, install check (log $LOGS/tools.log)"
	fi
	[ -x "$BUILD/bin/roce-entropy" ] || finish
	# shellcheck disable=SC2046 # the tracked files' paths have no spaces
	if clang-format --dry-run --Werror $(cd "$REPO" && git ls-files 'tools/roce-entropy/*.cpp' \
		'tools/roce-entropy/*.h' | sed "s|^|$REPO/|") > "$LOGS/clang-format.log" 2>&1; then
		count OK "clang-format: tools/roce-entropy is formatted"
	else
		head -n 20 "$LOGS/clang-format.log"
		count FAIL "clang-format: tools/roce-entropy is formatted (log $LOGS/clang-format.log)"
	fi

else
	prereq "C++ tools" "$REPO/tools/buildlib/tools.sh"
fi

demo=0
[ "$DEBUG" = 0 ] && [ -z "${RUNS:-}" ] && demo=1
fuzz_secs=${FUZZ_SECONDS:-30}
lanes_start=$SECONDS
cpu_ticks
lanes_cpu=$CPU

# The longest first, so that the short ones fill the end: make demo, then
# the rows in their order.
vm_lane() {
	local name stack timeout rest

	if [ "$demo" = 1 ]; then
		# on one CPU, as the rows (tools/testing/runs): 150 CPU s
		# against 260 on two, the same figures but the failover act's
		# gaps, which are figures and not judged
		vm_task demo env VM_CPUS=1 "$REPO/tools/demo/demo.sh" &
		until [ -f "$LOGS/demo.log" ]; do sleep 0.2; done
		vm_task fabric "$REPO/tools/fabric/run.sh" smoke &
		until [ -f "$LOGS/fabric.log" ]; do sleep 0.2; done
	fi
	while read -r name stack timeout rest; do
		# shellcheck disable=SC2086
		vm_run "$name" "$stack" "$timeout" $rest &
		# the next row waits for this one to hold its slot
		until [ -f "$LOGS/vm-$name.log" ]; do sleep 0.2; done
	done < <(runs_of ours compat stock)
	wait
}

fuzz_lane() {
	local t

	for t in capture cli; do
		task "fuzz-$t" nice -n 10 "$REPO/tools/buildlib/fuzz.sh" "$fuzz_secs" "$t" \
			> "$LOGS/fuzz-$t.log" 2>&1
	done
}

say "VM runs, $VM_JOBS at a time$([ "$DEBUG" = 0 ] && echo ", beside libFuzzer")$([ -n "$dist" ] && \
	echo " and the distribution kernel's lane"); results when all are done"
touch "$LOGS/lanes.go"
vm_lane > "$LOGS/lane-vm.log" 2>&1 &
[ "$DEBUG" != 0 ] || fuzz_lane > "$LOGS/lane-fuzz.log" 2>&1 &
wait
dist_pid=
cpu_ticks
TIMES+=("lanes: VM runs, fuzzing, distribution kernel (its lane earlier)|$((SECONDS - lanes_start))|$(((CPU - lanes_cpu) / TICKS))")

# count_ktap_task ID FILE DESCRIPTION: the results a task wrote in KTAP.
count_ktap_task() {
	TIMES+=("$3|$(task_time "$1")")
	count_file ktap "$2" "$3"
}

# vm_count NAME: the results of VM run NAME.
vm_count() {
	local name=$1 out=$MODBUILD/vm/$1 far

	say "results of VM run $name"
	TIMES+=("VM run $name|$(task_time "vm-$name")")
	count_file ktap "$out/results.ktap" "VM run $name"
	[ ! -f "$out/kunit.ktap" ] || count_file ktap "$out/kunit.ktap" "KUnit in the VM (KTAP)"
	# a pair's far, each of its boots (far.2... after far_reboot)
	for far in "$out"/far "$out"/far.[0-9]*; do
		[ ! -f "$far/results.ktap" ] || count_file ktap "$far/results.ktap" "VM run $name, ${far##*/}"
	done
	if [ "$(task_rc "vm-$name")" != 0 ] &&
		! grep -q '^\(not \)\?ok [0-9]* kernel log' "$out/results.ktap" 2>/dev/null; then
		tail -n 30 "$LOGS/vm-$name.log"
		count FAIL "VM run $name did not finish (exit $(task_rc "vm-$name"); $out/console.log)"
	fi
}

if [ "$DEBUG" = 0 ]; then
	say "results of libFuzzer (ASan/UBSan), $fuzz_secs s a target"
	for t in capture cli; do
		count_task "fuzz-$t" "libFuzzer $t: no crash, leak or timeout in $fuzz_secs s"
	done
fi
while read -r name _; do
	vm_count "$name"
done < <(runs_of ours compat stock)
if [ -n "$dist" ]; then
	say "results of the packages on a Debian 12 root, Linux $dist"
	count_task deb "make deb: dpkg-buildpackage, lintian without errors or warnings"
	count_task deb-prev "make deb of an older version, to upgrade from"
	count_ktap_task fleet-install "$LOGS/fleet-install.ktap" "apt install and upgrade, DKMS for Linux $dist"
	while read -r name _; do vm_count "$name"; done < <(runs_of dist dist-initrd dist-pair stock-dist-pair)
	count_ktap_task fleet-updates "$LOGS/fleet-updates.ktap" "kernel updates, Secure Boot, OFED"
	count_ktap_task fleet-purge "$LOGS/fleet-purge.ktap" "apt purge"
	while read -r name _; do vm_count "$name"; done < <(runs_of dist-removed dist-initrd-removed)
fi

if [ "$demo" = 1 ]; then
	say "results of make demo"
	TIMES+=("make demo|$(task_time demo)")
	if [ -f "$BUILD/demo/report.json" ]; then
		while read -r ok what; do
			if [ "$ok" = true ]; then count OK "demo: $what"; else count FAIL "demo: $what"; fi
		done < <(jq -r '(.runs[] | "\(.ok) \(.act) \(.mix) \(.family) \(.policy): \(.verdict)"),
			(.failover.runs[]? | "\(.ok) failover \(.family) \(.policy), re-path \(if .repath then "on" else "off" end): \(.verdict)")' \
			"$BUILD/demo/report.json")
	fi
	[ "$(task_rc demo)" = 0 ] ||
		{ tail -n 20 "$LOGS/demo.log"; count FAIL "make demo's self-check (log $LOGS/demo.log)"; }
fi

if [ "$demo" = 1 ]; then
	say "results of make fabric's smoke run (tools/fabric/run.sh smoke)"
	TIMES+=("make fabric, its smoke run|$(task_time fabric)")
	if [ -f "$BUILD/fabric-smoke/report.json" ]; then
		while read -r ok what; do
			if [ "$ok" = true ]; then count OK "fabric smoke: $what"; else count FAIL "fabric smoke: $what"; fi
		done < <(jq -r '"\(.calibration.fabric_is_the_bottleneck // false) the calibration shows the shaped fabric as the bottleneck (one flow \(.calibration.one_flow // "-"), pinned \(.calibration.pinned // "-") of the link rate)",
			"\(.jobs == .jobs_planned) \(.jobs) of \(.jobs_planned) planned jobs ran, ours and stock",
			"\((.cells | length) > 0 and all(.cells[]; (.policies | keys) == ["rfc", "stock"])) every cell has rfc and stock, in \(.cells | length) cells"' \
			"$BUILD/fabric-smoke/report.json")
	fi
	[ "$(task_rc fabric)" = 0 ] ||
		{ tail -n 20 "$LOGS/fabric.log"; count FAIL "make fabric's smoke run (log $LOGS/fabric.log)"; }
fi

say "the host as make check found it: packages, /etc, /boot, /lib/modules"
"$TESTING/fleet.sh" umount 2> /dev/null
host_state > "$LOGS/host-after"
if diff -u "$LOGS/host-before" "$LOGS/host-after" > "$LOGS/host.diff"; then
	count OK "make check changed no package and no file in /etc, /boot or /lib/modules"
else
	head -n 20 "$LOGS/host.diff"
	count FAIL "make check changed the host ($LOGS/host.diff)"
fi

finish
