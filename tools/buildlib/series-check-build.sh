# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2154 # series: series-check.sh's
# The series check's W=1 build and sparse of one step (build_checks) and
# what it is made of: the build of drivers/infiniband with the other RoCE
# v2 drivers (OTHER_CONFIG) and their net drivers' exports (net_exports),
# the series' objects it recompiled, their warnings compared with pristine
# 6.12's, the timestamps kept between builds.  Sourced by series-check.sh,
# never run; it takes from it WT (the worktree), SC (its cache), KUNIT_OPT
# and series (the files the series and compat/ touch), and from common.sh
# KSRC, KBUILD, JOBS, OTHER_CONFIG, MODULES, OTHER_MODULES and die;
# build_checks sets bad and checked for it.

# net_exports FILE: a Module.symvers of what the net drivers of the other
# RoCE v2 drivers export (ice, i40e, bnxt_en, qed, qede, mana, hnae3), and
# DCB's netlink (bnxt_re asks for the application priorities), read from
# their EXPORT_SYMBOL lines: the test kernel builds none of them, and
# modpost reports only the first ten symbols it cannot find, so without
# these a symbol missing from ib_core could hide behind theirs.  CRC 0: the
# test kernel has no MODVERSIONS.
net_exports() {
	local d e=drivers/net/ethernet
	local dirs="$e/intel/ice $e/intel/i40e $e/broadcom/bnxt $e/qlogic/qed
		$e/qlogic/qede $e/microsoft/mana $e/hisilicon/hns3 net/dcb"

	for d in $dirs; do
		grep -rhoE 'EXPORT_SYMBOL(_GPL|_NS|_NS_GPL)?\([A-Za-z0-9_]+(, *[A-Za-z0-9_]+)?\)' \
			"$KSRC/$d" |
			sed -E -e "s#^(EXPORT_SYMBOL[A-Z_]*)\(([A-Za-z0-9_]+)(, *([A-Za-z0-9_]+))?\)#0x00000000\t\2\t$d\t\1\t\4#" \
				-e 's#\tEXPORT_SYMBOL_NS(_GPL)?\t#\tEXPORT_SYMBOL\1\t#'
	done > "$1"
	[ -s "$1" ] || die "no exports found in $KSRC/$e"
}

# build LOG C [TARGET...]: W=1 build of drivers/infiniband's modules, or of
# TARGETs (objects, relative to it), sparse as Kbuild's C= says (2: on
# every TARGET); the KUnit option once the tree has it.
build() {
	local kunit='' log=$1 c=$2

	shift 2
	grep -qx "config $KUNIT_OPT" "$WT/drivers/infiniband/Kconfig" &&
		kunit=CONFIG_$KUNIT_OPT=m
	# shellcheck disable=SC2086 # OTHER_CONFIG is a list of words
	make -C "$KBUILD" M="$WT/drivers/infiniband" -j"$JOBS" \
		NOSTDINC_FLAGS="-nostdinc -I$WT/include" $kunit $OTHER_CONFIG \
		KBUILD_EXTRA_SYMBOLS="$SC/net-exports.symvers" \
		W=1 C="$c" KBUILD_MODPOST_WARN=1 "${@:-modules}" >> "$log" 2>&1
}

# series_objs: the objects of the series' C files that the tree has now
# (at base: those pristine 6.12 has), as targets of build.
series_objs() {
	local f

	for f in $series; do
		case $f in drivers/infiniband/*.c) ;; *) continue ;; esac
		[ -f "$WT/$f" ] || continue
		f=${f#drivers/infiniband/}
		echo "${f%.c}.o"
	done
}

# rebuilt_objs LOG: those of series_objs that the build logged in LOG
# compiled.
rebuilt_objs() {
	local o

	for o in $(series_objs); do
		! grep -qxF "  CC [M]  $WT/drivers/infiniband/$o" "$1" || echo "$o"
	done
}

# warnings LOG: "file: warning: message" for every file, without line
# numbers; a header's warning once (every file that includes it repeats it).
warnings() {
	sed -E -n "s#^($WT/)?([^ :]+):[0-9]+:([0-9]+:)? ?((warning|error): .*)#\\2: \\4#p" "$1" |
		awk -F': ' '$1 !~ /\.h$/ || !seen[$0]++' | sort
}

# series_only: the lines of stdin about a file of the series.
series_only() {
	# shellcheck disable=SC2086
	awk -F': ' 'NR == FNR { s[$0] = 1; next } ($1 in s)' <(printf '%s\n' $series) -
}

# record_state / restore_state: the content and timestamp of the series'
# headers and build files at the last build; one whose content is the same
# again gets that timestamp back, so that nothing is rebuilt for it.
record_state() {
	local f

	for f in $series; do
		[ -f "$WT/$f" ] || continue
		echo "$f $(git -C "$WT" hash-object -- "$f") $(stat -c %Y "$WT/$f")"
	done > "$SC/state"
}
restore_state() {
	local f sha mt

	[ -f "$SC/state" ] || return 0
	while read -r f sha mt; do
		case $f in *.c) continue ;; esac
		[ -f "$WT/$f" ] || continue
		[ "$(git -C "$WT" hash-object -- "$f")" = "$sha" ] || continue
		touch -m -d "@$mt" "$WT/$f"
	done < "$SC/state"
}

# build_checks LOG: the W=1 build of the tree as it is now and sparse on
# the series' files it recompiles, logged to LOG; $bad says what failed,
# empty when nothing did.
build_checks() {
	local m o f new undef log=$1

	bad=
	checked=
	if build "$log" 0; then
		checked=$(rebuilt_objs "$log")
		# shellcheck disable=SC2086
		[ -z "$checked" ] || build "$log" 2 $checked || bad=" the build failed (log $log);"
	else
		bad=" the build failed (log $log);"
	fi
	if [ -n "$bad" ]; then
		grep -m 20 -E 'error|Error|No rule|No such file' "$log" | sed 's/^/# /' || true
	else
		record_state
		for m in $MODULES $OTHER_MODULES; do
			[ "$m" != roce_entropy_test ] ||
				grep -qx "config $KUNIT_OPT" "$WT/drivers/infiniband/Kconfig" || continue
			[ -n "$(find "$WT/drivers/infiniband" -name "$m.ko")" ] ||
				bad="$bad $m.ko was not built;"
		done
		for o in $checked; do
			f=drivers/infiniband/${o%.o}.c
			grep -qE "^  CHECK +($WT/)?$f\$" "$log" || bad="$bad sparse did not check $f;"
		done
		new=$(comm -23 <(warnings "$log" | series_only) <(series_only < "$SC/base.warnings"))
		[ -z "$new" ] || { echo "$new" | sed 's/^/# /'; bad="$bad new warnings (above);"; }
		undef=$(grep -E '^(WARNING|ERROR): modpost: .* undefined!$' "$log" || true)
		[ -z "$undef" ] || { echo "$undef" | sed 's/^/# /'; bad="$bad undefined symbols (above);"; }
	fi
	[ -z "$bad" ]
}
