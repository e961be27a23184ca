#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The roce_entropy sysfs knob and the ib_core.roce_entropy parameter:
# good values read back, bad ones are refused and change nothing.
. "$rte_repo/tools/qemu/guest-lib.sh"

KNOB_A=/sys/class/infiniband/rxea/ports/1/roce_entropy
KNOB_B=/sys/class/infiniband/rxeb/ports/1/roce_entropy
PARAM=/sys/module/ib_core/parameters/roce_entropy

reads() { [ "$(cat "$1")" = "$2" ]; }

# sysfs_write FILE VALUE: one write(2) of VALUE (backslash escapes allowed).
sysfs_write() {
	python3 - "$1" "$2" <<'PY'
import os, sys
data = sys.argv[2].encode().decode('unicode_escape').encode('latin-1')
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    n = os.write(fd, data)
except OSError as e:
    print(f"  write({data!r}): {e.strerror}")
    sys.exit(1)
print(f"  write({data[:16]!r}{'...' if len(data) > 16 else ''}) = {n}")
PY
}

# write_ok FILE VALUE EXPECT: the write succeeds and reads back EXPECT.
write_ok() {
	sysfs_write "$1" "$2" && reads "$1" "$3"
}

# write_refused FILE VALUE: the write fails and the value stays.
write_refused() {
	local old

	old=$(cat "$1")
	if sysfs_write "$1" "$2"; then
		echo "  write of '$2' to $1 was accepted"
		return 1
	fi
	reads "$1" "$old"
}

# write_unchanged FILE VALUE: whatever the write returns, the value stays.
# (A zero-length write never reaches the store method.)
write_unchanged() {
	local old

	old=$(cat "$1")
	sysfs_write "$1" "$2"
	reads "$1" "$old"
}

as_nobody_refused() {
	local old

	old=$(cat "$1")
	if setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c "echo off > $1" 2>/dev/null; then
		return 1
	fi
	reads "$1" "$old"
}

long=$(head -c 4096 /dev/zero | tr '\0' x)

check "default policy is rfc on rxea" reads $KNOB_A rfc
check "default policy is rfc on rxeb" reads $KNOB_B rfc
check "module parameter default is rfc" reads $PARAM rfc
check "knob is root-writable only (0644 root)" \
	[ "$(stat -c '%a %U' $KNOB_A)" = "644 root" ]
check "write mix" write_ok $KNOB_A mix mix
check "write off with newline" write_ok $KNOB_A 'off\n' off
check "write rfc" write_ok $KNOB_A rfc rfc
check "ports are independent" reads $KNOB_B rfc
step write_ok $KNOB_A mix mix
check "unknown name refused" write_refused $KNOB_A bogus
check "empty write changes nothing" write_unchanged $KNOB_A ''
check "newline only refused" write_refused $KNOB_A '\n'
check "trailing garbage refused" write_refused $KNOB_A 'rfc x'
check "two newlines refused" write_refused $KNOB_A 'rfc\n\n'
check "upper case refused" write_refused $KNOB_A RFC
check "4 KiB string refused" write_refused $KNOB_A "$long"
check "binary bytes refused" write_refused $KNOB_A 'r\x00fc\xff'
check "NUL after the name refused" write_refused $KNOB_A 'rfc\x00x'
check "non-root write refused" as_nobody_refused $KNOB_A
check "value unchanged after refusals" reads $KNOB_A mix
check "missing port has no knob" [ ! -e /sys/class/infiniband/rxea/ports/2/roce_entropy ]
check "module parameter refuses bogus" write_refused $PARAM bogus
check "module parameter accepts mix" write_ok $PARAM mix mix
step write_ok $KNOB_A rfc rfc
step write_ok $PARAM rfc rfc
done_testing
