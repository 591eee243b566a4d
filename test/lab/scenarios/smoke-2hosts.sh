# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 600
# The lab itself, two VMs: upstream tools between host a and host b, then
# the fault-injection primitives (netem, link down/up, agent cleanup).
. "$LAB_SCEN/smoke-upstream.inc"

# netem must really delay: ping RTT over eth0 with and without 200ms.
rtt_ms() { sed -n 's/.*time=\([0-9]*\).*/\1/p' "$OUT" | sort -n | tail -n 1; }
case_begin netem-delay 60
netem b delay 200ms || fail "tc netem failed on b"
failed || run_on -t 20 a ping -c 3 "$B" || fail "ping with netem delay failed"
failed || [ "$(rtt_ms)" -ge 200 ] || fail "RTT $(rtt_ms)ms with 200ms netem delay"
netem_clear
failed || run_on -t 20 a ping -c 3 "$B" || fail "ping after netem_clear failed"
failed || [ "$(rtt_ms)" -lt 200 ] || fail "RTT $(rtt_ms)ms after netem_clear"
pass

case_begin netem-loss 60
netem a loss 100% || fail "tc netem loss failed on a"
failed || ! run_on -t 20 a ping -c 2 -W 1 "$B" || fail "ping succeeded with 100% loss"
netem_clear
failed || run_on -t 20 a ping -c 1 -W 2 "$B" || fail "ping failed after netem_clear"
pass

case_begin link-down-up 60
link_down b || fail "link_down b failed"
failed || ! run_on -t 20 a ping -c 2 -W 1 "$B" || fail "ping succeeded with b's link down"
failed || link_up b || fail "link_up b failed"
failed || run_on -t 20 a ping -c 1 -W 5 "$B" || fail "ping failed after link_up"
pass

# rping across a restored link, then with its server killed mid-run.
case_begin rping-after-faults 60
bg_start srv b rping -s -a "$B" -P
wait_listen b 7174 20 || fail "rping -P server not listening"
failed || run_on -t 40 a rping -c -a "$B" -C 5 -V || fail "rping client exited $?"
bg_kill srv
rc=$?
failed || [ "$rc" = 143 ] || fail "persistent server: status $rc after SIGTERM, expected 143"
pass
