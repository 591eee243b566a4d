# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest ib_send_bw between host a (client) and host b (server) over
# Soft-RoCE, against itself (the server checks every message's size and the first one's bytes) and against
# perftest 25.01's (Debian 13). The table is perftest's; the client's --json
# gives the summary's average bandwidth (MB/sec = 2^20 bytes/s).
G=$(gid_index b)

# bw NAME PEER SERVER-CMD: -n 200 messages of 64 KiB from rdmatest on a
bw() {
	case_begin "$1" 60
	bg_start srv b $3 -n 200
	wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 40 a $RT/ib_send_bw --json -n 200 "$B" || fail "client exited $?"
	failed || bg_wait srv 20 || fail "server exited $?"
	demo_row ib_send_bw "$2" "rt client -> $(side "$2") server" \
		"$(num 1 "$(json_num "$OUT" BW_average)" MB/s)"
	pass
}

bw "ib_send_bw: rdmatest client and server, 200 x 64 KiB" rdmatest "$RT/ib_send_bw"
bw "ib_send_bw: rdmatest client, perftest 25.01 server, 200 x 64 KiB" perftest "/usr/bin/ib_send_bw -x $G"
