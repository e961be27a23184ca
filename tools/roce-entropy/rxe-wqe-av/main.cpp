// SPDX-License-Identifier: GPL-2.0
// rxe-wqe-av: what the rxe kernel driver does with a UD send whose address
// vector comes from user space, with a port number no port has.
//
// Why.  rxe shares each user QP's send queue with user space: the kernel
// vmalloc()s the ring (struct rxe_queue_buf: indexes, then fixed-size
// slots of struct rxe_send_wqe) and rdma-core's rxe provider mmap()s it
// through the uverbs command file, writes WQEs into it, advances the
// producer index and rings a doorbell.  The kernel then reads the WQE in
// place, from memory that user space can still write.  A UD send names its
// address either by AH number (wr.ud.ah_num, today's provider) or, when
// ah_num is 0, by a struct rxe_av inside the WQE itself (old providers).  In
// the second form every byte of the address is the user's, and
// rxe_pkt_entropy() chose the send's entropy policy with
// rdma_port_entropy(dev, av->port_num): an index of 0..255 into the
// device's port_data[], which has two entries (0 and 1) on rxe.  Any local
// user who can open a uverbs device could make the kernel read past the
// array, and the byte read chose the UDP source port on the wire.  It also
// read ah_num from the ring again after rxe_get_av() had decided on it.
// The fix makes such a send follow the QP's own port's policy.  This
// program is the proof for both: on a fixed kernel every hostile send
// either completes in error or goes out on the port the QP's port's policy
// predicts; on the old one the port is whatever lay past port_data[], and a
// KASAN kernel reports the read.
//
// How.
//  1. Open --send-dev and --recv-dev with their IPv4-mapped RoCE v2 GIDs;
//     on each a PD, a CQ, a registered buffer and a UD QP (fixed Q_Key),
//     taken to RTS.  The receiver posts one receive per send.
//  2. One normal send through ibv_post_send() and an AH, with a random
//     marker as wr_id; it must complete and arrive.
//  3. Find the sender's send queue: among the shared, writable mappings of
//     /dev/infiniband/uverbsN (this context's device) in /proc/self/maps,
//     the one whose header is a sane rxe queue and which has exactly one
//     slot holding an IBV_WR_SEND WQE with the marker wr_id, the
//     receiver's QPN and our SGE; that slot must sit just before the
//     producer index.  No rdma-core internals are used, so this works with
//     any provider version that maps the ring (all of them).
//  4. For each --av-port, write into the slot at the producer index what an
//     old or hostile provider would: the normal WQE (same SGE and lkey,
//     IBV_WR_SEND, signaled) with a new wr_id, the payload tagged anew,
//     wr.ud.ah_num = 0 and wr.ud.av filled in by hand (IPv4, source and
//     destination as sockaddr_in from the GIDs, --dmac, the destination
//     GID, the sender's GID index, hop limit 64, --av-flow-label) with
//     av.port_num set to the hostile value (--av-sgid-index puts another
//     GID index in, which the kernel must refuse: that exercises the error
//     path of step 5 on any kernel).  Publish it by storing the new
//     producer index with release order (the kernel loads it with
//     acquire), then ring the doorbell as the provider does: an
//     IB_USER_VERBS_CMD_POST_SEND command with wr_count 0 written to the
//     context's cmd_fd, on which rxe schedules the QP's requester.
//  5. Wait for each hand-written send's completion.  Success and an error
//     status are both acceptable kernel behaviour; a success must arrive
//     at the receiver with its tag.  After an error the QP is taken through
//     RESET back to RTS for the next case.
//  6. A closing normal send through ibv_post_send(), which must complete
//     and arrive: the QP still works, and the provider carries on from the
//     producer index the hand-written sends left.
//  7. Print JSON: sqpn, dqpn, the ring found and, per send in order (the
//     normal one, the hostile ones, the closing one), kind (normal or
//     hostile), av_port, wr_id, tag, completed, status (ibv_wc_status_str)
//     and received; stray_completions counts completions that matched no
//     send.
//
// The packets themselves are judged by the VM test
// (tools/testing/tests/hostile-wqe.sh), which captures them at the router.
//
// Exit status: 0 when it worked (queue found, every send completed in
// time, every success received), 1 otherwise (a message on stderr, and the
// JSON so far on stdout once the QPs exist), 2 for bad arguments.
#include <iostream>

#include "wqe_av.h"

int main(int argc, char **argv)
{
	roce::wqe_av::Options opts;

	if (auto status = roce::wqe_av::parse_args(argc, argv, opts, std::cout, std::cerr))
		return *status;
	return roce::wqe_av::run(opts, std::cout, std::cerr);
}
