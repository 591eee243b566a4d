# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 900
# rstream under faults on two hosts: every case ends within its bound with
# the documented exit code and a reason that names the injected cause.
# Server on host b, client on host a; custom rows (-S/-C) keep each run
# short. Killed upstream peers and mismatches against upstream are in
# interop-rstream.
RTS=$RT/rstream
. "$LAB_SCEN/faults.inc"

# start_pair SERVER_ARGS -- CLIENT_ARGS: server "srv" on b, client "cli" on a
start_pair() {
	local sargs=''
	while [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
	shift
	bg_start srv b $RTS --accept-timeout 60 $sargs
	wait_listen b 7471 20 || { fail "server not listening"; return 1; }
	bg_start cli a $RTS -s "$B" "$@"
}

# streaming: the client printed its table header and is two seconds in
streaming() {
	wait_log cli '^name +bytes' 30 || { fail "the client did not start"; return 1; }
	sleep 2
}

LONG="-S 65536 -C 1000000"

case_begin "server killed mid-stream: the client ends, naming the peer" 90
start_pair $LONG -- $LONG --timeout 5
streaming && bg_kill srv KILL > /dev/null
exit_in cli 1 124
log_has cli 'row custom .*(closed|reset) by the peer|no data for 5 s'
pass

case_begin "client killed mid-stream: the server ends, naming the peer" 90
start_pair $LONG --timeout 5 -- $LONG
streaming && bg_kill cli KILL > /dev/null
exit_in srv 1 124
log_has srv 'row custom .*(closed|reset) by the peer|no data for 5 s'
pass

case_begin "link down briefly, then up: both complete, or both name the failure" 120
start_pair -S 65536 -C 300 -T v --timeout 20 -- -S 65536 -C 300 -T v --timeout 20
streaming && link_blip a
agree '(closed|reset) by the peer|no data for|timed out' \
	'(closed|reset) by the peer|no data for|timed out'
pass

# each lost packet costs a retransmission timeout (about 0.5 s on rxe), so
# the counts keep the runs short
for loss in 1%:300 5%:60; do
	count=${loss#*:} loss=${loss%:*}
	case_begin "$loss packet loss: completes and verifies" 180
	netem a loss $loss
	start_pair -S 1000 -C $count -T v --timeout 20 -- -S 1000 -C $count -T v --timeout 20
	exit_in cli 0
	exit_in srv 0
	netem_clear
	pass
done

case_begin "50 ms delay: completes and verifies" 120
netem a delay 50ms
start_pair -S 1000 -C 20 -T v -- -S 1000 -C 20 -T v
exit_in cli 0
exit_in srv 0
netem_clear
pass

case_begin "client started before the server (--wait-server)" 60
bg_start cli a $RTS -s "$B" -S 1000 -C 10 -T v --wait-server 30
sleep 3
bg_start srv b $RTS --accept-timeout 30 -S 1000 -C 10 -T v
exit_in cli 0
exit_in srv 0
pass

case_begin "server absent: exit 1, nothing listening" 30
run_on -t 20 a $RTS -s "$B" -S 1000 -C 10
[ $? = 1 ] || fail "wanted exit 1"
output_has 'nothing listening' || fail "no reason"
pass

case_begin "host absent: exit 1 or 124 within the bound, naming resolution" 60
run_on -t 40 a $RTS -s 192.0.2.99 -S 1000 -C 10 --timeout 3
rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "exit $rc"
output_has 'resol.* timed out|unreachable|no route|no answer within' || fail "no reason"
pass

case_begin "-S differs: both exit 1 at once, naming -S" 60
start_pair -S 2000 -C 100 --timeout 5 -- -S 1000 -C 100 --timeout 5
exit_in cli 1
log_has cli 'the peer runs -S 2000 -C 100 -I 1, this side -S 1000 -C 100 -I 1'
exit_in srv 1
pass

case_begin "-C differs: both exit 1 at once, naming -C" 60
start_pair -S 1000 -C 200 --timeout 5 -- -S 1000 -C 100 --timeout 5
exit_in cli 1
log_has cli 'the peer runs -S 1000 -C 200 -I 1, this side -S 1000 -C 100 -I 1'
exit_in srv 1
pass

# A cut link: the cut host's port goes down and its side fails at once;
# the peer's port stays up, its peer just goes silent, and it must end by
# its own --timeout. It used to hang there (90 s and more): rclose of the
# connected rsocket waited, with no bound, for an acknowledgement of its
# disconnect (applets/rdmacm/rsock_io.c). The other host's frames are dropped too
# (netem loss 100%), as a switch would drop them: in the lab a guest whose
# NIC is down stops reading the qemu stream link, and a peer that keeps
# sending into it blocks its own qemu (that whole guest stops, docs/dev/lab.md).
# ends_by NAME SEC CODES REGEX: the job ended by itself within SEC s of the
# cut, with one of CODES and the reason (a job bg_wait had to kill has none)
ends_by() {
	local t0 rc
	t0=$(date +%s)
	bg_wait "$1" "$2"
	rc=$?
	note "$1 exit $rc, $(($(date +%s) - t0)) s after the wait began"
	case " $3 " in *" $rc "*) ;; *) fail "$1 exited $rc, wanted one of: $3" ;; esac
	log_has "$1" "$4"
}

cut_case() { # cut_case HOST OTHER: cut HOST's link mid-stream
	start_pair $LONG --timeout 5 -- $LONG --timeout 5
	streaming && netem "$2" loss 100% && link_down "$1"
	note "cut $1 at $(date +%T)"
	failed || ends_by srv 12 "1 124" 'row custom .*(no data for 5 s|took no data for 5 s|(closed|reset) by the peer)'
	failed || ends_by cli 12 "1 124" 'row custom .*(no data for 5 s|took no data for 5 s|(closed|reset) by the peer)'
	netem_clear
	link_up "$1"
	rxe_reset a
	rxe_reset b
}

case_begin "client's link cut mid-stream: both sides end within --timeout" 120
cut_case a b
pass

case_begin "server's link cut mid-stream: both sides end within --timeout" 120
cut_case b a
pass

case_begin "device removed under a running stream: exit 1 or 124, no crash" 90
start_pair $LONG --timeout 5 -- $LONG --timeout 5
streaming && run_on -t 10 b /sbin/rdma link delete rxe0
exit_in srv 1 124
exit_in cli 1 124
run_on -t 10 b /sbin/rdma link add rxe0 type rxe netdev eth0
pass
