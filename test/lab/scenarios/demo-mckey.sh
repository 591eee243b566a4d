# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 300
# Demo: rdmatest mckey between host a (192.0.2.1, sender) and host b
# (192.0.2.2, receiver) over Soft-RoCE: a verified run, interop with the
# upstream sender, and what a receiver says when datagrams are lost
# (--timeout bounds the wait after the last datagram, --accept-timeout the
# wait for the first). The receiver's --json gives datagrams per second.
RTM=$RT/mckey
G=239.1.1.1

# receiver NAME ARGS...: start a receiver on b and wait until it is ready
receiver() {
	local job=$1
	shift
	bg_start "$job" b $RTM -m $G -b "$B" "$@"
	wait_log "$job" 'receiving data transfers' 40 || fail "receiver did not get ready"
}

# row PEER: the summary row, from the receiver's JSON document
row() {
	bg_log rcv > /tmp/lab/rcv.out
	demo_row mckey "$1" "$(side "$1") sender -> rt receiver" "$(ratio \
		"$(json_num /tmp/lab/rcv.out totals received)" \
		"$(json_num /tmp/lab/rcv.out transfer_seconds)" 1 datagrams/s)"
}

case_begin "mckey: 2 QPs on each side, 50 datagrams per sender QP, counted and verified" 90
receiver rcv -c 2 -C 50 --senders 2 --accept-timeout 60 --json
failed || run_on -t 60 a $RTM -m $G -b "$A" -s -c 2 -C 50 || fail "sender exited $?"
failed || bg_wait rcv 30 || fail "receiver exited $?"
row rdmatest
pass

case_begin "mckey: upstream sender, rdmatest receiver (payloads counted unchecked)" 90
receiver rcv --accept-timeout 60 --json
failed || run_on -t 60 a mckey -m $G -b "$A" -s || fail "upstream sender exited $?"
failed || bg_wait rcv 30 || fail "receiver exited $?"
row upstream
pass

case_begin "mckey: 10% loss on a's link: the receiver reports it 2 s after the last datagram" 90
receiver rcv -C 100 --timeout 2 --accept-timeout 60
failed || netem a loss 10% || fail "netem failed"
failed || run_on -t 60 a $RTM -m $G -b "$A" -s -C 100 --rate 200 || fail "sender exited $?"
bg_wait rcv 30
rc=$?
netem_clear
[ "$rc" = 1 ] || fail "receiver exited $rc, expected 1 (datagrams lost)"
pass
