# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What a test declares of itself, judged before it runs (blktests' shape;
# tools/testing/README.md, "Writing a test").  lib.sh sources this file
# last.  A test script sets, before it sources lib.sh:
#
#   STACKS      the stacks of tools/testing/runs it is meaningful on (read
#               on the host by tools/testing/test-headers.sh)
#   CPUS        the guest CPUs it needs
#   requires()  if it needs more than the standard VM: the _have_* helpers
#               below, one a line, each of which appends its reason to
#               SKIP_REASONS and returns 1 when the guest lacks what it
#               asks for; the test is skipped when any did
#
# Then, before the test's first command, a guest with fewer CPUs online
# than CPUS, or one where requires() fails, skips the test: "SKIP:
# <reason>" as its last line and exit 4, kselftest's KSFT_SKIP, which
# vm/init.sh reports as "ok N <test> # SKIP <reason>".  The other scripts
# that source lib.sh (vm/init.sh, tools/demo, tools/bench, tools/fabric,
# ecmp-core.sh's users) set no STACKS: for them this file only defines the
# helpers.

SKIP_REASONS=()

# _have_program PROGRAM...: each PROGRAM (a name on PATH, or a path) is
# there to run.
_have_program() {
	local p rc=0

	for p in "$@"; do
		command -v "$p" > /dev/null && continue
		SKIP_REASONS+=("no program $p in the guest (the host's root)")
		rc=1
	done
	return $rc
}

# _have_module MODULE...: the booted kernel has each MODULE, loadable or
# built in: modprobe -n finds it in the test kernel's module tree, or in
# the distribution kernel's (vm_modprobe).  One modprobe when all are
# there (an exec costs 0.1-0.4 s under TCG), one each to name the missing.
_have_module() {
	local m absent=()

	vm_modprobe -n -q -a "$@" 2> /dev/null && return 0
	for m in "$@"; do
		vm_modprobe -n -q "$m" 2> /dev/null || absent+=("$m")
	done
	[ ${#absent[@]} != 0 ] || return 0
	SKIP_REASONS+=("the booted kernel, Linux $(uname -r), has no module ${absent[*]}")
	return 1
}

# _have_module_param MODULE PARAM: the loaded MODULE has parameter PARAM
# (ib_core's roce_entropy: compat/, the DKMS build's; the upstream series
# has none).
_have_module_param() {
	[ -e "/sys/module/$1/parameters/$2" ] && return 0
	SKIP_REASONS+=("the loaded $1 has no parameter $2")
	return 1
}

# _have_knob: the ports have our roce_entropy knob: the stack is ours.
# When the knob is missing but the loaded ib_core is our build, the knob
# is what the test is there to find missing: it runs, and fails, rather
# than skip.
_have_knob() {
	local f why

	for f in /sys/class/infiniband/*/ports/*/roce_entropy; do
		[ ! -e "$f" ] || return 0
	done
	module_is_ours ib_core > /dev/null 2>&1 && return 0
	why="no roce_entropy knob: the loaded ib_core is the kernel's own"
	SKIP_REASONS+=("$why${entropy_stack:+ (stack $entropy_stack)}")
	return 1
}

# _have_pair ROLE: this guest is ROLE (near or far) of two (vm/pair.sh).
_have_pair() {
	[ "${entropy_pair:-}" = "$1" ] && return 0
	SKIP_REASONS+=("not the $1 guest of two (vm/pair.sh)")
	return 1
}

# _have_dist_kernel: the distribution's kernel is booted (vm/run.sh
# VM_KERNEL=), with its Debian root's modules and modprobe.d.
_have_dist_kernel() {
	[ "${entropy_dist:-0}" = 1 ] && return 0
	SKIP_REASONS+=("not the distribution's kernel (vm/run.sh VM_KERNEL=)")
	return 1
}

# _online_cpus: how many CPUs the kernel runs on (a list such as 0-1,3),
# in bash: no exec.
_online_cpus() {
	local online r n=0
	local ranges=()

	read -r online < /sys/devices/system/cpu/online || { echo 0; return; }
	IFS=, read -r -a ranges <<< "$online"
	for r in "${ranges[@]}"; do
		if [[ $r == *-* ]]; then
			n=$((n + ${r#*-} - ${r%-*} + 1))
		else
			n=$((n + 1))
		fi
	done
	echo $n
}

# _skip_test REASON: end the test as skipped (kselftest's KSFT_SKIP).
_skip_test() {
	echo "SKIP: $*"
	exit 4
}

# _test_requires: the test's declarations, judged; skips the test when
# the guest cannot run it.
_test_requires() {
	local n reasons

	n=$(_online_cpus)
	[ "$n" -ge "${CPUS:-1}" ] ||
		_skip_test "the guest has $n CPU(s) online, the test needs $CPUS" \
			"(VM_CPUS=$CPUS)"
	declare -F requires > /dev/null || return 0
	SKIP_REASONS=()
	# every helper's reason, as blktests: a helper that fails need not end
	# requires()
	requires && [ ${#SKIP_REASONS[@]} = 0 ] && return 0
	[ ${#SKIP_REASONS[@]} != 0 ] || SKIP_REASONS=("its requires() failed without a reason")
	reasons=$(printf '%s; ' "${SKIP_REASONS[@]}")
	_skip_test "${reasons%; }"
}

[ -z "${STACKS:-}" ] || _test_requires
