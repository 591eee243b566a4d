# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest mesh on both hosts, started the way pdsh would (the same
# command on each, the rank found in --hosts): rank 0 (host a) prints the
# summary ending in READY; then host b does not start and a's run names
# it absent, NOT READY, after --timeout.
M=$RT/mesh

case_begin "mesh: two hosts, READY" 60
need_applet mesh && {
	bg_start r1 b $M --hosts "$A,$B" --timeout 5 --pings 200 --min-links 1
	run_on -t 40 a $M --hosts "$A,$B" --timeout 5 --pings 200 --min-links 1 || fail "rank 0 exited $?"
	failed || output_has '^READY$' || fail "no READY"
	failed || bg_wait r1 30 || fail "rank 1 exited $?"
	demo_row mesh rdmatest "a + b (pdsh style)" "$(sed -n 's/.*\(median RTT [0-9.]* us\).*/\1/p' "$OUT" | head -n 1)"
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
