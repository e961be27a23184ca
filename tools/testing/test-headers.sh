#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tests' headers (tools/testing/README.md, "Writing a test") and the
# table of VM runs that names them, checked on the host; and what a test
# declares, for scripts.
#
#   tools/testing/test-headers.sh [check [DIR [RUNS]]]
#        KTAP: each test of DIR (default tools/testing/tests) has its
#        header: the shebang, the SPDX line, a comment of what it checks,
#        STACKS of known stacks, CPUS, each parameter's default declared
#        once (: "${ENTROPY_X:=default}") and named in its comments, all before
#        it sources lib.sh; and each row of RUNS (default
#        tools/testing/runs) names tests that declare the row's stack
#        (kernel-reports and kcsan-reports too, which make check appends to
#        the debug and kcsan rows), sets only ENTROPY_* names that one of its
#        tests declares or that are GLOBALS below, and no VM_CPUS.  Exits 1
#        when one is not ok.
#   tools/testing/test-headers.sh stacks|cpus|params TEST
#        TEST's STACKS (a line), its CPUS (a number), or its parameters
#        (NAME=default, one a line); TEST is a name (wire) or a file.
#
# Only the header is read (the lines before lib.sh is sourced), as text:
# nothing of a test runs here.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
STACKS_KNOWN=$("$HERE/row.sh" stacks)
MODES_KNOWN="check debug kcsan quick"
# The ENTROPY_* settings a row may give that are no test's parameter, read
# for the whole boot: ENTROPY_DEBUG (vm/run.sh: the debug kernels),
# ENTROPY_DIST_OPTIN (vm/init.sh: 0 hides the dist root's opt-in line),
# ENTROPY_FAR and ENTROPY_FAR_POLICY (lib.sh: what far runs, for every test on two
# guests), ENTROPY_WAIT_SCALE (lib.sh: wait_for's time, multiplied).
GLOBALS="ENTROPY_DEBUG ENTROPY_DIST_OPTIN ENTROPY_FAR ENTROPY_FAR_POLICY ENTROPY_WAIT_SCALE"
LIB_LINE='. "$entropy_repo/tools/testing/lib.sh"'

die() {
	echo "test-headers.sh: $*" >&2
	exit 2
}

# read_header FILE: FILE's header into H_STACKS, H_CPUS, H_PARAMS (NAME ->
# default) and H_ERRORS (what is wrong with it, one a line).
read_header() {
	local f=$1 n=0 line lib=0 name re_param re_stacks re_cpus
	local -a lines=()

	H_STACKS='' H_CPUS='' H_ERRORS=''
	H_PARAMS=()
	H_ORDER=()
	re_stacks='^STACKS="([^"]*)"([[:space:]]|$)'
	re_cpus='^CPUS=([^[:space:]]*)([[:space:]]|$)'
	re_param='^: "\$\{(ENTROPY_[A-Z0-9_]+):=([^}]*)\}"([[:space:]]|$)'
	[ -r "$f" ] || { H_ERRORS="no file $f"; return 1; }
	mapfile -t lines < "$f"
	[ "${lines[0]:-}" = '#!/bin/bash' ] || H_ERRORS+="line 1 is not #!/bin/bash"$'\n'
	[ "${lines[1]:-}" = '# SPDX-License-Identifier: GPL-2.0' ] ||
		H_ERRORS+="line 2 is not the SPDX line, GPL-2.0"$'\n'
	[ "${lines[2]:-}" = '#' ] && [[ ${lines[3]:-} =~ ^#\ [^[:space:]] ]] ||
		H_ERRORS+="no comment of what it checks (lines 3 and 4: \"#\", then \"# <what it checks>\")"$'\n'
	for line in "${lines[@]}"; do
		n=$((n + 1))
		if [ "$line" = "$LIB_LINE" ]; then
			lib=$n
			break
		fi
		if [[ $line =~ $re_stacks ]]; then
			[ -z "$H_STACKS" ] || H_ERRORS+="STACKS set twice"$'\n'
			H_STACKS=${BASH_REMATCH[1]}
		elif [[ $line =~ $re_cpus ]]; then
			[ -z "$H_CPUS" ] || H_ERRORS+="CPUS set twice"$'\n'
			H_CPUS=${BASH_REMATCH[1]}
		elif [[ $line =~ $re_param ]]; then
			name=${BASH_REMATCH[1]}
			[ -z "${H_PARAMS[$name]+set}" ] || H_ERRORS+="$name's default declared twice"$'\n'
			H_PARAMS[$name]=${BASH_REMATCH[2]}
			H_ORDER+=("$name")
		fi
	done
	if [ $lib = 0 ]; then
		H_ERRORS+="no line $LIB_LINE"$'\n'
	fi
	if [ -z "$H_STACKS" ]; then
		H_ERRORS+="no STACKS=\"...\" before lib.sh"$'\n'
	else
		for name in $H_STACKS; do
			[[ " $STACKS_KNOWN " == *" $name "* ]] ||
				H_ERRORS+="STACKS: '$name' is no stack of tools/testing/runs ($STACKS_KNOWN)"$'\n'
		done
	fi
	if [ -z "$H_CPUS" ]; then
		H_ERRORS+="no CPUS=N before lib.sh"$'\n'
	elif ! [[ $H_CPUS =~ ^[1-9][0-9]*$ ]]; then
		H_ERRORS+="CPUS=$H_CPUS is not a number of CPUs"$'\n'
	fi
	for name in "${H_ORDER[@]}"; do
		[[ " $GLOBALS " != *" $name "* ]] ||
			H_ERRORS+="$name is a global (vm/init.sh, vm/run.sh, lib.sh), not a test's parameter"$'\n'
		printf '%s\n' "${lines[@]:0:lib}" | grep -q "^#.*\\b$name\\b" ||
			H_ERRORS+="$name: not named in the header's comments (Parameters:)"$'\n'
		printf '%s\n' "${lines[@]:lib}" | grep -qE "\\\$\\{$name:?[-=]" &&
			H_ERRORS+="$name: a default again after the header (\${$name:-...}): give it once, in the header"$'\n'
	done
	[ -z "$H_ERRORS" ]
}

# test_file TEST: the file of a test's name, or TEST itself.
test_file() {
	case $1 in
	*/* | *.sh) echo "$1" ;;
	*) echo "$TESTS/$1.sh" ;;
	esac
}

# declares_stack TEST STACK: TEST's STACKS has STACK (errors in ROW_ERRORS).
declares_stack() {
	local f

	f=$(test_file "$1")
	if ! read_header "$f" > /dev/null && [ -z "$H_STACKS" ]; then
		ROW_ERRORS+="$1: no header with STACKS ($f)"$'\n'
		return 1
	fi
	[[ " $H_STACKS " == *" $2 "* ]] && return 0
	ROW_ERRORS+="$1 does not declare stack $2 (STACKS=\"$H_STACKS\")"$'\n'
	return 1
}

# check_row NAME STACK IN TIMEOUT WORD...: errors in ROW_ERRORS.
check_row() {
	local name=$1 stack=$2 in=$3 timeout=$4 w mode params=" " p v
	local -a tests=() settings=()

	shift 4
	ROW_ERRORS=
	[[ " $STACKS_KNOWN " == *" $stack "* ]] ||
		ROW_ERRORS+="stack '$stack' is not one of $STACKS_KNOWN"$'\n'
	[[ $timeout =~ ^[0-9]+$ ]] || ROW_ERRORS+="timeout '$timeout' is not a number of seconds"$'\n'
	for w in "$@"; do
		case $w in
		VM_CPUS=*) ROW_ERRORS+="$w: a row's CPUs are the most its tests' CPUS ask for"$'\n' ;;
		VM_APPEND=*) ;;
		FAR=*)
			for v in ${w#FAR=}; do
				[[ $v =~ ^[A-Z_][A-Z0-9_]*=. ]] || ROW_ERRORS+="$w: far's settings are VAR=value words"$'\n'
			done
			;;
		ENTROPY_*=*) settings+=("${w%%=*}") ;;
		*=*) ROW_ERRORS+="$w: a row sets ENTROPY_*, VM_APPEND or FAR"$'\n' ;;
		*) tests+=("$w") ;;
		esac
	done
	[ ${#tests[@]} != 0 ] || ROW_ERRORS+="no test"$'\n'
	for w in "${tests[@]}"; do
		declares_stack "$w" "$stack" || continue
		for p in "${H_ORDER[@]}"; do
			params+="$p "
		done
	done
	IFS=, read -r -a in <<< "$in"
	for mode in "${in[@]}"; do
		case $mode in
		check | quick) ;;
		debug) declares_stack kernel-reports "$stack" ;;
		kcsan) declares_stack kcsan-reports "$stack" ;;
		*) ROW_ERRORS+="mode '$mode' is not one of $MODES_KNOWN"$'\n' ;;
		esac
	done
	for v in "${settings[@]}"; do
		[[ "$params" == *" $v "* ]] || [[ " $GLOBALS " == *" $v "* ]] ||
			ROW_ERRORS+="$v: a parameter of none of the row's tests (${tests[*]}), nor a global ($GLOBALS)"$'\n'
	done
	[ -z "$ROW_ERRORS" ]
}

# result OK DESCRIPTION ERRORS: a KTAP result, the errors as diagnostics.
N=0 FAILED=0
result() {
	N=$((N + 1))
	[ -z "$3" ] || printf '%s' "$3" | sed 's/^/# /'
	if [ "$1" = 0 ]; then
		echo "ok $N $2"
	else
		echo "not ok $N $2"
		FAILED=$((FAILED + 1))
	fi
}

check_all() {
	local f rows=() line name stack in timeout rest rc

	[ -d "$TESTS" ] || die "no directory $TESTS"
	[ -r "$RUNS" ] || die "no file $RUNS"
	while read -r name stack in timeout rest; do
		case $name in '' | '#'*) continue ;; esac
		rows+=("$name $stack $in $timeout $rest")
	done < "$RUNS"
	local files=("$TESTS"/*.sh)
	echo "KTAP version 1"
	echo "1..$((${#files[@]} + ${#rows[@]}))"
	for f in "${files[@]}"; do
		rc=0
		read_header "$f" || rc=1
		result $rc "header: ${f#"$PWD"/}" "$H_ERRORS"
	done
	for line in "${rows[@]}"; do
		rc=0
		# shellcheck disable=SC2086 # the row's words
		check_row $line || rc=1
		result $rc "row: ${line%% *}" "$ROW_ERRORS"
	done
	echo "# Totals: pass:$((N - FAILED)) fail:$FAILED xfail:0 xpass:0 skip:0 error:0"
	[ $FAILED = 0 ]
}

# declared WHAT TEST: one of TEST's declarations; fails, saying why, when
# TEST does not declare it.
declared() {
	local f p

	f=$(test_file "$2")
	[ -r "$f" ] || die "no test $f"
	read_header "$f" > /dev/null
	case $1 in
	stacks)
		[ -n "$H_STACKS" ] || die "$f: no STACKS=\"...\" in its header"
		echo "$H_STACKS"
		;;
	cpus)
		[[ $H_CPUS =~ ^[1-9][0-9]*$ ]] || die "$f: no CPUS=N in its header"
		echo "$H_CPUS"
		;;
	params)
		for p in "${H_ORDER[@]}"; do
			echo "$p=${H_PARAMS[$p]}"
		done
		;;
	esac
}

declare -A H_PARAMS
TESTS=$HERE/tests
RUNS=$HERE/runs
case ${1:-check} in
check)
	[ $# -le 3 ] || die "usage: test-headers.sh [check [DIR [RUNS]]]"
	TESTS=${2:-$TESTS} RUNS=${3:-$RUNS}
	check_all
	;;
stacks | cpus | params)
	[ $# = 2 ] || die "usage: test-headers.sh $1 TEST"
	declared "$1" "$2"
	;;
*)
	die "usage: test-headers.sh [check [DIR [RUNS]]] | stacks TEST | cpus TEST | params TEST"
	;;
esac
