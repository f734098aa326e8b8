#!/usr/bin/env python3
"""pathwitness.py - the probe suite's own packets and its reading of them,
apart from ecnwatch (tests/probe.sh): the ground truth of each set-up.

  pathwitness.py send SRC DST       one packet of each probe type at each hop
                                    limit 1 to 4, from SRC to DST (IPv4 or
                                    IPv6; raw sockets, as root): TCP to 80,
                                    UDP to 443. The source port names the
                                    packet: 20000 + 10 x type + hop limit.
  pathwitness.py hops DST           a UDP datagram to DST port 443 at each
                                    hop limit 1 to 4: one line each, the hop
                                    limit, the ICMP type and its sender
  pathwitness.py table PCAP SRC     tshark's reading of PCAP (taken on SRC's
                                    link): a JSON line for each answer to one
                                    of those packets
The answer's line: type (the probe type's name), ttl (as sent), answer
(time_exceeded, unreachable, syn_ack, rst, other), from, and of the quote
(time_exceeded, unreachable): ecn (not_ect, ect1, ect0, ce), flags (ae, cwr,
ece: 0 or 1, or null when not quoted), option (true when an option of kind
172 or 174 is quoted, null when no TCP options are), quoted (bytes of the
original packet), cksum (tshark's ICMP checksum status: 1 good).
"""
import ipaddress
import json
import socket
import struct
import subprocess
import sys
import time

TYPES = [
    # name, transport, ECN field, TCP flags, AE, the AccECN option
    ("tcp_plain", "tcp", 0, 0x02, 0, False),
    ("tcp_ect0", "tcp", 2, 0x02, 0, False),
    ("tcp_ect1", "tcp", 1, 0x02, 0, False),
    ("tcp_ce", "tcp", 3, 0x02, 0, False),
    ("tcp_ecn_setup", "tcp", 0, 0x02 | 0x40 | 0x80, 0, False),
    ("tcp_accecn_setup", "tcp", 0, 0x02 | 0x40 | 0x80, 1, False),
    ("tcp_accecn_option", "tcp", 0, 0x10, 0, True),
    ("udp_not_ect", "udp", 0, 0, 0, False),
    ("udp_ect0", "udp", 2, 0, 0, False),
    ("udp_ect1", "udp", 1, 0, 0, False),
    ("udp_ce", "udp", 3, 0, 0, False),
]
BASE = 20000
ECN = ["not_ect", "ect1", "ect0", "ce"]


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def pseudo(src, dst, proto, n):
    if src.version == 4:
        return src.packed + dst.packed + struct.pack("!BBH", 0, proto, n)
    return src.packed + dst.packed + struct.pack("!IxxxB", n, proto)


def transport(src, dst, t, sport):
    name, proto, _, flags, ae, opt = t
    if proto == "udp":
        data = b"pathwitness" + bytes([sport & 0xFF])
        h = struct.pack("!HHHH", sport, 443, 8 + len(data), 0) + data
        c = csum(pseudo(src, dst, 17, len(h)) + h) or 0xFFFF
        return 17, h[:6] + struct.pack("!H", c) + h[8:]
    # AccECN option (kind 172, three 24-bit counters) and a NOP
    opts = bytes([172, 11]) + bytes(9) + b"\x01" if opt else b""
    off = (20 + len(opts)) // 4
    seq, ack = 0x10000000 + sport, 0x20000000 if flags & 0x10 else 0
    h = struct.pack("!HHIIBBHHH", sport, 80, seq, ack, off << 4 | ae, flags, 64240, 0, 0) + opts
    c = csum(pseudo(src, dst, 6, len(h)) + h)
    return 6, h[:16] + struct.pack("!H", c) + h[18:]


def send(src, dst):
    src, dst = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    fam = socket.AF_INET if dst.version == 4 else socket.AF_INET6
    s = socket.socket(fam, socket.SOCK_RAW, socket.IPPROTO_RAW)
    n = 0
    for ttl in range(1, 5):
        for i, t in enumerate(TYPES):
            sport = BASE + 10 * i + ttl
            proto, l4 = transport(src, dst, t, sport)
            ecn = t[2]
            if dst.version == 4:
                ip = struct.pack("!BBHHHBBH4s4s", 0x45, ecn, 20 + len(l4), sport, 0, ttl, proto, 0,
                                 src.packed, dst.packed)
                ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
                s.sendto(ip + l4, (str(dst), 0))
            else:
                ip = struct.pack("!IHBB16s16s", 6 << 28 | ecn << 20 | sport, len(l4), proto, ttl,
                                 src.packed, dst.packed)
                s.sendto(ip + l4, (str(dst), 0))
            n += 1
            time.sleep(0.003)
    print("sent %d" % n)


def hops(dst):
    dst = ipaddress.ip_address(dst)
    v6 = dst.version == 6
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    for ttl in range(1, 5):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if v6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, ttl)
            s.setsockopt(socket.IPPROTO_IPV6, 25, 1)  # IPV6_RECVERR
        else:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, ttl)
            s.setsockopt(socket.IPPROTO_IP, 11, 1)  # IP_RECVERR
        s.sendto(b"hops", (str(dst), 443))
        got = "none -"
        for _ in range(40):
            try:
                _, anc, _, _ = s.recvmsg(64, 512, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
            except BlockingIOError:
                time.sleep(0.05)
                continue
            for _, _, data in anc:
                # struct sock_extended_err, then the offender's sockaddr
                _, origin, typ, _ = struct.unpack_from("=IBBB", data)
                off = data[16:]
                addr = socket.inet_ntop(fam, off[8:24] if v6 else off[4:8])
                got = "%d %s" % (typ, addr)
            break
        print(ttl, got)
        s.close()


FIELDS = ["ip.src", "ipv6.src", "icmp.type", "icmpv6.type", "ip.dsfield.ecn", "ipv6.tclass.ecn",
          "tcp.srcport", "tcp.dstport", "udp.srcport", "udp.dstport", "tcp.flags", "tcp.option_kind",
          "ip.len", "ipv6.plen", "icmp.checksum.status", "icmpv6.checksum.status", "tcp.flags.ae"]


def ident(port):
    if port is None or not BASE < port < BASE + 10 * len(TYPES):
        return None
    i, ttl = divmod(port - BASE, 10)
    return (TYPES[i][0], ttl) if 1 <= ttl <= 4 else None


def num(v):
    try:
        return int(v, 0)
    except ValueError:
        return None


def table(pcap, me):
    out = subprocess.run(["tshark", "-r", pcap, "-n", "-o", "ip.defragment:FALSE", "-T", "fields",
                          "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
                         + sum([["-e", f] for f in FIELDS], []),
                         capture_output=True, text=True, timeout=120, check=True).stdout
    for line in out.splitlines():
        v = dict(zip(FIELDS, [x.split(",") if x else [] for x in line.split("\t")]))
        src = (v["ip.src"] or v["ipv6.src"] or [None])[0]
        if src == me:
            continue
        icmp = (v["icmp.type"] or v["icmpv6.type"] or [None])[0]
        row = {"from": src}
        if icmp is not None:
            t = num(icmp)
            v6 = bool(v["icmpv6.type"])
            row["answer"] = {(0, 11): "time_exceeded", (0, 3): "unreachable", (1, 3): "time_exceeded",
                             (1, 1): "unreachable"}.get((int(v6), t), "other")
            port = v["tcp.srcport"] or v["udp.srcport"]
            got = ident(num(port[0])) if port else None
            ecn = (v["ipv6.tclass.ecn"] if v6 else v["ip.dsfield.ecn"])
            row["ecn"] = ECN[num(ecn[1]) & 3] if len(ecn) > 1 else None
            fl = num(v["tcp.flags"][0]) if v["tcp.flags"] else None
            row["flags"] = None if fl is None else {"ae": fl >> 8 & 1, "cwr": fl >> 7 & 1, "ece": fl >> 6 & 1}
            kinds = [num(k) for k in v["tcp.option_kind"]]
            row["option"] = (172 in kinds or 174 in kinds) if kinds else None
            row["quoted"] = (num(v["ipv6.plen"][0]) - 8) if v6 else (num(v["ip.len"][0]) - 28)
            st = v["icmpv6.checksum.status" if v6 else "icmp.checksum.status"]
            row["cksum"] = num(st[0]) if st else None
        elif v["tcp.dstport"]:
            got = ident(num(v["tcp.dstport"][0]))
            fl = num(v["tcp.flags"][0]) if v["tcp.flags"] else 0
            row["answer"] = "rst" if fl & 0x04 else "syn_ack" if (fl & 0x12) == 0x12 else "other"
            row["flags"] = {"ae": fl >> 8 & 1, "cwr": fl >> 7 & 1, "ece": fl >> 6 & 1}
            ecn = v["ipv6.tclass.ecn"] or v["ip.dsfield.ecn"]
            row["ecn"] = ECN[num(ecn[0]) & 3] if ecn else None
        else:
            continue
        if got is None:
            continue
        row["type"], row["ttl"] = got
        print(json.dumps(row, sort_keys=True))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "send":
        send(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "hops":
        hops(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
