# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 300
# Demo: rdmatest rstream between two hosts, host a (192.0.2.1, client) and
# host b (192.0.2.2, server), over rsockets on Soft-RoCE (rxe0), next to
# upstream rstream. The default series shortened with --scale (upstream's
# full series takes many minutes in this lab), a verified custom row
# against upstream, the same row over kernel TCP, and a verified row with
# --json between two rdmatest. The client's --json gives the rows' Gb/s.
# `lab demo` prints every command with its real output.
RTS="$RT/rstream"
RTSRV="$RTS --accept-timeout 60"

# demo NAME rdma|tcp "SERVER..." "CLIENT..." [ARGS...]; with ROW set to
# the peer's name, a summary row (the client must have --json)
demo() {
	local name=$1 kind=$2 srv=$3 cli=$4
	shift 4
	case_begin "$name" 120
	bg_start srv b $srv "$@"
	if [ "$kind" = tcp ]; then wait_tcp_listen b 7471 20; else wait_listen b 7471 20; fi ||
		fail "server not listening on 7471"
	failed || run_on -t 100 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	[ -z "${ROW:-}" ] || demo_row rstream "$ROW" "rt client -> $(side "$ROW") server" \
		"$(num 3 "$(json_num "$OUT" gbps)" Gb/s)"
	ROW=""
	pass
}

demo "the default series, counts / 100: latency rows, then bandwidth rows on a second connection" \
	rdma "$RTSRV --scale 100" "$RTS --scale 100"
ROW=upstream
demo "a custom row, every byte verified, against upstream rstream" \
	rdma "/usr/bin/rstream -T v" "$RTS -T v --json" -S 65536 -C 20 -I 3
demo "the same row over kernel TCP (-T s) for comparison" \
	tcp "$RTSRV -T sv" "$RTS -T sv" -S 65536 -C 20 -I 3
ROW=rdmatest
demo "--json: rdmatest both sides, the same row verified, one record per row" \
	rdma "$RTSRV -T v" "$RTS -T v --json" -S 65536 -C 20 -I 3
