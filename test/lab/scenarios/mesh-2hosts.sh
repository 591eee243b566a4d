# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 600
# mesh on two hosts launched the way pdsh would: the same command on
# both, each finding its rank in --hosts (a is rank 0, the coordinator and
# a rank of its own). Healthy: READY on both, one valid document with the
# pair's figures; --lines of both ranks merged by `mesh report`: READY
# again. With the same --token-file on both the run is authenticated and
# READY; an impostor holding rank 0's port with a forged VERDICT makes a
# rank with --token-file NOT READY, naming it. Host b never starts: it is
# absent, NOT READY, within the bound. With doctor's expected state
# (--expect) saved on a: READY as saved, NOT READY naming the rate when
# the file expects 400. --qps 4: four connections, one figure.
M=$RT/mesh
HOSTS="$A,$B"
# one link: judged against the absolute thresholds alone (--min-links 1),
# as a user with two hosts runs it; relative judgement needs 3 links
ARGS="--hosts $HOSTS --timeout 5 --pings 200 --min-links 1"

case_begin "two hosts: READY, one valid JSON document" 90
bg_start r1 b $M $ARGS
failed || run_on -t 60 a $M $ARGS --json || fail "rank 0 exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
failed || output_has '"verdict":"READY"' || fail "rank 0: no READY verdict"
failed || output_has '"pairs":\[\{"a":0,"b":1,"status":"ok","connect_us":[0-9]' || fail "no measured pair 0-1"
failed || output_has '"rtt_p99_us":[0-9]' || fail "no RTT p99"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
failed || bg_log r1 | grep -q '^READY' || fail "rank 1 did not print rank 0's READY"
record "mesh 2 hosts: median RTT $(sed -n 's/.*"median_rtt_us":\([0-9.]*\).*/\1/p' "$OUT" | head -n 1) us"
pass

# --timeout 15: 16 MiB each way took past 5 s on a loaded 2-core host
# (the pair timed out, and its re-test); the case is about the figures
case_begin "--bw 16m: the pair's bandwidth both ways, judged by --min-gbps" 90
bg_start r1 b $M $ARGS --timeout 15 --bw 16m --min-gbps 0.01
failed || run_on -t 70 a $M $ARGS --timeout 15 --bw 16m --min-gbps 0.01 --json || fail "rank 0 exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
# a to b (b's reads) and b to a (b's writes), both measured and above the floor
failed || output_has '"pairs":\[\{[^}]*"gbps":[0-9][0-9.e+-]*,"gbps_rev":[0-9][^}]*"verdict":"ok"' ||
	fail "no bandwidth figure for both directions"
failed || output_has '"gbps":\[\[null,[0-9][0-9.e+-]*\],\[[0-9][0-9.e+-]*,null\]\]' ||
	fail "the bandwidth matrix lacks a direction"
failed || output_has '"median_gbps":[0-9]' || fail "no median Gbit/s"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
record "mesh 2 hosts --bw 16m: $A to $B $(sed -n 's/.*"pairs":\[{[^}]*"gbps":\([0-9.]*\),"gbps_rev":\([0-9.]*\).*/\1 Gbit\/s, back \2/p' "$OUT" | head -n 1) Gbit/s"
pass

# --qps 4: the connecting side opens four connections to the listener,
# which takes exactly four (its own count, --debug), and the pair has one
# figure each way, the four connections' together
case_begin "--qps 4 --bw 4m: four connections, the listener takes four, one figure" 90
bg_start r1 b $M $ARGS --timeout 15 --qps 4 --bw 4m --debug
# shellcheck disable=SC2016 # expanded by the inner shell
failed || run_on -t 60 a sh -c '"$@" 2> /tmp/lab/qps.err' sh $M $ARGS --timeout 15 --qps 4 --bw 4m --debug --json ||
	fail "rank 0 exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
failed || output_has '"verdict":"READY"' || fail "rank 0: no READY verdict"
failed || output_has '"qps":4' || fail "the document does not say 4 connections a rail"
failed || output_has '"pairs":\[\{"a":0,"b":1,[^}]*"gbps":[0-9][0-9.e+-]*,"gbps_rev":[0-9]' ||
	fail "no bandwidth figure for the pair"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
failed || { bg_log r1; cat /tmp/lab/qps.err; } | grep -q 'listened for 4 connections: the partner came and went' ||
	fail "the listener did not take 4 connections: $({ bg_log r1; cat /tmp/lab/qps.err; } | grep -m1 'listened for')"
record "mesh 2 hosts --qps 4 --bw 4m: $(sed -n 's/.*"pairs":\[{[^}]*"gbps":\([0-9.]*\),"gbps_rev":\([0-9.]*\).*/\1 Gbit\/s, back \2/p' "$OUT" | head -n 1) Gbit/s"
pass

case_begin "--lines of both ranks: mesh report READY" 90
bg_start r1 b $M $ARGS --lines
failed || run_on -t 60 a $M $ARGS --lines || fail "rank 0 exited $?"
cp "$OUT" /tmp/lab/rank0.out
failed || bg_wait r1 40 || fail "rank 1 exited $?"
bg_log r1 > /tmp/lab/rank1.out
cat /tmp/lab/rank0.out /tmp/lab/rank1.out > /tmp/lab/all.out
failed || [ "$(grep -c '"mesh":"hello"' /tmp/lab/all.out)" = 2 ] || fail "not two hello lines"
failed || run_on -t 20 a $M report /tmp/lab/all.out --min-links 1 || fail "mesh report exited $?"
failed || output_has '^READY' || fail "mesh report: no READY line"
pass

case_begin "--quick on both: local checks, loopback, a ring: READY" 90
bg_start r1 b $M --hosts "$HOSTS" --timeout 5 --quick --min-links 1
failed || run_on -t 60 a $M --hosts "$HOSTS" --timeout 5 --quick --min-links 1 || fail "rank 0 exited $?"
failed || output_has "^loopback $A: connect [0-9.]+ us, RTT median [0-9.]+ us" || fail "no loopback line"
failed || output_has '^READY \(not authenticated: auth none\)$' || fail "no READY, said unauthenticated"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
failed || bg_log r1 | grep -q "^loopback $B: connect" || fail "rank 1: no loopback line"
pass

# The same token file on both hosts (random bytes in real use), the
# user's alone: rank 0 and rank 1 prove it to each other and every message
# is sealed (docs/mesh.md, "Authentication"). The guest kernel's HMAC is
# algif_hash's (test/lab/host/image.list).
TOKEN=/tmp/mesh-token
case_begin "--token-file on both: authenticated, READY, auth: file" 60
for h in a b; do
	failed || run_on "$h" sh -c "printf 'the lab mesh secret\n' > $TOKEN && chmod 600 $TOKEN" ||
		fail "no token file on $h"
done
failed || bg_start r1 b $M $ARGS --token-file $TOKEN --require-auth
failed || run_on -t 40 a $M $ARGS --token-file $TOKEN --require-auth || fail "rank 0 exited $?"
failed || output_has '^mesh: 2 ranks, .*, auth: file$' || fail "the summary does not name auth: file"
failed || output_has '^READY$' || fail "rank 0: no READY"
failed || bg_wait r1 30 || fail "rank 1 exited $?"
failed || bg_log r1 | grep -q "^READY (rank 0's verdict)$" || fail "rank 1 did not print rank 0's READY"
pass

# An impostor listens on rank 0's port before rank 0 does and answers
# with a VERDICT of its own making, 28 bytes as meshwire.h writes one:
# "RM", version 6, type 4 (VERDICT), length 20, ready 1, the rest 0. A
# rank run with --token-file sends its challenge, gets no proof of the
# secret and is NOT READY (exit 1), naming why; never READY.
case_begin "an impostor on rank 0's port with a forged READY: NOT READY" 60
bg_start fake a sh -c "printf 'RM\006\004\000\000\000\024\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' |
	busybox nc -l -p 7473"
failed || wait_tcp_listen a 7473 10 || fail "the impostor does not listen"
failed || run_on -t 40 b $M $ARGS --token-file $TOKEN
rc=$?
failed || [ "$rc" = 1 ] || fail "rank 1 exit $rc, wanted 1"
failed || output_has "NOT READY: rank 0 could not prove the job's secret" || fail "rank 1 did not name the impostor"
failed || ! output_has '^READY' || fail "rank 1 took the forged READY"
bg_kill fake > /dev/null
pass

# A stranger who reaches rank 0's port cannot fail the run: each of four
# HELLOs is turned away and named, and the ranks' run is READY as without
# them. Headers as meshwire.h writes them ("RM", version, type 1, payload
# length, big endian): a version no rdmatest speaks; version 12 with a
# length no HELLO has (91); an oversized length (4 GiB - 1, which must
# not be waited for); a whole HELLO of version 12 (312 bytes: rank 1 of 2,
# port 7474, host "b", no rails, no inventory) with a token hash of
# another job. Sent
# from b before rank 1 starts, the first retried until rank 0 listens.
case_begin "four strangers' HELLOs while rank 0 gathers: named, still READY" 90
bg_start r0 a $M $ARGS
failed || run_on -t 30 b sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do
	printf 'RM\\005\\001\\000\\000\\000\\000' | busybox nc -w 3 $A 7473 && break
	sleep 0.5; done || exit 1
	printf 'RM\\014\\001\\000\\000\\000\\133' | busybox nc -w 3 $A 7473 || exit 1
	printf 'RM\\014\\001\\377\\377\\377\\377' | busybox nc -w 3 $A 7473 || exit 1
	{ printf 'RM\\014\\001\\000\\000\\001\\070\\000\\000\\000\\001\\000\\000\\000\\002'
	  printf '\\035\\062\\000\\000\\021\\042\\063\\104\\125\\146\\167\\210b'
	  head -c 291 /dev/zero; } | busybox nc -w 3 $A 7473" || fail "a stranger never reached rank 0's port"
failed || run_on -t 60 b $M $ARGS || fail "rank 1 exited $?"
failed || output_has '^READY' || fail "rank 1 did not print rank 0's READY"
failed || bg_wait r0 40 || fail "rank 0 exited $?"
failed || bg_log r0 | grep -q '^READY' || fail "rank 0: not READY with strangers turned away"
for why in "version" "length" "length" "another job's token"; do
	failed || bg_log r0 | grep -q "^stranger .*$B\]*:[0-9]* turned away.*$why" ||
		fail "rank 0 did not name the stranger whose HELLO had the wrong $why"
done
n=$(bg_log r0 | grep -c "^stranger .*$B\]*:[0-9]* turned away")
failed || [ "$n" = 4 ] || fail "rank 0 named $n strangers, wanted 4"
pass

# mesh --expect: doctor's expected state saved on a and copied to b. As
# saved, both hosts are READY; with rxe0's rate edited to 400 on both,
# each host differs and rank 0 is NOT READY naming the rate found and the
# 400 expected (the ranks' exit 1).
X=/tmp/mesh.expect
case_begin "--expect: as saved READY; rxe0's rate edited to 400: NOT READY naming it" 150
need_applet doctor && {
	run_on a $RT/doctor --save-expect $X || fail "--save-expect exit $?"
	failed || run_on a cat $X || fail "cannot read $X on a"
	failed || grep -q '^rxe0/1\.rate_gbps ' "$OUT" || fail "the file names no rxe0/1.rate_gbps"
	failed || run_on b sh -c 'printf "%s\n" "$2" > "$1"' sh $X "$(cat "$OUT")" || fail "no copy on b"
	failed || bg_start r1 b $M $ARGS --expect $X
	failed || run_on -t 60 a $M $ARGS --expect $X || fail "rank 0 exited $? with the saved state"
	failed || output_has '^READY' || fail "rank 0: not READY with the saved state"
	failed || bg_wait r1 40 || fail "rank 1 exited $? with the saved state"
	for h in a b; do
		failed || run_on $h sed -i 's|^rxe0/1\.rate_gbps .*|rxe0/1.rate_gbps 400|' $X ||
			fail "cannot edit on $h"
	done
	failed || bg_start r1 b $M $ARGS --expect $X
	failed || { run_on -t 60 a $M $ARGS --expect $X; rc=$?; }
	failed || [ "$rc" = 1 ] || fail "rank 0 exit $rc with rate 400 expected, wanted 1"
	failed || output_has "^host 1 \($B\) differs from the expected state: rxe0 port 1: rate [0-9.]+ Gb/s, expected 400" ||
		fail "rank 0 did not name b with the rate found and 400 expected"
	failed || output_has '^NOT READY: 2 hosts differ from the expected state' || fail "no NOT READY counting both hosts"
	failed || { bg_wait r1 40; rc=$?; }
	failed || [ "$rc" = 1 ] || fail "rank 1 exit $rc, wanted 1 (NOT READY)"
	run_on a rm -f $X
	run_on b rm -f $X
}
pass

case_begin "host b never starts: absent, NOT READY, bounded" 60
run_on -t 40 a $M --hosts "$HOSTS" --timeout 3 --pings 50
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has 'absent' || fail "the absent host is not named"
failed || output_has "$B" || fail "$B not named"
failed || output_has '^NOT READY' || fail "no NOT READY line"
pass
