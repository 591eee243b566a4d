# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 240
# The type of service on the wire: both hosts' eth0 are watched with
# tos-sniff (test/lab/tools/tos_sniff.c) while an rping client on a runs
# to host b. Each side counts what it receives (rxe's own transmissions do
# not reach a packet socket here), so a's packets are seen at b and b's
# at a. With --tos 106 every RoCE v2 packet of the connection, both ways,
# carries IP TOS 0x6a (DSCP 26): the client's from its option, the
# server's from the client's connect request; without it, 0 (so the
# capture is not reading a constant). mesh --tos 106's pair test carries
# it the same way. And doctor on Soft-RoCE says its
# netdev exposes no PFC, trust mode or DSCP map, and that virtio_net's
# statistics hold no pause counter, as PASSes.
D=$RT/doctor

# seen LOG FROM: the connection's packets (not QP 1's MADs) LOG received from FROM
seen() { printf '%s\n' "$1" | grep "^roce in src=$2 .*kind=data"; }

# capture_begin: both eth0 watched (40 s at most, 2000 packets).
capture_begin() {
	bg_start sniffa a $RT/tos-sniff eth0 40 2000
	bg_start sniffb b $RT/tos-sniff eth0 40 2000
	wait_log sniffa '^listening on eth0' 10 || fail "tos-sniff not listening on a"
	failed || wait_log sniffb '^listening on eth0' 10 || fail "tos-sniff not listening on b"
}

# capture_end WANT: fails unless each side received at least 10 RoCE
# data packets from the other and each carries TOS WANT.
capture_end() {
	local want=$1 at_a at_b n_a n_b bad
	at_a=$(bg_log sniffa)
	at_b=$(bg_log sniffb)
	bg_kill sniffa > /dev/null
	bg_kill sniffb > /dev/null
	n_b=$(seen "$at_b" 192.0.2.1 | grep -c .)
	n_a=$(seen "$at_a" 192.0.2.2 | grep -c .)
	bad=$({ seen "$at_b" 192.0.2.1; seen "$at_a" 192.0.2.2; } | grep -v "tos=$want")
	record "tos $want: a -> b $n_b packets, b -> a $n_a, $(printf '%s' "$bad" | grep -c .) with another TOS"
	failed || [ "$n_b" -ge 10 ] || fail "b received $n_b RoCE packets from a, want at least 10"
	failed || [ "$n_a" -ge 10 ] || fail "a received $n_a RoCE packets from b, want at least 10"
	failed || [ -z "$bad" ] || fail "packets without TOS $want: $(printf '%s\n' "$bad" | head -n 2 | tr '\n' ' ')"
}

# tos_run WANT ARGS...: rping from a to b with ARGS (5 pings) while both
# eth0 are captured.
tos_run() {
	local want=$1
	shift
	capture_begin
	failed || bg_start srv b $RT/rping -s -a "$B" -C 5
	failed || wait_listen b 7174 20 || fail "rping server not listening"
	failed || run_on -t 40 a $RT/rping -c -a "$B" -C 5 "$@" || fail "rping client exited $?"
	failed || bg_wait srv 20 || fail "rping server exited $?"
	capture_end "$want"
}

case_begin "rping --tos 106: the connection's RoCE v2 packets carry TOS 0x6a, both ways" 90
need_applet rping && tos_run 0x6a --tos 106
pass

case_begin "rping without --tos: TOS 0 on the wire" 90
need_applet rping && tos_run 0x00
pass

# mesh --tos on both ranks: the pair test's RDMA CM connection carries
# it both ways (rank 0's coordination is TCP, not counted)
case_begin "mesh --tos 106: the pair test's RoCE v2 packets carry TOS 0x6a, both ways" 90
need_applet mesh && {
	capture_begin
	failed || bg_start r1 b $RT/mesh --hosts "$A,$B" --timeout 10 --pings 20 --min-links 1 --tos 106
	failed || run_on -t 60 a $RT/mesh --hosts "$A,$B" --timeout 10 --pings 20 --min-links 1 --tos 106 ||
		fail "rank 0 exited $?"
	failed || bg_wait r1 30 || fail "rank 1 exited $?"
	capture_end 0x6a
}
pass

case_begin "doctor on Soft-RoCE: PFC, trust mode and DSCP map not exposed, no pause counters: PASSes" 60
need_applet doctor && {
	run_on a $D --tclass 106; rc=$?
	[ $rc = 0 ] || fail "exit $rc, want 0"
	failed || output_has '^PASS dcb +eth0 \(rxe0 port 1\): PFC, trust mode and DSCP map not exposed by the driver' ||
		fail "no PASS dcb line saying the driver exposes nothing"
	# the real SIOCETHTOOL calls: virtio_net lists its statistics (queue
	# packets and bytes), and no pause or discard counter among them
	failed || output_has '^PASS pause +eth0 \(rxe0 port 1\): none of the [1-9][0-9]* statistics virtio_net lists counts pause frames' ||
		fail "no PASS pause line saying virtio_net keeps no pause counter"
}
pass
