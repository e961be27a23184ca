#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The socket consumers of consumers.sh: SMC-R and RDS, both ends in one
process (the test VM is one kernel with two RDMA devices).

  consumers.py ueid NAME            add NAME to SMC's user EID table
  consumers.py smc SERVER CLIENT N  IPPROTO_SMC: CLIENT connects to SERVER
                                    (ADDR:PORT), sends N random bytes, the
                                    server echoes them, CLIENT compares
  consumers.py rds A B N            AF_RDS over IB: N messages A to B, each
                                    echoed back and compared; A and B are
                                    ADDR:PORT (IPv6 in brackets)

Every failure is an exception or a message and exit status 1.
"""
import os
import socket
import struct
import sys
import threading

# include/uapi/linux/in.h, smc.h, rds.h; socket.h
IPPROTO_SMC = 256
SMC_GENL_NAME = b"SMC_GEN_NETLINK"
SMC_NETLINK_ADD_UEID = 10
SMC_NLA_EID_TABLE_ENTRY = 1
SMC_MAX_EID_LEN = 32
SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_IB = 0
NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2


def nlattr(kind, data):
    attr = struct.pack("=HH", 4 + len(data), kind) + data
    return attr + b"\0" * (-len(attr) % 4)


def attrs(payload):
    out, off = {}, 0
    while off + 4 <= len(payload):
        length, kind = struct.unpack_from("=HH", payload, off)
        if length < 4:
            break
        out[kind & 0x3FFF] = payload[off + 4 : off + length]
        off += (length + 3) & ~3
    return out


def genl(sock, family, cmd, payload, seq):
    """One generic netlink request; its replies' payloads (after the
    genlmsghdr), or OSError with the kernel's error."""
    body = struct.pack("=BBH", cmd, 1, 0) + payload
    sock.send(struct.pack("=IHHII", 16 + len(body), family,
                          NLM_F_REQUEST | NLM_F_ACK, seq, 0) + body)
    replies = []
    while True:
        buf = sock.recv(65536)
        off = 0
        while off + 16 <= len(buf):
            length, kind = struct.unpack_from("=IH", buf, off)
            if length < 16:
                raise OSError("netlink: a message of length %d" % length)
            if kind == NLMSG_ERROR:
                err = struct.unpack_from("=i", buf, off + 16)[0]
                if err:
                    raise OSError(-err, os.strerror(-err))
                return replies
            replies.append(buf[off + 20 : off + length])
            off += (length + 3) & ~3


def ueid(name):
    """SMC_NETLINK_ADD_UEID: the entry is SMC_MAX_EID_LEN characters,
    blank padded, and a NUL."""
    entry = name.encode().ljust(SMC_MAX_EID_LEN)
    if len(entry) != SMC_MAX_EID_LEN:
        raise ValueError("a UEID has at most %d characters" % SMC_MAX_EID_LEN)
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC) as s:
        fam = genl(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                   nlattr(CTRL_ATTR_FAMILY_NAME, SMC_GENL_NAME + b"\0"), 1)
        fid = struct.unpack("=H", attrs(fam[0])[CTRL_ATTR_FAMILY_ID][:2])[0]
        genl(s, fid, SMC_NETLINK_ADD_UEID,
             nlattr(SMC_NLA_EID_TABLE_ENTRY, entry + b"\0"), 2)
    print("UEID %s added" % name)


def endpoint(text):
    """ADDR:PORT or [ADDR6]:PORT: (family, sockaddr tuple)."""
    host, _, port = text.rpartition(":")
    if host.startswith("["):
        return socket.AF_INET6, (host[1:-1], int(port))
    return socket.AF_INET, (host, int(port))


def recv_exact(sock, n):
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise OSError("the peer closed after %d of %d bytes" % (got, n))
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def smc(server, client, size):
    fam, saddr = endpoint(server)
    _, caddr = endpoint(client)
    data = os.urandom(size)
    errors = []
    with socket.socket(fam, socket.SOCK_STREAM, IPPROTO_SMC) as lsock:
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind(saddr)
        lsock.listen(1)
        lsock.settimeout(60)

        def echo():
            try:
                conn, _ = lsock.accept()
                with conn:
                    conn.settimeout(60)
                    conn.sendall(recv_exact(conn, size))
            except OSError as e:
                errors.append("server: %s" % e)

        thread = threading.Thread(target=echo)
        thread.start()
        with socket.socket(fam, socket.SOCK_STREAM, IPPROTO_SMC) as c:
            c.settimeout(60)
            c.bind(caddr)
            c.connect(saddr)
            sender = threading.Thread(target=c.sendall, args=(data,))
            sender.start()
            back = recv_exact(c, size)
            sender.join()
        thread.join()
    if errors:
        raise OSError("; ".join(errors))
    if back != data:
        raise OSError("the echo differs from what was sent")
    print("SMC: %d bytes %s -> %s echoed back the same" % (size, client, server))


def rds_socket(text):
    fam, addr = endpoint(text)
    raw = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    raw.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
    # CPython's AF_RDS takes sockaddr_in only; RDS takes sockaddr_in6 too.
    sock = socket.socket(fam, socket.SOCK_SEQPACKET, 0, fileno=raw.detach())
    sock.bind(addr)
    sock.settimeout(30)
    return sock, addr


def rds(a_text, b_text, count):
    a, a_addr = rds_socket(a_text)
    b, b_addr = rds_socket(b_text)
    with a, b:
        for i in range(count):
            msg = os.urandom(1024 + 64 * (i % 64))
            a.sendto(msg, b_addr)
            got, _ = b.recvfrom(65536)
            if got != msg:
                raise OSError("message %d from A differs at B" % i)
            b.sendto(got[::-1], a_addr)
            back, _ = a.recvfrom(65536)
            if back != msg[::-1]:
                raise OSError("message %d's echo differs at A" % i)
    print("RDS: %d messages %s <-> %s, each echoed back the same" % (count, a_text, b_text))


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "ueid":
            ueid(argv[2])
        elif len(argv) == 5 and argv[1] == "smc":
            smc(argv[2], argv[3], int(argv[4]))
        elif len(argv) == 5 and argv[1] == "rds":
            rds(argv[2], argv[3], int(argv[4]))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (OSError, ValueError) as e:
        print("%s: %s" % (argv[1], e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
