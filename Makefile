# SPDX-License-Identifier: GPL-2.0
#
# RoCE v2 entropy: out-of-tree build and tests against Linux 6.12.
# See README.md.  Every target installs what it is missing first.
#
#   make check            every test (what CI runs)
#   make check-debug      the VM tests on a KASAN/lockdep/kmemleak kernel (slow)
#   make demo             RoCE v2 over an 8-link ECMP router, per policy
#   make bench            what the entropy costs: rxe rates per policy, as ratios
#   make modules          build/modules/*.ko (W=1, C=1 passed to Kbuild)
#   make kernel           the QEMU test kernel, cached outside the repo
#   make lint             W=1 + sparse: no warnings in our or patched files
#   make tools            build/bin/roce-entropy, the C++ tool
#   make fuzz             libFuzzer on roce-entropy, FUZZ_SECONDS=30 per target
#   make kunit            the KUnit suites with kunit.py under QEMU
#   make vm-run SCRIPT=f  boot the test VM with our modules and run f
#   make hardening        VM: 4096 QP pairs, knob toggle storm, 20 module reloads
#   make patchset         build/patchset/: the series as git format-patch
#   make intree-check     git am each patch on pristine 6.12, build, checkpatch
#
# KSRC=<6.12 tree> overrides Debian's linux-source-6.12; CACHE=<dir> moves
# the cache (default $XDG_CACHE_HOME/roce-entropy).

SHELL := /bin/bash
TOOLS := tools/build

.PHONY: all deps kernel modules lint tools kunit vm-run check demo bench clean help \
	patchset intree-check fuzz hardening check-debug

all: modules

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@$(TOOLS)/deps.sh

kernel: deps
	@$(TOOLS)/kernel.sh

modules: kernel
	@W="$(W)" C="$(C)" $(TOOLS)/modules.sh

tools: deps
	@$(TOOLS)/tools.sh

fuzz: deps
	@$(TOOLS)/fuzz.sh $(or $(FUZZ_SECONDS),30)

lint: kernel
	@$(TOOLS)/lint.sh

kunit: deps
	@$(TOOLS)/kunit.sh

vm-run: modules
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=path/to/script" >&2; exit 2; }
	@tools/qemu/vm-run.sh $(SCRIPT)

patchset: deps
	@$(TOOLS)/patchset.sh

intree-check: kernel patchset
	@$(TOOLS)/intree-check.sh

check:
	@tools/check.sh

check-debug:
	@tools/check-debug.sh

demo: modules tools
	@tools/demo.sh

hardening: modules tools
	@VM_TIMEOUT=2400 tools/qemu/vm-run.sh tools/qemu/tests/many-qps.sh \
		tools/qemu/tests/storm.sh tools/qemu/tests/lifecycle.sh

bench: modules tools
	@tools/bench.sh

clean:
	rm -rf build
