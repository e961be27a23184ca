#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: two Debian packages in build/deb, for `apt install ./<file>.deb`:
#   roce-entropy-dkms   the sources and dkms.conf (DKMS builds the modules for
#                       every installed 6.12 kernel, and again on a kernel
#                       update), the default policy (/etc/modprobe.d) and the
#                       per-port rules (/etc/udev/rules.d) as conffiles
#   roce-entropy-tools  roce-entropy, roce-ping, roce-qps with their man pages
. "$(dirname "$0")/common.sh"

NAME=roce-entropy
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
OUT=$BUILD/deb
MAINTAINER="RoCE v2 entropy developers <roce-entropy@localhost>"
command -v dpkg-deb >/dev/null || die "dpkg-deb is missing: apt install dpkg-dev"

rm -rf "$OUT"
mkdir -p "$OUT"

# control FILE PACKAGE ARCH DEPENDS DESCRIPTION...: a binary package's
# control file.
control() {
	local f=$1 pkg=$2 arch=$3 deps=$4

	shift 4
	cat > "$f" <<EOF
Package: $pkg
Version: $VERSION
Architecture: $arch
Maintainer: $MAINTAINER
Depends: $deps
Section: kernel
Priority: optional
Description: $1
EOF
	shift
	printf ' %s\n' "$@" >> "$f"
}

dkms_deb() {
	local root=$OUT/$NAME-dkms src

	src=$root/usr/src/$NAME-$VERSION
	mkdir -p "$src" "$root/DEBIAN" "$root/etc/modprobe.d" "$root/etc/udev/rules.d" \
		"$root/usr/share/dkms/modules_to_force_install" "$root/usr/share/doc/$NAME-dkms"
	# shellcheck disable=SC2086
	(cd "$REPO" && cp -a --parents $DKMS_FILES "$src/")
	cp "$REPO/tools/packaging/roce-entropy.conf" "$root/etc/modprobe.d/"
	cp "$REPO/tools/packaging/70-roce-entropy.rules" "$root/etc/udev/rules.d/"
	echo "${NAME}_version-override" > "$root/usr/share/dkms/modules_to_force_install/$NAME"
	cp "$REPO/LICENSE" "$root/usr/share/doc/$NAME-dkms/copyright"
	control "$root/DEBIAN/control" "$NAME-dkms" all \
		"dkms (>= 3), linux-source-6.12, make, patch, rsync, xz-utils, gcc" \
		"RoCE v2 entropy: ib_core, rdma_cm, rxe and mlx5_ib for Linux 6.12 (DKMS)" \
		"Gives every RoCE v2 connection a symmetric, deterministic UDP source port" \
		"and IPv6 flow label, so that ECMP routers and LAGs spread RDMA traffic." \
		"DKMS builds the modules from the kernel's own sources (linux-source-6.12)" \
		"with the series applied, for each installed 6.12 kernel with headers."
	printf '%s\n' /etc/modprobe.d/roce-entropy.conf /etc/udev/rules.d/70-roce-entropy.rules \
		> "$root/DEBIAN/conffiles"
	cat > "$root/DEBIAN/postinst" <<EOF
#!/bin/sh
set -e
# Debian's DKMS helper: dkms add, then build and install for every kernel
# that has its headers.
if [ "\$1" = configure ]; then
	/usr/lib/dkms/common.postinst $NAME $VERSION "" "" "\$2"
fi
EOF
	cat > "$root/DEBIAN/prerm" <<EOF
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = upgrade ] || [ "\$1" = deconfigure ]; then
	if dkms status -m $NAME -v $VERSION | grep -q .; then
		dkms remove -m $NAME -v $VERSION --all
	fi
fi
EOF
	chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm"
	dpkg-deb --root-owner-group -Zxz --build "$root" "$OUT/${NAME}-dkms_${VERSION}_all.deb" >/dev/null
	say "$OUT/${NAME}-dkms_${VERSION}_all.deb"
}

tools_deb() {
	local root=$OUT/$NAME-tools deps arch

	arch=$(dpkg --print-architecture)
	"$REPO/tools/build/tools.sh" > "$OUT/tools.log" 2>&1 ||
		{ tail -n 20 "$OUT/tools.log"; die "the C++ tools did not build"; }
	mkdir -p "$root/DEBIAN" "$root/usr/share/doc/$NAME-tools"
	# Stripped, as Debian ships programs (its policy, 10.1; dh_strip).
	cmake --install "$BUILD/tools" --prefix "$root/usr" --strip > /dev/null
	compgen -G "$root/usr/bin/*" > /dev/null ||
		die "cmake --install put no program in $root/usr/bin: tools/roce-entropy's install() rules are missing"
	cp "$REPO/LICENSE" "$root/usr/share/doc/$NAME-tools/copyright"
	# The shared libraries the programs link, as Debian package names.
	mkdir -p "$OUT/shlibs/debian"
	echo "Source: $NAME" > "$OUT/shlibs/debian/control"
	deps=$(cd "$OUT/shlibs" && dpkg-shlibdeps -O "$root"/usr/bin/* |
		sed -n 's/^shlibs:Depends=//p') || die "dpkg-shlibdeps failed (above)"
	[ -n "$deps" ] || die "dpkg-shlibdeps found no dependencies of the tools"
	control "$root/DEBIAN/control" "$NAME-tools" "$arch" "$deps" \
		"RoCE v2 entropy: check ports and flow labels in captures and simulations" \
		"roce-entropy computes the RFC's flow label and UDP source port, judges" \
		"captures (pcap) against a policy, and simulates ECMP spreading;" \
		"roce-ping and roce-qps make rdma_cm and non-CM RC connections."
	dpkg-deb --root-owner-group -Zxz --build "$root" "$OUT/${NAME}-tools_${VERSION}_$arch.deb" >/dev/null
	say "$OUT/${NAME}-tools_${VERSION}_$arch.deb"
}

dkms_deb
tools_deb
