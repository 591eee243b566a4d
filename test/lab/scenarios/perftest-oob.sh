# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 240
# perftest 4.5's TCP out-of-band protocol (applets/perftest/perftest_wire.c) against
# Debian 12's ib_write_bw (perftest 4.5, the protocol pt-oob speaks; 25.01's
# server prints other handshake figures and its row differs from pt-oob's,
# a known gap) through the test tool pt-oob: the client's
# whole write_bw sequence (version, page size, cache line, MTU, key
# records, barriers, BW report, close) without RDMA traffic. The server
# prints the row of pt-oob's report (1234.50 MB/s average), so every
# message before it was read as perftest reads it. Then a different -q,
# named by the barrier. Last, the server's side against an ib_write_bw
# client that writes into pt-oob's buffer: pt-oob prints the client's
# report as perftest's row, byte for byte the client's own.
. "$LAB_SCEN/perftest.inc"   # clock_retry (and faults.inc)
PT=$RT/pt-oob

case_begin "ib_write_bw server, pt-oob client, 1 QP: the server prints our report" 90
bg_start srv b up12 ib_write_bw -d "$DEV_B" -x 1
wait_tcp_listen b 18515 30 || fail "ib_write_bw server not listening"
failed || run_on -t 60 a $PT -d "$DEV_A" -t 30 "$B" || fail "pt-oob exited $?"
failed || output_has 'pt-oob: peer version 6.06, page 4096, cache line 64' || fail "handshake figures"
failed || output_has 'pt-oob: pass' || fail "no pass"
failed || bg_wait srv 30 || fail "ib_write_bw server exited $?"
failed || log_has srv ' 65536 +5000 +0.00 +1234.50' || fail "server did not print our report"
pass

case_begin "-q 4 on both: 4 key records each way, 20000 iterations reported" 90
bg_start srv b up12 ib_write_bw -d "$DEV_B" -x 1 -q 4 -s 4096
wait_tcp_listen b 18515 30 || fail "ib_write_bw server not listening"
failed || run_on -t 60 a $PT -d "$DEV_A" -t 30 -q 4 -s 4096 "$B" || fail "pt-oob exited $?"
failed || bg_wait srv 30 || fail "ib_write_bw server exited $?"
failed || log_has srv ' 4096 +20000 +0.00 +1234.50' || fail "server did not print our report"
pass

case_begin "server -q 2, pt-oob -q 1: the barrier names the difference, exit 1" 90
bg_start srv b up12 ib_write_bw -d "$DEV_B" -x 1 -q 2
wait_tcp_listen b 18515 30 || fail "ib_write_bw server not listening"
failed || run_on -t 60 a $PT -d "$DEV_A" -t 10 "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has 'different test or -q' || fail "mismatch not named"
bg_kill srv 2>/dev/null
pass

# oob_client: pt-oob serving, perftest 4.5's client against it; on a
# failure WHY names it and the server is reaped, for clock_retry's second
# attempt
oob_client() {
	: > /tmp/pt.srv
	bg_start srv b $PT -d "$DEV_B" -t 30 -s 65536
	wait_tcp_listen b 18515 30 || { why="pt-oob server not listening"; return 1; }
	run_on -t 60 a up12 ib_write_bw -d "$DEV_A" -x 1 -n 1000 "$B" && return 0
	why="ib_write_bw client exited $?"
	bg_wait srv 30 > /dev/null
	return 1
}

case_begin "ib_write_bw client, pt-oob server (a real RC QP in RTR): both print the same row" 120
why=""
clock_retry oob_client || fail "$why"
failed || bg_wait srv 30 || fail "pt-oob server exited $?"
failed || log_has srv 'pt-oob: pass'
row=$(grep -E '^ 65536 +1000 ' "$OUT" | head -1)
failed || [ -n "$row" ] || fail "no row from the ib_write_bw client"
failed || bg_log srv | grep -qF -- "$row" || fail "server's row differs from the client's: $row"
pass
