#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Far's side of two guests (vm/pair.sh): run what near's tests ask of it
# until near is done.  vm/pair.sh runs it on far, whatever near runs.
STACKS="dist-pair stock-dist-pair"
CPUS=1
requires() {
	_have_pair far
}
. "$entropy_repo/tools/testing/lib.sh"

check "far ran near's commands until near was done" far_agent
done_testing
