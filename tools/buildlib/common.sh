# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # settings for the scripts that source it
# Shared settings for the build and test scripts; sourced, never run.
#
# KSRC     a Linux 6.12 source tree (default: Debian's linux-source-6.12,
#          extracted into the cache)
# CACHE    where the kernel builds live, outside the repo
#          (default: $XDG_CACHE_HOME/roce-entropy or ~/.cache/roce-entropy)

set -euo pipefail
# A script that set -e ends says where, instead of stopping in silence.
# Scripts that check statuses themselves (set +e) clear it: trap - ERR.
trap 'echo "error: ${BASH_SOURCE[0]##*/}:$LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roce-entropy}
BUILD=$REPO/build
JOBS=$(nproc)
FRAGMENT=$REPO/tools/testing/vm/kernel.config
# ENTROPY_DEBUG=1 (make check-debug): the debug kernel, kernel-debug.config
# merged on top, in a cache directory of its own; the modules built against
# it go to $MODBUILD = build/debug, so that neither build ever overwrites
# the other's kernel or modules.  ENTROPY_DEBUG=kcsan: the same with
# kernel-kcsan.config (KCSAN and KASAN exclude each other), build/kcsan.
FRAGMENTS=("$FRAGMENT")
MODBUILD=$BUILD
case ${ENTROPY_DEBUG:-0} in
0)
	# the kernel's other RDMA consumers: the test kernel's only, so that
	# the debug kernels stay what their runs need
	FRAGMENTS+=("$REPO/tools/testing/vm/kernel-consumers.config")
	;;
1)
	FRAGMENTS+=("$REPO/tools/testing/vm/kernel-debug.config")
	MODBUILD=$BUILD/debug
	;;
kcsan)
	FRAGMENTS+=("$REPO/tools/testing/vm/kernel-kcsan.config")
	MODBUILD=$BUILD/kcsan
	;;
*)
	printf 'error: ENTROPY_DEBUG=%s: 1 (KASAN, lockdep, kmemleak) or kcsan\n' "$ENTROPY_DEBUG" >&2
	exit 1
	;;
esac

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# cmake_init: CMAKE_ARGS, the cmake arguments of every build of the C++
# tooling here: ccache when it is installed.  Its files live in the cache,
# and paths under the repository are hashed relative to it (without the
# build directory, which -g would otherwise add), so a fresh clone's
# compiles are hits.  (No unity build: CMake 3.25's unity sources #include
# each file by its absolute path, which no fresh clone shares.)
cmake_init() {
	CMAKE_ARGS=()
	command -v ccache >/dev/null || return 0
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	export CCACHE_BASEDIR=$REPO CCACHE_NOHASHDIR=true
	CMAKE_ARGS+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
}

# ksrc_init [rdma]: set KSRC and KVER, extracting Debian's source when
# needed.  With "rdma" (builds against an installed kernel, DKMS) the RDMA
# directories and KTAP's helpers are enough: unless the whole tree is there
# already, only those are extracted, into $CACHE/src-rdma-<size>-<mtime>
# of the tarball-<hash of what is extracted>, so that the directories of
# another version, or fewer of them, never stand in for this one's (those
# unused for 30 days go).
# ENTROPY_KSRC_TARBALL: another linux-source-6.12 tarball than /usr/src's (the
# package's kernel hook: the source of the kernel's exact version).
ksrc_init() {
	local tarball=${ENTROPY_KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz} top=linux-source-6.12
	local dir=$CACHE/src what=

	if [ -z "${KSRC:-}" ]; then
		KSRC=$dir/$top
		if [ "${1:-}" = rdma ] &&
			{ [ -n "${ENTROPY_KSRC_TARBALL:-}" ] || [ ! -f "$KSRC/.extracted" ]; }; then
			[ -f "$tarball" ] ||
				die "$tarball is missing: install linux-source-6.12 or set KSRC= to a 6.12 tree"
			what=$(for d in Makefile $TREE_DIRS $KTAP_HELPERS; do echo "$top/$d"; done)
			dir=$CACHE/src-rdma-$(stat -c '%s-%Y' "$tarball")-$(echo "$what" | sha256sum | cut -c1-8)
			KSRC=$dir/$top
			mkdir -p "$dir"
			touch "$dir"
			find "$CACHE" -maxdepth 1 -name 'src-rdma-*' ! -path "$dir" -mtime +30 \
				-exec rm -rf {} + 2> /dev/null || true
		fi
		if [ ! -f "$KSRC/.extracted" ]; then
			[ -f "$tarball" ] ||
				die "$tarball is missing: install linux-source-6.12 ('make deps' does) or set KSRC= to a 6.12 tree"
			say "extracting $tarball into $dir"
			rm -rf "$KSRC"
			mkdir -p "$dir"
			# shellcheck disable=SC2086
			tar -C "$dir" -xf "$tarball" $what
			touch "$KSRC/.extracted"
		fi
	fi
	[ -f "$KSRC/Makefile" ] || die "KSRC=$KSRC is not a kernel tree"
	KVER=$(awk '$2 == "=" && $1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)$/ { v[$1] = $3 }
		END { printf "%s.%s.%s%s\n", v["VERSION"], v["PATCHLEVEL"], v["SUBLEVEL"], v["EXTRAVERSION"] }' \
		"$KSRC/Makefile")
	case $KVER in
	6.12|6.12.*) ;;
	*) die "KSRC=$KSRC is Linux $KVER; this series targets 6.12" ;;
	esac
	[ ! -f "$KSRC/.config" ] ||
		die "$KSRC has an in-tree build (.config); run 'make mrproper' there"
	# what follows is the test kernel's and the series check's
	[ "${1:-}" != rdma ] || return 0
	local key
	# The fragments' contents, concatenated: with kernel.config alone that
	# is its own sha256, the key the cache has always used.
	key=$(cat "${FRAGMENTS[@]}" | sha256sum | cut -c1-12)
	KBUILD=$CACHE/kernel-$KVER-$key
	case ${ENTROPY_DEBUG:-0} in
	1) KBUILD=$CACHE/kernel-$KVER-debug-$key ;;
	kcsan) KBUILD=$CACHE/kernel-$KVER-kcsan-$key ;;
	esac
	MODROOT=$KBUILD/modroot
	# git repository of the pristine $TREE_DIRS, tag "base" (patchset.sh)
	GITBASE=$CACHE/git-tree-$KVER-$(echo "$TREE_DIRS" | sha256sum | cut -c1-8)
}

# Kernel directories and files the series touches; the build copies only
# these.
TREE_DIRS="drivers/infiniband include/rdma include/uapi/rdma include/linux/mlx5 Documentation/infiniband
	MAINTAINERS"
TREE_DIRS=$(echo $TREE_DIRS)
KTAP_HELPERS=tools/testing/selftests/kselftest/ktap_helpers.sh

# The modules the series builds: those it changes and the KUnit module.
MODULES="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib
	roce_entropy_test"

# The other RoCE v2 drivers the series changes, with the options that build
# them.  The test kernel's configuration leaves them out: their net drivers
# need PCI MSI, DCB, Hyper-V's PCI or an ARM64 SoC, hundreds of files more
# in a cold kernel build.  The series check builds them against the test
# kernel all the same (series-check.sh, net_exports).  LOADABLE_*: those
# that need no net driver and load without their hardware (erdma): make
# modules builds them too, and the VM loads them (tests/erdma.sh).
LOADABLE_CONFIG="CONFIG_INFINIBAND_ERDMA=m"
LOADABLE_MODULES="erdma"
OTHER_CONFIG="CONFIG_INFINIBAND_HNS=m CONFIG_INFINIBAND_HNS_HIP08=m
	CONFIG_INFINIBAND_IRDMA=m CONFIG_MANA_INFINIBAND=m $LOADABLE_CONFIG
	CONFIG_INFINIBAND_BNXT_RE=m CONFIG_INFINIBAND_QEDR=m"
OTHER_MODULES="hns-roce-hw-v2 irdma mana_ib $LOADABLE_MODULES bnxt_re qedr"

# The kernel's other RDMA consumers that the VM tests load (ULPs), each
# with the Kconfig symbol and the directory outside drivers/infiniband
# that builds it (ulp/ of drivers/infiniband builds the SCSI ones with the
# series' modules).
ULPS="ib_srp:INFINIBAND_SRP ib_srpt:INFINIBAND_SRPT ib_iser:INFINIBAND_ISER
	ib_isert:INFINIBAND_ISERT rpcrdma:SUNRPC_XPRT_RDMA:net/sunrpc/xprtrdma
	rds_rdma:RDS_RDMA:net/rds smc:SMC:net/smc nvme-rdma:NVME_RDMA:drivers/nvme/host
	nvmet-rdma:NVME_TARGET_RDMA:drivers/nvme/target"

# ulp_modules TREE DEST: a kernel built with the series builds its ULPs
# against the series' headers too, so a run of the series loads them so
# built, never the test kernel's own: TREE is the staged tree whose
# drivers/infiniband has been built; the ULPs that the test kernel's
# configuration has are built against TREE's include/, each directory
# from the kernel's source, the other directories of the kernel as they
# are.  DEST/modroot: the test kernel's module tree with DEST's modules and
# these ULPs in updates/, where modprobe prefers them (as it does DKMS's),
# for the VM's modprobe -d.  Fails, with the reason, when one does not build.
ulp_modules() {
	local tree=$1 dest=$2 u m sym dir ko rel updates

	rel=$(cat "$KBUILD/include/config/kernel.release")
	updates=$dest/modroot/lib/modules/$rel/updates
	rm -rf "$dest/modroot"
	mkdir -p "$dest/modroot/lib/modules"
	cp -a "$MODROOT/lib/modules/$rel" "$dest/modroot/lib/modules/"
	rm -f "$dest/modroot/lib/modules/$rel/build" "$dest/modroot/lib/modules/$rel/source"
	mkdir "$updates"
	cp "$dest"/*.ko "$updates/"
	for u in $ULPS; do
		IFS=: read -r m sym dir <<< "$u"
		grep -q "^CONFIG_$sym=m" "$KBUILD/.config" || continue
		if [ -n "$dir" ]; then
			sync_tree "$KBUILD/source/$dir" "$tree/$dir"
			make -s -C "$KBUILD" M="$tree/$dir" -j"$JOBS" \
				NOSTDINC_FLAGS="-nostdinc -I$tree/include" \
				KBUILD_EXTRA_SYMBOLS="$tree/drivers/infiniband/Module.symvers" \
				"$m.ko" || {
				echo "error: $m ($dir) did not build against the series' headers (above)" >&2
				return 1
			}
		fi
		ko=$(find "$tree/${dir:-drivers/infiniband/ulp}" -name "$m.ko" | head -n 1)
		[ -n "$ko" ] || { echo "error: $m.ko was not built" >&2; return 1; }
		cp "$ko" "$updates/"
	done
	depmod -b "$dest/modroot" "$rel"
}

# dist_release: the release of Debian's 6.12 kernel of the same version as
# the installed linux-source-6.12 (6.12.117-1~deb12u1: 6.12.117+deb12-amd64),
# the distribution kernel make check installs and tests against.
dist_release() {
	local v

	v=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || return 1
	echo "${v%%-*}+deb12-$(dpkg --print-architecture)"
}

# What DKMS needs of the tree (make deb): the build, the
# series and its new files.
DKMS_FILES="Makefile Kconfig dkms.conf LICENSE patches compat drivers include Documentation debian/changelog
	tools/buildlib/common.sh tools/buildlib/modules.sh tools/buildlib/version.sh
	tools/buildlib/kabi-check.sh tools/buildlib/ko-crcs.py"

# collect_modules TREE DEST [MODULE...]: DEST = the MODULEs (default
# $MODULES) built in TREE, nothing else.
collect_modules() {
	local m ko tree=$1 dest=$2

	shift 2
	rm -rf "$dest"
	mkdir -p "$dest"
	# shellcheck disable=SC2048 # MODULES is a list of words
	for m in ${*:-$MODULES}; do
		ko=$(find "$tree/drivers/infiniband" -name "$m.ko" | head -n 1)
		[ -n "$ko" ] || die "$m.ko was not built"
		cp "$ko" "$dest/"
	done
}

# posting_patches DIR: the patches of a directory `make patchset` wrote
# (build/patchset, or its RFC series in rfc/), in order, without the cover
# letter.
posting_patches() {
	find "$1" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' 2>/dev/null | sort
}

# apply_series DIR SERIES [WHAT]: the patches SERIES lists, from its
# directory, applied to DIR in order, with no fuzz; prints how many.  WHAT
# names DIR's source in the error (default: the kernel's).
apply_series() {
	local p n=0 src=$1 series=$2
	local dir=${series%/*} log=${1%/*}/patch.log
	local what=${3:-"Linux $KVER ($KSRC)"}

	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$dir/$p" ] || die "${series#"$REPO"/} names $p, which is missing"
		if ! patch -p1 -N -s -F0 --no-backup-if-mismatch -d "$src" \
			< "$dir/$p" > "$log" 2>&1; then
			cat "$log" >&2
			die "${dir#"$REPO"/}/$p does not apply to $what with the patches before it: refresh it"
		fi
		n=$((n + 1))
	done < "$series"
	echo "$n"
}

# stage_src [DIR [compat|no-repath]]: DIR (default $BUILD/src) = the
# kernel's copies of $TREE_DIRS, the new files of patches/new-files as the
# patches that add them do, then patches/series and the RFC series on top
# of it, patches/rfc/series, applied in order (a patch's changes to a file
# an earlier one added are among its sections); with "compat", compat/series
# after them (the build for a distribution's kernel, whose kABI it keeps:
# compat/README.md); with "no-repath", the main series alone (Kconfig's
# ROCE_ENTROPY_REPATH off).  Never built in.
stage_src() {
	local d p f n src=${1:-$BUILD/src} compat=${2:-}

	rm -rf "$src"
	for d in $TREE_DIRS; do
		mkdir -p "$src/$(dirname "$d")"
		cp -a "$KSRC/$d" "$src/$d"
	done
	while read -r p f; do
		case $p in ''|'#'*) continue ;; esac
		mkdir -p "$src/$(dirname "$f")"
		cp "$REPO/$f" "$src/$f"
	done < "$REPO/patches/new-files"
	n="$(apply_series "$src" "$REPO/patches/series") patch(es)"
	[ "$compat" = no-repath ] ||
		n="$n and $(apply_series "$src" "$REPO/patches/rfc/series") of rfc/"
	# IBK_ROCE_ENTROPY (patch 0001) takes the next free bit of the kernel
	# capability flags; one that a stable update gave the same bit is
	# refused before anything is built with it.
	if [ "$(sed -n '/^enum ib_kernel_cap_flags {/,/^};/p' "$src/include/rdma/ib_verbs.h" |
		sed -n 's/.*=[[:space:]]*1[[:space:]]*<<[[:space:]]*\([0-9]*\).*/\1/p' |
		sort | uniq -d)" ]; then
		die "Linux $KVER ($KSRC) has a kernel capability flag at the bit patches/0001 gives IBK_ROCE_ENTROPY: move IBK_ROCE_ENTROPY to a free bit there"
	fi
	if [ "$compat" = compat ]; then
		n="$n and $(apply_series "$src" "$REPO/compat/series") of compat/"
	fi
	say "staged $TREE_DIRS from Linux $KVER with $n applied"
}

# read_kconfig CONF CONFIG COMPAT KERNEL_CONFIG: the top-level Kconfig's
# choices in the file CONFIG, brought up to date by CONF (the conf program
# of the kernel built against: its own kconfig reads our Kconfig), for a
# build with compat/ (COMPAT y) or without (n), against the kernel whose
# .config is KERNEL_CONFIG.  Sets CFG_REPATH and CFG_KUNIT (y or n).
read_kconfig() {
	local conf=$1 cfg=$2 compat=$3 kunit=n scratch

	[ -x "$conf" ] ||
		die "no kconfig program $conf: the kernel's build tree (or its headers' linux-kbuild) lacks scripts/kconfig/conf"
	grep -qs '^CONFIG_KUNIT=[ym]' "$4" && kunit=y
	# conf writes include/config/ beside where it runs: a directory of
	# its own, next to the .config
	scratch=$(dirname "$cfg")/kconfig
	mkdir -p "$scratch"
	(cd "$scratch" && ENTROPY_COMPAT=$compat ENTROPY_KERNEL_KUNIT=$kunit KCONFIG_CONFIG=$cfg \
		"$conf" -s --olddefconfig "$REPO/Kconfig") ||
		die "$cfg: the kernel's kconfig refused it (above): fix or remove it"
	CFG_REPATH=$(sed -n 's/^CONFIG_ROCE_ENTROPY_REPATH=//p' "$cfg")
	CFG_KUNIT=$(sed -n 's/^CONFIG_ROCE_ENTROPY_KUNIT_TEST=//p' "$cfg")
	[ -n "$CFG_REPATH" ] || CFG_REPATH=n
	[ -n "$CFG_KUNIT" ] || CFG_KUNIT=n
}

# sync_tree SRC DST [rsync options]: copy changed files only, so that make
# rebuilds only what changed.  A file (MAINTAINERS) is copied if it
# changed; the options are for directories.
sync_tree() {
	if [ ! -d "$1" ]; then
		rsync -lc "$1" "$2"
		return
	fi
	mkdir -p "$2"
	rsync -rlc "${@:3}" "$1/" "$2/"
}
