# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 300
# Demo: the upstream rdma-core and perftest tools between two hosts, host a
# (192.0.2.1, client) and host b (192.0.2.2, server), over Soft-RoCE (rxe0).
# `lab demo` prints every command with its real output.
. "$LAB_SCEN/upstream.inc"

case_begin "rping: 5 verified pings from a to b" 60
bg_start srv b rping -s -a "$B" -v
wait_listen b 7174 20 || fail "rping server not listening"
failed || run_on -t 40 a rping -c -a "$B" -C 5 -v -V || fail "rping client exited $?"
failed || rping_srv_wait srv 20 || fail "rping server exited $?"
pass

case_begin "ucmatose: 2 connections, 10 messages each way" 60
bg_start srv b ucmatose -c 2
wait_listen b 7471 20 || fail "ucmatose server not listening"
failed || run_on -t 40 a ucmatose -s "$B" -c 2 || fail "ucmatose client exited $?"
failed || bg_wait srv 20 || fail "ucmatose server exited $?"
pass

case_begin "mckey: multicast 239.1.1.1 from a to b" 60
bg_start rcv b mckey -m 239.1.1.1 -b "$B"
wait_log rcv 'mckey: joined' 20 || fail "receiver did not join"
failed || run_on -t 40 a mckey -m 239.1.1.1 -b "$A" -s || fail "mckey sender exited $?"
failed || bg_wait rcv 20 || fail "mckey receiver exited $?"
pass

case_begin "rstream: rsockets, 1000 x 4 KiB each way" 90
bg_start srv b rstream -S 4096 -C 1000
wait_listen b 7471 20 || fail "rstream server not listening"
failed || run_on -t 60 a rstream -s "$B" -S 4096 -C 1000 || fail "rstream client exited $?"
failed || bg_wait srv 20 || fail "rstream server exited $?"
pass

case_begin "ib_send_bw: 64 KiB sends, RoCE v2 GID index 1" 90
bg_start srv b ib_send_bw -d rxe0 -x 1 -n 500
wait_tcp_listen b 18515 20 || fail "ib_send_bw server not listening"
failed || run_on -t 60 a ib_send_bw -d rxe0 -x 1 -n 500 "$B" || fail "ib_send_bw client exited $?"
failed || bg_wait srv 20 || fail "ib_send_bw server exited $?"
pass

case_begin "rping under 5% loss on b (rxe retransmits)" 90
netem b loss 5% || fail "netem failed"
bg_start srv b rping -s -a "$B"
wait_listen b 7174 20 || fail "rping server not listening"
failed || run_on -t 60 a rping -c -a "$B" -C 20 -V || fail "rping client exited $?"
failed || rping_srv_wait srv 20 || fail "rping server exited $?"
netem_clear
pass
