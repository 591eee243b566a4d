# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 600
# udaddy interop matrix: rdmatest and upstream (rdma-core v44) as server
# and client (rdmatest against upstream both ways), with the options that change the wire; then
# robustness cases. Server on host b, client on host a; UDP port 7174.
UP=/usr/bin/udaddy
RTU=$RT/udaddy

# pair NAME SERVER CLIENT [ARGS...]: one server/client run, both must exit 0.
pair() {
	name=$1 srv=$2 cli=$3
	shift 3
	case_begin "$name" 90
	bg_start srv b $srv "$@"
	wait_listen b 7174 20 || fail "server not listening on 7174"
	failed || run_on -t 60 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	failed || output_has '^return status 0$' || fail "client did not report success"
	pass
}

# rt against rt: the cases below (every datagram counted, -t, the
# robustness cases); each set again (4 cases) proved what the two
# directions had
for args in "" "-c 4 -C 50" "-S 1024 -C 20" "-p 0x111 -c 2"; do
	tag=$(echo "${args:-default}" | tr -d ' ')
	pair "rt-client/upstream-server $tag" "$UP" "$RTU" $args
	pair "upstream-client/rt-server $tag" "$RTU" "$UP" $args
done

case_begin "rt/rt: every datagram counted, none lost" 60
bg_start srv b $RTU -C 30 --json
wait_listen b 7174 20 || fail "server not listening"
failed || run_on -t 40 a $RTU -s "$B" -C 30 --json || fail "client exited $?"
failed || [ "$(json_num "$OUT" results received)" = 30 ] || fail "client did not count 30"
failed || [ "$(json_num "$OUT" results lost)" = 0 ] || fail "client counted losses"
failed || bg_wait srv 30 || fail "server exited $?"
pass

case_begin "rt/rt -t applied" 60
bg_start srv b $RTU
wait_listen b 7174 20 || fail "server not listening"
failed || run_on -t 40 a $RTU --debug -s "$B" -t 32 || fail "client exited $?"
failed || output_has 'set TOS 32' || fail "client did not apply -t"
bg_wait srv 30 >/dev/null
pass

case_begin "no server: bounded exit 1 with the reason" 40
run_on -t 30 a $RTU -s "$B" --timeout 5
rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "exit $rc, wanted 1 or 124"
failed || output_has 'udaddy: ' || fail "no reason given"
pass

case_begin "count mismatch: losses counted, both sides end" 60
bg_start srv b $RTU -C 10 --timeout 3
wait_listen b 7174 20 || fail "server not listening"
failed || run_on -t 40 a $RTU -s "$B" -C 5 --timeout 3
rc=$?
[ $rc = 124 ] || fail "client exit $rc, wanted 124 (no replies)"
bg_wait srv 30; rc=$?
[ $rc = 1 ] || fail "server exit $rc, wanted 1"
failed || bg_log srv | grep -q 'lost 5 of 10' || fail "the server did not count the 5 lost"
pass

case_begin "size mismatch: the larger datagrams are not taken for good ones" 60
bg_start srv b $RTU -S 100 --timeout 3
wait_listen b 7174 20 || fail "server not listening"
failed || run_on -t 40 a $RTU -s "$B" -S 200 --timeout 3
bg_wait srv 30; rc=$?
[ $rc != 0 ] || fail "server passed with oversized datagrams"
pass

case_begin "server killed after the SIDR exchange: client ends within its timeout" 60
bg_start srv b $UP
wait_listen b 7174 20 || fail "server not listening"
failed || bg_kill srv KILL
failed || run_on -t 40 a $RTU -s "$B" --timeout 3
rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "client exit $rc, wanted 1 or 124"
pass

case_begin "-S over the MTU: usage error naming it" 30
run_on -t 20 a $RTU -s "$B" -S 60000
rc=$?
[ $rc = 2 ] || fail "exit $rc, wanted 2"
failed || output_has 'MTU' || fail "the MTU was not named"
pass
