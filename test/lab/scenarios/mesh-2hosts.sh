# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 400
# mesh on two hosts launched the way pdsh would: the same command on
# both, each finding its rank in --hosts (a is rank 0, the coordinator and
# a rank of its own). Healthy: READY on both, one valid document with the
# pair's figures; --lines of both ranks merged by `mesh report`: READY
# again. Host b never starts: it is absent, NOT READY, within the bound.
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
failed || output_has '^READY$' || fail "no READY"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
failed || bg_log r1 | grep -q "^loopback $B: connect" || fail "rank 1: no loopback line"
pass

# A stranger who reaches rank 0's port cannot fail the run: its HELLO
# (the protocol's magic, a version no rdmatest speaks, no payload) is
# turned away and named, and the ranks' run is READY as without it. Sent
# from b before rank 1 starts, retried until rank 0 listens.
case_begin "a stranger's HELLO while rank 0 gathers: named, still READY" 90
bg_start r0 a $M $ARGS
failed || run_on -t 30 b sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do
	printf 'RM\\005\\001\\000\\000\\000\\000' | busybox nc -w 3 $A 7473 && exit 0
	sleep 0.5; done; exit 1" || fail "the stranger never reached rank 0's port"
failed || run_on -t 60 b $M $ARGS || fail "rank 1 exited $?"
failed || output_has '^READY' || fail "rank 1 did not print rank 0's READY"
failed || bg_wait r0 40 || fail "rank 0 exited $?"
failed || bg_log r0 | grep -q '^READY' || fail "rank 0: not READY with a stranger turned away"
failed || bg_log r0 | grep -q "^stranger .*$B\]*:[0-9]* turned away" || fail "rank 0 did not name the stranger"
pass

case_begin "host b never starts: absent, NOT READY, bounded" 60
run_on -t 40 a $M --hosts "$HOSTS" --timeout 3 --pings 50
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has 'absent' || fail "the absent host is not named"
failed || output_has "$B" || fail "$B not named"
failed || output_has '^NOT READY' || fail "no NOT READY line"
pass
