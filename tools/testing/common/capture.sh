# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Captures at the router, and the fields of their RoCE packets.  Needs CAPS
# and wait_for (base.sh).

# ---- captures ----
# In the router namespace on a1, which sees both directions of everything
# between rxea and rxeb exactly once.

# capture_start NAME [IFACE...]: capture RoCE v2 on r's IFACEs (default
# a1) into $CAPS/NAME.pcapng.
capture_start() {
	local ifs=() i

	CAP=$CAPS/$1.pcapng
	shift
	for i in "${@:-a1}"; do
		ifs+=(-i "$i")
	done
	rm -f "$CAP"
	ip netns exec r dumpcap -q "${ifs[@]}" -f 'udp port 4791' -w "$CAP" > /dev/null 2>&1 &
	CAP_PID=$!
	# a poll: long only when two guests and a build share the host's cores
	wait_for 60 test -s "$CAP"
	sleep 0.5 # dumpcap writes the file header before its filter is live
}

# capture_end: stop the capture.
capture_end() {
	sleep 0.5
	kill -INT "$CAP_PID"
	wait "$CAP_PID"
}

# capture_fields FIELD...: stop the capture and dissect it once with tshark
# for FIELDs; fields NAME... then gives them per RoCE packet.
capture_fields() {
	local args=() f

	capture_end
	CAP_FIELDS=$*
	for f in "$@"; do
		args+=(-e "$f")
	done
	tshark -r "$CAP" -Y infiniband -T fields -E separator='|' "${args[@]}" \
		> "$CAP.txt" 2>/dev/null
}

# fields FIELD...: one line per RoCE packet of $CAP, FIELDs (of those given
# to capture_fields) separated by spaces (empty ones dropped, as awk splits).
fields() {
	awk -F'|' -v want="$*" -v all="$CAP_FIELDS" '
		BEGIN { n = split(all, names, " "); for (i = 1; i <= n; i++) col[names[i]] = i
			m = split(want, w, " ") }
		{ line = ""; for (i = 1; i <= m; i++) line = line (i > 1 ? " " : "") $(col[w[i]]); print line }
	' "$CAP.txt"
}
