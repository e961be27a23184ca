# SPDX-License-Identifier: GPL-2.0
#
# RoCE v2 entropy: out-of-tree build and tests against Linux 6.12.
# See README.md.  Every target installs what it is missing first.
#
#   make demo             RoCE v2 over an 8-link ECMP router, per policy
#   make check            every test (what CI runs); DEBUG=1: the VM rows on a
#                         KASAN/lockdep/kmemleak kernel; DEBUG=kcsan: on a
#                         KCSAN kernel; ROWS="a b": these VM rows only;
#                         QUICK=1: a first run (KUnit, the
#                         knob, the wire, NVMe over RDMA)
#                         (tools/testing/runs); its jobs: tools/testing/check.mk
#   make row-NAME         row NAME of tools/testing/runs alone, on the test
#                         kernel with build/modules (make modules tools iproute2)
#   make modules          build/modules/*.ko (W=1, C=1 passed to Kbuild);
#                         KDIR=/lib/modules/<release>/build: against that
#                         installed 6.12 kernel, into build/kdir/<release>/;
#                         COMPAT=1: with compat/, into build/modules-compat
#   make oldconfig        ask for the top-level Kconfig's new options
#                         (KUnit suites, re-path) in build/.config, which
#                         make modules reads; edit it by hand as well
#   make lint             shellcheck on every shell script (make check's first step)
#   make series-check     each patch of both series on pristine 6.12: git am,
#                         W=1 + sparse, checkpatch, get_maintainer (KTAP)
#   make patchset         build/patchset/: the series as git format-patch,
#                         the RFC series in build/patchset/rfc/, signed
#                         with your git identity (PATCHSET_SIGNER=)
#   make series-edit      build/edit: the three series as git commits on
#                         pristine 6.12, to edit with git (EDIT=dir)
#   make series-export    build/edit's commits back into patches/, compat/
#                         and the new files (README: Changing the kernel code)
#   make src              build/src: the kernel's directories as both series
#                         leave them (COMPAT=1: with compat/ too)
#   make final            build/final: the project's own files (include/,
#                         drivers/, Documentation/) as both series leave
#                         them, the code that runs; no kernel tree needed
#   make tools            build/bin/: roce-entropy, roce-ping, roce-qps, roce-flows, rxe-wqe-av
#   make iproute2         build/iproute2/rdma: Debian's iproute2 with the
#                         patches of tools/iproute2 (rdma link/system/res)
#   make rdma-core        Debian's rdma-core with the patches of
#                         tools/rdma-core (mlx5, hns UD sends) and their tests
#   make kunit            the KUnit suites with kunit.py under QEMU
#   make fuzz             libFuzzer on roce-entropy, FUZZ_SECONDS=30 per target
#   make bench            what the entropy costs: rxe rates per policy, as ratios
#   make fabric           job completion time on a leaf-spine fabric in the VM,
#                         per policy, against stock 6.12 and the ideal
#   make deb              build/deb/: roce-entropy-dkms and roce-entropy-tools
#                         (debhelper, lintian-clean), for a host:
#                         apt install ./build/deb/roce-entropy-*_<version>_*.deb
#   make kernel           the QEMU test kernel, cached outside the repo
#   make mainline-src     the mainline tree patches/mainline-base pins
#                         (Debian's linux-source-7.3), fetched once into the cache
#   make vm-run SCRIPT=f  boot the test VM with our modules and run f
#
# KSRC=<6.12 tree> overrides Debian's linux-source-6.12; CACHE=<dir> moves
# the cache (default $XDG_CACHE_HOME/roce-entropy).

SHELL := /bin/bash
TOOLS := tools/buildlib
BUILD := build

.PHONY: deb dkms-build all deps deps-tools deps-fuzz deps-deb kernel modules tools kunit vm-run check check-debug demo bench fabric \
	clean help patchset series-check fuzz iproute2 rdma-core series-edit series-export src final lint oldconfig mainline-src

all: modules

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@$(TOOLS)/deps.sh

# The C++ tools' own packages only (no kernel source, QEMU or clang).
deps-tools deps-fuzz deps-deb:
	@$(TOOLS)/deps.sh $(@:deps-%=%)

kernel: deps
	@$(TOOLS)/kernel.sh

mainline-src: deps
	@$(TOOLS)/mainline-src.sh

# KDIR=/lib/modules/<release>/build: against that installed 6.12 kernel
# (no test kernel, no package installs: what DKMS runs).
modules: $(if $(KDIR),,kernel)
	@KDIR="$(KDIR)" W="$(W)" C="$(C)" COMPAT="$(COMPAT)" $(TOOLS)/modules.sh

# What dkms.conf runs: make modules KDIR=, then the kABI gate: the build
# fails, and DKMS installs nothing, unless every CRC the kernel's modules
# expect of ours is kept.
dkms-build:
	@test -n "$(KDIR)" || { echo "usage: make dkms-build KDIR=/lib/modules/<release>/build" >&2; exit 2; }
	@KDIR="$(KDIR)" KDIR_WORK="$(KDIR_WORK)" $(TOOLS)/modules.sh
	@rel=$$(cat "$(KDIR)/include/config/kernel.release") && \
		$(TOOLS)/kabi-check.sh "$$rel" "$(BUILD)/kdir/$$rel/modules"

# The top-level Kconfig, asked with the test kernel's own kconfig.
oldconfig: kernel
	@. $(TOOLS)/common.sh && ksrc_init && mkdir -p $(BUILD)/kconfig && cd $(BUILD)/kconfig && \
		ENTROPY_COMPAT=n ENTROPY_KERNEL_KUNIT=y KCONFIG_CONFIG=$(CURDIR)/$(BUILD)/.config \
		$$KBUILD/scripts/kconfig/conf --oldconfig $(CURDIR)/Kconfig

tools: deps-tools
	@$(TOOLS)/tools.sh

iproute2: deps
	@$(TOOLS)/iproute2.sh

rdma-core: deps
	@$(TOOLS)/rdma-core.sh test

fuzz: deps-fuzz
	@$(TOOLS)/fuzz.sh $(or $(FUZZ_SECONDS),30)

kunit: deps
	@$(TOOLS)/kunit.sh

vm-run: modules
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path/to/script" >&2; exit 2; }
	@tools/testing/vm/run.sh $(SCRIPT)

patchset: deps
	@$(TOOLS)/patchset.sh

series-check: kernel
	@$(TOOLS)/series-check.sh

lint: deps
	@$(TOOLS)/lint.sh

series-edit: deps
	@$(TOOLS)/series.sh edit $(EDIT)

series-export:
	@$(TOOLS)/series.sh export $(EDIT)

src: deps
	@$(TOOLS)/series.sh src $(if $(COMPAT),compat)

final:
	@$(TOOLS)/series.sh final $(if $(COMPAT),compat)

check:
	@DEBUG="$(DEBUG)" QUICK="$(QUICK)" ROWS="$(ROWS)" tools/testing/check.sh

check-debug:
	@DEBUG=1 ROWS="$(ROWS)" tools/testing/check.sh

row-%: modules tools iproute2
	@tools/testing/row.sh run $*

demo: modules tools
	@tools/demo/demo.sh

bench: modules tools
	@tools/bench/bench.sh

fabric: modules tools
	@tools/fabric/run.sh

deb: deps-deb
	@$(TOOLS)/deb.sh

clean:
	@tools/testing/fleet.sh umount
	rm -rf build
