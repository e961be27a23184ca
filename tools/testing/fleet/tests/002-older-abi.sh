# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fleet.sh updates, test 002: an older 6.12 ABI than linux-source-6.12's.
#
# DESCRIPTION: the headers of an older 6.12 ABI installed (a host still on
# an older kernel, or one that holds it): apt succeeds and says one line,
# the source of that exact version is downloaded during the update
# (linux-source-6.12 itself unchanged), ours are built from it with the
# kABI held, and modprobe takes them; make dkms-build refuses
# linux-source-6.12's newer source for it; a full disk during the
# download, and a source that cannot be had, are refusals that say why
# (the second with the apt command that fixes it), and the kernel keeps
# the distribution's modules.  Modules built from another release's source
# would be loaded into a kernel whose structures differ.
#
# NEEDS: $old and $oldv (updates: older_abi, from the host's apt lists);
# the root's linux-source-6.12 of $DIST_VER.  Leaves linux-headers-$old
# installed and ours refused for it (its source is no longer in the
# cache); 006 purges those headers.

# the number of results fleet_test prints
# shellcheck disable=SC2034 # read by run_tests in fleet.sh
RESULTS=13

fleet_test() {
	local rc

	# An older 6.12 ABI than linux-source-6.12.
	[ -n "$old" ] || echo "# the archive has no older 6.12 ABI with headers"
	check "apt install linux-headers-$old (older than linux-source $DIST_VER) succeeds" \
		apt_in "$r" "$log" install "linux-headers-$old"
	check "every package is configured after it" configured "$r"
	check "apt's output has one line for Linux $old: installed" one_line "$log" "$old"
	check "its source was downloaded at its exact version, $oldv, during the update" \
		test -f "$r/var/cache/roce-entropy/linux-source-$oldv.tar.xz"
	check "linux-source-6.12 itself is unchanged ($DIST_VER)" \
		eval "inroot '$r' dpkg-query -W -f '\${Version}' linux-source-6.12 | grep -q '^$DIST_VER-'"
	check "the record of Linux $old: built from ${old%%+*}" test "$(record "$r" "$old" source)" = "${old%%+*}"
	check "Linux $old: ours installed with the kABI held" \
		test "$(record "$r" "$old" state)/$(record "$r" "$old" kabi)" = installed/held
	check "Linux $old: modprobe takes ours, built for it (vermagic)" \
		eval "takes '$r' '$old' updates/dkms && inroot '$r' modinfo -k '$old' -F vermagic ib_core | grep -q '^$old '"
	inroot "$r" make -C "/usr/src/$NAME-$v" dkms-build "KDIR=/lib/modules/$old/build" \
		CACHE=/tmp/refuse KDIR_WORK=/tmp/refuse-work > "$LOGDIR/fleet-refuse.log" 2>&1
	rc=$?
	check "make dkms-build refuses linux-source $DIST_VER for Linux $old" \
		eval "[ $rc != 0 ] && grep -q 'refusing to build RDMA core from another release' '$LOGDIR/fleet-refuse.log'"
	# The source not to be had (offline, or gone from the archive): refused,
	# with the command that fixes it.
	inroot "$r" dkms remove -m "$NAME" -v "$v" -k "$old" >> "$log" 2>&1
	rm -f "$r/var/cache/roce-entropy/linux-source-$oldv.tar.xz"
	# A full disk during the download (a 1 MB tmpfs over the cache): the
	# reason says so, and nothing partial is left for a retry to take.
	mount -t tmpfs -o size=1m tmpfs "$r/var/cache/roce-entropy"
	inroot "$r" roce-entropy-dkms install "$old" >> "$log" 2>&1
	check "a full disk during the source's download: refused, saying so" \
		eval "[ '$(record "$r" "$old" state)' = refused ] &&
			grep -q 'no space left in /var/cache/roce-entropy' '$r/var/lib/roce-entropy/$old'"
	check "a full disk during the source's download: nothing left in the cache" \
		eval "[ -z \"\$(ls -A '$r/var/cache/roce-entropy')\" ]"
	umount "$r/var/cache/roce-entropy"
	printf '#!/bin/sh\necho "E: Failed to fetch (stub)" >&2\nexit 100\n' > "$r/usr/local/bin/apt-get"
	chmod 755 "$r/usr/local/bin/apt-get"
	inroot "$r" roce-entropy-dkms install "$old" >> "$log" 2>&1
	rm -f "$r/usr/local/bin/apt-get"
	check "without its source: refused with 'apt install linux-source-6.12=$oldv' and apt's error" \
		eval "[ '$(record "$r" "$old" state)' = refused ] &&
			grep -qF 'apt install linux-source-6.12=$oldv' '$r/var/lib/roce-entropy/$old' &&
			grep -qF 'E: Failed to fetch (stub)' '$r/var/lib/roce-entropy/$old'"
	check "without its source: the distribution's modules for Linux $old" takes "$r" "$old" kernel
}
