# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 900
# cmtime interop matrix: rdmatest and Debian's cmtime (rdma-core v44) as
# server and client in every pairing, then robustness cases. Server on
# host b, client on host a. Upstream's server never exits: it is killed
# at the end of its case; ours ends after -c connections.
# Debian 12's: rdmatest's cmtime speaks the v44 protocol, and Debian 13's
# (rdma-core 56) is the incompatible second generation (a TCP sync on the
# port, -c on both sides); it has no case here, a known gap.
UP=/opt/peers/up12/cmtime
RTC=$RT/cmtime

# the v44 table: header and one row per step, four fixed-point columns
table_ok() {
	output_has '^step +total ms +max ms +min us +us / conn$' || return 1
	for s in 'create id' 'resolve addr' 'resolve route' 'create qp' 'connect' \
		'disconnect' 'destroy'; do
		output_has "^$s *:( +[0-9]+\.[0-9]{2}){4}\$" || { note "row '$s' missing"; return 1; }
	done
}
# signal_cmtime a|b SIG: signal every cmtime process on the host (the
# guest's busybox has no pkill)
signal_cmtime() {
	run_on "$1" sh -c 'n=0; for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = cmtime ] && kill -"$0" "${p#/proc/}" && n=1
	done; [ $n = 1 ]' "$2"
}
# no connection of an upstream client failed (it exits 0 regardless)
upstream_clean() { ! output_has '^(RDMA_CM_EVENT|event:)' && ! output_has 'fail'; }

# pair NAME SERVER CLIENT [ARGS...]: one run; both must succeed, and the
# client print the v44 table. Upstream's server never exits: it is killed.
pair() {
	local name=$1 srv=$2 cli=$3
	shift 3
	case_begin "$name" 120
	bg_start srv b $srv "$@"
	wait_listen b 7471 20 || fail "server not listening on 7471"
	failed || run_on -t 90 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || table_ok || fail "client printed no v44 table"
	[ "$cli" != "$UP" ] || failed || upstream_clean || fail "a connection of the upstream client failed"
	if [ "$srv" = "$UP" ]; then
		bg_kill srv KILL > /dev/null
	else
		failed || bg_wait srv 30 || fail "server exited $? (it should end after -c)"
	fi
	pass
}

for args in "" "-c 1" "-c 10" "-c 3 -r 7 -t 500"; do
	tag=$(echo "${args:-default}" | tr -d ' ')
	pair "rt-client/upstream-server $tag" "$UP" "$RTC" $args
	pair "upstream-client/rt-server $tag" "$RTC" "$UP" $args
	pair "rt/rt $tag" "$RTC" "$RTC" $args
done

case_begin "rt client -b: the bind addr row" 60
bg_start srv b $RTC -c 2
wait_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $RTC -s "$B" -b "$A" -c 2 || fail "client exited $?"
failed || output_has '^bind addr *:' || fail "no bind addr row with -b"
failed || bg_wait srv 30 || fail "server exited $?"
pass

case_begin "--json: one valid document with percentiles and rate" 60
bg_start srv b $RTC -c 4 --json
wait_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $RTC -s "$B" -c 4 --json || fail "client exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "client: no single valid JSON document"
failed || [ "$(json_num "$OUT" results connections)" = 4 ] || fail "client: connections is not 4"
# (json_num does not reach past the sibling objects before "connect")
failed || output_has '"steps_us":\{.*"connect":\{"count":4,[^}]*"p99":[0-9]' || fail "client: no connect p99"
failed || [ -n "$(json_num "$OUT" results connections_per_second)" ] || fail "client: no rate"
failed || bg_wait srv 30 || fail "server exited $?"
bg_log srv > /tmp/lab/srv.json
failed || $RT/json-check < /tmp/lab/srv.json >> "$LAB_TRANSCRIPT" || fail "server: no single valid JSON document"
failed || [ "$(json_num /tmp/lab/srv.json results connections)" = 4 ] || fail "server: connections is not 4"
pass

case_begin "server absent: client exit 1 naming it" 40
run_on -t 30 a $RTC -s "$B" -c 3
rc=$?
[ $rc = 1 ] || fail "exit $rc, wanted 1"
failed || output_has 'nothing listening on that port' || fail "no reason given"
pass

case_begin "no client within --accept-timeout: server exit 124" 30
run_on -t 20 b $RTC --accept-timeout 2
rc=$?
[ $rc = 124 ] || fail "exit $rc, wanted 124"
failed || output_has 'a first client' || fail "the wait was not named"
pass

case_begin "fewer clients than the server's -c: server ends, naming -c" 60
bg_start srv b $RTC -c 10 --timeout 3
wait_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $UP -s "$B" -c 4 || fail "upstream client exited $?"
bg_wait srv 30; rc=$?
[ $rc = 124 ] || fail "server exit $rc, wanted 124"
failed || bg_log srv | grep -q '4 of 10 connections came and went' || fail "the count was not named"
pass

case_begin "more clients than the server's -c: extras rejected, both named" 60
bg_start srv b $RTC -c 4 --timeout 5
wait_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $RTC -s "$B" -c 10 --timeout 5
rc=$?
[ $rc = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'rejected by the peer application' || fail "client did not name the reject"
bg_wait srv 30; rc=$?
[ $rc = 0 ] || fail "server exit $rc, wanted 0 (it served its 4)"
failed || bg_log srv | grep -q 'beyond -c 4' || fail "server did not name the extras"
pass

# a server that stops answering (frozen, then killed) cannot hang the
# client: its connect wait ends at --timeout
case_begin "server frozen mid-run: client exit 124, then killed" 60
bg_start srv b $UP
wait_listen b 7471 20 || fail "server not listening"
failed || signal_cmtime b STOP || fail "could not stop the server"
failed || { run_on -t 40 a $RTC -s "$B" -c 3 --timeout 3
	rc=$?
	[ $rc = 124 ] || fail "client exit $rc, wanted 124"; }
failed || output_has 'all connections to be established' || fail "the wait was not named"
signal_cmtime b KILL
bg_kill srv KILL >/dev/null
pass
