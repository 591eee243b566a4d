# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 200
# Demo: rdmatest rping between host a (192.0.2.1, client) and host b
# (192.0.2.2, server) over Soft-RoCE: 100 verified pings against rdmatest,
# then against upstream rping. The client's --json gives the RTT median.
. "$LAB_SCEN/upstream.inc"
RTR=$RT/rping

# ping NAME PEER SERVER: 100 verified pings from rdmatest on a to SERVER on b
ping() {
	case_begin "$1" 90
	bg_start srv b $3 -s -a "$B"
	wait_listen b 7174 20 || fail "server not listening on 7174"
	failed || run_on -t 60 a $RTR -c -a "$B" -C 100 -V --json || fail "client exited $?"
	failed || rping_srv_wait srv 20 || fail "server exited $?"
	demo_row rping "$2" "rt client -> $(side "$2") server" \
		"RTT p50 $(num 1 "$(json_num "$OUT" rtt_us median)" us)"
	pass
}

ping "rping: rdmatest client and server, 100 verified pings" rdmatest "$RTR"
ping "rping: rdmatest client, upstream rping server, 100 verified pings" "upstream" /usr/bin/rping
