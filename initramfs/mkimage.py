#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Builds the rdmatest diagnostics image: a gzip'd newc cpio archive that
an initramfs can be extended with (appended, or unpacked by a dracut or
initramfs-tools hook; see docs/initramfs.md).

    mkimage.py --binary RDMATEST --applets a,b,c --diag DIAG --init INIT
               [--strip STRIP] --output IMAGE.cpio.gz [--list]

Contents: usr/bin/rdmatest (stripped), usr/bin/APPLET -> rdmatest for each
applet, usr/lib/rdmatest/{diag,init}, usr/lib/rdmatest/applets (the list).
The archive is reproducible: fixed owner (0:0), mtime SOURCE_DATE_EPOCH or
0, sorted entries, gzip without a timestamp. Only directories under usr/
are created, so unpacking it over an existing root (a merged-/usr one,
with /bin a link) changes nothing else. The binary must be static: the
image carries no libraries."""
import argparse
import gzip
import io
import os
import subprocess
import sys
import tempfile


def newc(name, mode, data=b"", mtime=0, ino=1, nlink=1):
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join(f"{v:08X}" for v in (
        ino, mode, 0, 0, nlink, mtime, len(data), 0, 0, 0, 0, len(name_b), 0))
    out = hdr.encode() + name_b
    out += b"\0" * (-len(out) % 4)
    out += data
    out += b"\0" * (-len(data) % 4)
    return out


def is_static(path):
    """True when the ELF file has no program interpreter (PT_INTERP)."""
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        sys.exit(f"mkimage: {path}: not a 64-bit ELF file")
    order = "little" if elf[5] == 1 else "big"
    phoff = int.from_bytes(elf[32:40], order)
    phentsize = int.from_bytes(elf[54:56], order)
    phnum = int.from_bytes(elf[56:58], order)
    for i in range(phnum):
        p = phoff + i * phentsize
        if int.from_bytes(elf[p:p + 4], order) == 3:  # PT_INTERP
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--applets", required=True, help="comma list")
    ap.add_argument("--diag", required=True)
    ap.add_argument("--init", required=True)
    ap.add_argument("--strip", default="strip")
    ap.add_argument("--output", required=True)
    ap.add_argument("--list", action="store_true", help="print the entries")
    a = ap.parse_args()

    if not is_static(a.binary):
        sys.exit(f"mkimage: {a.binary} is dynamically linked; the diagnostics "
                 "image needs a static build (meson setup BUILD -Dstatic=true)")
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0"))
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "rdmatest")
        subprocess.run([a.strip, "-o", stripped, a.binary], check=True)
        with open(stripped, "rb") as f:
            binary = f.read()
    with open(a.diag, "rb") as f:
        diag = f.read()
    with open(a.init, "rb") as f:
        init = f.read()
    applets = sorted(x for x in a.applets.split(",") if x)

    entries = [  # (name, mode, data)
        ("usr", 0o040755, b""),
        ("usr/bin", 0o040755, b""),
        ("usr/bin/rdmatest", 0o100755, binary),
        ("usr/lib", 0o040755, b""),
        ("usr/lib/rdmatest", 0o040755, b""),
        ("usr/lib/rdmatest/applets", 0o100644, "".join(x + "\n" for x in applets).encode()),
        ("usr/lib/rdmatest/diag", 0o100755, diag),
        ("usr/lib/rdmatest/init", 0o100755, init),
    ]
    entries += [("usr/bin/" + x, 0o120777, b"rdmatest") for x in applets]
    entries.sort()
    raw = io.BytesIO()
    for ino, (name, mode, data) in enumerate(entries, start=1):
        raw.write(newc(name, mode, data, mtime, ino, 2 if mode >> 12 == 0o04 else 1))
        if a.list:
            print(f"{mode:06o} {len(data):8d} {name}")
    raw.write(newc("TRAILER!!!", 0, b"", 0, 0))
    data = raw.getvalue()
    data += b"\0" * (-len(data) % 512)
    tmp_out = a.output + ".tmp"
    with open(tmp_out, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as gz:
            gz.write(data)
    os.replace(tmp_out, a.output)


if __name__ == "__main__":
    main()
