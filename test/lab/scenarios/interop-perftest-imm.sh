# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# --write_with_imm (perftest_imm.h) against Debian 13's perftest 25.01,
# both directions: ib_write_bw (the receiver counts receive completions
# and prints its own row, as perftest's send test) and ib_write_lat (each
# side waits for the peer's receive completion instead of its last byte);
# then -b -q 2 (a receive ring per QP on both sides, perftest's report
# exchange), and rdmatest against itself, whose receiver checks every
# completion and the data. Not here: -b at 64 KiB, which fails on
# Soft-RoCE between two perftest 25.01 too (with or without the option:
# flushed or failed completions); -R, -a and -D, which ran in both
# directions when this was written but add only time. perftest 4.5 has
# no --write_with_imm (it came after), so no case with `up12`.
# Counts are small: the cases check rows and words, not figures.
. "$LAB_SCEN/perftest.inc"

# try (perftest.inc's `one`): try_rows with a 30 s client
try() { try_rows 30 "$@"; }

for dir in "pt rt" "rt pt"; do
	set -- $dir
	case_begin "ib_write_bw --write_with_imm: $2 client -> $1 server" 40
	one ib_write_bw "$1" "$2" "$(row 16384 500)" --write_with_imm -s 16384 -n 500
	pass
	case_begin "ib_write_lat --write_with_imm: $2 client -> $1 server" 40
	one ib_write_lat "$1" "$2" "^ 2 +300 " --write_with_imm -n 300
	pass
done

# both sides send and receive on two QPs; each prints the sum of both
# reports (perftest's row counts this side's messages)
case_begin "ib_write_bw --write_with_imm -b -q 2: rt client -> perftest server" 40
one ib_write_bw pt rt "$(row 4096 400)" --write_with_imm -b -q 2 -s 4096 -n 200
pass

# rdmatest on both sides: the receiver's data check reads the first
# message of each QP (rdmatest's pattern) after its completions were checked
case_begin "ib_write_bw --write_with_imm -q 2: rt -> rt, the receiver verifies" 40
bg_start srv b $RT/ib_write_bw --timeout 20 --json --write_with_imm -q 2 -s 4096 -n 200
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 30 a $RT/ib_write_bw --timeout 20 --write_with_imm -q 2 -s 4096 -n 200 "$B" ||
	fail "client exited $?"
failed || bg_wait srv 30 || fail "server exited $?"
failed || log_has srv "first message of every QP verified" ||
	fail "the server's data_check did not verify"
pass
