# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 420
# ibv_srq_pingpong against Debian 12's (rdma-core v44) both ways and against
# itself: default options (16 QPs over one SRQ, 256 records each way), then
# the options that change the wire (-q -s -n -r -g, -e and -c on ours); the
# robustness cases (no server, a different -q named on either side, a peer
# killed mid-run) and the capabilities rxe lacks: -o (ODP) when it has no
# ODP, and XRC, which neither our ibv_xsrq_pingpong nor Debian's can run on
# rxe (hence no xsrq interop matrix: both must fail, ours with exit 3 naming
# XRC). Upstream needs -g on RoCE on both sides; ours chooses the GID itself.
. "$LAB_SCEN/faults.inc"
GA=$(gid_index a)
GB=$(gid_index b)
RES='[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec'
RT_SRQ="$RT/ibv_srq_pingpong --timeout 10"
UP=/usr/bin/ibv_srq_pingpong

# pair NAME SERVER-CMD CLIENT-CMD [ITERS] [QPS]: the server on b, the client
# on a; both exit 0, print the result lines for ITERS (default 1000) and
# QPS (default 16) remote address lines.
pair() {
	local n=${4:-1000} q=${5:-16}
	case_begin "$1" 60
	bg_start srv b $2
	wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 40 a $3 "$B" || fail "client exited $?"
	failed || output_has "$RES" || fail "client printed no result"
	failed || output_has "^$n iters in [0-9.]+ seconds = [0-9.]+ usec/iter" || fail "client: not $n iters"
	failed || [ "$(grep -Ec "remote address: LID 0x[0-9a-f]{4}, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:$B" "$OUT")" = "$q" ] ||
		fail "client: not $q remote address lines with b's GID"
	failed || [ "$(grep -Ec "local address:  LID 0x[0-9a-f]{4}, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID" "$OUT")" = "$q" ] ||
		fail "client: not $q local address lines"
	failed || exit_in srv 0
	failed || log_has srv "^$n iters in"
	pass
}

# Each exchange is a round trip, 10 to 15 ms between two emulated guests.
# The defaults run once, the rt server's; the rt side chooses its GID in
# both directions (upstream alone gets -g), and the -q 255 run below is
# rt/rt, so an rt/rt run with the defaults proved nothing more. -n does
# not reach the wire: 120 against -r 50 refills the SRQ twice, 300
# against -r 1 three hundred times (2000 took 20 s).
pair "srq: upstream client -> rt server, defaults" "$RT_SRQ" "$UP -g $GA"
pair "srq: rt client -> upstream server, -n 200" "$UP -g $GB -n 200" "$RT_SRQ -n 200" 200
pair "srq: upstream client -> rt server, -q 4 -s 8192 -n 120 -r 50, -c both, -e on rt" \
	"$RT_SRQ -q 4 -s 8192 -n 120 -r 50 -c -e" "$UP -g $GA -q 4 -s 8192 -n 120 -r 50 -c" 120 4
pair "srq: rt client -> upstream server, -q 4 -s 8192 -n 120 -r 50, -c both, -e -g on rt" \
	"$UP -g $GB -q 4 -s 8192 -n 120 -r 50 -c" "$RT_SRQ -g $GA -q 4 -s 8192 -n 120 -r 50 -c -e" 120 4
pair "srq: upstream client -> rt server, -q 1 -r 1 -s 1 -n 300" \
	"$RT_SRQ -q 1 -r 1 -s 1 -n 300" "$UP -g $GA -q 1 -r 1 -s 1 -n 300" 300 1
pair "srq: rt client -> rt server, -q 255 -r 300 -c both (full pattern check), GID chosen on both" \
	"$RT_SRQ -q 255 -r 300 -c -n 500" "$RT_SRQ -q 255 -r 300 -c -n 500" 500 255

case_begin "srq -c: the rt side recognised an rdmatest peer (--json)" 60
bg_start srv b $RT_SRQ -c -n 50
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT_SRQ -c -n 50 --json "$B" || fail "client exited $?"
failed || output_has '"peer_content":"rdmatest"' || fail "no full pattern check"
failed || output_has '"num_qp":16' || fail "no QP count"
failed || output_has '"rtt_us":\{"count":' || fail "no RTT percentiles"
failed || exit_in srv 0
pass

case_begin "srq: no server: refused at once, exit 1" 30
run_on -t 20 a $RT_SRQ "$B"
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has "connection to $B:18515 refused" || fail "no reason named"
pass

case_begin "srq: no server with --wait-server 2: exit 124" 30
run_on -t 20 a $RT_SRQ --wait-server 2 "$B"
rc=$?
[ "$rc" = 124 ] || fail "exit $rc, wanted 124"
failed || output_has "no server on $B:18515 within 2 s" || fail "no reason named"
pass

case_begin "srq: rt server -q 8, rt client -q 16: the server names both -q, exit 1" 60
bg_start srv b $RT_SRQ -q 8
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT_SRQ "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || exit_in srv 1
failed || log_has srv 'has 16 QPs \(its -q\), this side 8: both sides must use the same -q'
pass

case_begin "srq: upstream server -q 8, rt client -q 16: the client names both -q, exit 1" 60
bg_start srv b $UP -g "$GB" -q 8
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT_SRQ "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'has 8 QPs \(its -q\), this side 16: both sides must use the same -q \(QP records from the peer have QPN 0\)' ||
	fail "client did not name the two -q"
failed || bg_kill srv KILL
pass

case_begin "srq: mismatched -s (rt 4096 server, rt 8192 client): named, exit 1" 60
bg_start srv b $RT/ibv_srq_pingpong --timeout 5
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ibv_srq_pingpong --timeout 5 -s 8192 "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'same -s' || fail "client did not name -s"
failed || exit_in srv 1
failed || log_has srv 'same -s'
pass

case_begin "srq: client killed mid-run: the rt server ends within its bound, naming how far" 60
bg_start srv b $RT/ibv_srq_pingpong --timeout 3 -n 100000000
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ibv_srq_pingpong -n 100000000 "$B"
failed || wait_log cli 'remote address' 20 || fail "client never connected"
failed || bg_kill cli KILL
failed || exit_in srv 124 1
failed || log_has srv 'messages received|peer gone'
pass

case_begin "srq -o: ODP runs, or exit 3 naming it on both sides before any connection" 60
bg_start srv b $RT_SRQ -o -n 100
run_on -t 40 a $RT_SRQ -o --wait-server 10 -n 100 "$B"
rc=$?
case $rc in
0) output_has '^100 iters in' || fail "-o run printed no result"
   failed || exit_in srv 0 ;;
3) output_has 'on-demand paging \(ODP\)' || fail "exit 3 without naming ODP"
   failed || exit_in srv 3 ;;
*) fail "client exit $rc, wanted 0 or 3" ;;
esac
pass

case_begin "xsrq: no XRC on rxe: rt exits 3 naming XRC and the device; Debian's fails too" 60
run_on -t 20 a $RT/ibv_xsrq_pingpong --timeout 5 "$B"
rc=$?
[ "$rc" = 3 ] || fail "rt client exit $rc, wanted 3"
failed || output_has '^ibv_xsrq_pingpong: XRC is not supported by rxe0 \(no IBV_DEVICE_XRC' ||
	fail "rt did not name XRC and the device"
failed || run_on -t 20 b $RT/ibv_xsrq_pingpong --timeout 5
rc=$?
failed || [ "$rc" = 3 ] || fail "rt server exit $rc, wanted 3"
failed || run_on -t 20 b /usr/bin/ibv_xsrq_pingpong -g "$GB"
rc=$?
failed || { [ "$rc" != 0 ] && [ "$rc" != 124 ]; } || fail "Debian's ibv_xsrq_pingpong on rxe: exit $rc, wanted a failure"
failed || output_has 'XRC' || fail "Debian's ibv_xsrq_pingpong failed, but not on XRC"
note "Debian's ibv_xsrq_pingpong on rxe: exit $rc: $(tr '\n' ' ' < "$OUT")"
pass
