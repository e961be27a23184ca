#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The flow labels user space sees from rdma_cm and the QP (cm-grant.sh).

  cm-grant.py server ADDR PORT     accept one connection, print one JSON
                                   line: the flow label ibv_query_qp()
                                   returns for the QP; hold it until the
                                   process is ended
  cm-grant.py client ADDR SERVER PORT CALLS
                                   connect, then ask rdma_cm CALLS times for
                                   the QP's RTR attributes
                                   (RDMA_USER_CM_CMD_INIT_QP_ATTR, the call
                                   any rdma_ucm user can repeat) and print
                                   one JSON line: the flow labels returned,
                                   the remote QPN, and the flow label
                                   ibv_query_qp() returns
"""
import json
import sys
import time

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import CMID, AddrInfo
from pyverbs.qp import QPCap, QPInitAttr


def qp_init_attr():
    return QPInitAttr(qp_type=e.IBV_QPT_RC,
                      cap=QPCap(max_send_wr=1, max_recv_wr=1,
                                max_send_sge=1, max_recv_sge=1))


def query_flow_label(cmid):
    attr, _ = cmid.query_qp(e.IBV_QP_AV)
    return attr.ah_attr.flow_label


def server(addr, port):
    info = AddrInfo(src=addr, src_service=port, port_space=ce.RDMA_PS_TCP,
                    flags=ce.RAI_PASSIVE)
    listen = CMID(creator=info, qp_init_attr=qp_init_attr())
    listen.listen()
    print('listening', flush=True)
    conn = listen.get_request()
    conn.accept()
    print(json.dumps({'query_flow_label': query_flow_label(conn)}), flush=True)
    # held until the test ends this process
    while True:
        time.sleep(1)


def client(addr, server_addr, port, calls):
    info = AddrInfo(src=addr, dst=server_addr, dst_service=port,
                    port_space=ce.RDMA_PS_TCP)
    cmid = CMID(creator=info, qp_init_attr=qp_init_attr())
    cmid.connect()
    labels = set()
    rqpn = None
    start = time.monotonic()
    for _ in range(calls):
        attr, mask = cmid.init_qp_attr(e.IBV_QPS_RTR)
        labels.add(attr.ah_attr.flow_label)
        rqpn = attr.dest_qp_num
    seconds = time.monotonic() - start
    print(json.dumps({'flow_labels': sorted(labels), 'rqpn': rqpn,
                      'calls': calls, 'seconds': round(seconds, 2),
                      'query_flow_label': query_flow_label(cmid)}))
    cmid.close()


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'server':
        server(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == 'client':
        client(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        sys.exit(__doc__)
