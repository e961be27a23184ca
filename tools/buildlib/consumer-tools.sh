#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The user space of the consumers' test (tools/testing/tests/consumers.sh):
# Debian's NFS server and client tools (exportfs, rpc.mountd) and
# open-iscsi (iscsid, iscsiadm), unpacked from their packages into the
# cache, never installed: installed, they would enable rpcbind, the NFS
# server and iscsid on the host.  Only the shared libraries they link are
# installed (deps.sh).  Prints the directory; $CACHE/consumer-tools links
# to it, and the VM finds it there.
. "$(dirname "$0")/common.sh"

PACKAGES="nfs-kernel-server nfs-common open-iscsi"

# The key: each package's candidate version.
versions=
for p in $PACKAGES; do
	v=$(apt-cache policy "$p" | awk '$1 == "Candidate:" { print $2 }')
	[ -n "$v" ] && [ "$v" != "(none)" ] ||
		die "apt has no $p: run 'apt-get update' (Debian 12 has it in main)"
	versions="$versions $p=$v"
done
dir=$CACHE/consumer-tools-$(echo "$versions" | sha256sum | cut -c1-12)
if [ ! -f "$dir/.ok" ]; then
	"$REPO/tools/buildlib/deps.sh" consumers
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp/debs"
	# shellcheck disable=SC2086
	(cd "$dir.tmp/debs" && apt-get download -q $versions > download.log 2>&1) || {
		cat "$dir.tmp/debs/download.log" >&2
		die "apt-get download of$versions failed: check the Debian mirror"
	}
	for d in "$dir.tmp"/debs/*.deb; do
		dpkg-deb -x "$d" "$dir.tmp/root" || die "cannot unpack $d"
	done
	rm -rf "$dir.tmp/debs"
	touch "$dir.tmp/.ok"
	mv "$dir.tmp" "$dir"
	say "consumer tools:$versions unpacked in $dir"
fi
ln -sfn "$dir" "$CACHE/consumer-tools"
echo "$dir"
