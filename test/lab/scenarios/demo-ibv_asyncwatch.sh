# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 90
# Demo: rdmatest ibv_asyncwatch on host b while b's data link goes down
# and up: PORT_ERR then PORT_ACTIVE, as upstream prints them; SIGTERM ends
# the watch with exit 0.
case_begin "ibv_asyncwatch: the port events of a link going down and up" 60
need_applet ibv_asyncwatch && {
	bg_start aw b $RT/ibv_asyncwatch -d rxe0 --duration 50
	wait_log aw '^rxe0: async event FD' 20 || fail "watch did not start"
	failed || link_down b || fail "link down"
	failed || link_up b || fail "link up"
	failed || wait_log aw 'IBV_EVENT_PORT_ACTIVE' 20 || fail "no PORT_ACTIVE event"
	bg_kill aw TERM
	rc=$?
	[ "$rc" = 0 ] || fail "exit $rc after SIGTERM"
	bg_log aw | grep -q '^  event_type IBV_EVENT_PORT_ERR (10), port 1$' || fail "no PORT_ERR line"
	demo_row ibv_asyncwatch - "host b, eth0 down/up" "$(bg_log aw | grep -c '^  event_type ') events"
}
pass
