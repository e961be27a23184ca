#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the RDMA stack out of tree: the kernel's drivers/infiniband and
# include/rdma, our files, our series; make M= against a built kernel.
#
# Without KDIR: against the test kernel, into build/ ($MODBUILD), or
# build/debug with ENTROPY_DEBUG=1 (the debug kernel).
# KDIR=/lib/modules/<release>/build: against that installed kernel (its
# headers package), with the sources of Debian's linux-source-6.12 (or
# KSRC), with compat/ after the series (its kABI kept, compat/README.md),
# into build/kdir/<release>/modules; what dkms.conf runs.  The
# staged source and the build tree go to KDIR_WORK (default
# build/kdir/<release>): DKMS's build directory is new for each version,
# and a tree at one path across versions rebuilds only what changed.
#
# The top-level Kconfig's options (the KUnit suites, re-path) are read by
# the kernel's own kconfig into .config of the build directory
# (read_kconfig): build/.config (build/.config-compat with COMPAT=1),
# KDIR_WORK/.config.
. "$(dirname "$0")/common.sh"

# kdir_modules: the modules against an installed 6.12 kernel.  Its headers
# have no drivers/infiniband: the sources come from KSRC, and only the
# directories of the modules we replace are built: core, and rxe and mlx5
# where the kernel's configuration has them (dkms.conf lists the same).
kdir_modules() {
	local rel ver out tree d work mods="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm"
	local dirs="core" extra='' kunit=''

	[ -f "$KDIR/Makefile" ] && [ -f "$KDIR/Module.symvers" ] ||
		die "KDIR=$KDIR is not a kernel build tree: install the headers of that kernel (apt install linux-headers-<release>)"
	[ -f "$KDIR/include/config/kernel.release" ] ||
		die "KDIR=$KDIR has no include/config/kernel.release: not a configured kernel build tree"
	rel=$(cat "$KDIR/include/config/kernel.release")
	ver=${rel%%[+-]*}
	case $ver in
	6.12|6.12.*) ;;
	*) die "KDIR=$KDIR is Linux $rel; this series is for 6.12 (choose a 6.12 kernel's headers)" ;;
	esac
	grep -q '^CONFIG_INFINIBAND=m' "$KDIR/.config" ||
		die "Linux $rel does not build InfiniBand as modules (CONFIG_INFINIBAND=m): nothing to replace"
	if grep -q '^CONFIG_RDMA_RXE=m' "$KDIR/.config"; then
		mods="$mods rdma_rxe"
		dirs="$dirs sw/rxe"
	fi
	if grep -q '^CONFIG_MLX5_INFINIBAND=m' "$KDIR/.config"; then
		mods="$mods mlx5_ib"
		dirs="$dirs hw/mlx5"
	fi
	read_kconfig "$KDIR/scripts/kconfig/conf" "${KDIR_WORK:-$BUILD/kdir/$rel}/.config" y \
		"$KDIR/.config"
	if [ "$CFG_KUNIT" = y ]; then
		mods="$mods roce_entropy_test"
		kunit=CONFIG_INFINIBAND_ROCE_ENTROPY_KUNIT_TEST=m
	fi
	ksrc_init rdma
	# Only the kernel's own source: RDMA core of another stable release
	# would lose that release's fixes and change CRCs that no check here
	# covers (inline helpers, mlx5_ifc.h layouts).
	[ "$ver" = "$KVER" ] ||
		die "the kernel is $ver ($rel) and the source $KVER ($KSRC): refusing to build RDMA core from another release; install linux-source-6.12 of version $ver (apt install linux-source-6.12=<its $ver version>) or set KSRC= to a $ver tree"
	out=$BUILD/kdir/$rel
	work=${KDIR_WORK:-$out}
	tree=$work/tree
	stage_src "$work/src" compat
	sync_tree "$work/src" "$tree"
	# Trace headers include themselves through "../../drivers/..." from the
	# kernel's include/trace, which the headers package has without
	# drivers/: resolve that path in the staged tree.
	mkdir -p "$tree/include/trace"
	say "building $mods against Linux $rel ($KDIR)"
	for d in $dirs; do
		make -s -C "$KDIR" M="$tree/drivers/infiniband/$d" -j"$JOBS" \
			NOSTDINC_FLAGS="-nostdinc -I$tree/include -I$tree/include/trace" \
			${extra:+KBUILD_EXTRA_SYMBOLS=$extra} $kunit ${W:+W=$W} ${C:+C=$C} modules ||
			die "building drivers/infiniband/$d against Linux $rel failed (above)"
		# rxe and mlx5 import what core exports
		extra=$tree/drivers/infiniband/core/Module.symvers
	done
	collect_modules "$tree" "$out/modules" $mods
	say "modules for Linux $rel in $out/modules:" $mods
}

if [ -n "${KDIR:-}" ]; then
	kdir_modules
	exit
fi

ksrc_init
[ -f "$KBUILD/.built-ok" ] || die "no test kernel in $KBUILD: run 'make kernel' first"

# COMPAT=1: with compat/ after the series, the DKMS build's source, into
# build/modules-compat (make check's compat run loads those).
sfx=
[ "${COMPAT:-0}" = 0 ] || sfx=-compat
compat=n
[ -z "$sfx" ] || compat=y
read_kconfig "$KBUILD/scripts/kconfig/conf" "$MODBUILD/.config$sfx" $compat "$KBUILD/.config"
# shellcheck disable=SC2086 # MODULES is a list of words
mods=$(echo $MODULES)
kunit=CONFIG_INFINIBAND_ROCE_ENTROPY_KUNIT_TEST=m
if [ "$CFG_KUNIT" != y ]; then
	mods=${mods% roce_entropy_test}
	kunit=
fi
how=${sfx:+compat}
[ "$CFG_REPATH" = y ] || how=no-repath
stage_src "$MODBUILD/src$sfx" $how
sync_tree "$MODBUILD/src$sfx" "$MODBUILD/tree$sfx"

say "building modules in $MODBUILD/tree$sfx/drivers/infiniband"
start=$SECONDS
# and the other RoCE v2 drivers that load without their hardware, which
# the test kernel leaves out (common.sh, LOADABLE_CONFIG)
make -s -C "$KBUILD" M="$MODBUILD/tree$sfx/drivers/infiniband" -j"$JOBS" \
	NOSTDINC_FLAGS="-nostdinc -I$MODBUILD/tree$sfx/include" \
	$kunit $LOADABLE_CONFIG ${W:+W=$W} ${C:+C=$C} \
	modules
mods="$mods $LOADABLE_MODULES"

# shellcheck disable=SC2086 # a list of words
collect_modules "$MODBUILD/tree$sfx" "$MODBUILD/modules$sfx" $mods
# The KCSAN kernel's runs first show that KCSAN reports a race here
# (tools/testing/kcsan-race, kcsan-reports.sh).
if [ "${ENTROPY_DEBUG:-0}" = kcsan ]; then
	sync_tree "$REPO/tools/testing/kcsan-race" "$MODBUILD/kcsan-race"
	make -s -C "$KBUILD" M="$MODBUILD/kcsan-race" -j"$JOBS" modules ||
		die "the deliberate data race module (tools/testing/kcsan-race) did not build"
	cp "$MODBUILD/kcsan-race/race_control.ko" "$MODBUILD/modules$sfx/"
fi
# compat keeps the kABI: its runs load the kernel's own ULPs, as a
# distribution's host does
ulps=
if [ -z "$sfx" ]; then
	ulp_modules "$MODBUILD/tree" "$MODBUILD/modules" ||
		die "the ULPs did not build against the series' headers"
	ulps="(and the ULPs in $MODBUILD/modules/modroot)"
fi
say "modules in $MODBUILD/modules$sfx ($((SECONDS - start)) s):" $mods $ulps
[ "$CFG_REPATH" = y ] || say "without re-path (CONFIG_ROCE_ENTROPY_REPATH is off in $MODBUILD/.config)"
