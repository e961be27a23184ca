# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 008: linux-source-6.12 arriving later.
#
# DESCRIPTION: a kernel refused for want of its source (another version of
# linux-source-6.12 installed, the archive out of reach) is built when the
# source of its version is unpacked, by the package's file trigger; and
# with the tarball deleted after it was unpacked in /usr/src, ours are
# built from that tree and nothing is downloaded.  apt orders an upgrade
# as it likes: a kernel must not keep the distribution's modules because
# its source came second.
#
# NEEDS: ours installed for Linux $DIST_REL; the root's
# linux-source-6.12 and its tarball, which this test moves aside and puts
# back.  Leaves ours installed for Linux $DIST_REL and the source as it
# was.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=4

fleet_test() {
	local srcver

	# linux-source-6.12 arriving later in the same upgrade: a kernel refused
	# for want of its source (linux-source-6.12 of another version
	# installed, the archive out of reach) is built when the source of its
	# version is unpacked: the package's file trigger retries it.
	srcver=$(inroot "$r" dpkg-query -W -f '${Version}' linux-source-6.12)
	mv "$r/usr/src/linux-source-6.12.tar.xz" "$FLEET/source.tar.xz"
	: | xz > "$FLEET/empty.tar.xz"
	printf '#!/bin/sh\necho "E: Failed to fetch (stub)" >&2\nexit 100\n' > "$r/usr/local/bin/apt-get.stub"
	chmod 755 "$r/usr/local/bin/apt-get.stub"
	source_deb "$r" 0~other "$FLEET/empty.tar.xz"
	apt_in "$r" "$log" install --allow-downgrades ./root/linux-source.deb
	logged inroot "$r" dkms remove -m "$NAME" -v "$v" -k "$DIST_REL"
	mv "$r/usr/local/bin/apt-get.stub" "$r/usr/local/bin/apt-get"
	logged inroot "$r" roce-entropy-dkms install "$DIST_REL"
	mv "$r/usr/local/bin/apt-get" "$r/usr/local/bin/apt-get.stub"
	check "linux-source-6.12 of another version, the archive out of reach: refused" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = refused ] &&
			grep -qF 'apt install linux-source-6.12=$srcver' '$r/var/lib/roce-entropy/$DIST_REL'"
	source_deb "$r" "$srcver" "$FLEET/source.tar.xz"
	apt_in "$r" "$log" install ./root/linux-source.deb
	check "linux-source-6.12 $srcver installed later: its trigger built and installed ours" \
		eval "said '$log' 'roce-entropy: installed for Linux $DIST_REL' &&
			[ '$(record "$r" "$DIST_REL" state)' = installed ] &&
			[ '$(record "$r" "$DIST_REL" source)' = '$DIST_VER' ]"
	check "every package is configured after the trigger" configured "$r"
	# The tarball deleted after it was unpacked in /usr/src: the tree is the
	# source, nothing is downloaded (the archive still out of reach).
	logged inroot "$r" dkms remove -m "$NAME" -v "$v" -k "$DIST_REL"
	mv "$r/usr/src/linux-source-6.12.tar.xz" "$FLEET/source.tar.xz"
	# shellcheck disable=SC2046 # a list of paths
	tar -C "$r/usr/src" -xf "$FLEET/source.tar.xz" \
		$(for d in Makefile $TREE_DIRS $KTAP_HELPERS; do echo "linux-source-6.12/$d"; done)
	mv "$r/usr/local/bin/apt-get.stub" "$r/usr/local/bin/apt-get"
	logged inroot "$r" roce-entropy-dkms install "$DIST_REL"
	rm -f "$r/usr/local/bin/apt-get"
	check "the tarball deleted, its tree in /usr/src: built from the tree, nothing downloaded" \
		eval "[ '$(record "$r" "$DIST_REL" state)' = installed ] &&
			! ls '$r'/var/cache/roce-entropy/linux-source-*.tar.xz > /dev/null 2>&1"
	rm -rf "$r/usr/src/linux-source-6.12"
	mv "$FLEET/source.tar.xz" "$r/usr/src/linux-source-6.12.tar.xz"
	rm -f "$FLEET/empty.tar.xz" "$r/root/linux-source.deb"
}
