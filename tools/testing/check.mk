# SPDX-License-Identifier: GPL-2.0
#
# make check's scheduler: every job of make check and what it waits on.
# tools/testing/check.sh runs it between its host-state guard and its
# count, as make -j(VM_JOBS + 2): VM_JOBS guests (task.sh -v takes one of
# their slots; default 2: a TCG guest keeps about one host core busy, and a
# third made make check slower) and beside them two of the jobs that wait
# on apt, dpkg or the disk more than they compute (the fleet's kernel
# updates, the packages, libFuzzer at nice 10).  Each job is
# tools/testing/task.sh, which leaves $(L)/ID.rc, ID.time and ID.log: the
# file targets here.  A job's failure stops what waits on it only when it
# is a gate (task.sh -g: the test kernel, our modules, the tools); every
# other job's result is counted afterwards by check.sh.  The order of "all"
# is the order Make starts what is ready: what the guests need and the
# short stages, then the longest chain (the distribution kernel's) and the
# longest rows, so that the short ones fill the end.
#
# Given by check.sh: L (the logs), MODE (check, debug, kcsan or quick), MODBUILD,
# DIST (Debian's kernel release, the dist rows' kernel; empty: no dist
# rows), ROWS (only these rows; empty: all), DEMO (1: make demo and make
# fabric's smoke run), FUZZ_SECONDS.

REPO := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
T := $(REPO)/tools/testing
B := $(REPO)/tools/buildlib
BUILD := $(REPO)/build
TASK := LOGS=$(L) $(T)/task.sh

# rows STACK...: the rows of this mode on those stacks
rows = $(shell $(T)/row.sh list $(MODE) '$(ROWS)' $(1))
ROWS_OURS := $(call rows,@ours)
ROWS_DIST := $(if $(DIST),$(call rows,@dist))
ROWS_REMOVED := $(if $(DIST),$(call rows,@removed))
row = $(patsubst %,$(L)/vm-%.rc,$(1))

ifeq ($(MODE),check)
# What every guest needs: the series' modules, the tools, iproute2's rdma.
VMREADY := $(L)/series-check.rc $(L)/tools.rc $(L)/iproute2.rc
STAGES := $(L)/lint.rc $(L)/rdma-core.rc $(L)/series-roundtrip.rc \
	$(L)/cover.rc $(L)/kconfig.rc
FUZZ := $(L)/fuzz-capture.rc $(L)/fuzz-cli.rc
else
# debug, kcsan (the debug kernels) and quick: our modules built by make
# modules, the tools without their tests
VMREADY := $(L)/modules.rc $(L)/tools.rc $(L)/iproute2.rc
STAGES := $(L)/lint.rc
FUZZ :=
endif
DEMOS := $(if $(filter 1,$(DEMO)),$(L)/demo.rc $(L)/fabric.rc)
FLEET_JOBS := $(if $(DIST),$(L)/fleet-purge.rc)

all: $(VMREADY) $(STAGES) $(call row,$(ROWS_REMOVED)) $(FLEET_JOBS) \
	$(call row,$(ROWS_DIST)) $(DEMOS) $(call row,$(ROWS_OURS)) $(FUZZ)

# ---- before the guests ----
$(L)/deps.rc:
	@$(TASK) -g deps $(B)/deps.sh

# What make check must leave as it found it, once every package it needs
# is installed and before anything could change the host.
$(L)/host-before: $(L)/deps.rc
	@$(T)/host-state.sh > $@

$(L)/kernel.rc:
	@$(TASK) -g kernel $(B)/kernel.sh

$(L)/lint.rc:
	@$(TASK) -o lint.ktap -e lint.log lint $(B)/lint.sh

$(L)/rdma-core.rc: $(L)/deps.rc
	@$(TASK) -o rdma-core.ktap -e rdma-core.log rdma-core $(B)/rdma-core.sh test

# The C++ tools: a gate only when they were not built (a failed
# GoogleTest is counted, and the guests still run).
$(L)/tools.rc: $(L)/deps.rc
	@$(TASK) tools $(B)/tools.sh $(if $(filter check,$(MODE)),test)
	@test -x $(BUILD)/bin/roce-entropy || { echo "no build/bin/roce-entropy: $(L)/tools.log" >&2; exit 1; }

$(L)/series-check.rc: $(L)/kernel.rc
	@$(TASK) -g -o series.ktap -e series-check.log series-check $(B)/series-check.sh
	@test -f $(MODBUILD)/modules/ib_core.ko || { echo "no modules: $(L)/series-check.log" >&2; exit 1; }

$(L)/modules.rc: $(L)/kernel.rc
	@$(TASK) -g modules $(B)/modules.sh

$(L)/series-roundtrip.rc: $(L)/series-check.rc
	@$(TASK) -o series-roundtrip.ktap -e series-roundtrip.log series-roundtrip $(B)/series.sh check

$(L)/cover.rc: $(L)/series-check.rc
	@$(TASK) -o cover.ktap -e cover.log cover $(B)/cover-check.sh

$(L)/kconfig.rc: $(L)/series-check.rc
	@$(TASK) -o kconfig.ktap -e kconfig.log kconfig $(B)/kconfig-check.sh

$(L)/iproute2.rc: $(L)/kernel.rc
	@$(TASK) -g iproute2 $(B)/iproute2.sh

# ---- the guests ----
$(call row,$(ROWS_OURS)): $(L)/vm-%.rc: $(VMREADY) | $(L)/host-before
	@$(TASK) -v vm-$* $(T)/row.sh run $*

$(L)/demo.rc: $(VMREADY) | $(L)/host-before
	@$(TASK) -v demo env VM_CPUS=1 $(REPO)/tools/demo/demo.sh

$(L)/fabric.rc: $(VMREADY) | $(L)/host-before
	@$(TASK) -v fabric $(REPO)/tools/fabric/run.sh smoke

$(L)/fuzz-capture.rc: $(L)/tools.rc
	@$(TASK) -n fuzz-capture $(B)/fuzz.sh $(FUZZ_SECONDS) capture

$(L)/fuzz-cli.rc: $(L)/fuzz-capture.rc
	@$(TASK) -n fuzz-cli $(B)/fuzz.sh $(FUZZ_SECONDS) cli

# ---- the packages on an operator's host (a Debian root, never this one) ----
$(L)/deb.rc: $(L)/deps.rc | $(L)/host-before
	@$(TASK) deb $(B)/deb.sh

$(L)/deb-prev.rc: $(L)/deb.rc
	@$(TASK) deb-prev $(B)/deb.sh $(BUILD)/deb-prev "$$($(B)/version.sh)~prev" indep

$(L)/fleet-root.rc: $(L)/deps.rc | $(L)/host-before
	@$(TASK) fleet-root env LOGDIR=$(L) $(T)/fleet.sh root

$(L)/fleet-install.rc: $(L)/deb.rc $(L)/deb-prev.rc $(L)/fleet-root.rc
	@$(TASK) -o fleet-install.ktap fleet-install env LOGDIR=$(L) \
		$(T)/fleet.sh install $(BUILD)/deb $(BUILD)/deb-prev

# The guests, Debian's kernel's too, start once the series check is done:
# a guest beside it takes a CPU's share from make check's longest chain
# (the series check, then the rows of the test kernel): with two guests
# beside it, the series check reached patch 15 after 38 minutes, against
# 19 with none.
$(call row,$(ROWS_DIST)): $(L)/vm-%.rc: $(L)/fleet-install.rc $(VMREADY)
	@$(TASK) -v vm-$* env DIST=$(DIST) $(T)/row.sh run $*

# the kernel updates in a root over the first, the longest job: from the
# moment the first root is done, beside the series check (about 1.5 CPUs
# busy), which it needs nothing of
$(L)/fleet-updates.rc: $(L)/fleet-install.rc
	@$(TASK) -o fleet-updates.ktap fleet-updates env LOGDIR=$(L) $(T)/fleet.sh updates $(BUILD)/deb

$(L)/fleet-purge.rc: $(L)/fleet-updates.rc $(call row,$(ROWS_DIST))
	@$(TASK) -o fleet-purge.ktap fleet-purge env LOGDIR=$(L) $(T)/fleet.sh purge

$(call row,$(ROWS_REMOVED)): $(L)/vm-%.rc: $(L)/fleet-purge.rc
	@$(TASK) -v vm-$* env DIST=$(DIST) $(T)/row.sh run $*

.PHONY: all
