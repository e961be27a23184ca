#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check on the installed distribution kernel, on the host (as root):
#
#   dkms-check.sh install RELEASE   make install for RELEASE through DKMS,
#                                   then: modprobe takes ours (updates/dkms,
#                                   the srcversion of our build), the /etc
#                                   files are there, bad input is refused
#                                   and changes nothing
#   dkms-check.sh remove RELEASE    make uninstall: the distribution's modules
#                                   are what modprobe takes again
#
# KTAP on stdout, the commands' output in $LOGDIR (default build/check).
. "$(dirname "$0")/../build/common.sh"
set +e

phase=${1:-}
rel=${2:-}
[ -n "$rel" ] && [[ $phase =~ ^(install|remove)$ ]] ||
	die "usage: tools/testing/dkms-check.sh install|remove RELEASE"
LOGDIR=${LOGDIR:-$BUILD/check}
mkdir -p "$LOGDIR"
ksrc_init
. "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"

MODS="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib"
DKMS_SH=$REPO/tools/build/dkms.sh

# result RC DESCRIPTION: one KTAP result.
result() {
	if [ "$1" = 0 ]; then ktap_test_pass "$2"; else ktap_test_fail "$2"; fi
}

# modprobe_takes M DIR: modprobe's file for module M of Linux $rel lies
# under /lib/modules/$rel/DIR.
modprobe_takes() {
	local f

	f=$(modinfo -k "$rel" -F filename "$1" 2>/dev/null)
	case $f in
	"/lib/modules/$rel/$2/"*) return 0 ;;
	esac
	echo "# $1: modprobe takes '$f', not one under $2/"
	return 1
}

# ours M: modprobe's M for Linux $rel is the file DKMS built from this
# tree.  (The distribution kernel has no CONFIG_MODULE_SRCVERSION_ALL: a
# module without MODULE_VERSION has no srcversion to compare.)
ours() {
	local built

	built=$(ls /var/lib/dkms/roce-entropy/*/"$rel"/*/module/"$1".ko* 2>/dev/null | head -n 1)
	modprobe_takes "$1" updates/dkms || return 1
	[ -n "$built" ] && cmp -s "$built" "$(modinfo -k "$rel" -F filename "$1")" ||
		{ echo "# $1: not the module DKMS built (${built:-none})"; return 1; }
}

# has_param REL M P: module M of Linux REL (modprobe's choice) has parameter P.
has_param() {
	modinfo -k "$1" -F parm "$2" | grep -q "^$3:"
}

# etc_files PRESENT|ABSENT: the files make install puts in /etc.
etc_files() {
	local f=/etc/modprobe.d/roce-entropy.conf g=/etc/udev/rules.d/70-roce-entropy.rules

	if [ "$1" = PRESENT ]; then
		cmp -s "$REPO/tools/packaging/roce-entropy.conf" $f &&
			cmp -s "$REPO/tools/packaging/70-roce-entropy.rules" $g
	else
		[ ! -e $f ] && [ ! -e $g ]
	fi
}

# refused WHAT CMD...: CMD fails with a message and leaves DKMS's state and
# the installed modules as they were.
refused() {
	local what=$1 before after out

	shift
	before=$(dkms status 2>&1; find "/lib/modules/$rel/updates" -type f 2>/dev/null | sort)
	out=$("$@" 2>&1) && { echo "# $what: accepted"; return 1; }
	echo "# $what: $(echo "$out" | tail -n 1)"
	after=$(dkms status 2>&1; find "/lib/modules/$rel/updates" -type f 2>/dev/null | sort)
	[ "$before" = "$after" ] || { echo "# $what changed the installation"; return 1; }
	[[ $out == *error:* ]]
}

ktap_print_header
if [ "$phase" = install ]; then
	ktap_set_plan $((7 + $(echo $MODS | wc -w)))
	[ "$(id -u)" = 0 ]
	result $? "make check runs as root, as make install must"
	"$DKMS_SH" install "$rel" > "$LOGDIR/dkms-install.log" 2>&1
	result $? "make install (dkms add, build, install) for Linux $rel (log $LOGDIR/dkms-install.log)"
	for m in $MODS; do
		ours "$m"
		result $? "$m: modprobe takes ours from updates/dkms, srcversion of our build"
	done
	has_param "$rel" ib_core roce_entropy
	result $? "ib_core is the series': it has the roce_entropy parameter"
	etc_files PRESENT
	result $? "the default policy (modprobe.d) and the udev rules are in /etc as shipped"
	refused "a kernel that is not 6.12" "$DKMS_SH" install 6.1.0-99-amd64
	result $? "make install for Linux 6.1.0-99-amd64 is refused and changes nothing"
	refused "a 6.12 kernel without headers" "$DKMS_SH" install 6.12.0-nonexistent
	result $? "make install for a 6.12 kernel without headers is refused and changes nothing"
	refused "not root" setpriv --reuid=65534 --regid=65534 --clear-groups "$DKMS_SH" install "$rel"
	result $? "make install as a user who is not root is refused and changes nothing"
else
	ktap_set_plan 4
	"$DKMS_SH" remove > "$LOGDIR/dkms-remove.log" 2>&1
	result $? "make uninstall (dkms remove --all) (log $LOGDIR/dkms-remove.log)"
	bad=0
	for m in $MODS; do
		modprobe_takes "$m" kernel || bad=1
	done
	result $bad "modprobe takes the distribution's own $(echo $MODS | wc -w) modules again"
	! has_param "$rel" ib_core roce_entropy
	result $? "... whose ib_core has no roce_entropy parameter"
	etc_files ABSENT
	result $? "the files in /etc are gone"
fi
ktap_finished
