# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 60
# Demo: rdmatest ibv_devices on host a: the rxe device and its node GUID,
# as upstream's table; --json gives the same list.
case_begin "ibv_devices: the device table and its JSON" 30
need_applet ibv_devices && {
	run_on a $RT/ibv_devices || fail "exit $?"
	g=$(awk '$1 == "rxe0" { print $2 }' "$OUT")
	[ -n "$g" ] || fail "rxe0 not in the table"
	failed || run_on a $RT/ibv_devices --json || fail "--json exit $?"
	failed || output_has "\"node_guid\":\"$g\"" || fail "GUID $g not in the JSON"
	demo_row ibv_devices - "host a" "rxe0 GUID $g"
}
pass
