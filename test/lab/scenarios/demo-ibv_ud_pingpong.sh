# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest ibv_ud_pingpong between host a (client) and host b
# (server) over Soft-RoCE, against itself (-c: every byte checked) and
# against upstream's (which needs -g on RoCE). The client's --json gives
# the RTT median.
G=$(gid_index b)

# pp NAME PEER SERVER-CMD [CLIENT-OPT]: 200 exchanges (each a round
# trip of 10 to 15 ms between two emulated guests: the default 1000 took
# 15 s a row) from rdmatest on a to the server on b
pp() {
	case_begin "$1" 60
	bg_start srv b $3
	wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 40 a $RT/ibv_ud_pingpong --json -n 200 $4 "$B" || fail "client exited $?"
	failed || bg_wait srv 20 || fail "server exited $?"
	demo_row ibv_ud_pingpong "$2" "rt client -> $(side "$2") server" \
		"RTT p50 $(num 1 "$(json_num "$OUT" rtt_us median)" us)"
	pass
}

pp "ibv_ud_pingpong: rdmatest client and server, 200 checked exchanges" rdmatest "$RT/ibv_ud_pingpong -c -n 200" -c
pp "ibv_ud_pingpong: rdmatest client, upstream server, 200 exchanges" upstream "/usr/bin/ibv_ud_pingpong -g $G -n 200"
