# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 3
# rails: 2
# timeout: 720
# mesh over two rails (docs/mesh.md "Rails"): the lab's second RDMA link
# (rail1, 203.0.113.N, Soft-RoCE rxe1) beside the data link (eth0, rxe0).
# The first case checks the lab itself: both devices ACTIVE on both hosts,
# upstream rping over rail 1, and rxe1's port following rail1 down and up
# (timed on host b's own clock). Then mesh, launched as mesh-2hosts does
# (--hosts with the rail-0 addresses), finds both rails of each host:
# healthy, READY with pairs of rail 0 and rail 1; --bw 8m --qps 2 with a
# thread a rail, the CPU a Gbit recorded; rail 1 of b delayed by
# netem (100 ms, --max-rtt-us 40000), NOT READY with rail 1's link named
# and rail 0's good; rail 1 of b down before the run, NOT READY with b's
# rail named, not b; rail 1 of b without its address, NOT READY naming
# it, tested over verbs alone, and of both, READY; then --cross-rails, whose crossed links this lab (no
# router between the rails) cannot carry: NOT READY naming them, rail i
# against i good; last, host c (booted for this alone) as the spine
# between the rails: --cross-rails READY.
M=$RT/mesh
HOSTS="$A,$B"
# one link per rail: judged against the absolute thresholds alone
# (--min-links 1), as a user with two hosts runs it (see mesh-2hosts);
# both rails of the pair are tested at once by one vCPU each side, so a
# pair's bound is twice mesh-2hosts' (rail 0 timed out at 5 s with 200
# pings once, at load average 12)
ARGS="--hosts $HOSTS --timeout 10 --pings 100 --min-links 1"

# flip CMD STATE: on host b, CMD, then the centiseconds (b's uptime) until
# rxe1's port 1 is STATE, bounded by 20 s; prints "cs N" (or "cs -" and
# status 1). One command, so no lab round trip is counted.
flip() {
	# shellcheck disable=SC2016 # expanded on host b
	run_on -t 30 b sh -c '
		now() { read -r u _ < /proc/uptime; echo "${u%.*}${u#*.}"; }
		/sbin/ip link set rail1 "$1" || exit 2
		t0=$(now)
		until /sbin/rdma link show rxe1/1 | grep -q " state $2 "; do
			[ $(($(now) - t0)) -lt 2000 ] || { echo "cs -"; exit 1; }
			sleep 0.02
		done
		echo "cs $(($(now) - t0))"' sh "$@"
}
cs_of() { sed -n 's/^cs \([0-9]*\)$/\1/p' "$OUT"; }

case_begin "lab: two rails on each host, rping over rail 1, rxe1 follows rail1 down and up" 120
for h in a b; do
	for d in rxe0 rxe1; do
		s=$(port_state "$h" "$d")
		[ "$s" = ACTIVE ] || fail "$d on $h is '$s', not ACTIVE"
	done
done
failed || run_on b /sbin/ip -4 -o addr show dev rail1 || fail "no rail1 on b"
failed || output_has "inet $RAIL1_B/24" || fail "rail1 of b does not have $RAIL1_B/24"
failed || run_on b /sbin/rdma link show rxe1/1 || fail "rdma link show rxe1/1 exited $?"
failed || output_has 'netdev rail1( |$)' || fail "rxe1 is not on rail1"
# the IPv4-mapped GID of 203.0.113.2 (cb.00.71.02) is in rxe1's table
failed || run_on b cat /sys/class/infiniband/rxe1/ports/1/gids/1 || fail "no GID 1 on rxe1 of b"
failed || output_has '0000:0000:0000:0000:0000:ffff:cb00:7102' || fail "rxe1 lacks the GID of $RAIL1_B"
failed || bg_start srv b rping -s -a "$RAIL1_B" -C 5
failed || wait_listen b 7174 20 || fail "rping not listening on $RAIL1_B"
failed || run_on -t 40 a rping -c -a "$RAIL1_B" -I "$RAIL1_A" -C 5 -V || fail "rping over rail 1 exited $?"
failed || bg_wait srv 20 || fail "rping server exited $?"
# rail1 down on b: rxe1's port leaves ACTIVE, rxe0's does not
failed || flip down DOWN || fail "rxe1 not DOWN within 20 s of rail1 down: $(cat "$OUT")"
down=$(cs_of)
failed || [ "$(port_state b rxe0)" = ACTIVE ] || fail "rxe0 of b left ACTIVE with rail1"
# what a rail that is down still shows: its GID (the address is kept)
run_on b sh -c 'cat /sys/class/infiniband/rxe1/ports/1/gids/1; /sbin/rdma link show rxe1/1'
failed || flip up ACTIVE || fail "rxe1 not ACTIVE within 20 s of rail1 up: $(cat "$OUT")"
up=$(cs_of)
note "rxe1 of b: DOWN $down cs after rail1 down, ACTIVE $up cs after rail1 up"
record "{\"lab\":\"rail1 flip\",\"down_cs\":${down:-null},\"up_cs\":${up:-null}}"
# the helpers: the same, with their own bounds
failed || rail_down b || fail "rail_down b: status $?"
failed || [ "$(port_state b rxe1)" = DOWN ] || fail "rxe1 of b not DOWN after rail_down"
failed || rail_up b || fail "rail_up b: status $?"
pass

case_begin "two rails healthy: both tested, READY, pairs of rail 0 and rail 1" 120
need_applet mesh && {
	bg_start r1 b $M $ARGS
	run_on -t 90 a $M $ARGS --json || fail "rank 0 exited $?"
	failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
	failed || output_has '"verdict":"READY"' || fail "rank 0: no READY verdict"
	# the pairs, one object a line
	grep -Eo '\{"a":0,"b":1,[^{}]*\}' "$OUT" > /tmp/lab/pairs
	failed || grep -E '"rail":0[,}]' /tmp/lab/pairs | grep -q '"status":"ok"' || fail "no good pair 0-1 of rail 0"
	failed || grep -E '"rail":1[,}]' /tmp/lab/pairs | grep -q '"status":"ok"' || fail "no good pair 0-1 of rail 1"
	failed || grep -E '"rail":1[,}]' /tmp/lab/pairs | grep -q '"dev_a":"rxe1","dev_b":"rxe1"' ||
		fail "rail 1's pair does not name rxe1 at both ends"
	failed || output_has '"rails":\[\{"rail":0,"dev":"rxe0","port":1,[^]]*\{"rail":1,"dev":"rxe1","port":1,' ||
		fail "a hello does not list rxe0 and rxe1 as rails 0 and 1"
	failed || output_has "\"rail\":1,\"dev\":\"rxe1\",\"port\":1,[^}]*\"addr\":\"$RAIL1_B\"" ||
		fail "b's hello does not give rail 1's address $RAIL1_B"
	failed || output_has '"rails":\[\{"rail":0,"links":1,"bad_links":0[^]]*\{"rail":1,"links":1,"bad_links":0' ||
		fail "no per-rail totals with one good link each"
	failed || bg_wait r1 60 || fail "rank 1 exited $?"
	failed || bg_log r1 | grep -q '^READY' || fail "rank 1 did not print rank 0's READY"
}
pass

# Both rails at once, each rail's connections on a thread of their own
# (the connecting side, rank 1: --debug says so), two connections a rail;
# the ranks' CPU (user + sys of each process, /proc's cutime and cstime
# of the shell that waited for it) a Gbit moved is recorded: a figure,
# not a bound (Soft-RoCE does its work in the kernel's softirqs, counted
# to no process).
# shellcheck disable=SC2016 # expanded by the sh -c that runs it
CPUW='"$@"; rc=$?; set -- $(cat /proc/$$/stat); echo "CPU_TICKS $((${16} + ${17}))" >&2; exit $rc'
case_begin "two rails --bw 8m --qps 2: a thread a rail, READY, CPU a Gbit recorded" 120
need_applet mesh && {
	bg_start r1 b sh -c "$CPUW" sh $M $ARGS --bw 8m --qps 2 --debug
	# shellcheck disable=SC2016 # expanded by the inner shell
	run_on -t 90 a sh -c '"$@" 2> /tmp/lab/rank0.err' sh sh -c "$CPUW" sh $M $ARGS --bw 8m --qps 2 --json ||
		fail "rank 0 exited $?"
	failed || output_has '"verdict":"READY"' || fail "rank 0: no READY verdict"
	failed || output_has '"qps":2' || fail "the document does not say 2 connections a rail"
	failed || bg_wait r1 60 || fail "rank 1 exited $?"
	failed || bg_log r1 | grep -q 'debug: 2 rails: a thread each' || fail "rank 1 did not run its rails a thread each"
	t0=$(sed -n 's/^CPU_TICKS //p' /tmp/lab/rank0.err | tail -n 1)
	t1=$(bg_log r1 | sed -n 's/^CPU_TICKS //p' | tail -n 1)
	# 2 rails x 8 MiB x 2 directions: 0.268 Gbit
	failed || record "{\"lab\":\"mesh 2 rails --bw 8m --qps 2\",\"cpu_ticks_listener\":${t0:-null},\"cpu_ticks_connecting\":${t1:-null},\"gbit\":0.268,\"gbps\":[$(grep -o '"gbps":[0-9.e+-]*,"gbps_rev":[0-9.e+-]*' "$OUT" | sed 's/"gbps":\([^,]*\),"gbps_rev":\(.*\)/\1,\2/' | paste -sd, -)]}"
}
pass

case_begin "two rails, --lines of both ranks: mesh report READY, 2 rails" 120
need_applet mesh && {
	bg_start r1 b $M $ARGS --lines
	run_on -t 90 a $M $ARGS --lines || fail "rank 0 exited $?"
	cp "$OUT" /tmp/lab/rank0.out
	failed || bg_wait r1 60 || fail "rank 1 exited $?"
	bg_log r1 > /tmp/lab/rank1.out
	cat /tmp/lab/rank0.out /tmp/lab/rank1.out > /tmp/lab/all.out
	failed || grep -q '"rail":1' /tmp/lab/all.out || fail "no result line of rail 1"
	failed || run_on -t 20 a $M report /tmp/lab/all.out --min-links 1 || fail "mesh report exited $?"
	failed || output_has '^mesh: 2 ranks, .*, 2 rails' || fail "the summary does not count 2 rails"
	failed || output_has '^READY' || fail "mesh report: no READY line"
}
pass

# netem delays every frame b sends on rail1 by 100 ms: a floor on each of
# rail 1's round trips, far over the bound, while rail 0's stay well under
# it even on a loaded machine (medians of 1.5 to 9 ms seen at load average
# 12); judged by the absolute bound alone, as mesh-4hosts does: one link
# per rail has no median to compare with. 20 pings at 100 ms fit the
# pair's --timeout.
case_begin "rail 1 of b delayed 100 ms: NOT READY, rail 1's link named, rail 0 good" 150
need_applet mesh && {
	rail_netem b delay 100ms || fail "netem on b's rail1: status $?"
	DARGS="--hosts $HOSTS --timeout 10 --pings 20 --min-links 1 --max-rtt-us 40000 --rtt-factor 0 --bw-fraction 0"
	failed || bg_start r1 b $M $DARGS
	failed || { run_on -t 120 a $M $DARGS; rc=$?; }
	failed || [ "$rc" = 1 ] || fail "rank 0 exited $rc, wanted 1"
	failed || output_has '^bad link 0 \([^)]*\) rxe1 - 1 \([^)]*\) rxe1, rail 1: RTT [0-9.]+ us > 40000' ||
		fail "rail 1's link 0-1 is not named bad, with its RTT"
	failed || ! output_has '^bad link .*, rail 0:' || fail "a link of rail 0 is called bad"
	failed || output_has '^NOT READY' || fail "no NOT READY line"
	failed || bg_wait r1 60
	rc=$?
	failed || [ "$rc" = 1 ] || fail "rank 1 exited $rc, wanted 1"
	netem_clear b
}
pass

# rail1 of b down before the run: b's rail 1 is listed (a port that is
# DOWN is still a rail) but unusable; b itself is not bad, and its rail 0
# is tested and good
case_begin "rail 1 of b down: NOT READY, b's rail 1 named, not b; rail 0 good" 150
need_applet mesh && {
	rail_down b || fail "rail_down b: status $?"
	failed || bg_start r1 b $M $ARGS
	failed || { run_on -t 120 a $M $ARGS; rc=$?; }
	failed || [ "$rc" = 1 ] || fail "rank 0 exited $rc, wanted 1"
	failed || output_has '^bad rail 1 of host 1 \([^)]*\) rxe1: port 1 DOWN' ||
		fail "b's rail 1 is not named unusable (port 1 DOWN)"
	failed || ! output_has '^(bad|suspect) host 1 ' || fail "host b itself is called bad"
	failed || ! output_has '^bad link .*, rail 0:' || fail "rail 0's link is called bad"
	failed || ! output_has '^rail count:' || fail "b's rails are miscounted"
	failed || output_has '^NOT READY' || fail "no NOT READY line"
	failed || bg_wait r1 60
	rc=$?
	failed || [ "$rc" = 1 ] || fail "rank 1 exited $rc, wanted 1"
	# the same run's document: the bad rail, and rail 0's pair measured and good
	failed || bg_start r1 b $M $ARGS
	failed || run_on -t 120 a $M $ARGS --json
	failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
	failed || output_has "\"bad_rails\":\[\{\"rank\":1,\"host\":\"[^\"]*\",\"rail\":1,\"dev\":\"rxe1\",\"reason\":\"port 1 DOWN\"\}\]" ||
		fail "bad_rails does not hold b's rail 1 alone"
	failed || grep -Eo '\{"a":0,"b":1,[^{}]*\}' "$OUT" | grep -E '"rail":0[,}]' | grep -q '"status":"ok"' ||
		fail "rail 0's pair not measured ok"
	failed || output_has '"rails":\[\{"rail":0,"links":1,"bad_links":0' || fail "rail 0 not one good link"
	failed || bg_wait r1 60
	rail_up b || fail "rail_up b: status $?"
}
pass

# b's rail1 loses its address (the link and rxe1 stay up): rxe1 is still
# rail 1 of b's hello, listed without an address, not dropped and no
# other rail renumbered; rank 0 names it a bad rail of b (a's rail 1 has
# an address), and the pair tests rail 1 all the same over verbs alone
# (the QP numbers and GIDs over TCP between the hosts' eth0 addresses,
# RoCE v2 over rxe1's link-local GIDs): NOT READY without calling b bad
# or miscounting its rails, both rails' links measured and good. Then a's
# address goes too, as on InfiniBand without IPoIB: rail 1 has an
# address nowhere, is tested over verbs alone, and the run is READY.
case_begin "rail 1 of b lost its address: NOT READY, b's rail 1 named, both rails tested" 150
need_applet mesh && {
	run_on b /sbin/ip addr del "$RAIL1_B/24" dev rail1 || fail "ip addr del: status $?"
	failed || bg_start r1 b $M $ARGS --json
	failed || { run_on -t 120 a $M $ARGS --json; rc=$?; }
	failed || [ "$rc" = 1 ] || fail "rank 0 exited $rc, wanted 1"
	failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
	failed || output_has "\"bad_rails\":\[\{\"rank\":1,\"host\":\"[^\"]*\",\"rail\":1,\"dev\":\"rxe1\",\"reason\":\"port 1 carries no IP address \(another host's rail 1 does\)\"\}\]" ||
		fail "bad_rails does not name b's rail 1 without its address"
	failed || output_has '"rail":1,"dev":"rxe1","port":1,[^}]*"addr":"",' ||
		fail "b's hello does not list rxe1 as rail 1 without an address"
	failed || output_has '"rails":\[\{"rail":0,"links":1,"bad_links":0[^]]*\{"rail":1,"links":1,"bad_links":0' ||
		fail "not one good link on each rail (rail 1 over verbs)"
	failed || ! output_has '"rail_count_mismatch":\[\{' || fail "b's rails are miscounted"
	# not '"verdict":"bad"' anywhere: under load a link's first figures
	# can fail and its re-test pass, and the blame object lists those
	# first figures (verdict bad) among the flaky links
	failed || output_has '"bad_nodes":\[\]' ||
		fail "a host is called bad: $(grep -o '"bad_nodes":\[[^]]*\]' "$OUT")"
	failed || output_has '"verdict":"NOT READY"' || fail "no NOT READY verdict"
	bg_wait r1 60
	run_on a /sbin/ip addr del "$RAIL1_A/24" dev rail1 || fail "ip addr del on a: status $?"
	failed || bg_start r1 b $M $ARGS
	failed || { run_on -t 120 a $M $ARGS; rc=$?; }
	failed || [ "$rc" = 0 ] || fail "rank 0 exited $rc with rail 1 unaddressed on both, wanted 0"
	failed || output_has '^rail 1: no host.s port on it carries an IP address: tested over verbs alone' ||
		fail "rail 1 not named as tested over verbs alone"
	failed || output_has '^mesh: 2 ranks, 2 links tested, 2 rails' || fail "not both rails' links tested"
	failed || output_has '^READY' || fail "no READY line"
	bg_wait r1 60
	run_on a /sbin/ip addr add "$RAIL1_A/24" dev rail1 || fail "ip addr add on a: status $?"
	run_on b /sbin/ip addr add "$RAIL1_B/24" dev rail1 || fail "ip addr add: status $?"
}
pass

# --cross-rails on this lab, a rail-only fabric: two L2 networks and no
# router between them. rdma_resolve_addr from 192.0.2.1 (rxe0) to
# 203.0.113.2 succeeds (the kernel routes it out rail1, whose subnet it
# is, from the other interface's address), but the connection request is
# never answered: rping waits past 60 s, rdmatest's rping times out at
# its 10 s. So the crossed links time out at the pair's --timeout while
# rail i against rail i passes: NOT READY, the two crossed links named
# with both devices, no host or rail blamed; rank 1's and rank 0's
# --lines give mesh report the same verdicts. --no-blame: the re-test of
# the crossed links would only time out again (another --timeout); and a
# --timeout of 6 s with 20 pings, since the crossed links take all of it.
# The last case routes them through host c (a spine): READY.
case_begin "--cross-rails without a spine: rails 0-1 and 1-0 time out, rail i against i good" 120
need_applet mesh && {
	XARGS="--hosts $HOSTS --timeout 6 --pings 20 --min-links 1 --cross-rails --no-blame --lines"
	t0=$(date +%s)
	bg_start r1 b $M $XARGS
	run_on -t 90 a $M $XARGS
	rc=$?
	t1=$(date +%s)
	cp "$OUT" /tmp/lab/x0.out
	[ "$rc" = 1 ] || fail "rank 0 exited $rc, wanted 1"
	failed || output_has '^mesh: 2 ranks, 4 links tested \(2 crossed\), 2 rails' ||
		fail "the summary does not count 4 links, 2 of them crossed, on 2 rails"
	for x in 'rxe0 - 1 \([^)]*\) rxe1, rails 0-1' 'rxe1 - 1 \([^)]*\) rxe0, rails 1-0'; do
		failed || output_has "^bad link 0 \\([^)]*\\) $x: timeout\$" ||
			fail "no bad link 0 ... $x: timeout"
	done
	failed || ! output_has '^bad link .*, rail [01]:' || fail "a link of rail i against itself is called bad"
	failed || ! output_has '^(bad|suspect) host|^bad rail' || fail "a host or a rail is blamed for the crossed links"
	failed || output_has '^NOT READY: 0 bad, 0 suspect, 0 absent, 0 untested hosts, 2 bad links' ||
		fail "no NOT READY line with 2 bad links"
	failed || [ $((t1 - t0)) -le 40 ] || fail "the run took $((t1 - t0)) s, more than 40"
	note "--cross-rails, 2 hosts x 2 rails, --timeout 6, --no-blame: rank 0 took $((t1 - t0)) s"
	record "{\"lab\":\"mesh cross-rails\",\"wall_s\":$((t1 - t0))}"
	failed || bg_wait r1 60 || [ $? = 1 ] || fail "rank 1 exited $?"
	bg_log r1 > /tmp/lab/x1.out
	cat /tmp/lab/x0.out /tmp/lab/x1.out > /tmp/lab/xall.out
	failed || [ "$(grep -c '"rail_b":' /tmp/lab/xall.out)" = 2 ] || fail "not two result lines with rail_b"
	failed || { run_on -t 20 a $M report /tmp/lab/xall.out --min-links 1; rc=$?; }
	failed || [ "$rc" = 1 ] || fail "mesh report exited $rc, wanted 1"
	failed || output_has '^bad link 0 \([^)]*\) rxe0 - 1 \([^)]*\) rxe1, rails 0-1: timeout$' ||
		fail "mesh report does not name rails 0-1"
	failed || output_has '^NOT READY: 0 bad, 0 suspect, 0 absent, 0 untested hosts, 2 bad links' ||
		fail "mesh report's verdict differs"
}
pass

# ---- a spine between the rails (docs/mesh.md "Crossed rails") ----
# Host c, idle until here, on the data link (rail 0, 192.0.2.0/24) and
# on rail1 (rail 1, 203.0.113.0/24) like a and b, forwards between the
# two subnets, and a and b route the other rail's subnet through it from
# each rail's netdev (a route by metric 100, beside the connected one,
# that Soft-RoCE's lookup from its own netdev picks; RoCE v2 is routed
# UDP and rxe takes a packet whose destination GID is its own). mesh on
# a and b alone then tests rail 0 of one against rail 1 of the other
# through c: READY, 4 results for the pair, 2 of them crossed, each class
# judged against its own links.
SPINE_ARGS="$ARGS --cross-rails"

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
	failed || bg_start r1 b $M $SPINE_ARGS
	failed || { run_on -t 90 a $M $SPINE_ARGS --json; rc=$?; }
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
