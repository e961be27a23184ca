#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build iproute2's rdma with the patches of tools/iproute2/series, into
# build/iproute2/rdma, for the VM tests: the distribution's iproute2
# source (Debian 12's 6.1.0, from its archive with apt-get source; no
# system file changes), the uAPI header of Linux 6.12 with both series
# (iproute2 carries its own copy of <rdma/rdma_netlink.h>, which its
# maintainers sync from the kernel), then the patches, in order and with
# no fuzz.  Warnings are errors.
#
# ENTROPY_DEBSRC  the deb-src line (default: Debian 12's archive)
. "$(dirname "$0")/common.sh"

PKG=iproute2
DEBSRC=${ENTROPY_DEBSRC:-deb-src http://deb.debian.org/debian bookworm main}
SRC=$CACHE/iproute2-src
OUT=$BUILD/iproute2
SERIES=$REPO/tools/iproute2/series

# fetch: the source package, once, with a sources list and package lists
# of its own under the cache (apt-get source checks the archive's
# signatures as for any package).
fetch() {
	local lists=$SRC/lists apt

	mkdir -p "$lists/partial"
	echo "$DEBSRC" > "$SRC/sources.list"
	apt=(-o "Dir::Etc::SourceList=$SRC/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$lists" -o APT::Sandbox::User=root)
	say "iproute2: fetching Debian's $PKG source ($DEBSRC)"
	apt-get "${apt[@]}" update -qq > "$SRC/apt.log" 2>&1 ||
		{ cat "$SRC/apt.log"; die "apt-get update of $DEBSRC failed: check the network or set ENTROPY_DEBSRC"; }
	(cd "$SRC" && apt-get "${apt[@]}" source --download-only "$PKG") >> "$SRC/apt.log" 2>&1 ||
		{ tail -n 20 "$SRC/apt.log"; die "apt-get source $PKG failed (log $SRC/apt.log)"; }
}

mkdir -p "$SRC"
orig=$(ls "$SRC"/${PKG}_*.orig.tar.* 2> /dev/null | tail -n 1 || true)
if [ -z "$orig" ]; then
	fetch
	orig=$(ls "$SRC"/${PKG}_*.orig.tar.* 2> /dev/null | tail -n 1 || true)
	[ -n "$orig" ] || die "no $PKG orig tarball in $SRC (log $SRC/apt.log)"
fi

ksrc_init rdma
stage_src "$OUT/kernel" > /dev/null
tree=$OUT/src
rm -rf "$tree"
mkdir -p "$tree"
tar -C "$tree" --strip-components=1 -xf "$orig"
cp "$OUT/kernel/include/uapi/rdma/rdma_netlink.h" "$tree/rdma/include/uapi/rdma/"
rm -rf "$OUT/kernel"
n=$(apply_series "$tree" "$SERIES" "$(basename "$orig")")

(cd "$tree" && ./configure > "$OUT/configure.log" 2>&1) ||
	{ tail -n 20 "$OUT/configure.log"; die "iproute2's configure failed"; }
make -C "$tree" -j"$JOBS" SUBDIRS="lib rdma" CCOPTS="-O2 -pipe -Werror" > "$OUT/build.log" 2>&1 ||
	{ grep -E 'error|warning' "$OUT/build.log" | head -n 30; die "iproute2's rdma failed to build (log $OUT/build.log)"; }
cp "$tree/rdma/rdma" "$OUT/rdma"
say "iproute2: $OUT/rdma ($(basename "$orig"), $n patch(es) of tools/iproute2)"
