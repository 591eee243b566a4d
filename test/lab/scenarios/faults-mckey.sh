# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 900
# mckey under faults on two hosts: every case ends within its bound with
# the documented exit code and a reason that names the injected cause.
# Multicast is unreliable by design, so where the RC applets must recover,
# a receiver must count and name what it lost. Receivers on host a,
# senders on host b.
RTM=$RT/mckey
G=239.1.2.4
. "$LAB_SCEN/faults.inc"

# start_rcv ARGS...: the receiver job "rcv" on a, ready once it joined
start_rcv() {
	bg_start rcv a $RTM -m $G -b "$A" --accept-timeout 60 "$@"
	wait_log rcv 'receiving data transfers' 40 || fail "receiver did not get ready"
}

# start_snd ARGS...: the sender job "snd" on b
start_snd() { bg_start snd b $RTM -m $G -b "$B" -s "$@"; }

# sending: the sender is two seconds into its datagrams
sending() {
	wait_log snd 'initiating data transfers' 30 || { fail "sender never sent"; return 1; }
	sleep 2
}

case_begin "sender killed mid-run: the receiver names the loss within --timeout" 90
start_rcv --timeout 3 -C 5000
start_snd -C 5000 --rate 500
sending && bg_kill snd KILL > /dev/null
exit_in rcv 1
log_has rcv 'lost [0-9]+ of 5000 datagrams: none arrived for 3 s .*stopped or was cut off'
pass

case_begin "receiver killed mid-run: the sender still completes" 90
start_rcv --timeout 3 -C 3000
start_snd -C 3000 --rate 500
sending && bg_kill rcv KILL > /dev/null
exit_in snd 0
log_has snd 'sent 3000 datagrams'
pass

# A brief blip of the receiver's link may cost nothing: the stream link
# between the qemu guests holds what was sent meanwhile (docs/dev/lab.md). So
# either everything arrives, or the loss is counted and named; a gap
# longer than --timeout (slow port recovery under emulation) ends the
# receiver early with "none arrived", a named loss all the same.
case_begin "link down briefly: the receiver ends with a verdict that names any loss" 90
start_rcv --timeout 3 -C 3000
start_snd -C 3000 --rate 500
sending && link_blip a
exit_in snd 0
exit_in rcv 0 1
if [ "$rc" = 0 ]; then
	log_has rcv 'received 3000 datagrams on 1 QP: 0 lost'
else
	log_has rcv 'lost [1-9][0-9]* of 3000 datagrams.*(dropped on the way|none arrived for 3 s)'
fi
pass

# What the blip cannot promise, a burst of total loss on the sender's
# egress does: at 500/s, at least 150 datagrams never leave host b.
case_begin "0.3 s of total loss on the sender's link: the receiver names the gap" 90
start_rcv --timeout 3 -C 3000
start_snd -C 3000 --rate 500
sending && netem b loss 100% && sleep 0.3
netem_clear
exit_in snd 0
exit_in rcv 1
log_has rcv 'lost [1-9][0-9]* of 3000 datagrams.*dropped on the way'
pass

case_begin "link down longer than --timeout: both sides end" 90
start_rcv --timeout 3 -C 5000
start_snd -C 5000 --rate 500 --timeout 3
sending && link_down b
exit_in rcv 1
log_has rcv 'lost [0-9]+ of 5000 datagrams: none arrived for 3 s'
exit_in snd 0 1 124
link_up b
pass

# netem_case NAME NETEM COUNT RCV_STATUS LOG: b's egress impaired by netem's
# NETEM, COUNT datagrams paced at 500/s; the sender passes, the receiver
# exits RCV_STATUS and its log matches LOG
netem_case() {
	case_begin "$1" 120
	netem b $2
	start_rcv --timeout 3 -C "$3"
	start_snd -C "$3" --rate 500
	exit_in snd 0
	exit_in rcv "$4"
	netem_clear
	log_has rcv "$5"
	pass
}

# the count keeps the expected loss far from zero (5% of 2000: 100); one
# rate: 1% took the same path (datagrams lost, the gap counted) for 10 s
netem_case "5% packet loss: the receiver reports it" "loss 5%" 2000 1 \
	'received [0-9]+ datagrams on 1 QP: [1-9][0-9]* lost'
netem_case "50 ms delay: everything arrives" "delay 50ms" 500 0 \
	'received 500 datagrams on 1 QP: 0 lost'

case_begin "sender started before the receiver: --settle covers it" 90
start_snd -C 200 --settle 15
sleep 2
start_rcv --timeout 3 -C 200
exit_in snd 0
exit_in rcv 0
log_has rcv 'received 200 datagrams on 1 QP: 0 lost'
pass

case_begin "no receiver: the sender sends all and exits 0" 60
run_on -t 40 b $RTM -m $G -b "$B" -s -C 100
[ $? = 0 ] || fail "sender exit $?"
output_has 'sent 100 datagrams' || fail "no count"
pass

case_begin "receiver with no sender: exit 124, naming the wait" 60
run_on -t 40 a $RTM -m $G -b "$A" --timeout 2
[ $? = 124 ] || fail "wanted exit 124"
output_has 'no datagram arrived within 2 s' || fail "no reason"
pass

case_begin "bind address no device owns: exit 3, naming the ports that carry IP" 60
run_on -t 40 a $RTM -m $G -b 192.0.2.99 --timeout 3
[ $? = 3 ] || fail "wanted exit 3"
output_has 'from 192.0.2.99:0: .*no RDMA device owns the source address; RDMA ports with IP: rxe0 on eth0' ||
	fail "no reason"
pass

case_begin "count mismatch: the receiver names -C" 60
start_rcv --timeout 3 -C 20
start_snd -C 10
exit_in snd 0
exit_in rcv 1
log_has rcv 'nothing came after datagram 10 of 20 .*its -C is smaller'
pass

case_begin "fewer senders than --senders: the receiver names --senders" 60
start_rcv --timeout 3 -C 20 --senders 2
start_snd -C 20
exit_in snd 0
exit_in rcv 1
log_has rcv 'heard 1 of 2 senders, each complete: does --senders match'
pass

case_begin "device removed under a waiting receiver: exit 1, no crash" 60
start_rcv --timeout 30 -C 100
run_on -t 10 a /sbin/rdma link delete rxe0
exit_in rcv 1
log_has rcv 'device was removed'
run_on -t 10 a /sbin/rdma link add rxe0 type rxe netdev eth0
pass
