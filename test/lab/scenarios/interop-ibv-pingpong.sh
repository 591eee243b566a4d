# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 420
# ibv_rc/uc/ud_pingpong against Debian 12's ibverbs-utils (rdma-core v44)
# both ways and against themselves: default options, then the options
# that change the wire (-s -n -r -m -g, -e and -c on ours); then the
# robustness cases (no server, --wait-server, a peer killed mid-run,
# mismatched -s and -n) and the capability messages. Upstream needs -g on
# RoCE on both sides; ours chooses the GID itself when -g is not given.
. "$LAB_SCEN/faults.inc"
GA=$(gid_index a)
GB=$(gid_index b)
RES='[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec'

# pair NAME SERVER-CMD CLIENT-CMD [ITERS]: the server on b, the client on
# a; both exit 0 and print the result lines for ITERS (default 1000).
pair() {
	local n=${4:-1000}
	case_begin "$1" 60
	bg_start srv b $2
	wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 40 a $3 "$B" || fail "client exited $?"
	failed || output_has "$RES" || fail "client printed no result"
	failed || output_has "^$n iters in [0-9.]+ seconds = [0-9.]+ usec/iter" || fail "client: not $n iters"
	failed || output_has "remote address: LID 0x[0-9a-f]{4}, QPN 0x[0-9a-f]{6}, PSN 0x[0-9a-f]{6}, GID ::ffff:$B" ||
		fail "client: no remote address line with b's GID"
	failed || exit_in srv 0
	failed || log_has srv "^$n iters in"
	pass
}

for t in rc uc ud; do
	RT_PP="$RT/ibv_${t}_pingpong --timeout 10"
	UP=/usr/bin/ibv_${t}_pingpong
	# -m 512: the lab's links (MTU 1500) have an active MTU of 1024
	if [ $t = ud ]; then S=512 M=""; else S=8192 M="-m 512"; fi
	# Each exchange is a round trip, 10 to 15 ms between two emulated
	# guests: 1000 (the default) take 15 s. The defaults run once a
	# transport, the rt server's; the rt side chooses its GID in both
	# directions (upstream alone gets -g), so an rt/rt run with the
	# defaults proved nothing more. -n 120 against -r 50 still refills
	# the receive queue twice; -n does not reach the wire.
	pair "$t: upstream client -> rt server, defaults" "$RT_PP" "$UP -g $GA"
	pair "$t: rt client -> upstream server, -n 200" "$UP -g $GB -n 200" "$RT_PP -n 200" 200
	pair "$t: upstream client -> rt server, -s $S -n 120 -r 50 $M, -c both, -e on rt" \
		"$RT_PP -s $S -n 120 -r 50 $M -c -e" "$UP -g $GA -s $S -n 120 -r 50 $M -c" 120
	pair "$t: rt client -> upstream server, -s $S -n 120 -r 50 $M, -c both, -e -g on rt" \
		"$UP -g $GB -s $S -n 120 -r 50 $M -c" "$RT_PP -g $GA -s $S -n 120 -r 50 $M -c -e" 120
	pair "$t: rt client -> rt server, -c both (full pattern check), -e on the server, GID chosen on both" \
		"$RT_PP -c -e -n 120" "$RT_PP -c -n 120" 120
done

case_begin "rc -c: the rt side recognised an rdmatest peer (--json)" 60
bg_start srv b $RT/ibv_rc_pingpong -c -n 50
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ibv_rc_pingpong -c -n 50 --json "$B" || fail "client exited $?"
failed || output_has '"peer_content":"rdmatest"' || fail "no full pattern check"
failed || output_has '"rtt_us":\{"count":50' || fail "no RTT percentiles"
failed || exit_in srv 0
pass

case_begin "rc: no server: refused at once, exit 1" 30
run_on -t 20 a $RT/ibv_rc_pingpong "$B"
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has "connection to $B:18515 refused" || fail "no reason named"
pass

case_begin "rc: no server with --wait-server 2: exit 124" 30
run_on -t 20 a $RT/ibv_rc_pingpong --wait-server 2 "$B"
rc=$?
[ "$rc" = 124 ] || fail "exit $rc, wanted 124"
failed || output_has "no server on $B:18515 within 2 s" || fail "no reason named"
pass

case_begin "rc: client first with --wait-server, upstream server later: passes" 60
bg_start cli a $RT/ibv_rc_pingpong --wait-server 30 -n 200 "$B"
bg_start srv b /usr/bin/ibv_rc_pingpong -g "$GB" -n 200
exit_in cli 0
failed || exit_in srv 0
failed || log_has cli '^200 iters in'
pass

case_begin "rc: mismatched -s (rt 4096 server, rt 8192 client): named, exit 1" 60
bg_start srv b $RT/ibv_rc_pingpong --timeout 5
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ibv_rc_pingpong --timeout 5 -s 8192 "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'same -s' || fail "client did not name -s"
failed || exit_in srv 1
failed || log_has srv 'same -s'
pass

case_begin "uc: mismatched -n (server 100, client 200): the client ends at --timeout, 124, naming 100 of 200" 60
bg_start srv b $RT/ibv_uc_pingpong -n 100
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ibv_uc_pingpong --timeout 3 -n 200 "$B"
rc=$?
failed || [ "$rc" = 124 ] || fail "client exit $rc, wanted 124"
failed || output_has 'after 100 of 200 messages received' || fail "client did not say how far"
failed || exit_in srv 0
pass

for t in rc ud; do
	case_begin "$t: client killed mid-run: the rt server ends within its bound, naming how far" 60
	bg_start srv b $RT/ibv_${t}_pingpong --timeout 3 -n 100000000
	wait_tcp_listen b 18515 20 || fail "server not listening"
	failed || bg_start cli a $RT/ibv_${t}_pingpong -n 100000000 "$B"
	failed || wait_log cli 'remote address' 20 || fail "client never connected"
	failed || bg_kill cli KILL
	failed || exit_in srv 124 1
	failed || log_has srv 'messages received|peer gone' || fail "server did not say how far"
	pass
done

case_begin "ud: -s above the active MTU: upstream's message, exit 1" 30
run_on -t 20 a $RT/ibv_ud_pingpong -s 8192 "$B"
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has 'Requested size larger than port MTU \([0-9]+\)' || fail "no upstream message"
pass

case_begin "rc -m 2048 above the active MTU 1024: named, exit 3 (upstream hangs)" 30
run_on -t 20 a $RT/ibv_rc_pingpong -m 2048 "$B"
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has '^ibv_rc_pingpong: -m 2048: above the active MTU 1024 of' || fail "not named"
pass

case_begin "rc -o/-t/-j: the missing capability named, exit 3" 30
for o in "-o:on-demand paging" "-t:completion timestamps" "-j:device memory"; do
	run_on -t 20 a $RT/ibv_rc_pingpong "${o%%:*}" "$B"
	rc=$?
	[ "$rc" = 3 ] || fail "${o%%:*}: exit $rc, wanted 3"
	output_has "${o#*:}" || fail "${o%%:*}: capability not named"
done
pass
