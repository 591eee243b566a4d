# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 240
# mesh's rails on the one-VM lab: two ranks on the one host (launched as
# a Kubernetes Indexed Job's pods would be: JOB_COMPLETION_INDEX, --size
# 2), each finding the host's two rails: rail 0 is rxe0 on veth0
# ($A), rail 1 rxe1 on veth1 ($B). The pair tests both rails at once,
# each connection from the rank's own address on the rail to the
# partner's; every figure and verdict names its rail. (The two-host,
# two-NIC lab's `# rails: 2` scenarios test rails between hosts.)
M=$RT/mesh
ARGS="--size 2 --coordinator 127.0.0.1 --timeout 5 --pings 100 --min-links 1"
rank() { echo "env JOB_COMPLETION_INDEX=$1 $M $ARGS"; }

case_begin "two ranks of two rails: both rails tested at once, READY" 60
bg_start r1 a $(rank 1)
failed || run_on -t 40 a $(rank 0) --json || fail "rank 0 exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
failed || output_has '"verdict":"READY"' || fail "rank 0: no READY verdict"
failed || output_has '"rails":\[\{"rail":0,"dev":"rxe0","port":1,"gid_index":[0-9]+,"addr":"192.0.2.1","link_layer":"Ethernet","state":"ACTIVE"' ||
	fail "rank 0's hello does not list rail 0 (rxe0, $A)"
failed || output_has '\{"rail":1,"dev":"rxe1","port":1,"gid_index":[0-9]+,"addr":"192.0.2.2"' ||
	fail "no rail 1 (rxe1, $B) in the hellos"
failed || output_has '"status":"ok"[^}]*"rail":0,"dev_a":"rxe0","dev_b":"rxe0"' || fail "no measured pair on rail 0"
failed || output_has '"status":"ok"[^}]*"rail":1,"dev_a":"rxe1","dev_b":"rxe1"' || fail "no measured pair on rail 1"
failed || output_has '"rails":\[\{"rail":0,"links":1,"bad_links":0,[^]]*\{"rail":1,"links":1,"bad_links":0' ||
	fail "no per-rail figures"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
failed || bg_log r1 | grep -q '^READY' || fail "rank 1 did not print rank 0's READY"
record "mesh rails 1 host: $(sed -n 's/.*"rails":\[\({"rail":0,"links[^]]*\)\].*/\1/p' "$OUT" | head -n 1)"
pass

case_begin "the summary names the rails; --rails 1 tests rail 1 alone" 60
bg_start r1 a $(rank 1) --rails 1
failed || run_on -t 40 a $(rank 0) --rails 1 --json || fail "rank 0 exited $?"
failed || output_has '"verdict":"READY"' || fail "rank 0: no READY verdict"
failed || output_has '"pairs":\[\{[^}]*"rail":1,"dev_a":"rxe1","dev_b":"rxe1"\}\]' || fail "not rail 1 alone"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
bg_start r1 a $(rank 1)
failed || run_on -t 40 a $(rank 0) || fail "rank 0 exited $?"
failed || output_has '^mesh: 2 ranks, 2 links tested, 2 rails' || fail "the summary line does not count the rails"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
pass

case_begin "--lines of both ranks with their rails: mesh report READY per rail" 60
bg_start r1 a $(rank 1) --lines
failed || run_on -t 40 a $(rank 0) --lines || fail "rank 0 exited $?"
cp "$OUT" /tmp/lab/rank0.out
failed || bg_wait r1 40 || fail "rank 1 exited $?"
bg_log r1 > /tmp/lab/rank1.out
cat /tmp/lab/rank0.out /tmp/lab/rank1.out > /tmp/lab/all.out
failed || [ "$(grep -c '"mesh":"rail"' /tmp/lab/all.out)" = 4 ] || fail "not two rail lines a rank"
failed || [ "$(grep -c '"mesh":"result".*"rail":' /tmp/lab/all.out)" = 2 ] || fail "not a result line a rail"
failed || run_on -t 20 a $M report /tmp/lab/all.out --min-links 1 --json || fail "mesh report exited $?"
failed || output_has '"rails":\[\{"rail":0,"links":1,"bad_links":0,[^]]*\{"rail":1,"links":1,"bad_links":0' ||
	fail "mesh report: no per-rail figures"
pass

case_begin "--bw 4m on both rails at once, each judged by its line rate" 60
bg_start r1 a $(rank 1) --bw 4m --min-line-rate 0.001
failed || run_on -t 40 a $(rank 0) --bw 4m --min-line-rate 0.001 --json || fail "rank 0 exited $?"
failed || output_has '"gbps":[0-9][0-9.e+-]*,"gbps_rev":[0-9][^}]*"rail":0,"dev_a":"rxe0"' || fail "no bandwidth on rail 0"
failed || output_has '"gbps":[0-9][0-9.e+-]*,"gbps_rev":[0-9][^}]*"rail":1,"dev_a":"rxe1"' || fail "no bandwidth on rail 1"
failed || output_has '"rails":\[\{"rail":0,"links":1,"bad_links":0,"median_rtt_us":[0-9.e+-]*,"median_gbps":[0-9]' ||
	fail "no per-rail median bandwidth"
failed || bg_wait r1 40 || fail "rank 1 exited $?"
record "mesh rails 1 host --bw 4m: $(grep -o '"rails":\[{"rail":0,"links[^]]*\]' "$OUT" | head -n 1)"
pass

case_begin "--devices naming no rail of this host: exit 3, its rails named" 30
run_on -t 20 a $(rank 0) --devices mlx5_0
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'its rails are 0 \(rxe0 port 1\), 1 \(rxe1 port 1\)' || fail "the host's rails are not named"
pass
