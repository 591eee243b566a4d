# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 240
# perftest's run control and reporting options against Debian 13's
# perftest 25.01, both directions where perftest runs the option on
# Soft-RoCE: --run_infinitely ended by SIGINT (rows every -D second, exit
# 0 and a valid --json document on the rdmatest side, the RSS of the
# rdmatest sender the same at the first row and at the end; ib_send_bw's
# rows on both sides), --report-both
# with -b, --reversed, -H (perftest's sample list), --latency_gap (the
# samples include the gap), -W (rxe's hw_counters) and --cpu_util with -D;
# -O --report-per-port on rxe's one port (exit 3; perftest fails too).
# -a -q 128 needs a 2 GiB buffer on each side, as perftest allocates it:
# the lab's guests have 1 GiB, so rdmatest's side exits 3 naming the
# memory (perftest's side is left out: it would fail its allocation).
# Counts are small: the cases check rows and words, not figures.
. "$LAB_SCEN/perftest.inc"

# try (perftest.inc's `one`): try_rows with a 40 s client
try() { try_rows 40 "$@"; }

PT="/usr/bin"

# rss HOST APPLET: the VmRSS (kB) of the one process of that name there
rss() {
	run_on "$1" sh -c "grep VmRSS /proc/\$(pidof $2 | cut -d' ' -f1)/status" > /dev/null &&
		sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "$OUT"
}

# --run_infinitely -D 1, SIGINT after SECS: rows, exit 0, one valid JSON
# document, and the sender's RSS flat (recorded for lab bench).
SECS=4
case_begin "ib_write_bw --run_infinitely: rt client -> perftest server, SIGINT after ${SECS} s" 60
bg_start srv b $PT/ib_write_bw -x $GB -s 4096
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ib_write_bw --timeout 20 -s 4096 --run_infinitely -D 1 --json "$B"
failed || wait_log cli "^ 4096 +[0-9]+ +$R" 20 || fail "client printed no row"
rss0=$(rss a ib_write_bw)
failed || sleep $SECS
rss1=$(rss a ib_write_bw)
failed || run_on a sh -c 'kill -INT $(pidof ib_write_bw)'
failed || exit_in cli 0
failed || log_has cli 'User stopped traffic'
failed || [ "$(bg_log cli | grep -Ec "^ 4096 +[0-9]+ +$R")" -ge $((SECS - 1)) ] || fail "fewer than $((SECS - 1)) rows"
failed || { bg_log cli | sed -n '/^{/,$p' > /tmp/lab/inf.json; $RT/json-check < /tmp/lab/inf.json >> "$LAB_TRANSCRIPT"; } ||
	fail "client --json: not one valid JSON document"
failed || grep -q '"rows_total":' /tmp/lab/inf.json || fail "client --json: no rows_total"
failed || exit_in srv 0
note "RSS of the rdmatest sender: ${rss0} kB at the first row, ${rss1} kB ${SECS} s later"
failed || [ -n "$rss0" ] && [ -n "$rss1" ] && [ "$rss1" -le $((rss0 + 64)) ] || fail "RSS grew: $rss0 -> $rss1 kB"
failed || record "{\"case\":\"run_infinitely_rss\",\"secs\":$SECS,\"rss0_kb\":$rss0,\"rss1_kb\":$rss1}"
pass

case_begin "ib_read_bw --run_infinitely: perftest client -> rt server, SIGINT: the server says the client closed" 60
bg_start srv b $RT/ib_read_bw --timeout 20 -s 4096 --run_infinitely -D 1
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $PT/ib_read_bw -x $GA -s 4096 --run_infinitely -D 1 "$B"
failed || wait_log cli "^ 4096 +[0-9]+ +$R" 30 || fail "perftest client printed no row"
failed || sleep 1
failed || run_on a sh -c 'kill -INT $(pidof ib_read_bw)'
failed || exit_in srv 0
failed || log_has srv 'Client closed connection'
# perftest 25.01's read client, stopped by SIGINT, ends 0 or 1, and now
# and then dies in its own signal path (139, SIGSEGV) after the server
# already saw it close: its status is perftest's, the server's is ours
failed || exit_in cli 0 1 139
pass

case_begin "ib_write_bw --run_infinitely --out_json: rt client -> rt server, the file valid at the end" 60
bg_start srv b $RT/ib_write_bw --timeout 20 -s 4096 --run_infinitely -D 1
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ib_write_bw --timeout 20 -s 4096 --run_infinitely -D 1 \
	--out_json --out_json_file /tmp/lab/inf-out.json "$B"
failed || wait_log cli "^ 4096 +[0-9]+ +$R" 20 || fail "client printed no row"
failed || sleep 2
failed || run_on a sh -c 'kill -INT $(pidof ib_write_bw)'
failed || exit_in cli 0
failed || exit_in srv 0
failed || $RT/json-check < /tmp/lab/inf-out.json >> "$LAB_TRANSCRIPT" || fail "--out_json_file: not valid JSON"
failed || grep -q '"MsgSize"' /tmp/lab/inf-out.json || fail "--out_json_file: no row"
pass

# perftest's send test has no end to --run_infinitely: its sender dies of
# SIGINT, its receiver runs until killed. rdmatest's sender ends at SIGINT
# with exit 0, its receiver at the sender's close, both printing rows.
case_begin "ib_send_bw --run_infinitely: rt client -> perftest server, rows on both, SIGINT ends rt" 60
bg_start srv b $PT/ib_send_bw -x $GB -s 4096 --run_infinitely -D 1
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ib_send_bw --timeout 20 -s 4096 --run_infinitely -D 1 "$B"
failed || wait_log cli "^ 4096 +[0-9]+ +$R" 20 || fail "client printed no row"
failed || wait_log srv "^ 4096 +[0-9]+ +$R" 20 || fail "perftest server printed no row"
failed || run_on a sh -c 'kill -INT $(pidof ib_send_bw)'
failed || exit_in cli 0
failed || log_has cli 'User stopped traffic'
bg_kill srv > /dev/null
pass

case_begin "ib_send_bw --run_infinitely: perftest client -> rt server, rows, the client's end ends it" 60
bg_start srv b $RT/ib_send_bw --timeout 20 -s 4096 --run_infinitely -D 1
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $PT/ib_send_bw -x $GA -s 4096 --run_infinitely -D 1 "$B"
failed || wait_log srv "^ 4096 +[0-9]+ +$R" 30 || fail "server printed no row"
failed || run_on a sh -c 'kill -INT $(pidof ib_send_bw)'
failed || exit_in srv 0
failed || log_has srv 'Client closed connection'
pass

# -b cases write messages of one packet (-s 1024, the guests' RoCE MTU):
# rxe on two hosts ends some runs of multi-packet writes both ways with
# "remote invalid request", whichever tool (docs/dev/benchmarks.md).
# -b: both send; perftest's sides die of SIGINT. rdmatest's end at their
# SIGINT (exit 0) or, once a row, when the peer closed the channel.
case_begin "ib_write_bw -b --run_infinitely: rt client -> perftest server, SIGINT ends rt" 60
bg_start srv b $PT/ib_write_bw -x $GB -s 1024 -b --run_infinitely -D 1
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ib_write_bw --timeout 20 -s 1024 -b --run_infinitely -D 1 "$B"
failed || wait_log cli "^ 1024 +[0-9]+ +$R" 20 || fail "client printed no row"
failed || run_on a sh -c 'kill -INT $(pidof ib_write_bw)'
failed || exit_in cli 0
failed || log_has cli 'User stopped traffic'
bg_kill srv > /dev/null
pass

case_begin "ib_write_bw -b --run_infinitely: perftest client -> rt server, the client's end ends it" 60
bg_start srv b $RT/ib_write_bw --timeout 20 -s 1024 -b --run_infinitely -D 1
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $PT/ib_write_bw -x $GA -s 1024 -b --run_infinitely -D 1 "$B"
failed || wait_log srv "^ 1024 +[0-9]+ +$R" 30 || fail "server printed no row"
failed || run_on a sh -c 'kill -INT $(pidof ib_write_bw)'
failed || exit_in srv 0
failed || log_has srv 'Peer closed connection'
pass

for d in "rt pt" "pt rt"; do
	set -- $d
	case_begin "ib_write_bw -b --report-both: $2 client -> $1 server, the sum and both sides' rows" 60
	one ib_write_bw "$1" "$2" "$(row 1024 100)" -b --report-both -s 1024 -n 100
	failed || output_has 'Local results' || fail "client: no Local results"
	failed || output_has 'Remote results' || fail "client: no Remote results"
	failed || grep -q 'Remote results' /tmp/pt.srv || fail "server: no Remote results"
	pass
	case_begin "ib_send_bw --reversed: $2 client -> $1 server, the server sends" 60
	one ib_send_bw "$1" "$2" "$(row 4096 100)" --reversed -s 4096 -n 100
	pass
	# 20 posts, 19 samples, the two largest left out as perftest does
	case_begin "ib_write_lat -H: $2 client -> $1 server, perftest's sample list (-n 20: 17 samples)" 60
	one ib_write_lat "$1" "$2" "^ 2 +20 " -H -n 20
	failed || output_has '^#, usec' || fail "client: no sample list"
	failed || [ "$(grep -Ec '^[0-9]+, [0-9.e+-]+$' "$OUT")" = 17 ] ||
		fail "client: not 17 samples listed"
	pass
done

case_begin "ib_send_lat --latency_gap 200: rt client -> perftest server, t_avg at least half the gap" 60
one ib_send_lat pt rt "^ 2 +50 " --latency_gap 200 -n 50
t=$(grep -E '^ 2 +50 ' "$OUT" | awk '{print $6}')
failed || awk -v t="$t" 'BEGIN { exit !(t >= 100) }' || fail "t_avg $t usec below 100 (half of the 200 usec gap)"
pass

case_begin "ib_send_lat --latency_gap 200: perftest client -> rt server, rt server passes" 60
one ib_send_lat rt pt "^ 2 +50 " --latency_gap 200 -n 50
pass

case_begin "ib_write_bw -W hw_counters/sent_pkts: rt client -> perftest server, the change printed" 60
one ib_write_bw pt rt "$(row 4096 100)" -W hw_counters/sent_pkts -s 4096 -n 100
failed || output_has '^	hw_counters/sent_pkts=[1-9][0-9]*$' || fail "client: no counter line"
pass

case_begin "ib_write_bw -W: perftest client -> rt server -W hw_counters/rcvd_pkts" 60
one ib_write_bw rt pt "$(row 4096 100)" -W hw_counters/rcvd_pkts -s 4096 -n 100
failed || grep -q 'hw_counters/rcvd_pkts=' /tmp/pt.srv || fail "server: no counter line"
pass

case_begin "ib_write_bw -D 2 --cpu_util: rt client -> perftest server, the CPU_Util column" 60
one ib_write_bw pt rt "^ 4096 +[0-9]+ +$R" -D 2 --cpu_util -s 4096
failed || output_has 'CPU_Util\[%\]' || fail "client: no CPU_Util column"
failed || output_has "^ 4096 +[0-9]+ +$R.*	    [0-9]+\.[0-9]{2}$" || fail "client: no CPU figure"
pass

# -O and --report-per-port (perftest_dual.h): rxe has one port a device,
# so no run of either side; rdmatest exits 3 naming the port count before
# any peer, and perftest 25.01 fails its query of port 2 before it
# connects. The two-port path is unit-tested only (test_perftest_dual).
case_begin "-O --report-per-port -D 2 on rxe (one port): exit 3 naming the port count; perftest fails too" 40
run_on a $RT/ib_write_bw --timeout 5 -O --report-per-port -D 2 "$B"
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'dualport\): [^ ]+ has 1 port, a dual-port run needs two' ||
	fail "port count not named"
failed || run_on -t 20 a $PT/ib_write_bw -O --report-per-port -D 2 "$B"
rc=$?
failed || [ "$rc" != 0 ] || fail "perftest ran -O on one port (exit 0)"
failed || output_has 'port 2' || fail "perftest's failure does not name port 2"
pass

case_begin "-a -q 128 (2 GiB each side) in a 1 GiB guest: rt exits 3 naming the memory" 60
bg_start srv b $RT/ib_write_bw --timeout 10 -a -q 128
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 30 a $RT/ib_write_bw --timeout 10 -a -q 128 "$B"
rc=$?
failed || [ "$rc" = 3 ] || fail "client exit $rc, wanted 3"
failed || output_has "half of this host's" || fail "client: memory not named"
failed || exit_in srv 3 1
pass
