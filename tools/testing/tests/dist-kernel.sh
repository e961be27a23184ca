#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# On the distribution's own kernel (run.sh VM_KERNEL=<release>), with the
# stack loaded by its modprobe as on a host:
# - the RDMA modules are ours, as DKMS installed them (updates/dkms, built
#   out of tree, vermagic of this kernel, ib_core with the knob and the
#   policy of the opt-in line in /etc/modprobe.d, when there), or with
#   ENTROPY_DIST_EXPECT=distribution, after apt purge, the kernel's own; with
#   ENTROPY_DIST_EXPECT=hatch, booted with roce_entropy.stock=1 (the escape
#   hatch), ours installed and the kernel's own loaded;
# - roce-entropy status, with the Debian root's records, finds all well;
# - every module of this kernel that depends on one we replace loads beside
#   ours (modprobe), and the kernel log has no "disagrees about version of
#   symbol" nor "Unknown symbol".
#
# make check runs it in dist (after apt install, the opt-in line in
# place), dist-hatch (the same root booted with the row's
# VM_APPEND=roce_entropy.stock=1) and dist-removed (after apt purge).
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_DIST_EXPECT   what the modules are: ours (default), hatch or
#                     distribution
STACKS="dist dist-removed"
CPUS=1
: "${ENTROPY_DIST_EXPECT:=ours}"
requires() {
	_have_dist_kernel
}
. "$entropy_repo/tools/testing/lib.sh"

EXPECT=$ENTROPY_DIST_EXPECT
REL=$(uname -r)
MODS=/lib/modules/$REL
REPLACED="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib"
CONF=/etc/modprobe.d/roce-entropy.conf

# file_of M: the file modprobe takes for module M.
file_of() {
	modinfo -F filename "$1"
}

# is_ours M: M's file is DKMS's, and a loaded M is that build (lib.sh's
# module_is_ours: out of tree, taint O, as the kernel's own are not).
is_ours() {
	[ ! -d "/sys/module/$1" ] || { module_is_ours "$1"; return; }
	case $(file_of "$1") in
	"$MODS/updates/dkms/"*) ;;
	*) echo "  $1: modprobe takes $(file_of "$1")"; return 1 ;;
	esac
}

# is_distributions M: M's file is the kernel's own, and the loaded M is
# not an out-of-tree build.
is_distributions() {
	case $(file_of "$1") in
	"$MODS/kernel/"*) ;;
	*) echo "  $1: modprobe takes $(file_of "$1")"; return 1 ;;
	esac
	[ ! -d "/sys/module/$1" ] || ! grep -q O "/sys/module/$1/taint" ||
		{ echo "  $1 is loaded and out of tree"; return 1; }
}

# hatch_loaded M: ours is M's file (updates/dkms), and the loaded M is the
# kernel's own (the escape hatch's modprobe-stock loaded it).  M is loaded
# first if it is not.
hatch_loaded() {
	case $(file_of "$1") in
	"$MODS/updates/dkms/"*) ;;
	*) echo "  $1: modprobe takes $(file_of "$1"), not ours"; return 1 ;;
	esac
	modprobe "$1" || { echo "  $1 did not load"; return 1; }
	! grep -q O "/sys/module/$1/taint" || { echo "  $1 is loaded and out of tree"; return 1; }
}

# vermagic M: M was built for this very kernel.
vermagic() {
	modinfo -F vermagic "$1" | grep -q "^$REL "
}

# dependents: the kernel's modules that need one we replace, without ours.
dependents() {
	local re

	re="/($(echo $REPLACED | sed 's/ /|/g; s/_/[-_]/g'))\\.ko"
	awk -F: -v re="$re" '$2 ~ re && $1 !~ re { print $1 }' "$MODS/modules.dep" |
		sed 's|.*/||; s|\.ko.*||'
}

# load_all: modprobe each dependent module; every one loads.
load_all() {
	local m bad=0 n=0

	for m in $(dependents); do
		n=$((n + 1))
		modprobe "$m" 2> "/tmp/modprobe-$m.err" ||
			{ echo "  $m: $(cat "/tmp/modprobe-$m.err")"; bad=$((bad + 1)); }
	done
	echo "  $n modules, $bad did not load"
	[ "$n" -gt 0 ] && [ $bad = 0 ]
}

# old_name FILE: linux written to FILE reads back as builtin; FILE's value
# is put back.
old_name() {
	local was rc=0

	read -r was < "$1"
	echo linux > "$1" && [ "$(cat "$1")" = builtin ] || rc=1
	echo "$was" > "$1"
	return $rc
}

dmesg_at=$(dmesg | wc -l)
check "running the distribution's kernel, Linux $REL" [ -f "$MODS/modules.dep" ]
for m in $REPLACED; do
	if [ "$EXPECT" = ours ]; then
		check "$m: ours, from DKMS's updates/dkms" is_ours "$m"
		check "$m: built for Linux $REL (vermagic)" vermagic "$m"
	elif [ "$EXPECT" = hatch ]; then
		check "$m: ours installed, the distribution's loaded (roce_entropy.stock=1)" \
			hatch_loaded "$m"
	else
		check "$m: the distribution's own" is_distributions "$m"
	fi
done
if [ "$EXPECT" = ours ]; then
	check "ib_core has the roce_entropy parameter" test -e /sys/module/ib_core/parameters/roce_entropy
	check "rxea's port 1 has the knob" test -e /sys/class/infiniband/rxea/ports/1/roce_entropy
	# compat/0002: the name builtin had before 0.4.0
	check "the knob takes linux, the old name, as builtin" old_name \
		/sys/class/infiniband/rxea/ports/1/roce_entropy
	check "the parameter takes linux, the old name, as builtin" old_name \
		/sys/module/ib_core/parameters/roce_entropy
	if [ -f $CONF ]; then
		want=$(sed -n 's/^options ib_core roce_entropy=//p' $CONF)
		check "the default policy is /etc/modprobe.d's, $want" \
			grep -qx "$want" /sys/class/infiniband/rxea/ports/1/roce_entropy
	fi
else
	check "ib_core has no roce_entropy parameter" test ! -e /sys/module/ib_core/parameters/roce_entropy
	check "rxea's port 1 has no knob" test ! -e /sys/class/infiniband/rxea/ports/1/roce_entropy
fi
# status_root: a tree for roce-entropy status --root: this guest's /sys,
# /proc and modules, and the Debian root's records and DKMS state (the
# guest's other files are the host's).
status_root() {
	local t=/tmp/status-root

	rm -rf $t
	mkdir -p $t/var/lib $t/lib
	ln -s /sys $t/sys
	ln -s /proc $t/proc
	ln -s /lib/modules $t/lib/modules
	ln -s "$entropy_distroot/var/lib/roce-entropy" $t/var/lib/roce-entropy
	ln -s "$entropy_distroot/var/lib/dkms" $t/var/lib/dkms
	echo $t
}

# status_says JQ: roce-entropy status --json exits 0, and JQ holds of it.
status_says() {
	local out rc=0

	out=$("$TOOL" status --json --root "$(status_root)") || rc=$?
	echo "  exit $rc: $out" | cut -c1-400
	[ $rc = 0 ] && jq -e "$1" <<< "$out" > /dev/null
}

if [ "$EXPECT" = ours ] && [ -n "${entropy_distroot:-}" ] && [ -f $CONF ]; then
	check "roce-entropy status: ok, ib_core ours, rxea/1 at $want, Linux $REL installed" \
		status_says ".ok and .ib_core.ours and
			(.ib_core.build_id | length == 40) and
			(.kernels[] | select(.release == \"$REL\") | .record.build_id) == .ib_core.build_id and
			(.ports[] | select(.dev == \"rxea\" and .port == 1) | .policy == \"$want\") and
			(.kernels[] | select(.release == \"$REL\") | .installed and .record.state == \"installed\")"
fi
check "every module that depends on the replaced ones loads (modprobe)" load_all
check "no 'disagrees about version of symbol' nor 'Unknown symbol'" \
	bash -c "! dmesg | tail -n +$((dmesg_at + 1)) | grep -E 'disagrees about version|Unknown symbol'"
done_testing
