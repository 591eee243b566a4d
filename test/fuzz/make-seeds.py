#!/usr/bin/env python3
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
    # a ring that ran dry in the middle of two senders' streams (issue 25)
    write("msg_hdr", "overrun", head + dg(message(100, 1, 0)) + dg(message(100, 2, 0)) +
          dg(message(100, 1, 1), dry=True) + dg(message(100, 1, 6)) + dg(message(100, 2, 9)) +
          dg(bytes(100), qpn=3) + dg(bytes(100), qpn=3, dry=True))
    # more senders than a tally tracks (issue 17): the rest count as foreign
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
    hello = b"RM\x02\x01" + struct.pack(">IIIH2x", 76, 3, 8, 7471) + host("gpu07")
    assign = b"RM\x02\x02" + struct.pack(">IIIIBxH", 80, 4, 7, 5, 1, 7471) + host("10.0.0.5")
    rest = b"RM\x02\x02" + struct.pack(">IIIIBxH", 80, 0, 1, 0xFFFFFFFF, 2, 0) + bytes(64)
    result = b"RM\x02\x03" + struct.pack(">IIIIBB2xQQQQQ", 56, 2, 1, 6, 0, 3,
                                            812345, 9000, 15000, 97000, 96000)
    failed = b"RM\x02\x03" + struct.pack(">IIIIBB2xQQQQQ", 56, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0)
    verdict = b"RM\x02\x04" + struct.pack(">IB3xIII", 16, 0, 1, 2, 1)
    frame = lambda size, m: bytes([size, len(m)]) + m
    write("mesh", "messages", b"\0" + frame(8, hello) + frame(8, assign) + frame(1, rest) +
          frame(8, result) + frame(0, failed) + frame(8, verdict))
    write("mesh", "bad-length", b"\0" + frame(8, hello[:7] + b"\x50" + hello[8:]))
    lines = [
        '0: {"mesh":"hello","rank":0,"size":3,"host":"n1"}',
        '1: {"mesh":"hello","rank":1,"size":3,"host":"n2"}',
        'srun: error: n3: task 2: Exited with exit code 3',
        '0: {"mesh":"result","a":0,"b":1,"status":"ok","connect_ns":70000,'
        '"rtt_p50_ns":9000,"rtt_p99_ns":12000,"mbps":97000,"mbps_rev":96000}',
        '1: {"mesh":"result","a":1,"b":2,"status":"absent"}',
    ]
    write("mesh", "report", b"\1" + "\n".join(lines).encode() + b"\n")
    write("mesh", "report-bad-line", b"\1" + lines[0].encode() + b"\n{\"mesh\":1}\n")


if __name__ == "__main__":
    for f in (opt, numbers, addr, advert, verify, msg_hdr, json, mesh):
        f()
    sys.exit(0)
