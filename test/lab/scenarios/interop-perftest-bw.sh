# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 480
# ib_write_bw, ib_read_bw and ib_send_bw against Debian 13's perftest 25.01
# (internal version 6.06) both ways and against themselves: sizes 2 B,
# 4 KiB, 64 KiB and 1 MiB, -a, -D, and -q 4 with -b, each side printing a row
# of the right size and iteration count (the idle write/read server
# prints the client's report). Then the robustness cases (no server, a
# server started late, a peer killed mid-run, mismatched test or size:
# a named error and a bounded exit, never a hang) and the -a sweep's
# --json and --out_json documents through json-check.
# Counts are small (-n 5 .. 200): Soft-RoCE in two emulated guests moves
# tens of MB/s, and nothing here depends on a figure, only on rows.
. "$LAB_SCEN/perftest.inc"

# try (perftest.inc's `one`): try_rows with a 60 s client
try() { try_rows 60 "$@"; }

# one TEST SRV CLI ROW OPTS... (perftest.inc): a server on b, a client on
# a, both exit 0 and print a row matching ROW (grep -E); within the
# current case.


for t in ib_write_bw ib_read_bw ib_send_bw; do
	for d in "rt pt" "pt rt"; do
		set -- $d
		s=$1 c=$2
		# one packet and many (the guests' RoCE MTU is 1024): the sizes
		# between, 4K and 64K, are the rt ib_write_bw client's alone; read
		# and send take the same buffer and row code at every size, and
		# the rt server's buffer and rows do not depend on the size (the
		# perftest client's 4K and 64K runs took 15 s and proved that twice)
		if [ "$t" = ib_write_bw ] && [ "$c" = rt ]; then
			case_begin "$t: $c client -> $s server, -s 2, 4K, 64K, 1M" 120
		else
			case_begin "$t: $c client -> $s server, -s 2, 1M" 120
		fi
		one $t $s $c "$(row 2 200)" -s 2 -n 200
		if [ "$t" = ib_write_bw ] && [ "$c" = rt ]; then
			one $t $s $c "$(row 4096 200)" -s 4096 -n 200
			one $t $s $c "$(row 65536 50)" -s 65536 -n 50
		fi
		one $t $s $c "$(row 1048576 10)" -s 1M -n 10
		pass
		# ib_read_bw's -a and -D walk ib_write_bw's exchange (perftest's
		# read test is the write test without its first sleep): those
		# cases prove nothing the write test's do not
		# -a against perftest: the rt server follows the perftest client's
		# size walk; the rt client's walk is the rt server's in the
		# --json case below (23 rows counted in both documents), so an rt
		# client against the perftest server (send, 24 s; write, 15 s,
		# the same size loop) proved the same walk again. Each sweep
		# moves about 80 MiB (2 B to 8 MiB, five of each)
		if [ "$t" = ib_write_bw ] && [ "$s" = rt ]; then
			case_begin "$t: $c client -> $s server, -a -n 5 (23 rows on the client)" 120
			one $t $s $c "$(row 8388608 5)" -a -n 5
			failed || [ "$(grep -Ec "^ [0-9]+ +5 +$R" "$OUT")" = 23 ] || fail "client: not 23 rows"
			failed || output_has "$(row 2 5)" || fail "client: no 2-byte row"
			pass
		fi
		if [ "$t" != ib_read_bw ]; then
			case_begin "$t: $c client -> $s server, -D 2 -s 4096" 60
			one $t $s $c "^ 4096 +[0-9]+ +$R" -D 2 -s 4096
			pass
		fi
		# messages of one packet (the guests' RoCE MTU is 1024): rxe under
		# load answered a multi-packet write of four QPs both ways with
		# "remote invalid request" now and then; -s 4K, 64K, 1M above
		# cover the multi-packet messages
		case_begin "$t: $c client -> $s server, -q 4 -b -s 1024 -n 100: 400 each way, both print the sum" 60
		one $t $s $c "$(row 1024 400)" -q 4 -b -s 1024 -n 100
		pass
	done
	# -D between rt peers: read's alone (write's and send's run against
	# perftest both ways above)
	if [ "$t" = ib_read_bw ]; then
		case_begin "$t: rt client -> rt server: defaults but -n, -D 2, -l 4 -n 100" 120
	else
		case_begin "$t: rt client -> rt server: defaults but -n, -l 4 -n 100" 120
	fi
	one $t rt rt "$(row 65536 100)" -n 100
	[ "$t" != ib_read_bw ] || one $t rt rt "^ 4096 +[0-9]+ +$R" -D 2 -s 4096
	one $t rt rt "$(row 4096 100)" -l 4 -s 4096 -n 100
	pass
done

case_begin "rt vs rt: the first message of every QP verified (--json says so)" 60
bg_start srv b $RT/ib_write_bw --timeout 20 -q 2 -n 50 --json
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_write_bw --timeout 20 -q 2 -n 50 "$B" || fail "client exited $?"
failed || bg_wait srv 20 || fail "server exited $?"
failed || log_has srv '"data_check":"first message of every QP verified"'
pass

case_begin "-e on both sides (sleeping on completion channels), ib_send_bw and ib_read_bw" 60
one ib_send_bw rt rt "$(row 4096 200)" -e -s 4096 -n 200
one ib_read_bw rt rt "$(row 4096 200)" -e -s 4096 -n 200
pass

case_begin "-w above the link: exit 1 naming the measured figure and the threshold" 60
bg_start srv b $RT/ib_write_bw --timeout 20 -n 100
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_write_bw --timeout 20 -n 100 -w 1000000 "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'BW average [0-9.]+ MB/sec is below the -w threshold 1000000.00 MB/sec' ||
	fail "client: the figures not named"
failed || bg_wait srv 20 || fail "server exited $?"
pass

case_begin "-a --json and --out_json: valid JSON with all 23 rows (json-check)" 90
bg_start srv b $RT/ib_send_bw --timeout 20 -a -n 5 --out_json --out_json_file /tmp/lab/srv.json
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 60 a $RT/ib_send_bw --timeout 20 -a -n 5 --json "$B" || fail "client exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "client --json: not one valid JSON document"
failed || [ "$(grep -o '"MsgSize"' "$OUT" | wc -l)" = 23 ] || fail "client --json: not 23 rows"
failed || bg_wait srv 30 || fail "server exited $?"
failed || run_on b cat /tmp/lab/srv.json || fail "server wrote no --out_json_file"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "server --out_json_file: not valid JSON"
failed || [ "$(grep -o '"MsgSize"' "$OUT" | wc -l)" = 23 ] || fail "server --out_json_file: not 23 rows"
pass

case_begin "runs longer than the server's --timeout 2: the idle server waits for their end (-n, -D)" 90
# 20 MiB: about 4 s on rxe here (100 MiB took 20 s), twice the
# server's bound
bg_start srv b $RT/ib_write_bw --timeout 2 -s 1M -n 20
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 60 a $RT/ib_write_bw --timeout 20 -s 1M -n 20 "$B" || fail "client exited $?"
failed || bg_wait srv 30 || fail "server exited $?"
failed || log_has srv "$(row 1048576 20)"
failed || bg_start srv b $RT/ib_read_bw --timeout 3 -D 4 -s 4096
failed || wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 60 a $RT/ib_read_bw --timeout 20 -D 4 -s 4096 "$B" || fail "client exited $?"
failed || bg_wait srv 30 || fail "server exited $?"
pass

case_begin "no server: the client retries for --timeout, then a named timeout (exit 124)" 30
run_on -t 20 a $RT/ib_write_bw --timeout 2 "$B"
rc=$?
[ "$rc" = 124 ] || fail "exit $rc, wanted 124"
failed || output_has "no server on $B:18515 within" || fail "no reason named"
pass

case_begin "a server started 2 s after the client: the client waits and both pass" 60
bg_start cli a $RT/ib_write_bw --timeout 20 -n 100 "$B"
sleep 2
run_on -t 40 b $RT/ib_write_bw --timeout 20 -n 100 || fail "server exited $?"
failed || bg_wait cli 30 || fail "client exited $?"
failed || log_has cli "$(row 65536 100)"
pass

case_begin "client killed mid-run (-D 20): the idle server names the closed channel, no hang" 60
bg_start srv b $RT/ib_write_bw --timeout 30 -D 20
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ib_write_bw --timeout 30 -D 20 "$B"
failed || wait_log cli 'BW peak' 20 || fail "client never started its run"
failed || bg_kill cli
failed || exit_in srv 1
failed || log_has srv 'closed|reset'
pass

case_begin "server killed mid-run (ib_send_bw -D 20): the client names the dead peer, no hang" 60
bg_start srv b $RT/ib_send_bw --timeout 10 -D 20
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ib_send_bw --timeout 4 -D 20 "$B"
failed || wait_log cli 'BW peak' 20 || fail "client never started its run"
failed || bg_kill srv
rc=$?
# SIGTERM ends the receive loop at once (no SIGKILL needed): exit 143
failed || [ "$rc" = 143 ] || fail "server: SIGTERM gave status $rc, wanted 143"
failed || log_has srv 'interrupted by SIGTERM'
failed || bg_wait cli 40
rc=$?
failed || [ "$rc" = 1 ] || [ "$rc" = 124 ] || fail "client exit $rc, wanted 1 or 124"
failed || log_has cli 'retry|nothing completed|closed|reset'
pass

case_begin "mismatched test: ib_write_bw client vs ib_send_bw server: named, bounded" 60
bg_start srv b $RT/ib_send_bw --timeout 5 -n 100
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_write_bw --timeout 5 -n 100 "$B"
rc=$?
failed || [ "$rc" != 0 ] || fail "the client passed"
failed || bg_wait srv 30
rc=$?
failed || [ "$rc" = 124 ] || fail "server exit $rc, wanted 124"
failed || log_has srv 'same test'
pass

case_begin "mismatched size: ib_write_bw client -s 65536, server -s 4096: remote access named" 60
bg_start srv b $RT/ib_write_bw --timeout 10 -s 4096 -n 50
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_write_bw --timeout 10 -s 65536 -n 50 "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'remote access|-s' || fail "client: no reason named"
failed || bg_wait srv 30
rc=$?
failed || [ "$rc" != 0 ] || fail "server passed"
pass

case_begin "mismatched size vs perftest: ib_send_bw client -s 8192, perftest server -s 4096" 60
bg_start srv b /usr/bin/ib_send_bw -x $GB -s 4096 -n 50
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_send_bw --timeout 10 -s 8192 -n 50 "$B"
rc=$?
failed || [ "$rc" = 1 ] || [ "$rc" = 124 ] || fail "client exit $rc, wanted 1 or 124"
failed || output_has 'error|nothing completed|-s' || fail "client: no reason named"
bg_kill srv 2>/dev/null
pass
