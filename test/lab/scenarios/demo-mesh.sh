# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# rails: 2
# timeout: 270
# Demo: rdmatest mesh on both hosts, started the way pdsh would (the same
# command on each, the rank found in --hosts): rank 0 (host a) tests both
# rails of the pair (rxe0 on the data link, rxe1 on the lab's second link,
# rail1) and prints the summary ending in READY; then the incast pattern
# over two connections a rail, READY with each receiver's total; then rail1 of host b is
# down and the run names that rail, not the host, NOT READY; then host b
# does not start and a's run names it absent, NOT READY, after --timeout.
M=$RT/mesh

case_begin "mesh: two hosts, two rails each, READY" 60
need_applet mesh && {
	bg_start r1 b $M --hosts "$A,$B" --timeout 5 --pings 200 --min-links 1
	run_on -t 40 a $M --hosts "$A,$B" --timeout 5 --pings 200 --min-links 1 || fail "rank 0 exited $?"
	failed || output_has '^READY( \(not authenticated: auth none\))?$' || fail "no READY"
	failed || output_has '^mesh: 2 ranks, .*, 2 rails' || fail "not two rails tested"
	failed || bg_wait r1 30 || fail "rank 1 exited $?"
	demo_row mesh rdmatest "a + b (pdsh style), 2 rails" "$(sed -n 's/.*\(median RTT [0-9.]* us\).*/\1/p' "$OUT" | head -n 1)"
}
pass

# the traffic patterns: every host a receiver in turn (--pattern incast;
# two hosts: one sender each), two connections a rail (--qps 2)
case_begin "mesh: --pattern incast --qps 2 --bw 4m, two rails: READY, each receiver's total" 90
need_applet mesh && {
	bg_start r1 b $M --hosts "$A,$B" --timeout 10 --pings 50 --min-links 1 --pattern incast --qps 2 --bw 4m
	run_on -t 60 a $M --hosts "$A,$B" --timeout 10 --pings 50 --min-links 1 --pattern incast --qps 2 --bw 4m ||
		fail "rank 0 exited $?"
	failed || output_has '^READY( \(not authenticated: auth none\))?$' || fail "no READY"
	failed || output_has '^incast: 2 receivers, 1 sender each at once: worst receiver rank [01]' ||
		fail "no incast line"
	failed || bg_wait r1 30 || fail "rank 1 exited $?"
	demo_row mesh rdmatest "a + b, --pattern incast --qps 2 --bw 4m" \
		"$(sed -n 's/.*worst receiver [^)]*) \([0-9.]* Gb\/s in\).*/worst receiver \1/p' "$OUT" | head -n 1)"
}
pass

case_begin "mesh: rail 1 of host b down, that rail named, not the host" 60
need_applet mesh && {
	rail_down b || fail "rail_down b: status $?"
	failed || bg_start r1 b $M --hosts "$A,$B" --timeout 5 --pings 200 --min-links 1
	failed || { run_on -t 40 a $M --hosts "$A,$B" --timeout 5 --pings 200 --min-links 1; rc=$?; }
	failed || [ "$rc" = 1 ] || fail "exit $rc, wanted 1"
	failed || output_has '^bad rail 1 of host 1 \([^)]*\) rxe1: port 1 DOWN' || fail "b's rail 1 not named"
	failed || ! output_has '^bad host' || fail "a host is called bad"
	# the figure before rail_up's commands replace $OUT
	fig="exit ${rc:--}, $(grep -c '^bad rail' "$OUT") bad rail"
	failed || bg_wait r1 30
	rail_up b || fail "rail_up b: status $?"
	demo_row mesh rdmatest "a + b, rail1 of b down" "$fig"
}
pass

case_begin "mesh: host b never starts" 60
need_applet mesh && {
	run_on -t 40 a $M --hosts "$A,$B" --timeout 3 --pings 50
	rc=$?
	[ "$rc" = 1 ] || fail "exit $rc, wanted 1"
	failed || output_has "^absent host 1 \($B\)" || fail "b not named absent"
	demo_row mesh rdmatest "a, b absent" "exit $rc, $(grep -c '^absent' "$OUT") absent"
}
pass
