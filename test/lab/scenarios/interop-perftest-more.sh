# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 150
# perftest's remaining options (perftest_res.h: -X, --flow_label, --use-null-mr, --no_lock; perftest_runctl.h: -C; perftest_payload.h) against Debian 13's
# perftest 25.01, both directions: -X (--vector) with -e in ib_send_bw and
# ib_send_lat (rxe has one completion vector per guest CPU, so -X 0 runs;
# a vector past them exits 3 naming num_comp_vectors), -C (--report-cycles)
# in ib_send_lat (the rows of both sides in cycles: t_min far above the
# µs figure), --payload_file_path in ib_write_bw and ib_send_bw,
# --flow_label in ib_write_bw with two QPs, --use-null-mr's and
# --no_lock's exit 3 on rxe (no null MR, no thread domains). Not here: the write tests refuse -X, as perftest does;
# --inline_recv is refused (perftest 25.01's parser refuses it too).
# Counts are small: the cases check rows and words, not figures.
. "$LAB_SCEN/perftest.inc"

# try (perftest.inc's `one`): try_rows with a 40 s client
try() { try_rows 40 "$@"; }


for dir in "pt rt" "rt pt"; do
	set -- $dir
	case_begin "ib_send_bw -e -X 0: $2 client -> $1 server" 40
	one ib_send_bw "$1" "$2" "$(row 4096 200)" -e -X 0 -s 4096 -n 200
	rtout=$OUT
	[ "$2" = rt ] || rtout=/tmp/pt.srv
	failed || grep -q 'Test with events. Using rxe0_comp0' "$rtout" ||
		fail "rdmatest's side: no 'Test with events. Using rxe0_comp0' line"
	pass
	case_begin "ib_send_lat -e -X 0: $2 client -> $1 server" 40
	one ib_send_lat "$1" "$2" "^ 2 +100 " -e -X 0 -n 100
	pass
done

# --payload_file_path: both sides have the file; the rows on both, and an
# rdmatest receiver of an rdmatest sender's payload finds no pattern of its
# own (its data_check says so: the payload went instead)
for h in a b; do
	run_on "$h" sh -c "printf '0x11223344,0xdeadbeef\n' > /tmp/pl" || fail "no payload file on $h"
done
for dir in "pt rt" "rt pt"; do
	set -- $dir
	case_begin "ib_write_bw --payload_file_path: $2 client -> $1 server" 40
	one ib_write_bw "$1" "$2" "$(row 4096 200)" --payload_file_path=/tmp/pl -s 4096 -n 200
	pass
done
case_begin "ib_send_bw --payload_file_path: rt -> rt, the receiver sees no rdmatest pattern" 40
bg_start srv b $RT/ib_send_bw --timeout 20 --json -s 4096 -n 200
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 30 a $RT/ib_send_bw --timeout 20 --payload_file_path=/tmp/pl -s 4096 -n 200 "$B" ||
	fail "client exited $?"
failed || bg_wait srv 30 || fail "server exited $?"
failed || log_has srv "not checked: the peer's data is not rdmatest's pattern" ||
	fail "the server's data_check did not see the payload"
pass

# --flow_label over two QPs (the rows count -n x -q): the labels go into
# each QP's GRH (rxe takes them; the wire is not read here), the rows on
# both sides
for dir in "pt rt" "rt pt"; do
	set -- $dir
	case_begin "ib_write_bw -q 2 --flow_label 1,2: $2 client -> $1 server" 40
	one ib_write_bw "$1" "$2" "$(row 4096 400)" -q 2 --flow_label=1,2 -s 4096 -n 200
	pass
done

# t_min of the rdmatest side's row: in cycles, a round trip on rxe is
# thousands of them (in µs it is a few tens)
tmin() { sed -En 's/^ 2 +100 +([0-9.]+) .*/\1/p' "$1" | head -n 1; }
case_begin "ib_send_lat -C: perftest client -> rt server, rows in cycles" 40
one ib_send_lat rt pt "^ 2 +100 " -C -n 100
v=$(tmin /tmp/pt.srv)
failed || awk -v v="$v" 'BEGIN { exit !(v > 1000) }' || fail "rt server t_min '$v': not in cycles"
note "rdmatest server t_min: $v cycles"
pass
case_begin "ib_send_lat -C: rt client -> perftest server, rows in cycles" 40
one ib_send_lat pt rt "^ 2 +100 " -C -n 100
v=$(tmin "$OUT")
failed || awk -v v="$v" 'BEGIN { exit !(v > 1000) }' || fail "rt client t_min '$v': not in cycles"
pass

# the vector is checked when the CQs are made, after the exchange
case_begin "ib_send_bw -e -X 2048: exit 3 naming num_comp_vectors" 30
bg_start srv b $RT/ib_send_bw --timeout 10 -e
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 20 a $RT/ib_send_bw --timeout 10 -e -X 2048 "$B"
rc=$?
failed || [ "$rc" = 3 ] || fail "exit $rc, not 3"
failed || output_has 'num_comp_vectors' || fail "num_comp_vectors not named"
bg_kill srv
pass

# --use-null-mr: rxe has no null MR (perftest 25.01 fails there too:
# "Couldn't create null MR"), so no run with perftest; the sender exits 3
# naming ibv_alloc_null_mr
case_begin "ib_write_bw --use-null-mr: exit 3 naming ibv_alloc_null_mr on rxe" 30
bg_start srv b $RT/ib_write_bw --timeout 10 --use-null-mr
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 20 a $RT/ib_write_bw --timeout 10 --use-null-mr "$B"
rc=$?
failed || [ "$rc" = 3 ] || fail "exit $rc, not 3"
failed || output_has 'ibv_alloc_null_mr' || fail "ibv_alloc_null_mr not named"
bg_kill srv
pass

# --no_lock: rxe has no thread domains (perftest 25.01 fails there too:
# "Couldn't allocate TD"); the rdmatest side exits 3 naming ibv_alloc_td
case_begin "ib_send_bw --no_lock: exit 3 naming ibv_alloc_td on rxe" 30
bg_start srv b $RT/ib_send_bw --timeout 10
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 20 a $RT/ib_send_bw --timeout 10 --no_lock "$B"
rc=$?
failed || [ "$rc" = 3 ] || fail "exit $rc, not 3"
failed || output_has 'ibv_alloc_td' || fail "ibv_alloc_td not named"
bg_kill srv
pass
