# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# A kernel consumer (ULP) in a mixed fleet, two guests (vm/pair.sh): the
# shape tests/mixed-nvme.sh and tests/mixed-nfs.sh share.  lib.sh does not
# load this file: those tests source it after lib.sh.
#
# Near runs our modules, far what lib.sh's ENTROPY_FAR says (pair_start).
# Both guests serve; under each of near's policies each guest's client,
# over IPv4 and IPv6, writes MB MiB of random data to the other's server
# and reads it back the same, in one capture, and judged_ulps judges every
# connection to the ULP's service port, each packet under its sender's
# policy.
#
# The test defines, before it calls mixed_ulp:
#   ulp_up     its checks that start the servers on both guests
#   ulp_down   its checks that stop them

MB=1

# mixed_ulp TAG POLICIES SVC MIN CLIENT SERVER WHAT IO...: the whole test,
# its last command (its status is done_testing's).
#   TAG       the captures' name: TAG-POLICY
#   POLICIES  near's policies, commas between
#   SVC MIN   the service port, and the fewest connections per client
#             (judged_ulps)
#   CLIENT    what a client is in the checks' names (host, client)
#   SERVER    what it writes to, in them: GUEST stands for near or far
#   WHAT      judged_ulps' name of a client's connections
#   IO...     the lib.sh function and its words that move the data, on
#             either guest: SERVER, CLIENT and MB stand for the server's
#             address, the client's and MB
mixed_ulp() {
	local tag=$1 policies=$2 svc=$3 min=$4 client=$5 server=$6 what=$7
	local dmesg_at p label moves who other fam s c w
	local io=()

	shift 7
	dmesg_at=$(dmesg | wc -l)
	if ! pair_start; then
		done_testing
		exit
	fi
	ulp_up
	for p in $(echo "$policies" | tr , ' '); do
		label="near under $p, far $FAR_KIND under $FAR_POLICY"
		check "near's rxea under $p" near_knobs "$p" || continue
		moves=$(repath_total rxea)
		capture_start "$tag-${p/+/-}"
		for who in near far; do
			for fam in 4 6; do
				# the client on WHO, the server on the other
				if [ $who = near ]; then
					other=far s=$B4 c=$A4
					[ $fam = 4 ] || s=$B6 c=$A6
				else
					other=near s=$A4 c=$B4
					[ $fam = 4 ] || s=$A6 c=$B6
				fi
				io=()
				[ $who = near ] || io=(remote)
				for w in "$@"; do
					case $w in
					SERVER) io+=("$s") ;;
					CLIENT) io+=("$c") ;;
					MB) io+=("$MB") ;;
					*) io+=("$w") ;;
					esac
				done
				check "IPv$fam, $label, $who's $client: $MB MiB written to ${server//GUEST/$other} and read back the same" \
					"${io[@]}"
			done
		done
		capture_end
		judged_ulps "$p" "$svc" "$min" "$label" "$what" \
			$(($(repath_total rxea) - moves))
	done
	step near_knobs builtin
	ulp_down
	check "no kernel report on near" kernel_reports "$dmesg_at"
	done_testing
}
