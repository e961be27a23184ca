#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the build and the tests need, if any is
# missing.  Needs root (or sudo) the first time only.
#   deps.sh         everything: the kernel side, the VM, the tools
#   deps.sh kernel  only what the test kernel's build needs (make check
#                   installs the rest while it builds)
#   deps.sh tools   only the C++ tools' own: their build and GoogleTest
#                   suites (make tools); no kernel source, QEMU or clang
#   deps.sh fuzz    the tools' and clang for their fuzzers (make fuzz)
#   deps.sh deb     the tools' and debhelper, lintian (make deb)
#   deps.sh consumers  the shared libraries of the consumers' test's NFS
#                   and iSCSI tools (consumer-tools.sh unpacks the tools
#                   themselves, which are never installed)
#
# Nothing kernel-related is installed on the host: Debian's own 6.12
# kernel, DKMS and the packages are tested in a Debian 12 root of their
# own (tools/testing/fleet.sh).
. "$(dirname "$0")/common.sh"

TOOLS_PACKAGES="
	cmake g++ pkg-config libpcap-dev libcli11-dev nlohmann-json3-dev
	librdmacm-dev libibverbs-dev libmnl-dev ninja-build libnl-3-dev libnl-route-3-dev
	libgtest-dev libgmock-dev libbenchmark-dev clang-format ccache
"
FUZZ_PACKAGES="clang libclang-rt-14-dev"
DEB_PACKAGES="debhelper lintian dpkg-dev"
KERNEL_PACKAGES="linux-source-6.12 bc bison flex libelf-dev libssl-dev cpio kmod make gcc xz-utils
	shellcheck"
PACKAGES="
	$KERNEL_PACKAGES dwarves python3 python3-pyelftools rsync patch sparse git
	python3-ply python3-git python3-docutils
	qemu-system-x86 qemu-system-data iproute2 util-linux libcap2-bin
	rdma-core ibverbs-utils rdmacm-utils perftest python3-pyverbs
	tshark jq gojq nvme-cli mmdebstrap busybox-static
	$TOOLS_PACKAGES $FUZZ_PACKAGES $DEB_PACKAGES
"

# install_missing PACKAGE...: apt-get install those not installed; apt-get
# update once a run (APT_UPDATED).
APT_UPDATED=
install_missing() {
	local p missing='' sudo=''

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
	[ -n "$APT_UPDATED" ] || $sudo apt-get update -qq ||
		die "apt-get update failed: check the Debian mirror"
	APT_UPDATED=1
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing > "$CACHE/apt.log" 2>&1 || {
		tail -n 20 "$CACHE/apt.log" >&2
		die "apt-get install failed (log above)"
	}
	say "Debian packages installed"
}

case ${1:-all} in
tools | fuzz | deb)
	# shellcheck disable=SC2086,SC2046 # lists of package names
	install_missing $TOOLS_PACKAGES $([ "$1" = fuzz ] && echo $FUZZ_PACKAGES) \
		$([ "$1" = deb ] && echo $DEB_PACKAGES)
	say "Debian packages for the tools: all present"
	exit 0
	;;
kernel)
	# shellcheck disable=SC2086
	install_missing $KERNEL_PACKAGES
	say "Debian packages for the test kernel: all present"
	exit 0
	;;
consumers)
	# every lib* that the packages depend on, none of the packages
	libs=$(apt-cache depends --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances nfs-kernel-server nfs-common open-iscsi |
		awk '$1 == "Depends:" && $2 ~ /^lib/ { print $2 }' | sort -u)
	# shellcheck disable=SC2086
	install_missing $libs
	say "Debian packages for the consumer tools' libraries: all present"
	exit 0
	;;
all) ;;
*) die "usage: deps.sh [tools|fuzz|deb|kernel|consumers]" ;;
esac
# shellcheck disable=SC2086
install_missing $PACKAGES
say "Debian packages: all present"
# the NFS and iSCSI tools of the consumers' test, unpacked in the cache
"$REPO/tools/buildlib/consumer-tools.sh" > /dev/null
