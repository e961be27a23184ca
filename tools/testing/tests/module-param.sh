#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib_core.roce_entropy, the default policy, which every port not set on its
# own follows:
# - a value that names no policy at load time (a typo in modprobe.d) does
#   not stop ib_core from loading: it is reported once and the default
#   (builtin) stays;
# - a value written at run time applies at once to the ports no one set,
#   those of devices registered before included; a port set on its own
#   keeps its policy;
# - a device that registers again (rxe deleted and re-added) follows the
#   parameter, not the policy its previous self had.
# ib_core.roce_repath (off, on) is given the same treatment beside it.
# Ends with the stack loaded and rxea, rxeb up at the default, as it began.
#
# The parameters are compat/0002's, the DKMS build's: dist-more runs it on
# Debian's kernel with DKMS's build, with the opt-in line hidden
# (ENTROPY_DIST_OPTIN=0), since it starts from the default, builtin.
STACKS="compat dist"
CPUS=1
requires() {
	_have_module_param ib_core roce_entropy
}
. "$entropy_repo/tools/testing/lib.sh"

PARAM=/sys/module/ib_core/parameters/roce_entropy
RPARAM=/sys/module/ib_core/parameters/roce_repath
REPATH_A=/sys/class/infiniband/rxea/ports/1/roce_repath
REPATH_B=/sys/class/infiniband/rxeb/ports/1/roce_repath
KNOB_A=/sys/class/infiniband/rxea/ports/1/roce_entropy
KNOB_B=/sys/class/infiniband/rxeb/ports/1/roce_entropy

reads() { [ "$(cat "$1")" = "$2" ]; }

# reload PARAM...: the stack unloaded, loaded with ib_core PARAMs, and the
# standard topology's devices made again.
reload() {
	vm_unload_stack && vm_load_stack "$@" && vm_rxe_links
}

dmesg_at=$(dmesg | wc -l)
warned() {
	dmesg | tail -n +"$((dmesg_at + 1))" |
		grep -F "ib_core: roce_entropy=bogus is not a policy (builtin, off, rfc, mix): using builtin"
}
warned_repath() {
	dmesg | tail -n +"$((dmesg_at + 1))" |
		grep -F "ib_core: roce_repath=bogus is not a setting (off, on): using off"
}

check "ib_core loads with roce_entropy=bogus roce_repath=bogus" \
	reload roce_entropy=bogus roce_repath=bogus
check "... and says so in the kernel log, once" [ "$(warned | wc -l)" = 1 ]
check "... and keeps the default, builtin" reads $PARAM builtin
check "... which the new devices get" eval "reads $KNOB_A builtin && reads $KNOB_B builtin"
check "... re-path too: said once, off kept" \
	eval '[ "$(warned_repath | wc -l)" = 1 ] && reads $RPARAM off'
check "... which the new devices get" eval "reads $REPATH_A off && reads $REPATH_B off"

check "ib_core loads with roce_entropy=mix roce_repath=on" reload roce_entropy=mix roce_repath=on
check "... the parameter reads mix" reads $PARAM mix
check "... and the new devices get it" eval "reads $KNOB_A mix && reads $KNOB_B mix"
check "... re-path reads on, and the new devices get it" \
	eval "reads $RPARAM on && reads $REPATH_A on && reads $REPATH_B on"

step sh -c "echo off > $KNOB_A"
check "the parameter written at run time: rfc" sh -c "echo rfc > $PARAM && grep -qx rfc $PARAM"
check "... rxeb, registered before and never set, follows it at once" reads $KNOB_B rfc
check "... rxea, set on its own, keeps off" reads $KNOB_A off
check "rxea deleted and added again" vm_readd_rxe rxea a0
check "... follows the parameter (rfc), not its old policy (off)" reads $KNOB_A rfc
step sh -c "echo mix > $KNOB_B"
check "... and rxeb, set on its own now, keeps mix when the parameter changes" \
	eval "echo off > $PARAM && reads $KNOB_B mix && reads $KNOB_A off"
step sh -c "echo rfc > $PARAM"
check "a bad value written at run time is refused" \
	bash -c "! echo bogus > $PARAM && grep -qx rfc $PARAM"
step sh -c "echo on > $REPATH_A"
step sh -c "echo off > $RPARAM"
check "re-path off in the parameter: rxeb, never set, follows; rxea, set on, keeps on" \
	eval "reads $REPATH_A on && reads $REPATH_B off"
check "rxea deleted and added again follows it (off)" \
	eval "vm_readd_rxe rxea a0 && reads $REPATH_A off && reads $REPATH_B off"
check "a bad re-path value written at run time is refused" \
	bash -c "! echo bogus > $RPARAM && grep -qx off $RPARAM"

check "back to the default" reload
check "... builtin everywhere" eval "reads $PARAM builtin && reads $KNOB_A builtin && reads $KNOB_B builtin"
check "... re-path off everywhere" eval "reads $RPARAM off && reads $REPATH_A off && reads $REPATH_B off"
check "no kernel report" kernel_reports "$dmesg_at"
done_testing
