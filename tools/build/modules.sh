#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the RDMA stack out of tree: the kernel's drivers/infiniband and
# include/rdma, our files, our series; make M= against the test kernel.
. "$(dirname "$0")/common.sh"

MODULES="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe mlx5_ib
	roce_entropy_test"

ksrc_init
[ -f "$KBUILD/.built-ok" ] || die "no test kernel in $KBUILD: run 'make kernel' first"

stage_src
sync_tree "$BUILD/src" "$BUILD/tree"

say "building modules in $BUILD/tree/drivers/infiniband"
start=$SECONDS
make -s -C "$KBUILD" M="$BUILD/tree/drivers/infiniband" -j"$JOBS" \
	NOSTDINC_FLAGS="-nostdinc -I$BUILD/tree/include" \
	CONFIG_INFINIBAND_ROCE_ENTROPY_KUNIT_TEST=m ${W:+W=$W} ${C:+C=$C} \
	modules

rm -rf "$BUILD/modules"
mkdir -p "$BUILD/modules"
for m in $MODULES; do
	ko=$(find "$BUILD/tree/drivers/infiniband" -name "$m.ko" | head -n 1)
	[ -n "$ko" ] || die "$m.ko was not built"
	cp "$ko" "$BUILD/modules/"
done
say "modules in $BUILD/modules ($((SECONDS - start)) s):" $MODULES
