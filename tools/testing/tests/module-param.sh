#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ib_core.roce_entropy, the default policy of devices as they register:
# - a value that names no policy at load time (a typo in modprobe.d) does
#   not stop ib_core from loading: it is reported once and the default
#   (linux) stays;
# - a value written at run time applies to devices registered afterwards;
#   ports that exist keep their policy;
# - a device that registers again (rxe deleted and re-added) starts from
#   the parameter, not from the policy its previous self had.
# Ends with the stack loaded and rxea, rxeb up at the default, as it began.
. "$rte_repo/tools/testing/lib.sh"

PARAM=/sys/module/ib_core/parameters/roce_entropy
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
		grep -F "ib_core: roce_entropy=bogus is not a policy (linux, off, rfc, mix): using linux"
}

check "ib_core loads with roce_entropy=bogus" reload roce_entropy=bogus
check "... and says so in the kernel log, once" [ "$(warned | wc -l)" = 1 ]
check "... and keeps the default, linux" reads $PARAM linux
check "... which the new devices get" eval "reads $KNOB_A linux && reads $KNOB_B linux"

check "ib_core loads with roce_entropy=mix" reload roce_entropy=mix
check "... the parameter reads mix" reads $PARAM mix
check "... and the new devices get it" eval "reads $KNOB_A mix && reads $KNOB_B mix"

step sh -c "echo rfc > $KNOB_A"
check "the parameter written at run time: rfc" sh -c "echo rfc > $PARAM && grep -qx rfc $PARAM"
check "... leaves the ports that exist alone" eval "reads $KNOB_A rfc && reads $KNOB_B mix"
step sh -c "echo off > $KNOB_A"
check "rxea deleted and added again" vm_readd_rxe rxea a0
check "... starts from the parameter (rfc), not from its old policy (off)" reads $KNOB_A rfc
check "... and rxeb keeps its own" reads $KNOB_B mix
check "a bad value written at run time is refused" \
	bash -c "! echo bogus > $PARAM && grep -qx rfc $PARAM"

check "back to the default" reload
check "... linux everywhere" eval "reads $PARAM linux && reads $KNOB_A linux && reads $KNOB_B linux"
check "no kernel report" kernel_reports "$dmesg_at"
done_testing
