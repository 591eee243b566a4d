# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 1200
# ucmatose interop matrix: rdmatest and upstream (rdma-core v44) as server
# and client (rdmatest against upstream both ways), with the options that change the wire; then
# robustness cases. Server on host b, client on host a.
UP=/usr/bin/ucmatose
RTU=$RT/ucmatose

# pair NAME SERVER CLIENT [ARGS...]: one server/client run, both must exit 0.
pair() {
	name=$1 srv=$2 cli=$3
	shift 3
	case_begin "$name" 150
	bg_start srv b $srv "$@"
	wait_listen b 7471 20 || fail "server not listening on 7471"
	failed || run_on -t 120 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	failed || output_has '^return status 0$' || fail "client did not report success"
	pass
}

# every wire-changing option set, both ways against upstream: an rt
# client that upstream's server accepts and an rt server that upstream's
# client accepts; rt against rt with the defaults (the rt-only options
# below run rt against rt), not again for each set (8 cases, 14 s, that
# the two directions had proved)
pair "rt/rt default" "$RTU" "$RTU"
for args in "" "-c 8 -C 100" "-S 1" "-S 4096 -C 20" "-S 65536 -C 4" "-P ib" "-m" "-c 64 -C 2"; do
	tag=$(echo "${args:-default}" | tr -d ' ')
	pair "rt-client/upstream-server $tag" "$UP" "$RTU" $args
	pair "upstream-client/rt-server $tag" "$RTU" "$UP" $args
done
pair "rt/rt --verify" "$RTU --verify" "$RTU --verify" -c 4 -C 50 -S 1000
pair "rt/rt --verify tiny" "$RTU --verify" "$RTU --verify" -S 7
pair "rt/rt -t -a applied" "$RTU --debug -a 14" "$RTU --debug -t 32 -a 14"
case_begin "-t/-a reach the CM" 10
output_has 'set TOS 32' && output_has 'set ACK timeout 14' || fail "client did not apply -t/-a"
pass
pair "rt/rt -c 500" "$RTU" "$RTU" -c 500 -C 1 -S 64

case_begin "no listener: fast exit 1 with the reason" 40
run_on -t 30 a $RTU -s "$B"
rc=$?
[ $rc = 1 ] || fail "exit $rc, wanted 1"
failed || output_has 'nothing listening on that port' || fail "no reason given"
pass

case_begin "count mismatch: clear error, no hang" 60
bg_start srv b $RTU -C 10 --timeout 5
wait_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $RTU -s "$B" -C 5 --timeout 5
rc=$?
# the -C 5 client may get all it expects and see a clean disconnect before
# the server's sixth send fails for want of a receive: then only the
# server, which sent too much, can tell
[ $rc = 0 ] || [ $rc = 1 ] || [ $rc = 124 ] || fail "client exit $rc, wanted 0, 1 or 124"
bg_wait srv 30; rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "server exit $rc, wanted 1 or 124"
failed || bg_log srv | grep -Eq 'count match|-C' || fail "the server did not name the count"
pass

case_begin "size mismatch named" 60
bg_start srv b $RTU -S 200 --timeout 5
wait_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $RTU -s "$B" -S 100 --timeout 5
rc=$?
[ $rc = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'message size match' || fail "the size was not named"
bg_wait srv 30 >/dev/null
pass

case_begin "over the device's queue limits: exit 3 naming the limit" 40
run_on -t 30 a $RTU -s "$B" -C 100000
rc=$?
[ $rc = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'the device allows' || fail "the limit was not named"
pass

case_begin "client killed mid-run: server ends within its timeout" 90
bg_start srv b $RTU -C 5000 -S 65536 --timeout 4
wait_listen b 7471 20 || fail "server not listening"
failed || bg_start cli a $UP -s "$B" -C 5000 -S 65536
failed || wait_log srv 'initiating data transfers' 40 || fail "transfer never started"
failed || bg_kill cli KILL
bg_wait srv 40; rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "server exit $rc, wanted 1 or 124"
pass
