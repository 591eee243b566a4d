# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 400
# rdma_client/rdma_server and rdma_xclient/rdma_xserver (RC): rdmatest and
# upstream (rdma-core v44) as server and client in every pairing, on the
# default port and on -p; then robustness cases. Server on host b, client
# on host a.

# pair NAME SERVER CLIENT PROG [ARGS...]: one exchange, both must exit 0,
# the client printing upstream's "<prog>: end 0".
pair() {
	local name=$1 srv=$2 cli=$3 prog=$4 port=7471
	shift 4
	[ "$1" = -p ] && port=$2
	case_begin "$name" 60
	bg_start srv b $srv "$@"
	wait_listen b "$port" 20 || fail "server not listening on $port"
	failed || run_on -t 40 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	failed || output_has "^(.*/)?$prog: end 0" || fail "the client did not end with 0"
	pass
}

for x in "" x; do
	cli=rdma_${x}client srv=rdma_${x}server
	for args in "" "-p 7999"; do
		tag=${args:-default}; tag=${tag// /}
		pair "$cli rt -> upstream $srv $tag" /usr/bin/$srv $RT/$cli $cli $args
		pair "$cli upstream -> rt $srv $tag" $RT/$srv /usr/bin/$cli $cli $args
		pair "$cli rt -> rt $srv $tag" $RT/$srv $RT/$cli $cli $args
	done
done

case_begin "rdma_server --json: one message each way" 60
bg_start srv b $RT/rdma_server --json
wait_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $RT/rdma_client -s "$B" --json || fail "client exited $?"
failed || [ "$(json_num "$OUT" results received)" = 1 ] || fail "client did not count 1 received"
failed || [ "$(json_num "$OUT" results sent)" = 1 ] || fail "client did not count 1 sent"
failed || bg_wait srv 30 || fail "server exited $?"
failed || bg_log srv | grep -q '"received":1' || fail "server did not count 1 received"
pass

case_begin "no server: bounded exit with the reason" 40
run_on -t 30 a $RT/rdma_client -s "$B" --timeout 5
rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "exit $rc, wanted 1 or 124"
failed || output_has '^rdma_client: .*(reject|no server|unreachable|timed out|within)' || fail "no reason given"
pass

case_begin "no client: the server ends after --accept-timeout" 40
run_on -t 30 b $RT/rdma_server --accept-timeout 3
rc=$?
[ $rc = 124 ] || fail "exit $rc, wanted 124"
failed || output_has 'a client' || fail "the wait was not named"
pass

case_begin "server killed before the client came: client ends bounded" 60
bg_start srv b /usr/bin/rdma_server
wait_listen b 7471 20 || fail "server not listening"
failed || bg_kill srv KILL >/dev/null
failed || run_on -t 40 a $RT/rdma_client -s "$B" --timeout 5
rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "client exit $rc, wanted 1 or 124"
pass

case_begin "mismatch: rdma_client against upstream rdma_xserver (no reply)" 60
bg_start srv b /usr/bin/rdma_xserver
wait_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $RT/rdma_client -s "$B" --timeout 5
rc=$?
[ $rc = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'disconnected before the message arrived' || fail "the early disconnect was not named"
bg_wait srv 30 >/dev/null
pass

case_begin "rdma_xclient -c x: refused by name, exit 2" 20
run_on -t 10 a $RT/rdma_xclient -s "$B" -c x
rc=$?
[ $rc = 2 ] || fail "exit $rc, wanted 2"
failed || output_has 'XRC' || fail "XRC was not named"
pass
