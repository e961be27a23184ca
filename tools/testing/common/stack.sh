# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The RDMA stack: which build of a module is loaded (ours or the kernel's
# own, and the ULPs rebuilt against the series' headers), the stack loaded
# and unloaded, an rxe device made again.  Needs step and wait_for
# (base.sh), and port_active, no_rdma_device and no_rdma_devices
# (connections.sh).

# vm_modprobe ARG...: modprobe from the booted kernel's own modules: the
# test kernel's module tree, or a distribution kernel's /lib/modules.
vm_modprobe() {
	if [ "${entropy_dist:-0}" = 1 ]; then
		modprobe "$@"
	else
		modprobe -d "$entropy_modroot" "$@"
	fi
}

# our_ko M: the file of our build of module M for the booted kernel: the
# run's build directory (build/modules, VM_MODULES=), or on a distribution
# kernel the file its modprobe takes.
our_ko() {
	if [ "${entropy_dist:-0}" = 1 ]; then
		modinfo -F filename "$1"
	else
		echo "$entropy_modules/$1.ko"
	fi
}

# module_is_ours M: the loaded module M is our build, out of tree (taint
# O): the srcversion of our_ko's file, or on a distribution kernel, whose
# modules record none (Debian's has no CONFIG_MODULE_SRCVERSION_ALL), a
# file DKMS installed.
module_is_ours() {
	local loaded built file

	file=$(our_ko "$1")
	grep -qE "^$1 .*\(O" /proc/modules || { echo "  $1: not loaded out of tree"; return 1; }
	if [ "${entropy_dist:-0}" = 1 ]; then
		echo "  $1: modprobe takes $file"
		[[ $file == /lib/modules/$(uname -r)/updates/dkms/* ]]
		return
	fi
	loaded=$(cat "/sys/module/$1/srcversion")
	built=$(modinfo -F srcversion "$file")
	echo "  $1: loaded srcversion $loaded, $file $built"
	[ -n "$loaded" ] && [ "$loaded" = "$built" ]
}

# ulps_rebuilt: the run's module tree has the kernel's other RDMA
# consumers built against the series' headers in updates/: run.sh gives
# only a run of the series that tree (not compat, stock or dist).
ulps_rebuilt() {
	[ -d "$entropy_modroot/lib/modules/$(uname -r)/updates" ]
}

# ulps_loaded_rebuilt: every loaded module that updates/ has is that
# build (srcversion), not the test kernel's own; prints how many.
ulps_loaded_rebuilt() {
	local ko m n=0 loaded built

	for ko in "$entropy_modroot/lib/modules/$(uname -r)"/updates/*.ko; do
		m=$(basename "$ko" .ko)
		m=${m//-/_}
		[ -d "/sys/module/$m" ] || continue
		loaded=$(cat "/sys/module/$m/srcversion" 2>/dev/null)
		built=$(modinfo -F srcversion "$ko")
		if [ "$loaded" != "$built" ]; then
			echo "  $m: loaded srcversion '$loaded', updates/ has $built"
			return 1
		fi
		n=$((n + 1))
	done
	echo "  $n loaded modules, each the build in updates/"
}

RDMA_MODULES="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe"

# vm_load_stack [PARAM...]: the RDMA stack, ours unless entropy_stock=1; PARAMs
# go to our ib_core (roce_entropy=...).  On a distribution kernel
# (entropy_dist=1) its modprobe chooses, as on a host: DKMS's modules if
# installed, the kernel's own otherwise, with the host's modprobe.d.
vm_load_stack() {
	local m

	if [ "${entropy_dist:-0}" = 1 ]; then
		echo "==> loading the RDMA stack (modprobe of Linux $(uname -r))"
		step modprobe ib_core "$@" && step modprobe -a $RDMA_MODULES
		return
	fi
	echo "==> loading the RDMA stack ($([ "$entropy_stock" = 1 ] && echo stock || echo ours))"
	step modprobe -d "$entropy_modroot" -a udp_tunnel ip6_udp_tunnel crc32_generic || return 1
	if [ "$entropy_stock" = 1 ]; then
		step modprobe -d "$entropy_modroot" -a $RDMA_MODULES || return 1
	else
		step insmod "$entropy_modules/ib_core.ko" "$@" || return 1
		for m in ${RDMA_MODULES#ib_core }; do
			step insmod "$entropy_modules/$m.ko" || return 1
		done
	fi
}

# vm_unload_stack [DEV...]: the rxe devices (default rxea and rxeb) deleted
# and the RDMA modules unloaded.
vm_unload_stack() {
	local m devs=("$@")

	[ $# -gt 0 ] || devs=(rxea rxeb)
	for m in "${devs[@]}"; do
		step rdma link delete "$m" || return 1
	done
	wait_for 10 no_rdma_devices || return 1
	for m in $(echo $RDMA_MODULES | tr ' ' '\n' | tac); do
		step rmmod "$m" || return 1
	done
}

# vm_readd_rxe DEV NETDEV: rxe device DEV deleted and made again on NETDEV:
# the device registers again.
vm_readd_rxe() {
	step rdma link delete "$1" || return 1
	wait_for 10 no_rdma_device "$1" || return 1
	step rdma link add "$1" type rxe netdev "$2" || return 1
	wait_for 10 port_active "$1"
}
