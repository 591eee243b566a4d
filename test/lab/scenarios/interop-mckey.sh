# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 900
# mckey between two hosts: rdmatest and upstream (rdma-core v44) as sender
# and receiver in every pairing, with the options that change the wire;
# then send-only joins, loopback, sizes at and over the MTU, loss under
# netem, and the errors rxe must produce. Receivers run on host a (their
# output is read after they end), senders on host b.
UP=/usr/bin/mckey
RTM=$RT/mckey
# rdmatest receivers: the first datagram may take long on a loaded lab
# (a sender's setup, upstream's 3 s sleep), later ones --timeout at most
RTR="$RTM --accept-timeout 60"
G=239.1.2.3

# rcv_has NAME REGEX: the ended receiver job (host a) said so
rcv_has() { bg_log "$1" | grep -Eq "$2" || fail "$1 did not say /$2/"; }

# start_rcv NAME CMD...: a receiver on host a, ready once its receives are
# posted and it joined (upstream prints this line 3 s after joining)
start_rcv() {
	local job=$1
	shift
	bg_start "$job" a "$@" -m $G -b "$A"
	wait_log "$job" 'receiving data transfers' 40 || fail "receiver $job did not get ready"
}

# end_rcv NAME: the receiver must exit 0
end_rcv() {
	local rc
	if failed; then bg_kill "$1" > /dev/null; return 1; fi
	bg_wait "$1" 40
	rc=$?
	[ "$rc" = 0 ] || fail "receiver $1 exited $rc"
}

# pair NAME RECEIVER SENDER [ARGS...]: receiver on a, sender on b, both with
# ARGS; both must exit 0. The caller checks the receiver's counts and passes.
pair() {
	local name=$1 rcv=$2 snd=$3
	shift 3
	case_begin "$name" 120
	start_rcv rcv $rcv "$@"
	failed || run_on -t 60 b $snd -m $G -b "$B" -s "$@" || fail "sender exited $?"
	end_rcv rcv
}

# matrix TAG QPS COUNT [ARGS...]: every pairing; QPS ids on each side, so
# an rdmatest receiver QP gets QPS x COUNT datagrams.
matrix() {
	local tag=$1 k=$2 n=$(($2 * $2 * $3)) q="QPs?"
	shift 3
	pair "rt/rt $tag" "$RTR --timeout 5 --senders $k" "$RTM" "$@"
	failed || rcv_has rcv "received $n datagrams on $k $q: 0 lost, 0 duplicate"
	pass
	pair "upstream-sender/rt-receiver $tag" "$RTR --timeout 5 --senders $k" "$UP" "$@"
	failed || rcv_has rcv "received $n datagrams on $k $q: 0 lost, 0 duplicate.* $n unverified, 0 corrupt"
	pass
	pair "rt-sender/upstream-receiver $tag" "$UP" "$RTM" "$@"
	pass
}

# Counts and QP numbers beyond these walk the same loops: "-c 4 -C 200
# both sides" (3,200 datagrams on 4 QPs, from both senders) and the
# overrun cases below carry more datagrams than a -C 100 matrix did, and
# -c 16 took the -c 4 path on both sides (the two cost 20 s)
matrix default 1 10
matrix "-S 1024 (the MTU)" 1 10 -S 1024
matrix "-S 1" 1 10 -S 1
matrix "-c 4" 4 10 -c 4

case_begin "--json carries the join result and the counts" 90
start_rcv rcv $RTR --timeout 5
failed || run_on -t 60 b $RTM -m $G -b "$B" -s --json || fail "sender exited $?"
for want in '"verdict":"pass"' '"dgid":"::ffff:239.1.2.3"' '"qkey":19088743' \
	'"remote_qpn":16777215' '"mlid":0' '"sent":10' '"join_us":[0-9]'; do
	failed || output_has "$want" || fail "sender JSON lacks $want"
done
end_rcv rcv
pass

# ---- send-only joins ----

case_begin "-o: full-member receivers get everything, the send-only QPs nothing" 120
start_rcv rcv $RTR --timeout 5
failed || start_rcv urcv $UP
failed || run_on -t 60 b $RTM -m $G -b "$B" -s -o || fail "sender exited $?"
failed || output_has 'sent 10 datagrams on 1 QP; 0 of them came back' ||
	fail "the send-only sender's QP received its own datagrams"
end_rcv rcv
failed || rcv_has rcv 'received 10 datagrams on 1 QP: 0 lost'
end_rcv urcv
pass

case_begin "-o: upstream send-only sender to an rdmatest receiver" 90
start_rcv rcv $RTR --timeout 5
failed || run_on -t 60 b $UP -m $G -b "$B" -s -o || fail "sender exited $?"
end_rcv rcv
failed || rcv_has rcv 'received 10 datagrams on 1 QP: 0 lost'
pass

case_begin "-o on a receiver: usage error (a send-only member receives nothing)" 30
run_on -t 20 a $RTM -m $G -b "$A" -o
rc=$?
[ "$rc" = 2 ] || fail "exit $rc, wanted 2"
failed || output_has 'is for senders' || fail "no reason given"
pass

# ---- loopback ----

case_begin "-l off: local and remote receivers and the own QPs get everything" 120
bg_start loc b $RTR -m $G -b "$B" --timeout 5
wait_log loc 'receiving data transfers' 40 || fail "local receiver did not get ready"
failed || start_rcv rcv $RTR --timeout 5
failed || run_on -t 60 b $RTM -m $G -b "$B" -s || fail "sender exited $?"
failed || output_has 'sent 10 datagrams on 1 QP; 10 of them came back' ||
	fail "the sender's own QP did not see its datagrams"
end_rcv rcv
failed || rcv_has rcv 'received 10 datagrams on 1 QP: 0 lost'
end_rcv loc
pass

# rxe refuses IBV_QP_CREATE_BLOCK_SELF_MCAST_LB; a device that has it must
# keep the sender's datagrams from its own QPs.
case_begin "-l on: blocked loopback, or exit 3 naming the missing capability" 90
bg_start loc b $RTM -m $G -b "$B" --timeout 3
wait_log loc 'receiving data transfers' 40 || fail "local receiver did not get ready"
failed || run_on -t 60 b $RTM -m $G -b "$B" -s -l
rc=$?
if [ "$rc" = 3 ]; then
	output_has 'cannot block multicast loopback' || fail "exit 3 without the reason"
	run_on -t 30 b $UP -m $G -b "$B" -s -l
	urc=$?
	[ "$urc" != 0 ] && output_has 'unable to create QP' ||
		fail "upstream -l: exit $urc; it should fail the same way on this device"
elif [ "$rc" = 0 ]; then
	output_has '; 0 of them came back' || fail "-l: own QPs still got the datagrams"
else
	fail "sender -l exited $rc, wanted 0 or 3"
fi
bg_kill loc > /dev/null
pass

# ---- sizes ----

case_begin "-S over the MTU: exit 2 naming the MTU, both roles" 60
run_on -t 30 b $RTM -m $G -b "$B" -s -S 1025
rc=$?
[ "$rc" = 2 ] || fail "sender exit $rc, wanted 2"
failed || output_has 'size 1025 is larger than the active MTU 1024' || fail "MTU not named"
failed || run_on -t 30 a $RTM -m $G -b "$A" -S 1025
rc=$?
failed || [ "$rc" = 2 ] || fail "receiver exit $rc, wanted 2"
failed || output_has 'active MTU 1024' || fail "MTU not named"
pass

case_begin "-S 4097 is beyond any MTU: usage error before any setup" 30
run_on -t 20 a $RTM -m $G -S 4097
rc=$?
[ "$rc" = 2 ] || fail "exit $rc, wanted 2"
failed || output_has 'size: 4097 is out of range' || fail "option not named"
pass

case_begin "size mismatch: the receiver names -S" 60
start_rcv rcv $RTR --timeout 3 -S 200
failed || run_on -t 60 b $RTM -m $G -b "$B" -s -S 100 || fail "sender exited $?"
bg_wait rcv 30
rc=$?
[ "$rc" = 1 ] || fail "receiver exit $rc, wanted 1"
failed || rcv_has rcv "does the sender's -S match"
pass

# ---- loss: the receiver counts it and ends within its bound ----

# loss_case NAME SENDER...: 10% loss on b's egress; a receiver of 200
# datagrams must exit 1 naming the loss within --timeout 3 (+ slack) after
# the last one (the first may take longer: --accept-timeout in $RTR).
loss_case() {
	local name=$1 rc t0 t
	shift
	case_begin "$name" 120
	start_rcv rcv $RTR --timeout 3 -C 200
	failed || netem b loss 10% || fail "netem failed"
	failed || run_on -t 60 b "$@" -m $G -b "$B" -s -C 200 || fail "sender exited $?"
	t0=$(date +%s)
	bg_wait rcv 30
	rc=$?
	t=$(($(date +%s) - t0))
	netem_clear
	[ "$rc" = 1 ] || fail "receiver exit $rc, wanted 1"
	failed || [ "$t" -le 10 ] || fail "receiver took ${t}s after the sender ended"
	failed || rcv_has rcv 'lost [1-9][0-9]* of 200 datagrams'
	failed || rcv_has rcv 'received [0-9]+ datagrams on 1 QP: [1-9][0-9]* lost'
	pass
}
# an rdmatest sender, paced, is faults-mckey's 5% loss case
loss_case "netem 10% loss: rt receiver reports it and ends (upstream sender)" $UP

case_begin "no sender: exit 124 within --timeout, saying why" 60
run_on -t 30 a $RTM -m $G -b "$A" --timeout 2
rc=$?
[ "$rc" = 124 ] || fail "exit $rc, wanted 124"
failed || output_has 'no datagram arrived within 2 s' || fail "no reason given"
pass

# ---- what RoCE cannot do: clear exit 3 ----

case_begin "zero group (SA-assigned) on RoCE: exit 3" 30
run_on -t 20 a $RTM -m 0.0.0.0 -b "$A" -s
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'needs InfiniBand' || fail "no reason given"
failed || run_on -t 20 a $RTM -M 0 -b "$A"
rc=$?
failed || [ "$rc" = 3 ] || fail "-M 0: exit $rc, wanted 3"
pass

case_begin "-M (AF_IB group) on RoCE: exit 3" 30
run_on -t 20 a $RTM -M ff0e::1234 -b "$A" -s
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'unmapped \(AF_IB\) group needs InfiniBand' || fail "no reason given"
pass

case_begin "-p ipoib on RoCE: exit 3" 30
run_on -t 20 a $RTM -m $G -b "$A" -s -p ipoib
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'port space ipoib needs InfiniBand' || fail "no reason given"
pass

case_begin "-c over the device's per-group attach limit: exit 3 naming it" 60
run_on -t 40 b $RTM -m $G -b "$B" -s -c 57 -C 1 --settle 0
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3 (rxe attaches at most 56 QPs to a group)"
failed || output_has 'attaches at most 56 QPs' || fail "the limit was not named"
pass

# ---- the same options on both sides, and a receiver overrun ----
RHOST=a RADDR=$A SHOST=b SADDR=$B SAME_OPTS_REPEAT=1
. "$LAB_SCEN/mckey-same-opts.inc"
