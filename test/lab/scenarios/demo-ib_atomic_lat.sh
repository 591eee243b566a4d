# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest ib_atomic_lat between host a (client) and host b (server)
# over Soft-RoCE: one 8-byte FETCH_AND_ADD at a time on the server's
# buffer, against itself and against Debian 13's perftest 25.01 (which needs -x
# on RoCE; rdmatest chooses the GID itself). Each run prints perftest's
# table and rdmatest's line of the true maximum and percentiles; the client
# checks every value it fetched (each one more than the last), and its
# --json gives the summary's t_typical and max.
G=$(gid_index b)

# lat NAME PEER SERVER-CMD: 1000 atomics from rdmatest on a
lat() {
	case_begin "$1" 60
	bg_start srv b $3
	wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 40 a $RT/ib_atomic_lat -d "$DEV_A" --json "$B" || fail "client exited $?"
	failed || output_has '"data_check":"every fetched value verified' || fail "the client's check did not pass"
	failed || bg_wait srv 20 || fail "server exited $?"
	demo_row ib_atomic_lat "$2" "rt client -> $(side "$2") server" \
		"t_typical $(num 2 "$(json_num "$OUT" t_typical)" us), max $(num 2 "$(json_num "$OUT" max)" us)"
	pass
}

lat "ib_atomic_lat: rdmatest client and server, 1000 FETCH_AND_ADD" rdmatest "$RT/ib_atomic_lat -d $DEV_B"
lat "ib_atomic_lat: rdmatest client, perftest 25.01 server, 1000 FETCH_AND_ADD" perftest "/usr/bin/ib_atomic_lat -d $DEV_B -x $G"
