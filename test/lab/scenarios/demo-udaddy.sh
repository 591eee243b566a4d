# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 200
# Demo: rdmatest udaddy between host a (192.0.2.1, client) and host b
# (192.0.2.2, server) over Soft-RoCE: 4 paths against rdmatest (every
# datagram counted) and against upstream udaddy.
RTU=$RT/udaddy

# paths NAME PEER SERVER CLIENT ARGS...: the server on b, the client on a
paths() {
	local name=$1 peer=$2 srv=$3 cli=$4
	shift 4
	case_begin "$name" 90
	bg_start srv b $srv "$@"
	wait_listen b 7174 20 || fail "server not listening on 7174"
	failed || run_on -t 60 a $cli -s "$B" --json "$@" || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	demo_row udaddy "$peer" "rt client -> $(side "$peer") server" \
		"$(json_num "$OUT" results received) datagrams back, $(json_num "$OUT" results lost) lost"
	pass
}

paths "udaddy: rdmatest both sides, 4 paths, 50 datagrams each way" rdmatest "$RTU" "$RTU" -c 4 -C 50
paths "udaddy: rdmatest client, upstream udaddy server, 4 paths" upstream /usr/bin/udaddy "$RTU" -c 4 -C 50
