# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 300
# The verbs-only connection path (core/vconn.c, core/oob.c) through the
# test tool vconn-pair: two RC QPs connected without the RDMA CM, QP
# attributes traded over TCP port 18515, the GID chosen automatically from
# the address the peer is reached on; one verified message each way. Then
# its bounded, named failures.
. "$LAB_SCEN/faults.inc"
VP=$RT/vconn-pair

case_begin "RC pair a -> b, auto GID: one verified message each way" 90
bg_start srv b $VP -t 20
wait_tcp_listen b 18515 20 || fail "vconn-pair server not listening"
failed || run_on -t 40 a $VP -t 20 "$B" || fail "client exited $?"
failed || output_has 'verified "vconn-pair server->client' || fail "client verified nothing"
# the RoCE v2 GID carrying the address b is reached on: A as ::ffff:A
failed || output_has "GID ::ffff:$A index [0-9]+" || fail "client did not pick the GID of $A"
failed || exit_in srv 0
failed || log_has srv 'verified "vconn-pair client->server'
failed || log_has srv "GID ::ffff:$B index [0-9]+"
pass

case_begin "client first with -w: it waits for the server, then passes" 90
bg_start cli a $VP -t 20 -w 30 "$B"
bg_start srv b $VP -t 20
exit_in cli 0
failed || exit_in srv 0
failed || log_has cli 'vconn-pair: pass'
pass

case_begin "no server: refused at once (exit 1)" 30
run_on -t 20 a $VP -t 5 "$B"
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has "connection to $B:18515 refused" || fail "no reason named"
pass

case_begin "no server with -w 2: bounded wait, exit 124" 30
run_on -t 20 a $VP -t 5 -w 2 "$B"
rc=$?
[ "$rc" = 124 ] || fail "exit $rc, wanted 124"
failed || output_has "no server on $B:18515 within 2 s" || fail "no reason named"
pass

case_begin "no client: the server's accept is bounded, exit 124" 30
run_on -t 20 b $VP -t 2
rc=$?
[ "$rc" = 124 ] || fail "exit $rc, wanted 124"
failed || output_has 'no client on port 18515 within 2 s' || fail "no reason named"
pass

case_begin "bad device name: exit 3, the devices there are listed" 30
run_on -t 20 a $VP -d nosuch0 "$B"
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has "nosuch0: no such RDMA device \(there are: $DEV_A" || fail "no reason named"
pass
