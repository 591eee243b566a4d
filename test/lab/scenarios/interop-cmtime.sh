# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 900
# cmtime interop matrix. Debian 13's cmtime (rdma-core 56, the v56
# protocol: a TCP sync on the CM port, warm-up, main run, run without
# QPs) against rdmatest's default in both directions; Debian 12's (v44,
# the CM only) against rdmatest's --proto v44 in both directions; each
# generation against the other, bounded and named; then robustness cases.
# Server on host b, client on host a. Upstream's v56 server ends after its
# runs, its v44 server never exits (killed at the end of its case).
UP13=/opt/peers/up13/cmtime
UP12=/opt/peers/up12/cmtime
RTC=$RT/cmtime

# the v56 table: kind and count, threads, header, 17 rows of six integers
table56_ok() {
	output_has '^(qp|cm)_conn +[0-9]+$' || { note "no qp_conn/cm_conn line"; return 1; }
	output_has '^step +avg/iter +total\(us\) +us/conn +sum\(us\) +max\(us\) +min\(us\)$' || return 1
	for s in 'full connect' 'create id' 'resolve addr' 'resolve route' 'create qp' \
		'cm connect' 'establish' 'disconnect' 'destroy id' 'destroy qp'; do
		output_has "^$s +( +[0-9]+){6}\$" || { note "row '$s' missing"; return 1; }
	done
	[ "$(grep -c '^step ' "$OUT")" = 2 ] || { note "not two tables (main run, no QPs)"; return 1; }
}
# the v44 table: header and one row per step, four fixed-point columns
table44_ok() {
	output_has '^step +total ms +max ms +min us +us / conn$' || return 1
	for s in 'create id' 'resolve addr' 'resolve route' 'create qp' 'connect' \
		'disconnect' 'destroy'; do
		output_has "^$s *:( +[0-9]+\.[0-9]{2}){4}\$" || { note "row '$s' missing"; return 1; }
	done
}
# upstream exits 0 whatever a connection did: its complaints are the verdict
upstream_clean() { ! output_has '^(RDMA_CM_EVENT|event:|Unhandled)' && ! output_has 'fail'; }

# pair56 NAME SERVER CLIENT [ARGS...]: both end 0, the client prints v56 tables
pair56() {
	local name=$1 srv=$2 cli=$3
	shift 3
	case_begin "$name" 90
	bg_start srv b $srv "$@"
	wait_tcp_listen b 7471 20 || fail "server not listening on tcp 7471"
	failed || run_on -t 60 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || table56_ok || fail "client printed no v56 tables"
	[ "$cli" != "$UP13" ] || failed || upstream_clean || fail "the upstream client complained"
	failed || bg_wait srv 30 || fail "server exited $?"
	[ "$srv" != "$UP13" ] || failed || ! bg_log srv | grep -Eq '^(RDMA_CM_EVENT|event:|Unhandled)' ||
		fail "the upstream server complained"
	pass
}

pair56 "rt-client/up13-server -c 10" "$UP13" "$RTC --wait-server 5" -c 10
pair56 "up13-client/rt-server -c 10" "$RTC" "$UP13" -c 10
pair56 "rt-client/up13-server -c 4 -m 100 -q 5000" "$UP13" "$RTC --wait-server 5" -c 4 -m 100 -q 5000
pair56 "up13-client/rt-server -c 4 -m 100" "$RTC" "$UP13" -c 4 -m 100
pair56 "rt/rt -c 5" "$RTC" "$RTC --wait-server 5" -c 5

# -S: plain TCP connections to the port, no sync, one table each side
for dir in "$UP13 $RTC" "$RTC $UP13"; do
	set -- $dir
	case_begin "-S socket baseline: server $(basename "$1"), client $(basename "$2")" 40
	bg_start srv b $1 -S -c 8
	wait_tcp_listen b 7471 20 || fail "server not listening on tcp 7471"
	failed || run_on -t 30 a $2 -S -s "$B" -c 8 || fail "client exited $?"
	failed || output_has '^Client baseline socket results:' || fail "no results"
	failed || output_has '^full connect +( +[0-9]+){6}$' || fail "no full connect row"
	failed || bg_wait srv 20 || fail "server exited $?"
	pass
done

# Debian 12's cmtime: rdmatest's --proto v44, both directions
pair44() {
	local name=$1 srv=$2 cli=$3
	shift 3
	case_begin "$name" 60
	bg_start srv b $srv "$@"
	wait_listen b 7471 20 || fail "server not listening on 7471"
	failed || run_on -t 40 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || table44_ok || fail "client printed no v44 table"
	[ "$cli" != "$UP12" ] || failed || upstream_clean || fail "a connection of the upstream client failed"
	if [ "$srv" = "$UP12" ]; then
		bg_kill srv KILL > /dev/null
	else
		failed || bg_wait srv 30 || fail "server exited $? (it should end after -c)"
	fi
	pass
}
pair44 "v44: rt-client/up12-server -c 10" "$UP12" "$RTC --proto v44" -c 10
pair44 "v44: up12-client/rt-server -c 10" "$RTC --proto v44" "$UP12" -c 10

# the other generation: bounded, one line, naming --proto
case_begin "v56 client, Debian 12 server: exit 1 naming --proto v44" 40
bg_start srv b $UP12
wait_listen b 7471 20 || fail "server not listening"
failed || { run_on -t 30 a $RTC -s "$B" -c 3; rc=$?
	[ $rc = 1 ] || fail "exit $rc, wanted 1"; }
failed || output_has 'refused.*--proto v44' || fail "--proto v44 not named"
bg_kill srv KILL >/dev/null
pass

case_begin "Debian 12 client, v56 server: server exit 1 naming --proto v44" 40
bg_start srv b $RTC -c 3 --timeout 5
wait_tcp_listen b 7471 20 || fail "server not listening"
failed || run_on -t 30 a $UP12 -s "$B" -c 3
bg_wait srv 20; rc=$?
[ $rc = 1 ] || fail "server exit $rc, wanted 1"
failed || bg_log srv | grep -q 'before any TCP sync connection.*--proto v44' || fail "--proto v44 not named"
pass

case_begin "--json: one valid document with percentiles and rate" 60
bg_start srv b $RTC -c 4 --json
wait_tcp_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $RTC -s "$B" -c 4 --json || fail "client exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "client: no single valid JSON document"
failed || [ "$(json_num "$OUT" results connections)" = 4 ] || fail "client: connections is not 4"
failed || output_has '"steps_us":\{.*"cm connect":\{"count":4,[^}]*"p99":[0-9]' || fail "client: no cm connect p99"
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
failed || output_has 'refused' || fail "no reason given"
pass

case_begin "no client within --accept-timeout: server exit 124" 30
run_on -t 20 b $RTC --accept-timeout 2
rc=$?
[ $rc = 124 ] || fail "exit $rc, wanted 124"
failed || output_has 'TCP sync connection' || fail "the wait was not named"
pass

case_begin "client's -c below the server's: both end within --timeout, naming -c" 60
bg_start srv b $RTC -c 10 --timeout 3
wait_tcp_listen b 7471 20 || fail "server not listening"
failed || run_on -t 40 a $UP13 -s "$B" -c 4
bg_wait srv 30; rc=$?
[ $rc = 124 ] || fail "server exit $rc, wanted 124"
failed || bg_log srv | grep -q "does the client's -c match" || fail "-c was not named"
pass
