# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 60
# Demo: rdmatest ibv_devinfo on host a: the rxe device and its port, then
# -v with the GID table; --json gives the port state and active MTU.
case_begin "ibv_devinfo: device, port and GIDs, text and JSON" 30
need_applet ibv_devinfo && {
	run_on a $RT/ibv_devinfo -d rxe0 || fail "exit $?"
	failed || output_has "^$(printf '\t\t\t')state:$(printf '\t\t\t')PORT_ACTIVE \(4\)" || fail "port not ACTIVE"
	failed || run_on a $RT/ibv_devinfo -d rxe0 -v -i 1 || fail "-v exit $?"
	failed || output_has 'GID\[ *[0-9]+\]:.*::ffff:192\.0\.2\.1, RoCE v2' || fail "no RoCE v2 GID of 192.0.2.1"
	failed || run_on a $RT/ibv_devinfo -d rxe0 --json || fail "--json exit $?"
	demo_row ibv_devinfo - "host a" "rxe0 port 1 $(sed -n 's/.*"state":"\([A-Z_]*\)".*/\1/p' "$OUT"), MTU $(json_num "$OUT" active_mtu)"
}
pass
