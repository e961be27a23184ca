# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# NFS over RDMA: nfsd's rdma listener and a proto=rdma mount, on either
# guest.  Needs TOOLROOT (overlays.sh), step, wait_for and LOGS (base.sh),
# vm_modprobe (stack.sh) and cm_listening (connections.sh).

# ---- NFS over RDMA ----
# nfsd's rdma listener on NFS_PORT exports a tmpfs, NFSv4's root; a
# proto=rdma mount writes random data and reads it back with O_DIRECT.
# Needs /etc and /var/lib writable (writable) and a kernel with nfsd,
# nfsv4 and rpcrdma as modules.

NFS_PORT=20049
NFS_MOUNTD=/run/rte-nfs-mountd.pid

# nfs_server_up: nfsd listening for NFSv4 over RDMA on NFS_PORT, the
# export in /tmp/nfs-export, rpc.mountd running, the grace period over.
nfs_server_up() {
	local d=/proc/fs/nfsd

	step vm_modprobe -a nfsd nfsv4 rpcrdma || return 1
	mkdir -p /var/lib/nfs/v4recovery /tmp/nfs-export /tmp/nfs-mnt &&
		touch /etc/exports /var/lib/nfs/etab /var/lib/nfs/rmtab || return 1
	mountpoint -q $d || step mount -t nfsd nfsd $d || return 1
	# the export on a tmpfs: fsid=0 (it has no device), the NFSv4 root
	step "$TOOLROOT/usr/sbin/exportfs" -o rw,no_root_squash,no_subtree_check,fsid=0 '*:/tmp/nfs-export' ||
		return 1
	echo "+ rpc.mountd -F -N 3 &"
	"$TOOLROOT/usr/sbin/rpc.mountd" -F -N 3 > "$LOGS/nfs-mountd.log" 2>&1 &
	echo $! > $NFS_MOUNTD
	echo 10 > $d/nfsv4leasetime && echo 10 > $d/nfsv4gracetime &&
		echo "-3 +4 +4.1 +4.2" > $d/versions &&
		echo "rdma $NFS_PORT" > $d/portlist && echo 2 > $d/threads || return 1
	wait_for 20 cm_listening "" $NFS_PORT TCP && echo Y > $d/v4_end_grace
}

# nfs_write_read ADDR MB [EXPORT]: ADDR's export mounted over RDMA, MB of
# random data written to it with O_DIRECT and read back the same (and the
# same in directory EXPORT, when the server is this guest), unmounted.
nfs_write_read() {
	local proto=rdma src="$1:/" rc=0

	[[ $1 != *:* ]] || proto=rdma6 src="[$1]:/"
	step mount -i -t nfs4 -o "vers=4.2,proto=$proto,port=$NFS_PORT,addr=$1" "$src" /tmp/nfs-mnt ||
		return 1
	head -c $(($2 << 20)) /dev/urandom > /tmp/nfs.in
	step dd if=/tmp/nfs.in of=/tmp/nfs-mnt/data bs=1M oflag=direct status=none &&
		step dd if=/tmp/nfs-mnt/data of=/tmp/nfs.out bs=1M iflag=direct status=none &&
		step cmp /tmp/nfs.in /tmp/nfs.out || rc=1
	[ -z "${3:-}" ] || step cmp /tmp/nfs.in "$3/data" || rc=1
	rm -f /tmp/nfs-mnt/data
	step umount /tmp/nfs-mnt || rc=1
	return $rc
}

# nfs_server_down: nfsd stopped, rpc.mountd gone, the modules unloaded.
nfs_server_down() {
	local pid

	echo 0 > /proc/fs/nfsd/threads
	pid=$(cat $NFS_MOUNTD 2>/dev/null) && kill "$pid" 2>/dev/null &&
		wait_for 10 eval "! kill -0 $pid 2>/dev/null"
	rm -f $NFS_MOUNTD
	step "$TOOLROOT/usr/sbin/exportfs" -ua
	umount /proc/fs/nfsd
	step vm_modprobe -r nfsv4 nfsd rpcrdma
}
