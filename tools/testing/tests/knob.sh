#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The roce_entropy and roce_repath sysfs knobs, and where the build has
# them (compat/, the DKMS build's source) ib_core's roce_entropy and
# roce_repath parameters: good values read back, bad ones are refused and
# change nothing.  The upstream series has no module parameters and
# refuses "linux"; compat/ takes it as builtin.
#
# What counts as bad follows sysfs_match_string(): the whole write must be
# "builtin", "off", "rfc" or "mix", with at most one trailing newline ("rfc\n" is
# "rfc"; "rfc\n\n", "rfc ", "rfcx", "rf", " rfc", "RFC" are not).  The
# store method refuses a NUL anywhere in the write.  kernfs hands the store
# method at most one page, so a longer write is judged by its first 4 KiB.
# A zero-length write(2) never reaches the store method (sysfs_kf_write()
# returns 0): it succeeds, writes nothing and changes nothing; the shell's
# "echo > knob" writes "\n", which is refused.
#
# "default" is no policy: it makes a port set on its own follow the
# default policy (or re-path setting) again, as a port no one set; reading
# then gives the policy the default names, whatever it becomes.  The same
# rules hold for it ("default\n" is "default"; "defaults", "Default",
# "default " are refused and change nothing).
#
# On every build of ours.  On Debian's kernel (dist-more) it meets what
# only the DKMS build has, ib_core's parameters (compat/0002) and the old
# name (compat/0003), with the opt-in line hidden (ENTROPY_DIST_OPTIN=0): it
# starts from the default, builtin.
STACKS="ours compat dist"
CPUS=1
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

KNOB_A=/sys/class/infiniband/rxea/ports/1/roce_entropy
KNOB_B=/sys/class/infiniband/rxeb/ports/1/roce_entropy
PARAM=/sys/module/ib_core/parameters/roce_entropy
REPATH_A=/sys/class/infiniband/rxea/ports/1/roce_repath
REPATH_B=/sys/class/infiniband/rxeb/ports/1/roce_repath
REPATH_PARAM=/sys/module/ib_core/parameters/roce_repath
PARAMS=()
[ ! -e $PARAM ] || PARAMS=("$PARAM" "$REPATH_PARAM")

reads() { [ "$(cat "$1")" = "$2" ]; }

# sysfs_write FILE VALUE: one write(2) of VALUE (backslash escapes allowed);
# a failure prints the errno's name and exits 1.  Opening FILE fails the
# same way.  One python3 does every write (starting one per write costs
# about a second in the VM): it reads "FILE<tab>VALUE" lines and answers
# each with one line, "0 ..." or "1 ...".
coproc WRITER {
	python3 -u -c '
import errno, os, sys
for line in sys.stdin:
    path, value = line.rstrip("\n").split("\t", 1)
    data = value.encode().decode("unicode_escape").encode("latin-1")
    more = "..." if len(data) > 16 else ""
    shown = f"{data[:16]!r}{more} ({len(data)} bytes)"
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            n = os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as e:
        print(f"1  write({shown}): {errno.errorcode[e.errno]} ({e.strerror})")
        continue
    print(f"0  write({shown}) = {n}")
'
}

sysfs_write() {
	local line

	printf '%s\t%s\n' "$1" "$2" >&"${WRITER[1]}"
	IFS= read -r line <&"${WRITER[0]}" || { echo "  the writer process died"; return 1; }
	echo "${line:1}"
	[ "${line:0:1}" = 0 ]
}

# snapshot: every policy and re-path value the knob tests can touch.
snapshot() {
	cat $KNOB_A $KNOB_B $REPATH_A $REPATH_B "${PARAMS[@]}" | paste -sd' '
}

# write_ok FILE VALUE EXPECT: the write succeeds and reads back EXPECT.
write_ok() {
	sysfs_write "$1" "$2" && reads "$1" "$3"
}

# write_refused FILE VALUE [ERRNO]: the write fails with ERRNO (default
# EINVAL) and no policy changes, on either port or in the parameter.
write_refused() {
	local old out want=${3:-EINVAL}

	old=$(snapshot)
	if out=$(sysfs_write "$1" "$2"); then
		echo "$out"
		echo "  write of '$2' to $1 was accepted"
		return 1
	fi
	echo "$out"
	case $out in
	*": $want ("*) ;;
	*) echo "  expected $want"; return 1 ;;
	esac
	[ "$(snapshot)" = "$old" ] || { echo "  policies were '$old', now '$(snapshot)'"; return 1; }
}

# write_empty FILE: a zero-length write returns 0 and changes nothing.
write_empty() {
	local old out

	old=$(snapshot)
	out=$(sysfs_write "$1" '') || { echo "$out"; return 1; }
	echo "$out"
	case $out in *") = 0") ;; *) return 1 ;; esac
	[ "$(snapshot)" = "$old" ]
}

# as_nobody CMD...: CMD as user nobody.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# without_net_admin CMD...: CMD as root without CAP_NET_ADMIN (capsh
# --drop: its bounding set, so no exec gets it back).
without_net_admin() {
	capsh --drop=cap_net_admin -- -c 'exec "$0" "$@"' "$@"
}

# refused_as WHO ERRNO FILE VALUE: WHO (as_nobody, without_net_admin)
# cannot write VALUE to FILE: the open or the write fails with ERRNO, and
# no policy changes.
refused_as() {
	local old out who=$1 want=$2

	old=$(snapshot)
	if out=$("$who" python3 - "$3" "$4" "$who" <<'PY'
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
    os.write(fd, sys.argv[2].encode())
except OSError as e:
    print(f"  {sys.argv[3]}: {errno.errorcode[e.errno]} ({e.strerror})")
    sys.exit(1)
print(f"  {sys.argv[3]}: the write was accepted")
PY
	); then
		echo "$out"
		return 1
	fi
	echo "$out"
	case $out in *": $want ("*) ;; *) return 1 ;; esac
	[ "$(snapshot)" = "$old" ]
}

# as_nobody_refused FILE: user nobody cannot open FILE for writing (EACCES),
# and nothing changes.  setpriv itself must work, or the check proves
# nothing.
as_nobody_refused() {
	[ "$(as_nobody id -u)" = 65534 ] || { echo "  setpriv does not work"; return 1; }
	refused_as as_nobody EACCES "$1" off
}

# no_net_admin_refused FILE VALUE: root without CAP_NET_ADMIN cannot write
# VALUE to FILE, which it can open: EPERM, the privilege rdma netlink's
# set asks, and nothing changes.  The shell must have lost the capability,
# and be root, or the check proves nothing.
no_net_admin_refused() {
	if without_net_admin capsh --has-p=cap_net_admin > /dev/null 2>&1 ||
		[ "$(without_net_admin id -u)" != 0 ]; then
		echo "  capsh --drop=cap_net_admin did not give a root shell without it"
		return 1
	fi
	refused_as without_net_admin EPERM "$1" "$2"
}

# ports_are DEV N...: DEV's ports directory holds exactly ports N...
ports_are() {
	local dev=$1

	shift
	[ "$(ls /sys/class/infiniband/"$dev"/ports | paste -sd' ')" = "$*" ]
}

# no_port_write DEV: the shell's "echo rfc > ports/roce_entropy" (O_CREAT)
# fails, creates no file and changes nothing.
no_port_write() {
	local old f=/sys/class/infiniband/$1/ports/roce_entropy

	old=$(snapshot)
	if (echo rfc > "$f") 2>/tmp/no-port.err; then
		echo "  $f was written"
		return 1
	fi
	echo "  $(cat /tmp/no-port.err)"
	[ ! -e "$f" ] && ports_are "$1" 1 && [ "$(snapshot)" = "$old" ]
}

long=$(head -c 4096 /dev/zero | tr '\0' x)
long_valid="rfc\\n$(head -c 4092 /dev/zero | tr '\0' ' ')"
longer=$(head -c 8192 /dev/zero | tr '\0' x)

check "default policy is builtin (6.12's) on rxea" reads $KNOB_A builtin
check "default policy is builtin (6.12's) on rxeb" reads $KNOB_B builtin
if [ ${#PARAMS[@]} = 0 ]; then
	check "ib_core has no roce_entropy or roce_repath parameter (upstream)" \
		test ! -e $PARAM -a ! -e $REPATH_PARAM
else
	check "module parameter default is builtin" reads $PARAM builtin
fi
check "knob is root-writable only (0644 root)" \
	[ "$(stat -c '%a %U' $KNOB_A)" = "644 root" ]
check "write mix" write_ok $KNOB_A mix mix
check "write off with newline" write_ok $KNOB_A 'off\n' off
check "write rfc" write_ok $KNOB_A rfc rfc
check "write builtin" write_ok $KNOB_A 'builtin\n' builtin
check "ports are independent" reads $KNOB_B builtin

# set_default POLICY: the default policy, ib_core's parameter where the
# build has it (compat/), rdma netlink otherwise.
set_default() {
	if [ ${#PARAMS[@]} != 0 ]; then
		sysfs_write $PARAM "$1"
	else
		"$TOOL" policy default "$1"
	fi
}

# both_read A B: rxea's knob reads A, rxeb's (never set here) B.
both_read() {
	echo "  rxea $(cat $KNOB_A), rxeb $(cat $KNOB_B)"
	reads $KNOB_A "$1" && reads $KNOB_B "$2"
}

# rxeb follows the default through the checks below (a test before this
# one may have set it).
step write_ok $KNOB_B default builtin
check "write rfc, then default: the port reads the default, builtin" \
	eval 'write_ok $KNOB_A rfc rfc && write_ok $KNOB_A default builtin'
check "it follows a new default, mix, as rxeb (never set) does" \
	eval 'step set_default mix && both_read mix mix'
check "and the next one, off" eval 'step set_default off && both_read off off'
check "a port set to the default's policy (off) keeps it when the default changes" \
	eval 'write_ok $KNOB_A off off && step set_default rfc && both_read off rfc'
check "default with a newline: it follows the default again (rfc)" \
	eval 'write_ok $KNOB_A "default\n" rfc && step set_default mix && both_read mix mix'
check "default on a port that follows it already changes nothing" \
	eval 'write_ok $KNOB_A default mix && both_read mix mix'
step write_ok $KNOB_A rfc rfc
for bad in defaults Default DEFAULT 'default ' ' default' 'default\n\n' \
	'default\r\n' 'default\x00' 'def' 'default\nrfc'; do
	check "'$(printf %.12s "$bad")' refused, rxea keeps rfc" \
		eval 'write_refused $KNOB_A "$bad" && reads $KNOB_A rfc'
done
check "root without CAP_NET_ADMIN cannot write default (EPERM)" \
	no_net_admin_refused $KNOB_A default
check "still set on its own: a new default (off) does not reach it" \
	eval 'step set_default off && both_read rfc off'
check "default puts it back under the default, builtin again" \
	eval 'step set_default builtin && write_ok $KNOB_A default builtin &&
		both_read builtin builtin'
step write_ok $KNOB_A mix mix
check "unknown name refused" write_refused $KNOB_A bogus
check "empty write returns 0 and changes nothing" write_empty $KNOB_A
check "newline only refused" write_refused $KNOB_A '\n'
check "trailing garbage refused" write_refused $KNOB_A 'rfc x'
check "trailing garbage without a separator refused" write_refused $KNOB_A rfcx
check "trailing space refused" write_refused $KNOB_A 'rfc '
check "leading space refused" write_refused $KNOB_A ' rfc'
check "a prefix of a name refused" write_refused $KNOB_A rf
check "CR LF refused" write_refused $KNOB_A 'rfc\r\n'
check "two newlines refused" write_refused $KNOB_A 'rfc\n\n'
check "upper case refused" write_refused $KNOB_A RFC
check "a capitalised name refused" write_refused $KNOB_A Builtin
if [ ${#PARAMS[@]} = 0 ]; then
	check "linux, the DKMS package's old name, refused (upstream)" write_refused $KNOB_A linux
else
	check "linux, the DKMS package's old name, taken as builtin (compat/0003)" \
		eval 'write_ok $KNOB_A linux builtin && write_ok $KNOB_A mix mix'
fi
check "4 KiB string refused" write_refused $KNOB_A "$long"
check "4 KiB string that starts with a name refused" write_refused $KNOB_A "$long_valid"
check "8 KiB string refused" write_refused $KNOB_A "$longer"
check "binary bytes refused" write_refused $KNOB_A 'r\x00fc\xff'
check "NUL after the name refused" write_refused $KNOB_A 'rfc\x00x'
check "bytes above 0x7f refused" write_refused $KNOB_A '\xe2\x80\x8brfc'
check "non-root write refused" as_nobody_refused $KNOB_A
check "non-root write to the other port refused" as_nobody_refused $KNOB_B
[ ${#PARAMS[@]} = 0 ] ||
	check "non-root write to the module parameter refused" as_nobody_refused $PARAM
check "root without CAP_NET_ADMIN refused (EPERM), a good value" \
	no_net_admin_refused $KNOB_A rfc
check "root without CAP_NET_ADMIN refused (EPERM), a bad value" \
	no_net_admin_refused $KNOB_A bogus
[ ${#PARAMS[@]} = 0 ] ||
	check "root without CAP_NET_ADMIN: the module parameter refused (EPERM)" \
		no_net_admin_refused $PARAM rfc
check "value unchanged after refusals" reads $KNOB_A mix
check "rxea and rxeb have port 1 only" eval 'ports_are rxea 1 && ports_are rxeb 1'
check "missing port has no knob" [ ! -e /sys/class/infiniband/rxea/ports/2/roce_entropy ]
check "write to a missing port 2 fails" write_refused \
	/sys/class/infiniband/rxea/ports/2/roce_entropy rfc ENOENT
check "write to a missing port 0 fails" write_refused \
	/sys/class/infiniband/rxea/ports/0/roce_entropy rfc ENOENT
check "write without a port number fails and creates nothing" no_port_write rxea
check "value unchanged after writes to missing ports" reads $KNOB_A mix
if [ ${#PARAMS[@]} != 0 ]; then
	check "module parameter refuses bogus" write_refused $PARAM bogus
	check "module parameter accepts mix" write_ok $PARAM mix mix
	step write_ok $PARAM builtin builtin
fi
step write_ok $KNOB_A builtin builtin

# roce_repath, beside roce_entropy: off or on, the same rules.
check "re-path is off by default on rxea and rxeb (and in the parameter)" \
	eval 'reads $REPATH_A off && reads $REPATH_B off &&
		{ [ ${#PARAMS[@]} = 0 ] || reads $REPATH_PARAM off; }'
check "re-path knob is root-writable only (0644 root)" \
	[ "$(stat -c '%a %U' $REPATH_A)" = "644 root" ]
check "re-path: write on" write_ok $REPATH_A on on
check "re-path: write off with a newline" write_ok $REPATH_A 'off\n' off
check "re-path: write on with a newline" write_ok $REPATH_A 'on\n' on
check "re-path: ports are independent" reads $REPATH_B off
for bad in bogus '\n' On ON 1 yes true o onx 'on ' ' on' 'on\n\n' 'on\r\n' rfc \
	'on\x00' 'o\x00n' "$long"; do
	check "re-path: '$(printf %.12s "$bad")' refused, nothing changes" write_refused $REPATH_A "$bad"
done
check "re-path: empty write returns 0 and changes nothing" write_empty $REPATH_A
check "re-path: non-root write refused" as_nobody_refused $REPATH_A
check "re-path: root without CAP_NET_ADMIN refused (EPERM)" \
	no_net_admin_refused $REPATH_A off
[ ${#PARAMS[@]} = 0 ] ||
	check "re-path: root without CAP_NET_ADMIN: the parameter refused (EPERM)" \
		no_net_admin_refused $REPATH_PARAM on
[ ${#PARAMS[@]} = 0 ] ||
	check "re-path: non-root write to the parameter refused" as_nobody_refused $REPATH_PARAM
check "re-path: value unchanged after refusals" reads $REPATH_A on
check "re-path: a policy write leaves it alone" \
	eval "write_ok $KNOB_A rfc rfc && reads $REPATH_A on && write_ok $KNOB_A builtin builtin"
check "re-path: default makes the port follow the default again, off" \
	eval 'reads $REPATH_A on && write_ok $REPATH_A default off'
check "re-path: default with a newline, after on" \
	eval 'write_ok $REPATH_A on on && write_ok $REPATH_A "default\n" off'
step write_ok $REPATH_A on on
for bad in defaults Default 'default ' 'default\x00'; do
	check "re-path: '$(printf %.12s "$bad")' refused, it keeps on" \
		eval 'write_refused $REPATH_A "$bad" && reads $REPATH_A on'
done
check "re-path: root without CAP_NET_ADMIN cannot write default (EPERM)" \
	no_net_admin_refused $REPATH_A default
check "re-path: missing port has no knob" [ ! -e /sys/class/infiniband/rxea/ports/2/roce_repath ]
check "re-path: write to a missing port fails" write_refused \
	/sys/class/infiniband/rxea/ports/2/roce_repath on ENOENT
if [ ${#PARAMS[@]} != 0 ]; then
	check "re-path parameter refuses bogus" write_refused $REPATH_PARAM bogus
	check "re-path parameter accepts on" write_ok $REPATH_PARAM on on
	step write_ok $REPATH_PARAM off off
fi
step write_ok $REPATH_A off off
done_testing
