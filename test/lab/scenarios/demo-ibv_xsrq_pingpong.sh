# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest ibv_xsrq_pingpong needs XRC, which Soft-RoCE does not
# have: ours says so in one line (exit 3) before any connection, and
# upstream's fails on the same device. Each row is the demo's "not
# supported here": SKIP, with the message checked.
G=$(gid_index b)

case_begin "ibv_xsrq_pingpong: rdmatest client: XRC named, exit 3" 30
run_on -t 20 a $RT/ibv_xsrq_pingpong --timeout 5 "$B"
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'XRC is not supported by rxe0' || fail "XRC not named"
demo_row ibv_xsrq_pingpong rdmatest "rt client (no peer needed)" "$(grep -o 'XRC is not supported by [a-z0-9_]*' "$OUT") (exit $rc)"
failed || skip "XRC is not supported by rxe"
pass

case_begin "ibv_xsrq_pingpong: upstream server on the same device fails too" 30
run_on -t 20 b /usr/bin/ibv_xsrq_pingpong -g "$G"
rc=$?
{ [ "$rc" != 0 ] && [ "$rc" != 124 ]; } || fail "upstream exit $rc, wanted a failure"
demo_row ibv_xsrq_pingpong upstream "upstream server alone" "$(grep -m1 -o "Couldn't.*XRC[^0-9]*" "$OUT") (exit $rc)"
failed || skip "XRC is not supported by rxe"
pass
