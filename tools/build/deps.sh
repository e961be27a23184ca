#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the build and the tests need, if any is
# missing.  Needs root (or sudo) the first time only.
. "$(dirname "$0")/common.sh"

PACKAGES="
	linux-source-6.12
	bc bison flex libelf-dev libssl-dev dwarves cpio kmod make gcc
	python3 rsync xz-utils patch sparse git
	python3-ply python3-git
	qemu-system-x86 qemu-system-data iproute2 util-linux
	rdma-core ibverbs-utils rdmacm-utils perftest python3-pyverbs
	librdmacm-dev libibverbs-dev
	tshark jq nvme-cli
	cmake g++ pkg-config libpcap-dev libgtest-dev libgmock-dev libbenchmark-dev
	libcli11-dev nlohmann-json3-dev clang-format
	clang libclang-rt-14-dev ccache
"

# install_missing PACKAGE...: apt-get install those not installed.
install_missing() {
	local p missing= sudo=

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	mkdir -p "$CACHE"
	say "installing Debian packages:$missing"
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null ||
			die "not root and no sudo: install these packages as root:$missing"
		sudo=sudo
	fi
	export DEBIAN_FRONTEND=noninteractive
	[ -n "${APT_UPDATED:-}" ] || $sudo apt-get update -qq ||
		die "apt-get update failed: check the Debian mirror"
	APT_UPDATED=1
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing > "$CACHE/apt.log" 2>&1 || {
		tail -n 20 "$CACHE/apt.log" >&2
		die "apt-get install failed (log above)"
	}
	say "Debian packages installed"
}

# shellcheck disable=SC2086
install_missing $PACKAGES
# The distribution kernel of the same version as linux-source-6.12, with
# its headers (which pull its image), and dkms: make check installs our
# modules for it and boots it.
rel=$(dist_release) || die "linux-source-6.12 is not installed"
install_missing "linux-headers-$rel" dkms busybox-static
say "Debian packages: all present"
