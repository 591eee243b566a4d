# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 180
# The scenario API itself: statuses, bounds, signals, logs, readiness.
# Runs on one host (a and b are the same VM) and on two hosts.

case_begin run_on-status 20
run_on a sh -c 'echo hello; exit 3'
rc=$?
[ "$rc" = 3 ] || fail "status $rc, expected 3"
grep -qx hello "$OUT" || fail "output not in \$OUT"
pass

case_begin run_on-timeout 20
run_on -t 2 b sleep 30
rc=$?
[ "$rc" = 124 ] || fail "status $rc, expected 124"
pass

expect_exit expect_exit 2 b sh -c 'exit 2'

case_begin bg_wait-status 20
bg_start j b sh -c 'exit 7'
bg_wait j 10
rc=$?
[ "$rc" = 7 ] || fail "status $rc, expected 7"
pass

case_begin bg_wait-timeout 20
bg_start j b sleep 30
bg_wait j 1
rc=$?
[ "$rc" = 124 ] || fail "status $rc, expected 124"
pass

# jobs get default signal dispositions (not ash's ignored SIGINT)
case_begin bg_kill-int 20
bg_start j b sleep 30
bg_kill j INT
rc=$?
[ "$rc" = 130 ] || fail "status $rc after SIGINT, expected 130"
pass

# a job that ignores SIGTERM is killed after 5 s
case_begin bg_kill-escalates 30
bg_start j b sh -c 'trap "" TERM; echo trapped; sleep 60'
# the trap must be in place before the TERM, or the shell dies of it
wait_log j trapped 20 || fail "job did not start"
bg_kill j
rc=$?
[ "$rc" = 137 ] || fail "status $rc, expected 137 (SIGKILL)"
pass

# stdout of a killed dynamically linked server is not lost (stdbuf -oL)
case_begin bg_log-after-kill 30
bg_start j b ib_send_bw -d "$DEV_B" -x 1
wait_tcp_listen b 18515 20 || fail "ib_send_bw did not listen"
bg_kill j
bg_log j | grep -q 'Waiting for client' || fail "server output lost"
pass

case_begin wait_log 20
bg_start j b sh -c 'sleep 1; echo ready; sleep 30'
wait_log j '^ready$' 10 || fail "ready line not seen"
pass

case_begin wait_listen-bound 20
wait_listen b 9999 1 && fail "something listens on 9999?"
wait_tcp_listen b 9999 1 && fail "something listens on tcp 9999?"
pass

case_begin demo-summary-helpers 10
printf '%s\n' 'text {"x":1}' \
	'{"params":{"count":5},"results":{"n":10,"rtt_us":{"count":3,"median":12.345},"secs":0.5,"neg":-2e-3}}' \
	> /tmp/lab/j.json
[ "$(json_num /tmp/lab/j.json rtt_us median)" = 12.345 ] || fail "json_num nested: '$(json_num /tmp/lab/j.json rtt_us median)'"
[ "$(json_num /tmp/lab/j.json results n)" = 10 ] || fail "json_num results n"
[ "$(json_num /tmp/lab/j.json neg)" = -2e-3 ] || fail "json_num negative"
[ -z "$(json_num /tmp/lab/j.json results count)" ] || fail "json_num crossed into a nested object"
[ -z "$(json_num /tmp/lab/j.json nope)" ] || fail "json_num found a missing key"
[ "$(num 1 12.345 us)" = "12.3 us" ] || fail "num: '$(num 1 12.345 us)'"
[ "$(num 1 '' us)" = - ] || fail "num of nothing"
[ "$(ratio 10 0.5 1 conn/s)" = "20.0 conn/s" ] || fail "ratio: '$(ratio 10 0.5 1 conn/s)'"
[ "$(ratio 10 0 1 x)" = - ] || fail "ratio by 0"
pass

case_begin skip 10
skip "skips are reported as such"
pass
