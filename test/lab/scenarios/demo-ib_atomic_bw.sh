# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest ib_atomic_bw between host a (client) and host b (server)
# over Soft-RoCE: 8-byte FETCH_AND_ADDs on the server's buffer, against
# itself and against perftest 25.01's (Debian 13). The table is perftest's;
# the client also checks every counter its atomics walked (read before and
# after the run: the last value each fetched and the count each took), and
# its --json gives the summary's message rate.
G=$(gid_index b)

# bw NAME PEER SERVER-CMD: -n 500 atomics from rdmatest on a
bw() {
	case_begin "$1" 60
	bg_start srv b $3 -n 500
	wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 40 a $RT/ib_atomic_bw --json -n 500 "$B" || fail "client exited $?"
	failed || output_has '"data_check":"every atomic verified' || fail "the client's check did not pass"
	failed || bg_wait srv 20 || fail "server exited $?"
	demo_row ib_atomic_bw "$2" "rt client -> $(side "$2") server" \
		"$(num 3 "$(json_num "$OUT" MsgRate)" Mpps), values checked"
	pass
}

bw "ib_atomic_bw: rdmatest client and server, 500 FETCH_AND_ADD" rdmatest "$RT/ib_atomic_bw"
bw "ib_atomic_bw: rdmatest client, perftest 25.01 server, 500 FETCH_AND_ADD" perftest "/usr/bin/ib_atomic_bw -x $G"
