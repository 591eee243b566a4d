# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 400
# SIGINT and SIGTERM end rping with a verdict (docs/exit-codes.md): a run
# whose normal end is an interrupt (-C 0 client, -P server) exits 0 after
# good rounds, any other exits 130/143 as "interrupted"; both print the
# summary so far and a valid --json document. Server on b, client on a.
# Counts are never compared with a time: only "at least one ping" and the
# text and JSON agreeing.
RTR=$RT/rping

# the JSON document of a job: exactly one, valid (test/lab/tools/json_check.c)
job_json_ok() {
	bg_log "$1" > "/tmp/lab/$1.log"
	$RT/json-check < "/tmp/lab/$1.log" >> "$LAB_TRANSCRIPT" || fail "$1: no single valid JSON document"
}
# json_field JOB KEY: the first integer value of "KEY": in the job's document
json_field() { grep '^{"tool":"rdmatest"' "/tmp/lab/$1.log" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" | head -n 1; }
# started JOB: at least one ping has completed (the client prints nothing per
# ping without -v, so -v lines are counted); at most 20 s
started() {
	local i
	for i in $(seq 200); do
		bg_log "$1" | grep -q '^ping data: rdma-ping-1' && return 0
		sleep 0.1
	done
	fail "$1 completed no ping within 20 s"
}

case_begin "rping -C 0 client, SIGINT: exit 0, N pings in text and JSON, server ends 0" 90
bg_start srv b $RTR -s -a "$B" --timeout 3
wait_listen b 7174 20 || fail "server not listening"
failed || bg_start cli a $RTR -c -a "$B" -C 0 -V -v --json --timeout 3
failed || started cli
failed || { bg_kill cli INT; rc=$?; [ "$rc" = 0 ] || fail "client exit $rc, wanted 0"; }
failed || job_json_ok cli
failed || grep -q '"outcome":{"verdict":"pass","exit_code":0,"interrupted":true,"signal":"SIGINT"}' /tmp/lab/cli.log ||
	fail "client JSON outcome"
n=$(json_field cli pings)
failed || [ "${n:-0}" -ge 1 ] || fail "client JSON reports ${n:-no} pings"
failed || grep -q "^rping: $n pings, rtt min/median/p99/p99.9/max " /tmp/lab/cli.log ||
	fail "no summary line with the JSON's $n pings"
failed || grep -q "\"rtt_us\":{\"count\":$n," /tmp/lab/cli.log || fail "rtt_us.count is not the ping count $n"
failed || { bg_wait srv 10; rc=$?; [ "$rc" = 0 ] || fail "server exit $rc after the client's disconnect"; }
pass

case_begin "rping -C 1000000 client, SIGTERM: exit 143 interrupted, with the pings so far" 90
bg_start srv b $RTR -s -a "$B" --timeout 3
wait_listen b 7174 20 || fail "server not listening"
failed || bg_start cli a $RTR -c -a "$B" -C 1000000 -v --json --timeout 3
failed || started cli
failed || { bg_kill cli TERM; rc=$?; [ "$rc" = 143 ] || fail "client exit $rc, wanted 143"; }
failed || job_json_ok cli
failed || grep -q '"outcome":{"verdict":"interrupted","exit_code":143,"interrupted":true,"signal":"SIGTERM","error":{"phase":"transfer"' /tmp/lab/cli.log ||
	fail "client JSON outcome"
failed || grep -q '^rping: interrupted by SIGTERM$' /tmp/lab/cli.log || fail "no one-line reason"
n=$(json_field cli pings)
failed || [ "${n:-0}" -ge 1 ] || fail "client JSON reports ${n:-no} pings"
failed || { bg_wait srv 10; rc=$?; [ "$rc" = 0 ] || fail "server exit $rc after the client's disconnect"; }
pass

case_begin "single-client server, SIGTERM mid-run: exit 143, it disconnects the client" 90
bg_start srv b $RTR -s -a "$B" --json --timeout 3
wait_listen b 7174 20 || fail "server not listening"
failed || bg_start cli a $RTR -c -a "$B" -C 0 -v --timeout 3
failed || started cli
failed || { bg_kill srv TERM; rc=$?; [ "$rc" = 143 ] || fail "server exit $rc, wanted 143"; }
failed || job_json_ok srv
failed || grep -q '"outcome":{"verdict":"interrupted","exit_code":143,"interrupted":true,"signal":"SIGTERM"' /tmp/lab/srv.log ||
	fail "server JSON outcome"
failed || [ "$(json_field srv pings_served)" -ge 1 ] || fail "server JSON reports no pings served"
failed || grep -q '^rping: served [0-9]* pings to 1 clients$' /tmp/lab/srv.log || fail "no server summary"
# the server's disconnect reaches the client: it names it, at once
failed || exit_in cli 1
failed || log_has cli 'disconnected during ping [0-9]+'
pass

case_begin "-P server, SIGINT after good clients: exit 0, pass, the pings served" 90
bg_start srv b $RTR -s -P -a "$B" --json --timeout 3
wait_listen b 7174 20 || fail "server not listening"
failed || run_on -t 30 a $RTR -c -a "$B" -C 10 -V || fail "client 1 exit $?"
failed || run_on -t 30 a $RTR -c -a "$B" -C 5 -V || fail "client 2 exit $?"
failed || { bg_kill srv INT; rc=$?; [ "$rc" = 0 ] || fail "server exit $rc, wanted 0"; }
failed || job_json_ok srv
failed || grep -q '"outcome":{"verdict":"pass","exit_code":0,"interrupted":true,"signal":"SIGINT"}' /tmp/lab/srv.log ||
	fail "server JSON outcome"
failed || [ "$(json_field srv pings_served)" = 15 ] || fail "pings_served $(json_field srv pings_served), wanted 15"
failed || [ "$(json_field srv clients)" = 2 ] || fail "clients $(json_field srv clients), wanted 2"
pass

case_begin "-P server waiting for clients, SIGTERM: exit 0 at once" 30
bg_start srv b $RTR -s -P -a "$B" --json
wait_listen b 7174 20 || fail "server not listening"
failed || { bg_kill srv TERM; rc=$?; [ "$rc" = 0 ] || fail "server exit $rc, wanted 0"; }
failed || job_json_ok srv
pass

case_begin "single-client server waiting for a client, SIGINT: exit 130" 30
bg_start srv b $RTR -s -a "$B" --json
wait_listen b 7174 20 || fail "server not listening"
failed || { bg_kill srv INT; rc=$?; [ "$rc" = 130 ] || fail "server exit $rc, wanted 130"; }
failed || job_json_ok srv
failed || grep -q '"verdict":"interrupted","exit_code":130,.*"phase":"accept"' /tmp/lab/srv.log || fail "server JSON outcome"
pass
