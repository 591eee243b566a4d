# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 4
# timeout: 150
# The switched lab: four guests on one virtual switch (lab run --hosts 4).
# Every host is up with its own address and rxe0, reaches every other by
# name over the data link, RDMA works between pairs that do not involve
# host a (concurrently with one that does), and netem degrades one host's
# link alone.
. "$LAB_SCEN/upstream.inc"

case_begin "every host: its address, its name, rxe0 ACTIVE" 40
for h in a b c d; do
	failed && break
	run_on -t 10 "$h" sh -c 'hostname; /sbin/ip -4 -o addr show dev eth0; /sbin/rdma link show rxe0/1' ||
		fail "host $h: status $?"
	head -n 1 "$OUT" | grep -qx "$h" || fail "host $h calls itself '$(head -n 1 "$OUT")'"
	output_has " $(host_addr "$h")/24 " || fail "host $h: eth0 is not $(host_addr "$h")"
	output_has 'rxe0/1 state ACTIVE .*netdev eth0' || fail "host $h: rxe0 not ACTIVE on eth0"
done
pass

# by the Slurm-style names in /etc/hosts (node1..node4), each host to the three others
case_begin "every host pings every other by name over eth0" 60
for h in a b c d; do
	failed && break
	# shellcheck disable=SC2016 # expanded on the host
	run_on -t 20 "$h" sh -c 'for n in 1 2 3 4; do
		[ "192.0.2.$n" = "$1" ] && continue
		ping -c 1 -W 5 "node$n" > /dev/null || { echo "no reply from node$n"; exit 1; }
	done' sh "$(host_addr "$h")" || fail "host $h: $(tail -n 1 "$OUT")"
done
pass

# two pairs at once through the switch, one of them without host a
case_begin "rping a to d and c to b at the same time" 90
bg_start sd d rping -s -a "$D" -v
bg_start sb b rping -s -a "$B" -v
wait_listen d 7174 20 || fail "rping server on d not listening"
failed || wait_listen b 7174 20 || fail "rping server on b not listening"
failed || bg_start cad a rping -c -a "$D" -C 3 -V -v
failed || bg_start ccb c rping -c -a "$B" -C 3 -V -v
failed || bg_wait cad 40 || fail "client a to d exited $?"
failed || bg_wait ccb 40 || fail "client c to b exited $?"
failed || rping_srv_wait sd 20 || fail "server on d exited $?"
failed || rping_srv_wait sb 20 || fail "server on b exited $?"
pass

# netem delay is a lower bound on the round trip, whatever the emulation's
# speed: c's pings take at least 2 x 100 ms, and no other host has a qdisc
case_begin "netem on c's link alone" 60
netem c delay 100ms rate 100mbit || fail "tc netem on c: status $?"
failed || run_on -t 20 a ping -c 2 -W 5 "$C" || fail "ping a to c under netem: status $?"
rtt=$(sed -n 's|.*min/avg/max = \([0-9]*\)\..*|\1|p' "$OUT")
failed || [ "${rtt:-0}" -ge 100 ] || fail "ping a to c: min rtt '${rtt}' ms, netem delay 100ms not applied"
for h in a b d; do
	failed && break
	run_on -t 10 "$h" /sbin/tc qdisc show dev eth0 || fail "tc on $h: status $?"
	output_has netem && fail "host $h has a netem qdisc too"
done
netem_clear c
failed || run_on -t 10 c /sbin/tc qdisc show dev eth0
output_has netem && fail "netem still on c after netem_clear"
pass
