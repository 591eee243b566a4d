# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# mesh judges each link by its ends' port counters: with 5% of host b's
# packets dropped (netem on its data link), Soft-RoCE retransmits and
# counts it in hw_counters (b's pings lost and resent after the ACK
# timeout: completer_retry_err on b; b's ACKs lost: a resends its echo,
# duplicate_request on b); the pair's result carries the rises and rank 0
# finds the link bad past --max-retrans's 1000 per million, naming the
# counter and the end that counted it, in the text, the --lines result
# line and, through mesh report, the document. The loss is on b, the
# connecting side, whose own port's rises the result carries even when
# the test times out; pings alone: Soft-RoCE (kernel 6.1) stalls an RDMA
# READ whose responses are lost (--bw 4m under 5% loss on a read 0 of
# 4 MiB within 15 s), and a lost echo is now and then never resent (the
# pings then time out, the listener's counters never come back).
M=$RT/mesh
ARGS="--hosts $A,$B --timeout 15 --pings 100 --min-links 1 --no-blame --lines"
CTR='(out_of_seq_request|duplicate_request|rcvd_seq_err|completer_retry_err|retry_exceeded_err)'

case_begin "5% loss on b: NOT READY, the link named with its retransmit counter" 90
netem b loss 5% || fail "netem failed"
failed || bg_start r1 b $M $ARGS
failed || run_on -t 60 a $M $ARGS
rc=$?
cp "$OUT" /tmp/lab/rank0.out
netem_clear
failed || [ "$rc" = 1 ] || fail "rank 0 exited $rc, wanted 1 (NOT READY)"
failed || output_has '^NOT READY' || fail "rank 0: no NOT READY line"
failed || output_has "^bad link 0 \($A\).* 1 \($B\)[^:]*:.* $CTR \+[0-9]+ at [01] \(" ||
	fail "the bad link does not name a retransmit counter and its end"
failed || output_has "per million packets sent > 1000" || fail "no rate against --max-retrans"
grep '^bad link' /tmp/lab/rank0.out | note
failed || bg_wait r1 60; bg_log r1 > /tmp/lab/rank1.out
failed || grep -Eq "\"mesh\":\"result\".*\"[ab]\.$CTR\":[1-9]" /tmp/lab/rank1.out ||
	fail "rank 1's result line carries no counter"
cat /tmp/lab/rank0.out /tmp/lab/rank1.out > /tmp/lab/all.out
failed || run_on -t 20 a $M report /tmp/lab/all.out --min-links 1 --json
failed || output_has "\"why\":\[[^]]*\"counters\"" || fail "mesh report: the link is not bad by counters"
failed || output_has "\"counters\":\{\"a\":\{[^}]*\},\"b\":\{[^}]*\"$CTR\":[1-9]" ||
	output_has "\"counters\":\{\"a\":\{[^}]*\"$CTR\":[1-9]" ||
	fail "mesh report: no per-link counters object"
record "mesh 5% loss: $(grep -Eo "$CTR \+[0-9]+ at [01] \([^)]*\): [0-9]+ per million" /tmp/lab/rank0.out | head -n 1)"
pass
