# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 900
# rping under faults on two hosts: every case ends within its bound with the
# documented exit code and a reason that names the injected cause.
RTR=$RT/rping

# start_pair NAME_SUFFIX SERVER_ARGS -- CLIENT_ARGS: server on b, client on a
start_pair() {
	sargs=''
	while [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
	shift
	bg_start srv b $RTR -s -a "$B" $sargs
	wait_listen b 7174 20 || { fail "server not listening"; return 1; }
	bg_start cli a $RTR -c -a "$B" "$@"
}

. "$LAB_SCEN/faults.inc"

case_begin "server killed: client ends within its timeout" 60
start_pair -- --timeout 3 -V

sleep 2
bg_kill srv KILL >/dev/null
failed || exit_in cli 1 124
failed || log_has cli 'disconnected during ping|timed out|stopped answering'
pass

# without -C the server cannot tell an early quit from the end: the kernel
# disconnects a killed process (0), or no DREQ arrives and the idle bound
# ends it (124). Or the ping in flight fails first: the kernel freed the
# dead client's memory before its QP, and the server's RDMA READ of it
# met a remote access error (1, named; upstream rping.c's
# rping_cq_event_handler fails on any completion error but a flush too;
# seen once, in a whole suite's run on a 2-core host)
case_begin "client killed: server ends cleanly, within its timeout, or naming the ping it lost" 60
start_pair --timeout 3 -- -V
sleep 2
bg_kill cli KILL >/dev/null
exit_in srv 0 1 124
failed || [ "$rc" != 1 ] || log_has srv 'completion failed: remote access error \(.*its process ended'
pass

case_begin "client killed, server -C: the early end is a failure" 60
start_pair --timeout 3 -C 1000000 -- -C 1000000 -V
sleep 2
bg_kill cli KILL >/dev/null
exit_in srv 1 124
failed || log_has srv 'client left after [0-9]+ of 1000000 pings|no progress for 3 s'
pass

case_begin "server -C: a client doing all its pings passes" 60
start_pair -C 50 -- -C 50 -V
exit_in cli 0
exit_in srv 0
pass

# a single-client server turns a second client away at once (and frees
# the refused connection's resources) while the first goes on; -v shows
# the first is pinging
# 1000 pings (about 5.5 s on an idle machine, longer under load) outlast the
# second client's attempt, which starts at the first one's first ping
case_begin "second client while one is served: rejected at once, the first passes" 90
start_pair -C 1000 -- -C 1000 -V -v
wait_log cli 'ping data: rdma-ping-0:' 30 || fail "the first client did not start"
failed || run_on -t 30 a $RTR -c -a "$B" -C 1
rc=$?
failed || [ $rc = 1 ] || fail "second client exited $rc, wanted 1"
failed || output_has 'rejected by the peer application' || fail "no reason for the second client"
exit_in cli 0
exit_in srv 0
log_has srv 'rejected: already serving a client'
pass

# the server's -C lets it tell a client that failed from one that finished;
# 1000 pings still run when the blip (2 s in, 0.2 s long) is over
case_begin "link down briefly, then up: both recover, or both name the failure" 120
start_pair -C 1000 --timeout 5 -- -C 1000 -V --timeout 20
sleep 2
link_blip a
agree 'disconnected during ping|timed out|completion failed' \
	'client left after [0-9]+ of 1000 pings|no progress for 5 s|completion failed'
pass

# each lost packet costs a retransmission timeout (about 0.5 s on rxe), so
# the counts keep the runs short; one rate: 1% of 200 pings took 27 s and
# took the same path as 5% of 20 (a lost packet, a retransmission, the
# ping verified; 20 pings are over a hundred packets, so some are lost)
case_begin "5% packet loss: completes and verifies" 180
netem a loss 5%
start_pair -- -C 20 -V --timeout 20
exit_in cli 0
exit_in srv 0
netem_clear
pass

case_begin "50 ms delay: completes and verifies" 120
netem a delay 50ms
start_pair -- -C 20 -V
exit_in cli 0
exit_in srv 0
netem_clear
pass

case_begin "client started before the server (--wait-server)" 60
bg_start cli a $RTR -c -a "$B" -C 5 -V --wait-server 30
sleep 3
bg_start srv b $RTR -s -a "$B"
exit_in cli 0
exit_in srv 0
pass

case_begin "server absent: exit 1, nothing listening" 30
run_on -t 20 a $RTR -c -a "$B" -C 1
[ $? = 1 ] || fail "wanted exit 1"
output_has 'nothing listening' || fail "no reason"
pass

case_begin "host absent: exit 1 within the bound, resolution timed out" 60
run_on -t 40 a $RTR -c -a 192.0.2.99 -C 1 --timeout 3
rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "exit $rc"
output_has 'address resolution timed out|unreachable|no route' || fail "no reason"
pass

case_begin "size mismatch: the server names the bad advert" 60
start_pair -S 64 -- -S 128 -C 5
exit_in cli 1
exit_in srv 1
log_has srv 'exceeds this side.s buffer'
pass

case_begin "link down longer than --timeout: both sides end" 90
start_pair --timeout 3 -- --timeout 3 -V
sleep 2
link_down b
failed || exit_in cli 1 124
failed || log_has cli 'stopped answering|timed out|disconnected'
link_up b
exit_in srv 0 1 124
rxe_reset a
rxe_reset b
pass

case_begin "device removed under a running test: exit 1, no crash" 90
start_pair --timeout 5 -- --timeout 5 -V
sleep 2
run_on -t 10 b /sbin/rdma link delete rxe0
exit_in srv 1
log_has srv 'device was removed'
exit_in cli 1 124
run_on -t 10 b /sbin/rdma link add rxe0 type rxe netdev eth0
pass
