#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check's "Kconfig": what make modules makes of the top-level Kconfig
# (read_kconfig, with the test kernel's own kconfig program, and
# stage_src), in KTAP on stdout:
#   - the defaults: re-path and the KUnit suites on; for a distribution's
#     kernel (compat) re-path on and the KUnit suites off;
#   - a choice written in the .config (re-path off, the KUnit suites off)
#     survives a build; a kernel without KUnit turns the suites off
#     whatever the file says; compat turns re-path back on;
#   - re-path off stages the main series alone: no re-path in the source
#     the build compiles; on, it is there.
. "$(dirname "$0")/common.sh"

ksrc_init >&2
# shellcheck source=/dev/null # the kernel tree's
. "$KSRC/$KTAP_HELPERS"
CONF=$KBUILD/scripts/kconfig/conf
[ -x "$CONF" ] || die "no $CONF: run 'make kernel' first"

t=$(mktemp -d "${TMPDIR:-/tmp}/kconfig-check.XXXXXX")
trap 'rm -rf "$t"' EXIT
printf 'CONFIG_KUNIT=y\n' > "$t/kernel-kunit"
printf '# CONFIG_KUNIT is not set\n' > "$t/kernel-plain"

# expect NAME CONFIG COMPAT KERNEL REPATH KUNIT: read_kconfig on CONFIG
# gives those two values.
expect() {
	local got

	got=$(read_kconfig "$CONF" "$2" "$3" "$t/$4" && echo "repath=$CFG_REPATH kunit=$CFG_KUNIT")
	if [ "$got" = "repath=$5 kunit=$6" ]; then
		ktap_test_pass "$1"
	else
		echo "# got $got, want repath=$5 kunit=$6"
		ktap_test_fail "$1"
	fi
}

ktap_print_header
ktap_set_plan 8
expect "defaults against the test kernel: re-path and the KUnit suites" \
	"$t/a/.config" n kernel-kunit y y
expect "defaults for a distribution's kernel (compat): re-path, no KUnit suites" \
	"$t/b/.config" y kernel-plain y n
mkdir -p "$t/c"
printf '# CONFIG_ROCE_ENTROPY_REPATH is not set\n# CONFIG_ROCE_ENTROPY_KUNIT_TEST is not set\n' \
	> "$t/c/.config"
expect "a .config's re-path and KUnit suites off are kept" "$t/c/.config" n kernel-kunit n n
expect "... and kept again by the next build" "$t/c/.config" n kernel-kunit n n
mkdir -p "$t/d"
printf 'CONFIG_ROCE_ENTROPY_KUNIT_TEST=y\n' > "$t/d/.config"
expect "a kernel without KUnit builds no suites whatever the .config says" \
	"$t/d/.config" n kernel-plain y n
cp "$t/c/.config" "$t/e.config"
expect "compat/ sits on both series: it turns re-path back on" "$t/e.config" y kernel-kunit y n

stage_src "$t/src-rfc" >&2
stage_src "$t/src-main" no-repath >&2
if grep -qs rdma_repath "$t/src-rfc/drivers/infiniband/core/roce_entropy.c"; then
	ktap_test_pass "re-path on: the staged source has it"
else
	ktap_test_fail "re-path on: the staged source has it"
fi
if ! grep -rqs rdma_repath "$t/src-main/drivers/infiniband" "$t/src-main/include"; then
	ktap_test_pass "re-path off: the staged source is the main series alone"
else
	ktap_test_fail "re-path off: the staged source is the main series alone"
fi
ktap_finished
