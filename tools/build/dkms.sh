#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install / make uninstall: the modules through DKMS (dkms.conf).
#
#   dkms.sh install [RELEASE...]  copy the sources to /usr/src/roce-entropy-<version>,
#                                 dkms add, then dkms install for each RELEASE
#                                 (default: every installed 6.12 kernel with
#                                 headers); the default policy (modprobe.d) and
#                                 the per-port rules (udev) into /etc unless
#                                 there already
#   dkms.sh remove                dkms remove --all, the sources in /usr/src
#                                 too: the distribution's modules are back;
#                                 the files in /etc go unless edited
#   dkms.sh status                dkms status of the package
#
# Nothing is changed unless every check passes first: root, dkms, the
# kernel source package, a 6.12 kernel with its headers.
. "$(dirname "$0")/common.sh"

NAME=roce-entropy
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
SRC=/usr/src/$NAME-$VERSION
# The modules we replace carry no MODULE_VERSION, like the distribution's:
# DKMS would find the versions equal and refuse to install ours.  Debian's
# dkms reads this list of packages whose version check it skips, also when
# it builds for a new kernel (AUTOINSTALL).
OVERRIDE=/usr/share/dkms/modules_to_force_install/$NAME

# The configuration files: shipped file and where it goes.
ETC_FILES="tools/packaging/roce-entropy.conf:/etc/modprobe.d/roce-entropy.conf
	tools/packaging/70-roce-entropy.rules:/etc/udev/rules.d/70-roce-entropy.rules"

need_root() {
	[ "$(id -u)" = 0 ] || die "dkms $1 changes /usr/src and /lib/modules: run it as root (sudo make ${2:-install})"
}

# packages: what the install needs from Debian, installed when missing:
# dkms, the kernel source, and the running kernel's headers if it is 6.12.
packages() {
	local missing= rel

	rel=$(uname -r)
	command -v dkms >/dev/null || missing="$missing dkms"
	[ -f /usr/src/linux-source-6.12.tar.xz ] || [ -n "${KSRC:-}" ] ||
		missing="$missing linux-source-6.12"
	case $rel in
	6.12.*) [ -e "/lib/modules/$rel/build/Makefile" ] || missing="$missing linux-headers-$rel" ;;
	esac
	[ -n "$missing" ] || return 0
	say "installing Debian packages:$missing"
	command -v apt-get >/dev/null || die "not a Debian system: install$missing yourself"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing ||
		die "apt-get install$missing failed: run apt-get update, or install them yourself"
}

# releases: the installed 6.12 kernels that have their headers.
releases() {
	local d

	for d in /lib/modules/6.12.*; do
		[ -e "$d/build/Makefile" ] && basename "$d"
	done
}

install() {
	local rel rels=("$@")

	need_root install
	packages
	[ ${#rels[@]} -gt 0 ] || mapfile -t rels < <(releases)
	[ ${#rels[@]} -gt 0 ] ||
		die "no Linux 6.12 kernel with headers is installed (running: $(uname -r)): apt install linux-headers-<6.12 release>"
	for rel in "${rels[@]}"; do
		case $rel in
		6.12.*) ;;
		*) die "Linux $rel is not 6.12: this series is for 6.12 kernels" ;;
		esac
		[ -e "/lib/modules/$rel/build/Makefile" ] ||
			die "Linux $rel has no headers: apt install linux-headers-$rel"
	done

	if dkms status -m "$NAME" -v "$VERSION" | grep -q .; then
		say "removing the earlier $NAME $VERSION from DKMS"
		dkms remove -m "$NAME" -v "$VERSION" --all > /dev/null
	fi
	say "copying the sources to $SRC"
	rm -rf "$SRC"
	mkdir -p "$SRC"
	# shellcheck disable=SC2086
	(cd "$REPO" && cp -a --parents $DKMS_FILES "$SRC/")
	mkdir -p "${OVERRIDE%/*}"
	echo "${NAME}_version-override" > "$OVERRIDE"
	dkms add -m "$NAME" -v "$VERSION"
	for rel in "${rels[@]}"; do
		say "dkms install for Linux $rel"
		dkms install -m "$NAME" -v "$VERSION" -k "$rel" ||
			die "dkms install for Linux $rel failed: see /var/lib/dkms/$NAME/$VERSION/build/make.log"
	done
	for f in $ETC_FILES; do
		if [ -e "${f#*:}" ]; then
			say "${f#*:} exists: kept as it is"
		else
			cp "$REPO/${f%%:*}" "${f#*:}"
			say "installed ${f#*:}"
		fi
	done
	dkms status -m "$NAME"
}

remove() {
	need_root remove uninstall
	command -v dkms >/dev/null || die "dkms is not installed: nothing to remove"
	if dkms status -m "$NAME" -v "$VERSION" | grep -q .; then
		dkms remove -m "$NAME" -v "$VERSION" --all
	else
		say "$NAME $VERSION is not in DKMS"
	fi
	rm -rf "$SRC" "$OVERRIDE"
	for f in $ETC_FILES; do
		[ -e "${f#*:}" ] || continue
		if cmp -s "$REPO/${f%%:*}" "${f#*:}"; then
			rm "${f#*:}"
		else
			say "${f#*:} was edited: kept (delete it yourself if it should go)"
		fi
	done
}

case ${1:-} in
install) shift; install "$@" ;;
remove) remove ;;
status) dkms status -m "$NAME" ;;
*) die "usage: tools/build/dkms.sh install [RELEASE...] | remove | status" ;;
esac
