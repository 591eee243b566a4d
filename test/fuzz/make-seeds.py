#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Writes the seed corpora in corpus/<target>/ (checked in; rerun after
changing a target's input format). Each seed is a small, meaningful
input: real command lines, valid and broken messages, odd strings."""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def pattern(n, seed, seq):
    """core/verify.c rt_pattern_fill"""
    ctr = mix64(mix64((seed + GAMMA) & M64) ^ seq)
    out = bytearray()
    while len(out) + 8 <= n:
        ctr = (ctr + GAMMA) & M64
        out += struct.pack("<Q", mix64(ctr))
    w = mix64((ctr + GAMMA) & M64)
    while len(out) < n:
        out.append(w & 0xFF)
        w >>= 8
    return bytes(out)


def message(n, sender, seq, flags=0):
    """core/verify.c rt_msg_fill"""
    if n < 24:
        return pattern(n, sender, seq)
    hdr = struct.pack(">IBBHIIQ", 0x52444D54, 1, flags, 0, sender, n, seq)
    return hdr + pattern(n - 24, sender, seq)


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def argv(*args):
    return b"\0".join(a.encode() if isinstance(a, str) else a for a in args)


def opt():
    lines = {
        "rping-server": argv("-s", "-a", "192.0.2.1", "-P", "-v"),
        "rping-client": argv("-c", "-a", "192.0.2.1", "-C", "100", "-V", "-S", "4k"),
        "rping-cluster": argv("-vVdq", "-S64k", "-p7174"),
        "size-suffixes": argv("--size=1m", "-S", "0x10", "--size", "16M"),
        "common": argv("--json", "--timeout=2.5", "--accept-timeout", "1e3",
                       "--wait-server=0.001", "--quiet", "--debug"),
        "ucmatose": argv("-s", "192.0.2.1", "-b", "fe80::1", "-c", "64", "-C", "10",
                         "-S", "100", "-P", "ib", "-f", "gid", "-t", "32", "-a", "14",
                         "-p", "7471", "--verify", "-m"),
        "ucmatose-enum-number": argv("-P", "0x0106", "-f", "2"),
        "mckey": argv("-m", "239.1.1.1", "-b", "192.0.2.1", "-c", "2", "-C", "1000",
                      "-S", "1k", "-p", "ipoib", "--senders=3", "--rate", "1000",
                      "--settle", "0.5", "-s"),
        "mckey-mgid": argv("-M", "ff12:401b::1", "-o", "-l"),
        "rstream": argv("-s", "192.0.2.1", "-B", "512k", "-i", "64", "-I", "2",
                        "-C", "1000", "-S", "all", "-T", "rsab", "-k", "5", "-f", "ipv6"),
        "errors": argv("--unknown", "-Z", "--size"),
        "missing-value": argv("-S"),
        "flag-with-value": argv("--json=1"),
        "double-dash": argv("-s", "--", "extra"),
        "empty-and-dash": argv("", "-", "--="),
        "range": argv("-p", "65536", "-S", "-1", "--timeout", "1e300"),
        "odd-bytes": argv("-a", b"\xff\xfe\xc3\xa9\x01\"\\", "--timeout", b"\xe2\x82"),
    }
    for name, data in lines.items():
        write("opt", name, data)


def numbers():
    def rec(kind, text, lo=0, hi=0, n=0, blen=16):
        return struct.pack(">BqqQB", kind, lo, hi, n, blen) + text.encode("latin-1")
    texts = ["64", "1k", "4K", "16m", "1g", "0x10", "0X1fk", "-1", "+5", "007",
             "9223372036854775807", "9223372036854775808", "-9223372036854775808",
             "8589934591g", "8589934592g", "2.5", "1e3", "0.0005", "inf", "nan",
             "-0", " 5", "\t5", "0x", "", "1kb", "1 k", "--5", "+-5", "0x-5", "1e-400"]
    for i, t in enumerate(texts):
        write("numbers", "text-%02d" % i, rec(i % 4, t, n=1 << (i * 2 % 64)))
    write("numbers", "bounds", rec(0, "100", lo=1, hi=65535, n=10239, blen=4))
    write("numbers", "bounds-seconds", rec(3, "2.5", lo=1, hi=86400000, n=1500, blen=1))
    write("numbers", "bounds-inverted", rec(1, "1k", lo=100, hi=1, n=2 ** 64 - 1, blen=32))


def addr():
    texts = ["192.0.2.1", "0.0.0.0", "255.255.255.255", "::", "::1", "fe80::1",
             "::ffff:192.0.2.1", "2001:db8::a:b:c:d", "1:2:3:4:5:6:7:8",
             "1.2.3", "256.1.1.1", "01.2.3.4", "[::1]", "fe80::1%eth0", "::1:7471",
             "1::2::3", "192.0.2.1 ", ""]
    for i, t in enumerate(texts):
        write("addr", "text-%02d" % i, bytes([64, i]) + t.encode())
    sa_in = struct.pack("<H", 2) + struct.pack(">H", 7471) + bytes([192, 0, 2, 1])
    write("addr", "sockaddr-in", bytes([16, 0]) + sa_in[2:])
    write("addr", "sockaddr-in6", bytes([46, 1]) + bytes(range(40)))
    write("addr", "sockaddr-ib", bytes([3, 2]) + bytes(range(60)))
    write("addr", "sockaddr-other", bytes([95, 200]) + bytes(20))


def advert():
    def rec(mx, n, fill, addr, rkey, ln):
        return struct.pack(">QQH", mx, n, fill) + struct.pack(">QII", addr, rkey, ln)
    write("advert", "good", rec(64, 0, 64, 0x7F0000001000, 0x1234, 64))
    write("advert", "big", rec(1 << 24, 123456789, 4096, 0x1000, 1, 1 << 24))
    write("advert", "too-long", rec(64, 1, 13, 0x1000, 1, 65))
    write("advert", "zero-length", rec(64, 57, 1, 0x1000, 1, 0))
    write("advert", "wraps", rec(2 ** 64 - 1, 2 ** 64 - 1, 200, 2 ** 64 - 16, 7, 32))
    write("advert", "short", struct.pack(">QQH", 64, 9, 0) + bytes(15))
    write("advert", "long", struct.pack(">QQH", 64, 9, 2) + bytes(17))
    write("advert", "bare-16", struct.pack(">QII", 0x1000, 0x55, 64))


def verify():
    for n in (24, 25, 31, 32, 64, 100, 1000):
        write("verify", "message-%d" % n, message(n, 0x1000 + n, n * 7))
    write("verify", "message-flags", message(64, 1, 2, flags=1))
    write("verify", "bare-pattern", pattern(23, 0x52444D54, 5))
    for i, (ln, muts) in enumerate([(64, [(30, 1)]), (24, [(9, 0x80), (3, 1)]),
                                     (7, [(6, 0xFF)]), (100, [(12, 1)]),
                                     (2048, [(2047, 1), (1000, 2)]), (0, [])]):
        rec = struct.pack(">IQH", 0xABCD, 42 + i, ln)
        for at, x in muts:
            rec += struct.pack(">HB", at, x)
        write("verify", "mutated-%d" % i, rec)


def msg_hdr():
    def dg(b, qpn=1, dry=False):
        return bytes([qpn | (0x80 if dry else 0)]) + struct.pack(">H", len(b)) + b
    head = struct.pack(">IH", 10, 100)
    stream = [message(100, 1, s) for s in (0, 1, 3, 2, 2, 12)]
    write("msg_hdr", "one-sender", head + b"".join(dg(m) for m in stream))
    write("msg_hdr", "two-senders", head + dg(message(100, 1, 0)) + dg(message(100, 2, 0)) +
          dg(message(100, 2, 1)) + dg(message(100, 1, 1)))
    bad = bytearray(message(100, 3, 4))
    bad[50] ^= 1
    write("msg_hdr", "corrupt", head + dg(bytes(bad)) + dg(message(64, 3, 5)))
    write("msg_hdr", "foreign", head + dg(bytes(100)) + dg(b"RDMT\x02" + bytes(95)) +
          dg(message(100, 4, 1, flags=2)) + dg(b"\x00" * 10))
    write("msg_hdr", "header-only", message(24, 0xFFFFFFFF, 2 ** 64 - 1))
    write("msg_hdr", "zero-count", struct.pack(">IH", 0, 0) + dg(message(24, 0, 0)))
    # a ring that ran dry in the middle of two senders' streams
    write("msg_hdr", "overrun", head + dg(message(100, 1, 0)) + dg(message(100, 2, 0)) +
          dg(message(100, 1, 1), dry=True) + dg(message(100, 1, 6)) + dg(message(100, 2, 9)) +
          dg(bytes(100), qpn=3) + dg(bytes(100), qpn=3, dry=True))
    # more senders than a tally tracks: the rest count as foreign
    write("msg_hdr", "many-senders", struct.pack(">IH", 5000, 100) +
          b"".join(dg(message(100, 0x10000 + i, i % 3)) for i in range(300)) +
          dg(message(100, 0x10000, 4000)) + dg(message(100, 0x10000, 1)))


def json():
    OB, AB, OE, AE, KEY, KEYN, STR, STRN, STRNULL, INT, UINT, DBL, BOOL, NUL, RAW, \
        RAWE, KVS, KVI, KVU, KVD, KVB, FIN = range(22)

    def s(op, b):
        b = b.encode() if isinstance(b, str) else b
        return bytes([op, len(b)]) + b
    doc = (bytes([OB]) + s(KVS, "mlx5_0") + s(KEY, "params") + bytes([OB]) +
           bytes([KVI]) + struct.pack(">q", -3) + bytes([KVU]) + struct.pack(">Q", 2 ** 64 - 1) +
           bytes([KVD]) + struct.pack(">d", 0.5) + bytes([KVB, 1, OE]) +
           s(KEY, "list") + bytes([AB, INT]) + struct.pack(">q", 7) +
           bytes([NUL, BOOL, 0, STRNULL, RAW, 2, 3, 0x61, 0x62, 0x63, 0, AE, OE]))
    write("json", "document", doc)
    write("json", "odd-strings", bytes([AB]) + s(STR, "q\"b\\\n\x01\x7f") +
          s(STRN, b"a\0b\xff\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82") +
          s(STR, "rxe0 \xe9\u2028") + bytes([FIN]))
    write("json", "misuse", bytes([OB, INT]) + struct.pack(">q", 1) + s(KEY, "k") +
          bytes([AE, AE, KEYN, STRNULL, RAWE, 1, OE]))
    write("json", "top-level-scalars", bytes([INT]) + struct.pack(">q", 1) +
          bytes([INT]) + struct.pack(">q", 2))
    write("json", "doubles", bytes([AB, DBL]) + struct.pack(">d", float("nan")) +
          bytes([DBL]) + struct.pack(">d", float("-inf")) + bytes([DBL]) +
          struct.pack(">d", 5e-324) + bytes([DBL]) + struct.pack(">d", -0.0) +
          bytes([DBL]) + struct.pack(">d", 1.7976931348623157e308))
    write("json", "deep", bytes([AB, OB] * 40) + bytes([FIN]))
    write("json", "keys-in-arrays", bytes([AB]) + s(KEY, "x") + bytes([KVI]) +
          struct.pack(">q", 1) + bytes([OB]) + s(KEY, "a") + s(KEY, "b") + bytes([FIN]))


def mesh():
    """applets/mesh/meshwire.c's messages (even first byte) and mesh report lines
    (odd first byte)"""
    host = lambda h: h.encode() + bytes(64 - len(h))
    # version 8: the payload rate, the rail count, the host's inventory
    # (kernel, rdma-core, --expect's outcome: checked, 1 difference), then the rails (one: rxe0 port 1, ACTIVE, RoCE,
    # 1X, GID 1, MTU 1024, 2.5 Gb/s, 192.0.2.1, then its device's
    # firmware, driver, PCIe speed and width)
    text = lambda t, n: t.encode() + bytes(n - len(t))
    rail = (b"rxe0" + bytes(28) + struct.pack(">BBBBBBHH2xII", 0, 1, 4, 2, 1, 4, 1, 1024,
                                              2500, 2200) + bytes([192, 0, 2, 1]) + bytes(12) +
            text("28.39.1002", 32) + text("rdma_rxe", 32) + text("16.0 GT/s PCIe", 24) +
            text("16", 8))
    hello = b"RM\x08\x01" + struct.pack(">IIIH2xQ", 312 + 164, 3, 8, 7471,
                                         0x9e3779b97f4a7c15) + host("gpu07") + \
        struct.pack(">IB3x", 2200, 1) + text("6.8.0-45-generic", 64) + text("50.0", 32) + \
        struct.pack(">BxH", 1, 1) + text("rxe0 port 1: rate 2.5 Gb/s, expected 400", 120) + rail
    # an ASSIGN of one rail: rail 0 to rail 0 at 192.0.2.2
    assign = (b"RM\x08\x02" + struct.pack(">IIIIBxH", 84 + 20, 4, 7, 5, 1, 7471) +
              host("10.0.0.5") + struct.pack(">B3xBBBx", 1, 0, 0, 4) + bytes([192, 0, 2, 2]) +
              bytes(12))
    rest = b"RM\x08\x02" + struct.pack(">IIIIBxH", 84, 0, 1, 0xFFFFFFFF, 2, 0) + bytes(68)
    # the counter block: nothing rose; or rxe's link_downed (2) and
    # rcvd_seq_err (33) at a, out_of_seq_request (30) at b, both ends' packets
    no_ctr = bytes(4 + 16 + 8 * 12)
    ctrs = (struct.pack(">BBBxQQ", 3, 3, 1, 100000, 250000) +
            struct.pack(">BBxxQ", 2, 0, 1) + struct.pack(">BBxxQ", 33, 0, 52) +
            struct.pack(">BBxxQ", 30, 1, 40) + bytes(5 * 12))
    result = b"RM\x08\x03" + struct.pack(">IIIIBB2xQQQQQ", 172, 2, 1, 6, 0, 3,
                                            812345, 9000, 15000, 97000, 96000) + no_ctr
    failed = b"RM\x08\x03" + struct.pack(">IIIIBB2xQQQQQ", 172, 0, 0, 1, 1, 0, 0, 0, 0, 0,
                                            0) + no_ctr
    counted = b"RM\x08\x03" + struct.pack(">IIIIBB2xQQQQQ", 172, 2, 1, 6, 0, 7,
                                             812345, 9000, 15000, 97000, 96000) + ctrs
    verdict = b"RM\x08\x04" + struct.pack(">IBB2xIIII", 20, 0, 0, 1, 2, 1, 0)
    frame = lambda size, m: bytes([size]) + struct.pack(">H", len(m)) + m
    write("mesh", "messages", b"\0" + frame(8, hello) + frame(8, assign) + frame(1, rest) +
          frame(8, result) + frame(0, failed) + frame(8, verdict))
    write("mesh", "bad-length", b"\0" + frame(8, hello[:7] + b"\x50" + hello[8:]))
    write("mesh", "result-counters", b"\0" + frame(8, counted) + frame(8, counted[:-60] +
                                                                    b"\x01" + counted[-59:]))
    write("mesh", "hello-bad-rail", b"\0" + frame(8, hello[:-164 + 33] + b"\0" + hello[-164 + 34:]))
    # a firmware of a byte that is not printable
    write("mesh", "hello-bad-inventory", b"\0" + frame(8, hello[:-96] + b"\x01" + hello[-95:]))
    lines = [
        '0: {"mesh":"hello","rank":0,"size":3,"host":"n1","kernel":"6.8.0-45-generic",'
        '"rdma_core":"50.0","expect_diffs":1,"expect_first":"rxe0 port 1: rate 2.5 Gb/s, '
        'expected 400"}',
        '0: {"mesh":"rail","rank":0,"rail":0,"dev":"rxe0","port":1,"gid_index":1,'
        '"addr":"192.0.2.1","link_layer":"Ethernet","state":"ACTIVE","lanes":1,"mtu":1024,'
        '"speed_mbps":2500,"payload_mbps":2200,"fw_ver":"28.39.1002","driver":"rdma_rxe",'
        '"pcie_speed":"16.0 GT/s PCIe","pcie_width":"16"}',
        '1: {"mesh":"hello","rank":1,"size":3,"host":"n2"}',
        'srun: error: n3: task 2: Exited with exit code 3',
        '0: {"mesh":"result","a":0,"b":1,"status":"ok","connect_ns":70000,'
        '"rtt_p50_ns":9000,"rtt_p99_ns":12000,"mbps":97000,"mbps_rev":96000}',
        '1: {"mesh":"result","a":1,"b":2,"status":"absent"}',
        '0: {"mesh":"result","a":0,"b":2,"status":"timeout","a.rcvd_seq_err":52,'
        '"b.out_of_seq_request":40,"sent_a":1000,"sent_b":900,"round":1}',
    ]
    write("mesh", "report", b"\1" + "\n".join(lines).encode() + b"\n")
    write("mesh", "report-bad-line", b"\1" + lines[0].encode() + b"\n{\"mesh\":1}\n")


# The seeds below are the messages as the encoders in the tree write them
# (rt_pp_rec_encode, rt_pt_key_encode, rt_stream_sync_encode, ...), with
# values of the kind a lab run trades, and a few broken ones.
GID = bytes([0xfe, 0x80] + [0] * 6 + [0x52, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x56])


def pingpong():
    """ping-pong records (applets/ibverbs/pingpong*.c): byte 0 picks the kind"""
    gid = GID.hex()
    rec = lambda lid, qpn, psn, g: ("%04x:%06x:%06x:%s" % (lid, qpn, psn, g)).encode() + b"\0"
    write("pingpong", "rc-roce", b"\0" + rec(0, 0x11, 0xabcde, gid))
    write("pingpong", "rc-ib", b"\0" + rec(0x1f, 0xffffff, 0, "0" * 32))
    write("pingpong", "short", b"\0" + rec(1, 2, 3, gid)[:40])
    write("pingpong", "no-nul", b"\0" + rec(1, 2, 3, gid)[:-1] + b"x")
    block = b"".join(rec(1, 0x20 + i, 0x100 * i, gid) for i in range(4))
    block += rec(0, 0, 0, "0" * 32) * (256 - 4)
    write("pingpong", "srq-block-4", b"\1" + bytes([3]) + block)
    write("pingpong", "srq-block-mismatch", b"\1" + bytes([7]) + block)
    xrc = ("%04x:%06x:%06x:%06x:%06x:%s" % (1, 0x12, 0x13, 0xabcde, 0x20, gid)).encode() + b"\0"
    write("pingpong", "xrc", b"\2" + xrc)
    write("pingpong", "xrc-upper", b"\2" + xrc.upper())


def perftest():
    """perftest's handshake (applets/perftest/perftest_wire.c): byte 0 picks the message"""
    key = "%04x:%04x:%06x:%06x:%08x:%016x:" % (1, 16, 0x11, 0xabcde, 0x1234, 0x7f0000001000)
    write("perftest", "key", b"\0" + (key + "%08x" % 0).encode() + b"\0")
    gkey = key + "".join("%02x:" % b for b in GID) + "%08x:" % 0x20
    write("perftest", "key-gid", b"\1" + gkey.encode() + b"\0")
    write("perftest", "key-wrong-form", b"\1" + (key + "%08x" % 0).encode() + b"\0")
    write("perftest", "version", b"\2" + b"6.06".ljust(16, b"\0"))
    write("perftest", "version-old", b"\2" + b"5.33".ljust(16, b"\0"))
    write("perftest", "version-junk", b"\2" + b"6.06x1.2.3456789")
    write("perftest", "mtu-1024", b"\3" + b"3\0")
    write("perftest", "mtu-bad", b"\3" + b"9\0")
    rep = lambda size, *f: b"\4" + struct.pack(">QQQ", size, size, 5000) + \
        b"".join(struct.pack(">d", x) for x in f)
    write("perftest", "report", rep(65536, 11.9, 11.8, 0.0225))
    write("perftest", "report-nan", rep(65536, float("nan"), -1.0, float("inf")))
    # -R's binary record: lid, out_reads, qpn, psn, rkey, pad, vaddr, GID, srqn, gid index
    kbin = struct.pack(">IIIIII", 0, 16, 0x11, 0xabcde, 0x1234, 0) + \
        struct.pack(">Q", 0x7f0000001000) + bytes(GID) + struct.pack(">II", 0, 3)
    write("perftest", "key-bin", b"\5" + kbin)
    write("perftest", "key-bin-qpn", b"\5" + kbin[:8] + b"\x01" + kbin[9:])


def stream():
    """rstream's sync block (applets/rdmacm/stream.c rt_stream_sync_encode)"""
    sync = lambda role, size, count, iters: b"rt" + role + b"\1" + struct.pack(">III", size, count, iters)
    row = struct.pack(">III", 4096, 1000, 1000)
    write("stream", "client-block", b"\0" + sync(b"c", 4096, 1000, 1000) + row)
    write("stream", "server-block", b"\1" + sync(b"s", 4096, 1000, 1000) + row)
    write("stream", "differs", b"\0" + sync(b"c", 64, 1, 100000) + row)
    write("stream", "counter", b"\0" + bytes(range(16)) + row)
    write("stream", "echo", b"\1" + sync(b"c", 4096, 1000, 1000) + row)


def diag():
    """doctor --listen's facts line (applets/doctor/diag_peer.c)"""
    write("diag", "facts", b"rdmatest-doctor 1 rxe0 1 1024 eth0 1500\n")
    write("diag", "no-port", b"rdmatest-doctor 1 - 0 0 - 0\n")
    write("diag", "long-name", b"rdmatest-doctor 1 " + b"m" * 60 + b" 1 4096 " + b"n" * 40 + b" 9000\n")
    write("diag", "bad-mtu", b"rdmatest-doctor 1 mlx5_0 1 8192 ens1 -1\n")


def dcb():
    """a RoCE netdev's sysfs qos files (applets/doctor/diag_dcb.c)"""
    write("dcb", "pfc", b"0,0,0,1,0,0,0,0\n")
    write("dcb", "trust", b"Priority trust state: dscp\n")
    write("dcb", "dscp2prio", b"dscp2prio mapping:\n\tprio:0 dscp:07,06,05,04,03,02,01,00,\n"
          b"\tprio:3 dscp:31,30,29,28,27,26,25,24,\n")
    write("dcb", "twice", b"prio:3 dscp:26,\nprio:4 dscp:26,\n")


def expect():
    """doctor --expect's file (applets/doctor/expect.c)"""
    write("expect", "saved", b"# rdmatest doctor --save-expect\nkernel 6.1.0-28-amd64\n"
          b"rdma_core 50.0\nmlx5_0.fw_ver 28.39.1002\nmlx5_0.pcie_speed 16.0 GT/s PCIe\n"
          b"mlx5_0.pcie_width 16\nmlx5_0/1.state ACTIVE\nmlx5_0/1.rate_gbps 400\n"
          b"mlx5_0/1.gid_type RoCE v2\n")
    write("expect", "twice", b"kernel 6.1\n\nkernel 6.2\n")
    write("expect", "nul", b"kernel 6.1\nrdma_core 50\0.0\n")
    write("expect", "spaces", b"  \t\n key\t  value with  spaces \t\n#\n")


def launch():
    """host lists (even byte 0) and launcher environments (odd byte 0)"""
    write("launch", "hostlist", b"\0" + b"node[01-04,10],gpu[7-9]-ib,login")
    write("launch", "hostlist-wide", b"\0" + b"n[0000-9999]")
    write("launch", "hostlist-bad", b"\0" + b"n[9-1],x[,y]")
    env = lambda size, *kv: b"\1" + bytes([size]) + "\n".join(kv).encode()
    write("launch", "slurm", env(0, "SLURM_PROCID=1", "SLURM_NTASKS=3",
                                 "SLURM_STEP_NODELIST=self,n[2-3]"))
    write("launch", "ompi", env(0, "OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_SIZE=8"))
    write("launch", "pmi", env(0, "PMI_RANK=0", "PMI_SIZE=2"))
    write("launch", "pmix", env(4, "PMIX_RANK=3"))
    write("launch", "k8s", env(2, "JOB_COMPLETION_INDEX=7"))
    write("launch", "none", env(0, "HOME=/root"))


def udpong():
    """udpong's datagrams (applets/rdmacm/udpong.c), as its client sends
    them: {op, id, seqno, reserved, data (big-endian)} and the payload"""
    msg = lambda op, cid, seq, data=0, pay=b"", size=16: \
        struct.pack(">BBBBI", op, cid, seq, 0, data) + pay.ljust(size - 8, b"\0")
    dg = lambda m: struct.pack(">H", len(m)) + m
    row = [msg(1, 0, 1)] + [msg(3, 0, 2 + i, pay=bytes([i]) * 56, size=64) for i in range(3)]
    row += [msg(2, 0, 5 + i, size=1024) for i in range(3)] + [msg(4, 0, 8)]
    write("udpong", "session", b"".join(dg(m) for m in [msg(0, 0, 0)] + row + [msg(5, 0, 9)] * 3))
    write("udpong", "two-clients", b"".join(dg(m) for m in [msg(0, 0, 0), msg(0, 0, 0),
          msg(1, 1, 1), msg(2, 1, 2, size=64), msg(4, 1, 3), msg(5, 0, 4), msg(5, 1, 4)]))
    write("udpong", "strangers", dg(b"") + dg(b"\x03abc") + dg(msg(6, 0, 0)) +
          dg(msg(255, 9, 9, size=2048)) + dg(msg(4, 200, 1)))
    write("udpong", "full", b"".join(dg(msg(0, 0, i % 256)) for i in range(260)) + dg(msg(4, 255, 0)))


def udrecv():
    """UD receive completions into rt_ud_rx_take (applets/rdmacm/udrecv.c):
    the ring's shape, then completions (QPN, wr_id, byte_len, the slot's
    bytes: GRH area then the datagram) and reposts (0x80)"""
    head = lambda slots=4, size=64, per=3, senders=1: \
        bytes([slots - 1]) + struct.pack(">H", size - 1) + bytes([per, senders])

    def wc(slot, dg, qpn=1, byte_len=None, kind=1):
        data = bytes(40) + dg
        got = 40 + len(dg) if byte_len is None else byte_len
        return bytes([qpn]) + struct.pack(">QIH", kind << 56 | slot, got, len(data)) + data
    write("udrecv", "stream", head() + wc(0, message(64, 1, 0)) + wc(1, message(64, 1, 2)) +
          b"\x80" + wc(2, message(64, 1, 1)) + wc(0, message(64, 1, 1)))
    write("udrecv", "two-senders", head(senders=2) + wc(0, message(64, 5, 0)) +
          wc(1, message(64, 6, 0), qpn=2) + wc(2, message(64, 5, 1)) + wc(3, message(64, 6, 1)))
    # every posted receive taken before the repost: the ring ran dry
    write("udrecv", "dry", head(slots=2) + wc(0, message(64, 1, 0)) + wc(1, message(64, 1, 1)) +
          wc(0, message(64, 1, 2)) + b"\x80" + wc(1, message(64, 1, 2)))
    write("udrecv", "unknown-slot", head() + wc(4, message(64, 1, 0)) +
          wc(2 ** 56 - 1, b"", kind=255) + wc(7, bytes(64), kind=0) + wc(3, message(64, 1, 0)))
    # lengths the device could not have delivered: past the slot, inside the GRH
    write("udrecv", "byte-len", head() + wc(3, message(64, 1, 0), byte_len=0xFFFFFFFF) +
          wc(3, message(64, 1, 1), byte_len=0) + wc(2, message(64, 1, 2), byte_len=39) +
          wc(1, message(64, 1, 2), byte_len=40) + wc(0, message(64, 1, 2), byte_len=41))
    write("udrecv", "wrong-size", head(size=1024) + wc(3, message(100, 1, 0)) +
          wc(0, message(1024, 1, 1)[:-1] + b"\xff") + wc(1, b"RDMT" + bytes(2000)))
    write("udrecv", "foreign", head(slots=8, senders=0) +
          b"".join(wc(i % 8, bytes([i]) * 64, qpn=i % 8) for i in range(20)))


def cmtsync():
    """cmtime's v56 TCP step syncs (applets/rdmacm/cmtsync.c): the byte a
    peer sends at each step, due in the order reset (0), connected (12),
    disconnected (14)"""
    run = bytes([0, 12, 14])
    write("cmtsync", "three-runs", run * 3)
    write("cmtsync", "miscounted", run + bytes([0, 14]))
    write("cmtsync", "early", bytes([12]))
    write("cmtsync", "stranger", run + b"GET / HTTP/1.0\r\n")
    write("cmtsync", "control", run * 2 + bytes([0, 12, 0x1b]))
    write("cmtsync", "high", bytes([0, 0xff]))


def meshecho():
    """a mesh pair test's messages (applets/mesh/meshtest.c, host order):
    a control byte (bit 0: the connecting side), the ping in flight, then
    the message: seq, the window's address and rkey"""
    rec = lambda side, want, m: bytes([side]) + struct.pack(">QH", want, len(m)) + m
    msg = lambda seq, addr=0, rkey=0: struct.pack("=QQQ", seq, addr, rkey)
    write("meshecho", "pings", b"".join(rec(1, i, msg(i, 0x7f0000001000, 0x1234)) for i in range(3)) +
          rec(0, 0, msg(5)))
    write("meshecho", "wrong-ping", rec(1, 4, msg(3)) + rec(1, 2 ** 64 - 1, msg(0)))
    write("meshecho", "lengths", rec(1, 0, msg(0)[:23]) + rec(1, 0, msg(0) + b"x") +
          rec(0, 0, b"") + rec(0, 0, bytes(4096)))
    write("meshecho", "no-window", rec(1, 9, msg(9)) + rec(1, 9, msg(9, 0, 2 ** 64 - 1)))
    # the listener's counters (bit 1: taken as such): the final sequence
    # number, then a RESULT's counter block (big endian) of end a alone
    block = lambda n, end: (struct.pack(">BBBxQQ", 1, n, 0, 5000, 0) +
                            b"".join(struct.pack(">BBxxQ", 33 + i, end, 9) for i in range(n)) +
                            bytes((8 - n) * 12))
    write("meshecho", "counters", rec(3, 0, struct.pack("=Q", M64) + block(1, 0)) +
          rec(3, 0, struct.pack("=Q", M64) + block(1, 1)) +
          rec(3, 0, struct.pack("=Q", 5) + block(0, 0)))


def rcopy():
    """rcopy's client messages (applets/rdmacm/rcopy.c, host byte order):
    byte 0 bit 0 allows execute bits; then one message"""
    hdr = lambda cmd, ln, data=0, mid=1, ver=0: struct.pack("=BBHIQ", ver, cmd, ln, data, mid)

    def open_(path, mode=0o100644, allow=0):
        p = path.encode() + b"\0"
        p += bytes(-len(p) % 8)
        return bytes([allow]) + hdr(1, 16 + len(p), mode) + p
    write("rcopy", "open", open_("copy.bin"))
    write("rcopy", "open-exec", open_("d/tool", 0o104755, 1))
    write("rcopy", "open-setid", open_("f", 0o106777))
    write("rcopy", "open-escape", open_("../etc/passwd"))
    write("rcopy", "open-absolute", open_("/tmp/x"))
    write("rcopy", "open-symlink", open_("up/x"))
    write("rcopy", "open-fifo", open_("fifo"))
    write("rcopy", "open-hardlink", open_("hard"))
    write("rcopy", "open-dir", open_("d"))
    write("rcopy", "open-log-line", open_("a\nclient 1: cksum 1 2\x1b[2J"))
    write("rcopy", "open-no-nul", b"\0" + hdr(1, 24) + b"abcdefgh")
    write("rcopy", "open-long", b"\0" + hdr(1, 16 + 4112) + b"a" * 4112)
    write("rcopy", "write", b"\0" + hdr(3, 24) + struct.pack("=Q", 1 << 20))
    write("rcopy", "write-short", b"\0" + hdr(3, 20) + b"\0" * 4)
    write("rcopy", "close", b"\0" + hdr(2, 16))
    write("rcopy", "bad-version", b"\0" + hdr(2, 16, ver=1))
    write("rcopy", "unknown", b"\0" + hdr(9, 16))
    write("rcopy", "header-only", b"\0" + hdr(1, 40))


def meshhello():
    """a hello (applets/mesh/meshwire.c) as a connection to rank 0 sends
    it; byte 0 picks the chunking"""
    host = lambda h: h.encode() + bytes(64 - len(h))
    # version 8: the payload rate, the rail count, the host's inventory
    # (kernel, rdma-core, --expect's outcome: checked, 1 difference), then the rails (one: rxe0 port 1, ACTIVE, RoCE,
    # 1X, GID 1, MTU 1024, 2.5 Gb/s, 192.0.2.1, then its device's
    # firmware, driver, PCIe speed and width)
    text = lambda t, n: t.encode() + bytes(n - len(t))
    rail = (b"rxe0" + bytes(28) + struct.pack(">BBBBBBHH2xII", 0, 1, 4, 2, 1, 4, 1, 1024,
                                              2500, 2200) + bytes([192, 0, 2, 1]) + bytes(12) +
            text("28.39.1002", 32) + text("rdma_rxe", 32) + text("16.0 GT/s PCIe", 24) +
            text("16", 8))
    hello = b"RM\x08\x01" + struct.pack(">IIIH2xQ", 312 + 164, 3, 8, 7471,
                                         0x9e3779b97f4a7c15) + host("gpu07") + \
        struct.pack(">IB3x", 2200, 1) + text("6.8.0-45-generic", 64) + text("50.0", 32) + \
        struct.pack(">BxH", 1, 1) + text("rxe0 port 1: rate 2.5 Gb/s, expected 400", 120) + rail
    result = b"RM\x08\x03" + struct.pack(">IIIIBB2xQQQQQ", 56, 2, 1, 6, 0, 3,
                                            812345, 9000, 15000, 97000, 96000)
    for seed in (0, 1, 5, 200):
        write("meshhello", "hello-%d" % seed, bytes([seed]) + hello)
    write("meshhello", "short", b"\3" + hello[:50])
    write("meshhello", "result-first", b"\0" + result)
    write("meshhello", "bad-length", b"\1" + hello[:7] + b"\xff" + hello[8:])
    write("meshhello", "scanner", b"\2" + b"GET / HTTP/1.0\r\n\r\n")


def ptcheck():
    """the perftest engine's checks of what the peer delivered
    (perftest_imm.c, perftest_atomic.c): byte 0 the check, byte 1 the atomic"""
    u32 = lambda *v: struct.pack(">" + "I" * len(v), *v)
    u64 = lambda *v: struct.pack(">" + "Q" * len(v), *v)
    # IBV_WC_RECV_RDMA_WITH_IMM is 129, IBV_WC_WITH_IMM 2 (verbs.h)
    write("ptcheck", "imm-good", b"\0\0" + u32(129, 2, 0, 65536) + u64(65536))
    write("ptcheck", "imm-no-flag", b"\0\0" + u32(129, 0, 0, 4096) + u64(4096))
    write("ptcheck", "imm-opcode", b"\0\0" + u32(128, 2, 0, 4096) + u64(4096))
    write("ptcheck", "imm-value", b"\0\0" + u32(129, 2, 7, 4096) + u64(4096))
    write("ptcheck", "imm-length", b"\0\0" + u32(129, 2, 0, 4095) + u64(4096))
    write("ptcheck", "fadd-run", b"\1\0" + u64(*range(41, 49)))
    write("ptcheck", "fadd-wrap", b"\1\0" + u64(2 ** 64 - 2, 2 ** 64 - 1, 0, 1))
    write("ptcheck", "fadd-skip", b"\1\0" + u64(5, 6, 8))
    write("ptcheck", "cas-run", b"\1\1" + u64(9, 9, 9, 9))
    write("ptcheck", "cas-moved", b"\1\1" + u64(9, 9, 10))
    write("ptcheck", "counter-good", b"\2\0" + u64(100, 109, 110, 10) + struct.pack(">HHH", 1, 2, 4))
    write("ptcheck", "counter-lost", b"\2\0" + u64(100, 109, 109, 10) + struct.pack(">HHH", 1, 2, 4))
    write("ptcheck", "counter-none", b"\2\1" + u64(7, 0, 7, 0) + struct.pack(">HHH", 0, 0, 1))
    write("ptcheck", "counter-short", b"\2\0" + u64(1, 2))


def meshauth():
    """applets/mesh/meshauth.c's decoders; byte 0 picks frame (0), message
    to seal (1) or handshake message (2)"""
    verdict = b"RM\x08\x04" + struct.pack(">IBB2xIIII", 20, 1, 0, 0, 0, 0, 0)
    # version 7: the RESULT's 56 bytes of figures, then its counter block
    # (none rose: all zero)
    result = b"RM\x08\x03" + struct.pack(">IIIIBB2xQQQQQ", 172, 2, 1, 6, 0, 3,
                                            812345, 9000, 15000, 97000, 96000) + bytes(116)
    # a forged verdict with a zero sequence number and MAC, and one of seq 1
    write("meshauth", "forged-verdict", b"\0" + verdict + bytes(40))
    write("meshauth", "forged-verdict-seq1", b"\0" + verdict + struct.pack(">Q", 1) + bytes(32))
    write("meshauth", "short", b"\0" + verdict[:6])
    write("meshauth", "seal-verdict", b"\1\3" + verdict)
    write("meshauth", "seal-result", b"\1\x50" + result)
    challenge = b"RA\x01\x01" + struct.pack(">II", 3, 8) + bytes(range(32))
    write("meshauth", "challenge", b"\2" + challenge)
    write("meshauth", "answer", b"\2RA\x01\x02" + struct.pack(">II", 3, 8) + bytes(64))
    write("meshauth", "plain-hello", b"\2" + b"RM\x08\x01" + bytes(40))


if __name__ == "__main__":
    for f in (opt, numbers, addr, advert, verify, msg_hdr, json, mesh, pingpong, perftest,
              stream, diag, dcb, expect, launch, udpong, rcopy, meshhello, udrecv, cmtsync, meshecho, ptcheck,
              meshauth):
        f()
    sys.exit(0)
