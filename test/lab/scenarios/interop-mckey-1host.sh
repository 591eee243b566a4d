# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 900
# mckey in one guest, both sides on the same address ($B, rxe1: traffic
# to a local address stays on its device, see docs/dev/lab.md): the same
# options on both sides must pass (as a user of upstream's mckey runs it:
# each pairing once, and on two hosts in interop-mckey the unpaced
# upstream burst a second time in a row), and a
# stalled receiver must name its overrun.
RHOST=a RADDR=$B SHOST=b SADDR=$B
. "$LAB_SCEN/mckey-same-opts.inc"
