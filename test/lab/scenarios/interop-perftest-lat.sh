# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 600
# ib_write_lat, ib_read_lat and ib_send_lat against Debian 13's perftest
# 25.01 both ways and against themselves: -s 2 (default),
# 1 MiB, -a, -D; every side that prints rows prints perftest's row for
# its size, ours adds its line of the true maximum and percentiles. Then
# the robustness cases (no server, a peer killed mid-run, mismatched size
# and test: each a named error within its bound, never a hang) and the
# --json/--out_json documents of an -a sweep, checked with json-check.
. "$LAB_SCEN/faults.inc"
GA=$(gid_index a)
GB=$(gid_index b)
# perftest's latency row: size, iterations, then seven figures
lat_row() { echo "^ $1 +$2 +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}"; }
dur_row() { echo "^ $1 +[0-9]+ +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}"; }
ours() { echo "^ rdmatest: $1 B, [0-9]+ samples: max [0-9.]+ p50 [0-9.]+"; }

# The row as a side prints it: rdmatest's figures in full; perftest's
# only by size and iterations, since its figures come from its CPU clock
# sampling, which fails now and then under emulation ("Correlation
# coefficient r^2 < 0.9": inf and nan in every column).
row_of() { case $1 in "$RT"/*) echo "$2" ;; *) echo "$(echo "$2" | cut -d' ' -f1-3) " ;; esac; }

# pair T NAME SERVER CLIENT ROW PRINTS: test T (write, read, send), the
# server on b and the client on a; both exit 0; the client prints ROW,
# the server too unless it is a read server; an rdmatest side prints its
# own line for the size (PRINTS, a size) unless PRINTS is empty.
pair() {
	local t=$1 row=$5 sz=$6 r
	case_begin "$t: $2" 90
	bg_start srv b $3
	wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 70 a $4 "$B" || fail "client exited $?"
	r=$(row_of "$4" "$row")
	failed || output_has "$r" || fail "client printed no row /$r/"
	failed || exit_in srv 0
	r=$(row_of "$3" "$row")
	[ "$t" = read ] || { failed || log_has srv "$r"; }
	case "$4" in "$RT"/*) [ -z "$sz" ] || { failed || output_has "$(ours "$sz")" || fail "client: no rdmatest line"; } ;; esac
	pass
}

# One boot, about 5 minutes: each test against itself with the defaults,
# against perftest both ways at -s 2, 1 MiB and -D in
# alternating directions, -a once, over UD (to the MTU).
for t in write read send; do
	RL="$RT/ib_${t}_lat --timeout 10 -d"
	PL="/usr/bin/ib_${t}_lat -d"
	RA="$RL $DEV_A" RB="$RL $DEV_B" PA="$PL $DEV_A -x $GA" PB="$PL $DEV_B -x $GB"
	# the defaults once per tool but write's: each side of ib_write_lat
	# spins on its buffer, which on a guest's one vCPU waits for the
	# emulated NIC's turn, about 12 ms an exchange (12 s for 1000); the
	# defaults come from the one table read and send run with
	if [ $t = write ]; then
		pair $t "rt client -> rt server, -s 2 -n 200" "$RB -n 200" "$RA -n 200" "$(lat_row 2 200)" 2
	else
		pair $t "rt client -> rt server, defaults (-s 2 -n 1000)" "$RB" "$RA" "$(lat_row 2 1000)" 2
	fi
	pair $t "rt client -> perftest server, -s 2 -n 200" "$PB -n 200" "$RA -n 200" "$(lat_row 2 200)" 2
	pair $t "perftest client -> rt server, -s 2 -n 200" "$RB -n 200" "$PA -n 200" "$(lat_row 2 200)" 2
	# the other sizes and -D: one direction each, the other one for read
	if [ $t = read ]; then F1="$RB" C1="$PA" F2="$PB" C2="$RA"; else F1="$PB" C1="$RA" F2="$RB" C2="$PA"; fi
	d1=$([ $t = read ] && echo "perftest client -> rt server" || echo "rt client -> perftest server")
	d2=$([ $t = read ] && echo "rt client -> perftest server" || echo "perftest client -> rt server")
	# one packet (-s 2, above) and many (1 MiB, 1024 packets at the
	# guests' RoCE MTU): the rows and buffers do not depend on the size
	# between, where 4 KiB and 64 KiB runs (six cases, 15 s) proved it again
	pair $t "$d1, -s 1048576 -n 10" "$F1 -s 1048576 -n 10" "$C1 -s 1048576 -n 10" \
		"$(lat_row 1048576 10)" 1048576
	pair $t "$d2, -D 2 (-f 1)" "$F2 -D 2" "$C2 -D 2" "$(dur_row 2)" 2
done
# -a: the rt client's sweep with send over UD and --json below (every row
# counted). Client and server walk one size loop in the latency tests
# (perftest_lat_run.c: first_size, last_size), so an rt server's sweep
# against the perftest client (40 s, its 8 MiB rows) proved it again;
# read's sizes up to 1 MiB are the pairs above

# -D write, the rt server ending first: perftest's last write may be on
# its way when the server's window ends, and perftest polls for its
# completion without looking at its clock; a QP destroyed under it left
# 7 of 60 perftest clients spinning for good in the lab. The server keeps
# its QP until the client's end (linger in perftest_lat_run.c). -D 2:
# the race is at the window's end, whatever the window's length.
case_begin "write: perftest client -> rt server, -D 2, eight times: no client is left spinning" 120
for i in 1 2 3 4 5 6 7 8; do
	failed && break
	bg_start srv b $RT/ib_write_lat --timeout 10 -d "$DEV_B" -D 2
	wait_tcp_listen b 18515 20 || fail "run $i: server not listening on 18515"
	failed || run_on -t 15 a /usr/bin/ib_write_lat -d "$DEV_A" -x "$GA" -D 2 "$B" ||
		fail "run $i: client exited $?"
	failed || exit_in srv 0
done
pass

# -e: sleeping on the completion channel between looks
pair send "rt client -e -> rt server -e, -n 200" "$RT/ib_send_lat -d $DEV_B -e -n 200" \
	"$RT/ib_send_lat -d $DEV_A -e -n 200" "$(lat_row 2 200)" 2
pair read "rt client -e -> perftest server, -n 200" "/usr/bin/ib_read_lat -d $DEV_B -x $GB -n 200" \
	"$RT/ib_read_lat -d $DEV_A -e -n 200" "$(lat_row 2 200)" 2

case_begin "write: the rt server's blocks as perftest's: no TX depth line, a dashed line before the header" 60
bg_start srv b $RT/ib_write_lat -d "$DEV_B" -n 100
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a /usr/bin/ib_write_lat -d "$DEV_A" -x "$GA" -n 100 "$B" || fail "client exited $?"
failed || exit_in srv 0
bg_log srv | grep -q 'TX depth' && fail "the server printed a TX depth line (perftest's does not)"
failed || bg_log srv | grep -B1 '#bytes #iterations' | head -n 1 | grep -q '^-\{87\}$' ||
	fail "no dashed line before the column header"
failed || output_has '^ TX depth        : 1$' || fail "perftest's client printed no TX depth line"
pass

# UD: the sweep ends at the MTU (1024 in the guests), 10 rows. The same
# size loop (first_size .. last_size) walked to 8 MiB over RC took 35 s
# here and proved nothing more: the 1 MiB pairs above move multi-packet
# messages, and the bandwidth tests sweep RC to 8 MiB
case_begin "send -a over UD, rt client (--json --out_json) -> perftest server: 10 rows, valid documents" 90
bg_start srv b /usr/bin/ib_send_lat -d "$DEV_B" -x "$GB" -c UD -a -n 5
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 80 a $RT/ib_send_lat -d "$DEV_A" -c UD -a -n 5 --json --out_json \
	--out_json_file /tmp/lab/lat.json "$B" || fail "client exited $?"
failed || exit_in srv 0
failed || log_has srv "^ 1024 +5 "
n=$(grep -cE "$(lat_row '[0-9]+' 5)" "$OUT")
failed || [ "$n" = 10 ] || fail "$n rows, wanted 10"
n=$(grep -cE "$(ours '[0-9]+')" "$OUT")
failed || [ "$n" = 10 ] || fail "$n rdmatest lines, wanted 10"
sed -n '/^{"tool"/,$p' "$OUT" > /tmp/lab/doc.json
failed || $RT/json-check < /tmp/lab/doc.json >> "$LAB_TRANSCRIPT" || fail "--json: no valid JSON document"
n=$(grep -o '"p99_99":' /tmp/lab/doc.json | wc -l)
failed || [ "$n" = 10 ] || fail "--json: $n rows with p99_99, wanted 10"
failed || grep -q '"MsgSize":1024' /tmp/lab/doc.json || fail "--json: no 1024-byte row"
# the --out_json file is on host a
failed || run_on a cat /tmp/lab/lat.json || fail "client wrote no --out_json_file"
# json-check looks at rdmatest documents: wrap the file's one value in one
failed || printf '{"tool":"rdmatest","out_json":%s}\n' "$(tr -d '\n' < "$OUT")" |
	$RT/json-check >> "$LAB_TRANSCRIPT" || fail "--out_json: not valid JSON"
n=$(grep -o '"MsgSize":' "$OUT" | wc -l)
failed || [ "$n" = 10 ] || fail "--out_json: $n rows, wanted 10"
pass

case_begin "write: --limit_lat 0.001: the row printed, then exit 1 naming figure and threshold" 60
bg_start srv b $RT/ib_write_lat -d "$DEV_B" -n 100
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_write_lat -d "$DEV_A" -n 100 --limit_lat 0.001 "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has "$(lat_row 2 100)" || fail "no row"
failed || output_has '2 bytes: average latency [0-9.]+ usec is above the --limit_lat threshold 0.00 usec' ||
	fail "threshold not named"
failed || exit_in srv 0
pass

# ---- robustness ----------------------------------------------------------------

case_begin "no server: the client retries within --timeout 2, then exit 124 naming it" 40
run_on -t 20 a $RT/ib_send_lat -d "$DEV_A" --timeout 2 "$B"
rc=$?
[ "$rc" = 124 ] || fail "exit $rc, wanted 124"
failed || output_has "no server on $B:18515 within 2 s" || fail "no reason named"
pass

case_begin "write: rt client first with --wait-server, perftest server later: passes" 60
bg_start cli a $RT/ib_write_lat -d "$DEV_A" --wait-server 30 "$B"
sleep 2
bg_start srv b /usr/bin/ib_write_lat -d "$DEV_B" -x "$GB"
exit_in cli 0
failed || exit_in srv 0
failed || log_has cli "$(lat_row 2 1000)"
pass

# killed T [-s SIZE]: a run of 10^8 messages (10^6 with a size), the
# perftest peer killed once the run is under way; the rt side names the
# dead peer, exit 1, at once. With -s 1 MiB the server spends about half
# its time waiting for its own SEND's completion, which rxe may never
# fail after the peer died (CI saw the server wait out --timeout).
killed() {
	local t=$1 n=100000000
	shift
	[ $# = 0 ] || n=1000000
	case_begin "$t${1:+ $*}: perftest client killed mid-run: the rt server names it, exit 1" 60
	bg_start srv b $RT/ib_${t}_lat -d "$DEV_B" --timeout 20 -n $n "$@"
	wait_tcp_listen b 18515 20 || fail "server not listening"
	failed || bg_start cli a /usr/bin/ib_${t}_lat -d "$DEV_A" -x "$GA" -n $n "$@" "$B"
	failed || wait_log cli 'remote address' 20 || fail "client never connected"
	sleep 1
	failed || bg_kill cli KILL
	failed || exit_in srv 1
	failed || log_has srv 'closed the connection while this side waited|retry' ||
		fail "server did not name the dead peer"
	pass
}
killed write
killed send
killed send -s 1048576

case_begin "read: perftest server killed mid-run: the rt client names it, exit 1" 60
bg_start srv b /usr/bin/ib_read_lat -d "$DEV_B" -x "$GB" -n 100000000
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ib_read_lat -d "$DEV_A" --timeout 20 -n 100000000 "$B"
failed || wait_log cli 'remote address' 20 || fail "client never connected"
sleep 1
failed || bg_kill srv KILL
failed || exit_in cli 1
failed || log_has cli 'closed the connection while this side waited|RDMA READ completion' ||
	fail "client did not name the dead peer"
pass

case_begin "write: mismatched -s (server 64, client 2): each side names it within --timeout 3" 60
bg_start srv b $RT/ib_write_lat -d "$DEV_B" --timeout 3 -s 64
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 30 a $RT/ib_write_lat -d "$DEV_A" --timeout 3 -s 2 "$B"
rc=$?
failed || [ "$rc" = 124 ] || [ "$rc" = 1 ] || fail "client exit $rc, wanted 124 or 1"
failed || output_has 'the same test, -s and -n|closed the connection' || fail "client did not name it"
failed || exit_in srv 124 1
pass

case_begin "send: mismatched -s (rt server 2, rt client 64): a named completion error, exit 1" 60
bg_start srv b $RT/ib_send_lat -d "$DEV_B" --timeout 3 -s 2
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 30 a $RT/ib_send_lat -d "$DEV_A" --timeout 3 -s 64 "$B"
rc=$?
failed || [ "$rc" = 1 ] || [ "$rc" = 124 ] || fail "client exit $rc, wanted 1 or 124"
failed || exit_in srv 1
failed || log_has srv 'receive completion: .*a larger -s than this side' || fail "server did not name the size"
pass

case_begin "mismatched test (rt ib_write_lat server, rt ib_send_lat client): named, no hang" 60
bg_start srv b $RT/ib_write_lat -d "$DEV_B" --timeout 3
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 30 a $RT/ib_send_lat -d "$DEV_A" --timeout 3 "$B"
rc=$?
failed || [ "$rc" = 124 ] || [ "$rc" = 1 ] || fail "client exit $rc, wanted 124 or 1"
failed || output_has 'same test|different test' || fail "client did not name it"
failed || exit_in srv 124 1
pass
