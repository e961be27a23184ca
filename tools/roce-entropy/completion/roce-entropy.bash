# SPDX-License-Identifier: GPL-2.0
# bash completion for roce-entropy, roce-ping, roce-lab, roce-qps,
# roce-flows and rxe-wqe-av:
# subcommands, options, and the values of the options that take words.
# Installed once per program under share/bash-completion/completions/;
# tests/completion_test.cpp checks it against each program's --help.

# _roce_entropy_tools_opts PROG SUB: the options of PROG's subcommand SUB
# (SUB empty: of PROG itself), but -h, --help and --version, which all have.
_roce_entropy_tools_opts()
{
	case $1:$2 in
	roce-entropy:flow-label) echo "--policy --cm-ports --qpn --flow-label --json" ;;
	roce-entropy:udp-sport) echo "--flow-label --json" ;;
	roce-entropy:simulate)
		echo "--policy --scenario --switch-hash -n --connections -m --paths --trials" \
			"--offset --grid --svg --fabric --job --qps --connect --fabric-hash --json" ;;
	roce-entropy:pcap) echo "--policy --flow-label --port-flow-label --policy-for --json" ;;
	roce-entropy:audit) echo "--qp --cm-id --rdma --port-flow-label --base-sport --json" ;;
	roce-lab:ecmp-report) echo "--svg --failover-svg --stalls --output --json" ;;
	roce-lab:fabric-report) echo "--svg --output --against --json" ;;
	roce-entropy:status) echo "--root --json" ;;
	roce-entropy:policy | roce-entropy:policy-show | roce-entropy:policy-default | \
		roce-entropy:policy-repath) echo "--json" ;;
	roce-entropy:policy-set) echo "--json" ;;
	roce-entropy:qp) echo "--json" ;;
	roce-ping:server)
		echo "--bind --port --connections --size --close-at-once --messages" \
			"--qp-timeout --retry-count --keep-going --one-way" ;;
	roce-ping:client)
		echo "--bind --server --port --connections --messages --size --flow-label" \
			"--until --sport-base --cycles --timeout --close-at-once --expect-reject" \
			"--qp-timeout --retry-count --interval --keep-going --one-way --stall-min" \
			"--json" ;;
	roce-qps:)
		echo "--dev-a --dev-b --gid-a --gid-b --port --pairs --batch --size --policy" \
			"--timeout --transport --round-trips --json" ;;
	roce-flows:)
		echo "--cm --qps --bytes --message --depth --cm-port --ack-timeout --retry-count --timeout" \
			"--keep-going --started --json" ;;
	rxe-wqe-av:)
		echo "--send-dev --recv-dev --send-gid --recv-gid --dmac --av-port" \
			"--av-flow-label --av-sgid-index --timeout" ;;
	esac
}

# _roce_entropy_tools_policy CUR: after "roce-entropy policy": show, set,
# default or repath, then DEV/PORT (show, set), a policy (set, default) or
# a re-path setting (repath).
_roce_entropy_tools_policy()
{
	local i action='' args=0 words

	for ((i = 2; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		show | set | default | repath) [ -z "$action" ] && action=${COMP_WORDS[i]} || args=$((args + 1)) ;;
		*) args=$((args + 1)) ;;
		esac
	done
	words="$(_roce_entropy_tools_opts roce-entropy "policy${action:+-$action}") -h --help --version"
	if [[ $1 != -* ]]; then
		case $action:$args in
		:0) words="show set default repath $words" ;;
		show:0 | set:0)
			words="$words $(cd /sys/class/infiniband 2>/dev/null &&
				for p in */ports/*; do echo "${p%%/*}/${p##*/}"; done)" ;;
		set:1 | default:0) words="off rfc mix builtin" ;;
		repath:0) words="off on" ;;
		esac
	fi
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$1")
}

_roce_entropy_tools()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local prog=${COMP_WORDS[0]##*/} subs='' sub='' i words

	case $prog in
	roce-entropy) subs="flow-label udp-sport simulate pcap audit status policy qp" ;;
	roce-lab) subs="ecmp-report fabric-report" ;;
	roce-ping) subs="server client" ;;
	esac
	for ((i = 1; i < COMP_CWORD; i++)); do
		case " $subs " in
		*" ${COMP_WORDS[i]} "*)
			sub=${COMP_WORDS[i]}
			break
			;;
		esac
	done

	case $prev in
	--policy)
		words="off rfc mix builtin"
		[ "$sub" = simulate ] && words="$words rxe-legacy ideal"
		mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
		return
		;;
	--scenario)
		mapfile -t COMPREPLY < <(compgen -W "seq-ports random-ports seq-qpns offset-qpns
			stride8-qpns random-qpns" -- "$cur")
		return
		;;
	--switch-hash)
		mapfile -t COMPREPLY < <(compgen -W "crc16 crc32 xor jhash" -- "$cur")
		return
		;;
	--transport)
		mapfile -t COMPREPLY < <(compgen -W "rc ud" -- "$cur")
		return
		;;
	--job)
		mapfile -t COMPREPLY < <(compgen -W "perm a2a" -- "$cur")
		return
		;;
	--connect)
		mapfile -t COMPREPLY < <(compgen -W "cm qpn" -- "$cur")
		return
		;;
	--fabric-hash)
		mapfile -t COMPREPLY < <(compgen -W "ipv4 ipv6-label ipv6 dqp" -- "$cur")
		return
		;;
	--svg | --output | --against | --until | --qp | --cm-id | --rdma | --started)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	--root)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return
		;;
	--dev-a | --dev-b | --send-dev | --recv-dev)
		mapfile -t COMPREPLY < <(compgen -W "$(ls /sys/class/infiniband 2>/dev/null)" \
			-- "$cur")
		return
		;;
	--policy-for | --port-flow-label | --flow-label | --cm-ports | --qpn | --bind | --server | \
		--dmac | -n | --connections | -m | --paths | --trials | --offset | --port | --pairs | \
		--batch | --size | --timeout | --gid-a | --gid-b | --messages | --sport-base | \
		--cycles | --send-gid | --recv-gid | --av-port | --av-flow-label | --av-sgid-index | \
		--base-sport | --round-trips | --fabric | --qps | --bytes | --message | --depth | \
		--cm-port | --ack-timeout | --retry-count)
		return # a value of the user's own
		;;
	esac

	# policy's own subcommands, and the ports and policies they take
	if [ "$sub" = policy ]; then
		_roce_entropy_tools_policy "$cur"
		return
	fi

	words="$(_roce_entropy_tools_opts "$prog" "$sub") -h --help --version"
	[ -n "$subs" ] && [ -z "$sub" ] && words="$subs $words"
	if [[ $cur != -* ]] && { [ "$sub" = pcap ] || [ "$sub" = ecmp-report ] ||
		[ "$sub" = fabric-report ]; }; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur") # the capture, the demo's or fabric's result
		return
	fi
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _roce_entropy_tools roce-entropy roce-ping roce-lab roce-qps roce-flows rxe-wqe-av
