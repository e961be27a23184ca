#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make mainline-src: the mainline tree of patches/mainline-base, in the
# cache: Debian's linux-source-<x.y> package of that version, fetched once
# and checked against the SHA-256 the file pins (apt's helper refuses
# anything else), its source tarball extracted whole into
# $CACHE/mainline-<version>/linux-source-<x.y>.  Prints that directory.
#
# ENTROPY_DEBIAN_MIRROR  the Debian archive to fetch from (default
#                        deb.debian.org; once experimental has moved on, a
#                        snapshot.debian.org archive that has the version)
. "$(dirname "$0")/common.sh"

BASE=$REPO/patches/mainline-base
MIRROR=${ENTROPY_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# base_field NAME: NAME's value in patches/mainline-base.
base_field() {
	local v

	v=$(sed -n "s/^$1=//p" "$BASE")
	[ -n "$v" ] || die "$BASE has no $1="
	echo "$v"
}

package=$(base_field package)
version=$(base_field version)
path=$(base_field path)
sha256=$(base_field sha256)
[[ $sha256 =~ ^[0-9a-f]{64}$ ]] || die "$BASE: sha256= is not a SHA-256"
[[ $package =~ ^linux-source-[0-9]+\.[0-9]+$ ]] || die "$BASE: package= is not linux-source-<x.y>"
dir=$CACHE/mainline-$version
deb=$dir/${path##*/}
tree=$dir/$package

mkdir -p "$dir"
exec 9> "$dir/lock"
flock 9
if [ ! -f "$tree/.extracted" ]; then
	if [ ! -f "$deb" ]; then
		say "mainline: fetching $MIRROR/$path"
		/usr/lib/apt/apt-helper download-file "$MIRROR/$path" "$deb.part" "SHA256:$sha256" \
			> "$dir/fetch.log" 2>&1 ||
			{ tail -n 5 "$dir/fetch.log" >&2; rm -f "$deb.part"; die "fetching $package $version failed: check the network, or set ENTROPY_DEBIAN_MIRROR to a snapshot.debian.org archive that has it"; }
		mv "$deb.part" "$deb"
	fi
	say "mainline: extracting $package $version into $dir"
	rm -rf "$tree"
	# the package holds usr/src/<package>.tar.xz, whose top is <package>/
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$package.tar.xz" | tar -xJ -C "$dir" ||
		die "$deb holds no usr/src/$package.tar.xz"
	[ -f "$tree/Makefile" ] || die "$package's tarball has no $package/Makefile"
	touch "$tree/.extracted"
fi
echo "$tree"
