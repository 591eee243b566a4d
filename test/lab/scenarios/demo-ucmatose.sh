# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 200
# Demo: rdmatest ucmatose between host a (192.0.2.1, client) and host b
# (192.0.2.2, server) over Soft-RoCE: 10 connections with verified
# payloads against rdmatest, 10 connections against upstream ucmatose, and
# a run that would test nothing refused. The client's --json gives
# connections per second (connections / time to establish them all).
RTU=$RT/ucmatose

# conns NAME PEER SERVER CLIENT ARGS...: the server on b, the client on a
conns() {
	local name=$1 peer=$2 srv=$3 cli=$4
	shift 4
	case_begin "$name" 90
	bg_start srv b $srv "$@"
	wait_listen b 7471 20 || fail "server not listening on 7471"
	failed || run_on -t 60 a $cli -s "$B" --json "$@" || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	demo_row ucmatose "$peer" "rt client -> $(side "$peer") server" \
		"$(ratio "$(json_num "$OUT" results connections)" "$(json_num "$OUT" connect_seconds)" 1 conn/s)"
	pass
}

conns "ucmatose: rdmatest both sides, 10 connections, 20 verified messages each way" \
	rdmatest "$RTU --verify" "$RTU --verify" -c 10 -C 20
conns "ucmatose: rdmatest client, upstream ucmatose server, 10 connections" \
	upstream /usr/bin/ucmatose "$RTU" -c 10
expect_exit "ucmatose -c 0: a run that would test nothing is a usage error (exit 2)" 2 \
	a $RTU -c 0 -s "$B"
