# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 3
# rails: 2
# timeout: 240
# mesh --cross-rails with a spine between the rails (docs/mesh.md
# "Crossed rails"): host c, on the data link (rail 0, 192.0.2.0/24) and
# on rail1 (rail 1, 203.0.113.0/24) like a and b, forwards between the
# two subnets, and a and b route the other rail's subnet through it from
# each rail's netdev (a route by metric 100, beside the connected one,
# that Soft-RoCE's lookup from its own netdev picks; RoCE v2 is routed
# UDP and rxe takes a packet whose destination GID is its own). mesh on
# a and b alone then tests rail 0 of one against rail 1 of the other
# through c: READY, 4 results for the pair, 2 of them crossed, each class
# judged against its own links. mesh-rails checks the same run without a
# spine: the crossed links time out.
M=$RT/mesh
ARGS="--hosts $A,$B --timeout 10 --pings 100 --min-links 1 --cross-rails"

# spine add|del: host c forwards (or not), hosts a and b route the other
# rail's subnet via c (or no longer)
spine() {
	run_on c sh -c "echo $([ "$1" = add ] && echo 1 || echo 0) > /proc/sys/net/ipv4/ip_forward" ||
		return 1
	for h in a b; do
		run_on "$h" /sbin/ip route "$1" 203.0.113.0/24 via "$C" dev eth0 metric 100 || return 1
		run_on "$h" /sbin/ip route "$1" 192.0.2.0/24 via "$RAIL1_C" dev rail1 metric 100 || return 1
	done
}

case_begin "--cross-rails through a spine (host c): READY, 4 results, 2 crossed" 150
need_applet mesh && {
	spine add || fail "routes through c: status $?"
	failed || run_on a /sbin/ip route get "$RAIL1_B" from "$A" oif eth0
	failed || output_has "via $C dev eth0" || fail "rail 0 of a does not route rail 1's subnet via c"
	t0=$(date +%s)
	failed || bg_start r1 b $M $ARGS
	failed || { run_on -t 90 a $M $ARGS --json; rc=$?; }
	t1=$(date +%s)
	failed || [ "$rc" = 0 ] || fail "rank 0 exited $rc, wanted 0"
	failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
	failed || output_has '"verdict":"READY"' || fail "rank 0: no READY verdict"
	grep -Eo '\{"a":0,"b":1,[^{}]*\}' "$OUT" > /tmp/lab/pairs
	failed || [ "$(grep -c '"status":"ok"' /tmp/lab/pairs)" = 4 ] || fail "not 4 results ok for the pair"
	failed || grep -q '"rail":0,"rail_b":1,"dev_a":"rxe0","dev_b":"rxe1"' /tmp/lab/pairs ||
		fail "no crossed result rxe0 of a - rxe1 of b"
	failed || grep -q '"rail":1,"rail_b":0,"dev_a":"rxe1","dev_b":"rxe0"' /tmp/lab/pairs ||
		fail "no crossed result rxe1 of a - rxe0 of b"
	failed || output_has '"cross_rails":\[\{"rail":0,"rail_b":1,"links":2,"bad_links":0' ||
		fail "no crossed class 0-1 of 2 good links"
	note "--cross-rails through c, 2 hosts x 2 rails: rank 0 took $((t1 - t0)) s"
	record "{\"lab\":\"mesh cross-rails spine\",\"wall_s\":$((t1 - t0))}"
	failed || bg_wait r1 60 || fail "rank 1 exited $?"
	spine del || fail "removing the routes through c: status $?"
}
pass
