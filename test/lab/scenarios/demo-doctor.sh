# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest doctor. Host a is healthy: its checklist, then ADDR
# checks against a `doctor --listen` peer and against an upstream rping
# server. Then host b is broken (its rxe devices deleted: rxe0, and rxe1
# where the demo boots the second rail): FAIL, the fix, exit 3; and an
# rping there points at the same finding.
D=$RT/doctor
counts() { sed -n 's/^doctor: \([0-9]*\) passed, \([0-9]*\) warnings, \([0-9]*\) failed$/\1 PASS, \2 WARN, \3 FAIL/p' "$OUT" | tail -n 1; }

case_begin "doctor: healthy host a, ADDR with a doctor --listen peer" 60
need_applet doctor && {
	bg_start lst b $D --listen -p 7180 --accept-timeout 30
	wait_listen b 7180 20 || fail "doctor --listen not listening"
	failed || run_on -t 40 a $D "$B" -p 7180 || fail "exit $?"
	failed || output_has "^PASS cm-connect" || fail "no CM connection"
	demo_row doctor rdmatest "a -> b (healthy)" "$(counts)"
}
pass

case_begin "doctor: ADDR with an upstream rping server" 60
need_applet doctor && {
	bg_start srv b /usr/bin/rping -s -a "$B" -p 7181
	wait_listen b 7181 20 || fail "rping not listening"
	failed || run_on -t 40 a $D "$B" -p 7181 || fail "exit $?"
	failed || output_has "^PASS cm-connect" || fail "no CM connection"
	demo_row doctor "$(peer_name rping)" "a -> b rping -s" "$(counts)"
}
pass

case_begin "doctor: broken host b (no rxe device), and rping's error there" 60
need_applet doctor rping && {
	run_on b /sbin/rdma link delete rxe0 || fail "cannot delete rxe0"
	[ "${LAB_RAILS:-1}" -lt 2 ] || run_on b /sbin/rdma link delete rxe1 || fail "cannot delete rxe1"
	failed || { run_on b $D; rc=$?; }
	failed || [ $rc = 3 ] || fail "exit $rc, want 3"
	failed || output_has "^FAIL devices .* -- fix: " || fail "no devices FAIL"
	row="$(counts), exit $rc"
	failed || { run_on b $RT/rping -s -a "$B"; rc=$?; }
	failed || output_has "rdmatest doctor: devices FAIL" || fail "rping does not point at doctor"
	run_on b /sbin/rdma link add rxe0 type rxe netdev eth0 || fail "cannot recreate rxe0"
	[ "${LAB_RAILS:-1}" -lt 2 ] || run_on b /sbin/rdma link add rxe1 type rxe netdev rail1 ||
		fail "cannot recreate rxe1"
	demo_row doctor - "b (broken)" "$row"
}
pass
