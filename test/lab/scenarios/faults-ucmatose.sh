# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 900
# ucmatose under faults on two hosts: every case ends within its bound with
# the documented exit code and a reason that names the injected cause.
RTU=$RT/ucmatose
. "$LAB_SCEN/faults.inc"

# start_pair SERVER_ARGS -- CLIENT_ARGS: server on b, client on a
start_pair() {
	sargs=''
	while [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
	shift
	bg_start srv b $RTU $sargs
	wait_listen b 7471 20 || { fail "server not listening"; return 1; }
	bg_start cli a $RTU -s "$B" "$@"
}

case_begin "server killed mid-transfer: client ends within its timeout" 90
start_pair -C 5000 -S 65536 -- -C 5000 -S 65536 --timeout 3
wait_log cli 'receiving data transfers' 30 || fail "transfer never started"
bg_kill srv KILL >/dev/null
failed || exit_in cli 1 124
failed || log_has cli 'disconnected after|timed out|stopped answering|went away'
pass

case_begin "client killed mid-transfer: server ends within its timeout" 90
start_pair -C 5000 -S 65536 --timeout 3 -- -C 5000 -S 65536
wait_log srv 'initiating data transfers' 30 || fail "transfer never started"
bg_kill cli KILL >/dev/null
failed || exit_in srv 1 124
pass

case_begin "link down briefly, then up: both recover, or both name the failure" 120
start_pair -C 400 -S 65536 --verify --timeout 20 -- -C 400 -S 65536 --verify --timeout 20
wait_log cli 'receiving data transfers' 30 || fail "transfer never started"
link_blip a
agree 'disconnected|timed out|stopped answering|went away|completion failed' \
	'disconnected|timed out|stopped answering|went away|completion failed'
pass

for loss in 1% 5%; do
	case_begin "$loss packet loss: completes and verifies" 180
	netem a loss $loss
	start_pair -c 4 -C 50 --verify --timeout 20 -- -c 4 -C 50 --verify --timeout 20
	exit_in cli 0
	exit_in srv 0
	netem_clear
	pass
done

case_begin "50 ms delay: completes and verifies" 120
netem a delay 50ms
start_pair -c 8 -C 20 --verify -- -c 8 -C 20 --verify
exit_in cli 0
exit_in srv 0
netem_clear
pass

case_begin "client started before the server (--wait-server)" 60
bg_start cli a $RTU -s "$B" -c 4 --verify --wait-server 30
sleep 3
bg_start srv b $RTU -c 4 --verify
exit_in cli 0
exit_in srv 0
pass

case_begin "server absent: exit 1, nothing listening" 30
run_on -t 20 a $RTU -s "$B"
[ $? = 1 ] || fail "wanted exit 1"
output_has 'nothing listening' || fail "no reason"
pass

case_begin "host absent: exit 1 within the bound, resolution timed out" 60
run_on -t 40 a $RTU -s 192.0.2.99 --timeout 3
rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "exit $rc"
output_has 'address resolution timed out|unreachable|no route' || fail "no reason"
pass

case_begin "count mismatch: both end, the count is named" 60
start_pair -C 10 --timeout 5 -- -C 20 --timeout 5
exit_in cli 1 124
exit_in srv 1 124
log_has cli 'match'
pass

case_begin "connection count mismatch: both end, the count is named" 60
start_pair -c 3 --timeout 5 -- -c 2 --timeout 5
exit_in srv 124
log_has srv 'expected 3: does the peer.s -c match'
exit_in cli 1 124
pass

case_begin "link down longer than --timeout: both sides end" 90
start_pair -C 5000 -S 65536 --timeout 3 -- -C 5000 -S 65536 --timeout 3
wait_log cli 'receiving data transfers' 30 || fail "transfer never started"
link_down b
failed || exit_in cli 1 124
link_up b
exit_in srv 1 124
rxe_reset a
rxe_reset b
pass

case_begin "device removed under a running test: exit 1, no crash" 90
start_pair -C 5000 -S 65536 --timeout 5 -- -C 5000 -S 65536 --timeout 5
wait_log srv 'initiating data transfers' 30 || fail "transfer never started"
run_on -t 10 b /sbin/rdma link delete rxe0
exit_in srv 1
log_has srv 'device was removed'
exit_in cli 1 124
run_on -t 10 b /sbin/rdma link add rxe0 type rxe netdev eth0
pass
