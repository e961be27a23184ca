#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the RDMA stack out of tree: the kernel's drivers/infiniband and
# include/rdma, our files, our series; make M= against the test kernel.
# Into build/ ($MODBUILD), or build/debug with RTE_DEBUG=1 (the debug kernel).
. "$(dirname "$0")/common.sh"

ksrc_init
[ -f "$KBUILD/.built-ok" ] || die "no test kernel in $KBUILD: run 'make kernel' first"

stage_src "$MODBUILD/src"
sync_tree "$MODBUILD/src" "$MODBUILD/tree"

say "building modules in $MODBUILD/tree/drivers/infiniband"
start=$SECONDS
make -s -C "$KBUILD" M="$MODBUILD/tree/drivers/infiniband" -j"$JOBS" \
	NOSTDINC_FLAGS="-nostdinc -I$MODBUILD/tree/include" \
	CONFIG_INFINIBAND_ROCE_ENTROPY_KUNIT_TEST=m ${W:+W=$W} ${C:+C=$C} \
	modules

collect_modules "$MODBUILD/tree" "$MODBUILD/modules"
say "modules in $MODBUILD/modules ($((SECONDS - start)) s):" $MODULES
