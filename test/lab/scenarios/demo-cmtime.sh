# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 200
# Demo: rdmatest cmtime between host a (192.0.2.1, client) and host b
# (192.0.2.2, server) over Soft-RoCE: 20 connections opened at once and
# closed again, against rdmatest and against Debian 13's cmtime (rdma-core
# 56, the v56 protocol rdmatest speaks by default: TCP sync, warm-up, main
# run, run without QPs). The client's --json gives connections per second
# and the median CM connect time of the main run.
RTC=$RT/cmtime

# connect_p50: the median connect time (us) of the client's --json; the
# per-step objects are siblings, which json_num does not reach past
connect_p50() { sed -n 's/.*"steps_us":{.*"cm connect":{[^}]*"median":\([0-9.]*\).*/\1/p' "$OUT"; }

# conns NAME PEER SERVER ARGS...: the server on b, the rdmatest client on a
conns() {
	local name=$1 peer=$2 srv=$3
	shift 3
	case_begin "$name" 90
	bg_start srv b $srv "$@"
	wait_tcp_listen b 7471 20 || fail "server not listening on tcp 7471"
	failed || run_on -t 60 a $RTC -s "$B" --json "$@" || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	demo_row cmtime "$peer" "rt client -> $(side "$peer") server" \
		"$(num 1 "$(json_num "$OUT" results connections_per_second)" conn/s), connect p50 $(num 0 "$(connect_p50)" us)"
	pass
}

conns "cmtime: rdmatest both sides, 20 connections" rdmatest "$RTC" -c 20
conns "cmtime: rdmatest client, upstream cmtime server, 20 connections" upstream /usr/bin/cmtime -c 20
