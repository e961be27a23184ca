#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The opt-in examples the package ships (/usr/share/doc/roce-entropy-dkms/
# examples), at work as an operator copies them to /etc:
# - tools/packaging/roce-entropy.conf, read by modprobe: ib_core loads with
#   the example's opt-in policy (rfc), which new devices get;
# - tools/packaging/70-roce-entropy.rules: its example rule, made active
#   for rxea port 1 with policy off, sets that port each time rxea
#   registers while udevd runs, and no other port.
# Ends with the stack loaded as vm_load_stack does and rxea, rxeb at the
# default, as it began.  On a distribution kernel modprobe takes ours from
# its own module tree, where DKMS put them.
#
# The example's option is ib_core's parameter, compat/0002's: dist-more
# runs it on Debian's kernel with DKMS's build, with the opt-in line
# hidden (ENTROPY_DIST_OPTIN=0), since it starts from the default, builtin.
STACKS="compat dist"
CPUS=1
requires() {
	_have_module_param ib_core roce_entropy
	_have_program udevadm /lib/systemd/systemd-udevd
}
. "$entropy_repo/tools/testing/lib.sh"

CONF=$entropy_repo/tools/packaging/roce-entropy.conf
RULES=$entropy_repo/tools/packaging/70-roce-entropy.rules
PARAM=/sys/module/ib_core/parameters/roce_entropy
KNOB_A=/sys/class/infiniband/rxea/ports/1/roce_entropy
KNOB_B=/sys/class/infiniband/rxeb/ports/1/roce_entropy
MODROOT=/tmp/persist-modroot
REL=$(uname -r)
MODPROBE_ROOT=(-d "$MODROOT")
[ "${entropy_dist:-0}" = 0 ] || MODPROBE_ROOT=()

reads() { [ "$(cat "$1")" = "$2" ]; }

# modroot: the test kernel's module tree (links) with our modules in the
# places of the kernel's own, for modprobe -d.
modroot() {
	local m f

	rm -rf $MODROOT
	mkdir -p $MODROOT/lib/modules
	cp -as "$entropy_modroot/lib/modules/$REL" $MODROOT/lib/modules/ || return 1
	for m in $RDMA_MODULES; do
		f=$(find $MODROOT/lib/modules/$REL -name "$m.ko") || return 1
		[ -n "$f" ] || { echo "  $m.ko is not in the test kernel's modules"; return 1; }
		rm "$f" && cp "$entropy_modules/$m.ko" "$f" || return 1
	done
	step depmod -b $MODROOT "$REL"
}

# load_with_conf: the stack loaded by modprobe, with the shipped file as
# modprobe's only configuration; the ib_core loaded is ours.
load_with_conf() {
	step modprobe "${MODPROBE_ROOT[@]}" -C "$CONF" -a $RDMA_MODULES && module_is_ours ib_core
}

# udevd_start / udevd_stop: systemd-udevd for the rules in /run/udev.
udevd_start() {
	step /lib/systemd/systemd-udevd --daemon --resolve-names=never &&
		wait_for 10 udevadm control --ping
}

udevd_stop() {
	udevadm control --exit
	wait_for 10 bash -c '! pgrep -x systemd-udevd'
}

# readd_and_settle: rxea registers again, and udevd has handled its events.
readd_and_settle() {
	vm_readd_rxe rxea a0 && step udevadm settle --timeout=30
}

dmesg_at=$(dmesg | wc -l)
[ "${entropy_dist:-0}" = 1 ] || check "our modules in a module tree for modprobe" modroot
check "the stack unloaded" vm_unload_stack
check "modprobe with the shipped roce-entropy.conf loads the stack" load_with_conf
check "... ib_core's parameter is the example's opt-in, rfc" reads $PARAM rfc
check "... and new devices get it" eval "vm_rxe_links && reads $KNOB_A rfc && reads $KNOB_B rfc"

# Under its own name: a file of the same name in the host's /etc (an
# operator's copy of 70-roce-entropy.rules) would hide one in /run.
mkdir -p /run/udev/rules.d
sed -n 's/^#\(ACTION==.*\)$/\1/p' "$RULES" | sed 's/"mlx5_0"/"rxea"/; s/="mix"$/="off"/' \
	> /run/udev/rules.d/71-roce-entropy-test.rules
echo "  the rule: $(cat /run/udev/rules.d/71-roce-entropy-test.rules)"
check "the shipped rules file has one example rule, for mlx5_0 port 1" \
	grep -qx 'ACTION=="add|move", SUBSYSTEM=="infiniband", KERNEL=="rxea", ATTR{ports/1/roce_entropy}="off"' \
	/run/udev/rules.d/71-roce-entropy-test.rules
check "udevd runs with it" udevd_start
check "rxea registers again" readd_and_settle
check "... the rule set its port 1 to off" wait_for 10 reads $KNOB_A off
check "... rxeb, which no rule names, keeps rfc" reads $KNOB_B rfc
step sh -c "echo mix > $KNOB_A"
check "set by hand to mix, rxea registers again" readd_and_settle
check "... and the rule sets off again" wait_for 10 reads $KNOB_A off
check "udevd stops" udevd_stop
rm -f /run/udev/rules.d/71-roce-entropy-test.rules

check "back to the default" eval "vm_unload_stack && vm_load_stack && vm_rxe_links"
check "... builtin everywhere" eval "reads $PARAM builtin && reads $KNOB_A builtin && reads $KNOB_B builtin"
check "no kernel report" kernel_reports "$dmesg_at"
rm -rf $MODROOT
done_testing
