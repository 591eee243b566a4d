# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 240
# doctor's verdicts in the lab: a healthy host is all PASS (its PASS
# lines name what it lacks without harm: eth1, the control link, has no
# RDMA port; rxe has no XRC), and each failure the lab can provoke gives its FAIL line and
# fix: a peer with nothing listening, an address no RDMA port carries,
# a port down, an MTU mismatch between the hosts, a lowered memlock limit,
# no rxe device; and its counters after a link flap, a saved expected
# state against an edited one, an unused port. A multicast-incapable
# path cannot be made here (rxe always offers multicast groups), so
# there is no case for it.
D=$RT/doctor

# doc_json HOST ARGS...: run doctor --json on HOST; $OUT keeps stdout only
doc_json() {
	local h=$1
	shift
	run_on -t 40 "$h" sh -c "$D $* --json 2>/dev/null"
}
json_ok() { $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "$1: no single valid JSON document"; }

case_begin "healthy host: all PASS, GID index as the applets pick, valid JSON" 60
need_applet doctor && {
	run_on a $D; rc=$?
	[ $rc = 0 ] || fail "exit $rc, want 0"
	failed || ! output_has '^FAIL' || fail "a FAIL line on a healthy host"
	for c in modules devnodes devices ports gids ipmap memlock netns; do
		failed || output_has "^PASS $c " || fail "no PASS $c line"
	done
	idx=$(gid_index a)
	failed || output_has "^PASS gids +rxe0 port 1: use GID index $idx \(RoCE v2 of 192\.0\.2\.1 on eth0" ||
		fail "recommended GID index is not $idx (what the applets pick)"
	failed || output_has "^PASS ports +rxe0 port 1: 4: ACTIVE \(phys 5: LinkUp\), Ethernet, .*active MTU 1024, netdev eth0 [a-z]+ MTU 1500" ||
		fail "port line lacks state, link layer or MTUs"
	failed || output_has "^PASS ipmap +carried by RDMA ports: 192\.0\.2\.1 \(eth0\) on rxe0 port 1" || fail "192.0.2.1 not mapped to rxe0"
	failed || output_has "^PASS ipmap .*; not carried, so not for RDMA tests: 198\.51\.100\.1 \(eth1\)" || fail "eth1's address not named as uncarried"
	failed || output_has "^(PASS|WARN) caps +rxe0: RC yes, UD yes \(QPs created\), multicast [1-9]" || fail "no caps line"
	failed || ! grep -q '^WARN' "$OUT" || fail "a WARN on the healthy host"
	failed || output_has "^PASS caps +rxe0: .*XRC no \(only ibv_xsrq_pingpong needs it" || fail "XRC's absence not named"
	failed || doc_json a || fail "--json exit $?"
	failed || json_ok "doctor --json"
	failed || grep -q '"failed":0' "$OUT" || fail "JSON counts a failure"
}
pass

case_begin "ADDR with a doctor --listen peer: route, MTUs and CM connection PASS" 60
need_applet doctor && {
	bg_start lst b $D --listen -p 7180 --accept-timeout 30
	wait_listen b 7180 20 || fail "doctor --listen not listening on 7180"
	failed || run_on -t 40 a $D "$B" -p 7180; rc=$?
	[ $rc = 0 ] || fail "exit $rc, want 0"
	failed || output_has "^PASS route +to 192\.0\.2\.2 leaves eth0 from 192\.0\.2\.1: rxe0 port 1, GID index" || fail "no route PASS"
	failed || output_has "^PASS peer-mtu +here rxe0 active MTU 1024 \(eth0 1500\), peer rxe0 active MTU 1024 \(eth0 1500\)" || fail "no MTU comparison"
	failed || output_has "^PASS cm-connect +RDMA CM connection to 192\.0\.2\.2 port 7180 established and closed" || fail "no CM PASS"
	failed || bg_wait lst 20 || fail "doctor --listen exited $?"
}
pass

case_begin "ADDR with an upstream rping server: the CM connection PASSes" 60
need_applet doctor && {
	bg_start srv b /usr/bin/rping -s -a "$B" -p 7181
	wait_listen b 7181 20 || fail "rping not listening"
	failed || run_on -t 40 a $D "$B" -p 7181 || fail "exit $?"
	failed || output_has "^PASS cm-connect +RDMA CM connection to 192\.0\.2\.2 port 7181 established" || fail "no CM PASS"
	failed || output_has "^WARN peer-mtu +no doctor --listen peer on TCP 192\.0\.2\.2:7181" || fail "MTU not said to be uncompared"
}
pass

case_begin "peer with nothing listening: cm-connect FAIL, start a server" 40
need_applet doctor && {
	run_on -t 30 a $D "$B" -p 7999; rc=$?
	[ $rc = 1 ] || fail "exit $rc, want 1"
	failed || output_has "^FAIL cm-connect +RDMA CM connection to 192\.0\.2\.2 port 7999 failed: .* -- fix: start a CM server on the peer's port: rdmatest doctor --listen" ||
		fail "no cm-connect FAIL with its fix"
}
pass

case_begin "address no RDMA port carries: route FAIL; rping's error points at doctor" 40
need_applet doctor rping && {
	run_on -t 30 a $D 198.51.100.2 -p 7999; rc=$?
	[ $rc = 1 ] || fail "exit $rc, want 1"
	failed || output_has "^FAIL route +to 198\.51\.100\.2 leaves eth1 from 198\.51\.100\.1, which no RDMA port carries .* -- fix: reach the peer over an RDMA port's netdev \(RDMA ports with IP: rxe0 on eth0\)" ||
		fail "no route FAIL with its fix"
	failed || { run_on -t 30 a $RT/rping -c -a 198.51.100.2 -C 1; rc=$?; }
	failed || [ $rc = 3 ] || fail "rping exit $rc, want 3"
	failed || output_has "^rping: RDMA_CM_EVENT_ADDR_ERROR 198\.51\.100\.2:7174: " &&
		output_has "^rping: hint: rdmatest doctor: route FAIL: reach the peer over an RDMA port's netdev \(RDMA ports with IP: rxe0 on eth0\), i\.e\. use its address on that link, or add an RDMA device on eth1$" || fail "rping's error does not point at doctor"
}
pass

case_begin "port down: ports FAIL, bring the link up; a verbs applet's error names it" 60
need_applet doctor ibv_rc_pingpong && {
	link_down a || fail "link down"
	failed || { run_on a $D; rc=$?; }
	failed || [ $rc = 1 ] || fail "exit $rc, want 1"
	failed || output_has "^FAIL ports +rxe0 port 1: 1: DOWN \(phys 3: Disabled\), Ethernet.* -- fix: bring the link up: ip link set eth0 up" ||
		fail "no ports FAIL with its fix"
	# a verbs applet's exit 3 on the inactive port names the finding
	failed || { run_on a $RT/ibv_rc_pingpong -d rxe0 --accept-timeout 2; rc=$?; }
	failed || [ $rc = 3 ] || fail "ibv_rc_pingpong exit $rc, want 3"
	failed || output_has "^ibv_rc_pingpong: rxe0 port 1 is down, not ACTIVE$" &&
		output_has "^ibv_rc_pingpong: hint: rdmatest doctor: ports FAIL: bring the link up: ip link set eth0 up" ||
		fail "ibv_rc_pingpong's error does not name doctor's finding"
	link_up a || fail "link did not come back"
}
pass

case_begin "link down and up: rxe counts link_downed, a counters WARN naming it, no FAIL" 60
need_applet doctor && {
	C=/sys/class/infiniband/rxe0/ports/1/hw_counters/link_downed
	run_on a cat $C || fail "rxe0 has no link_downed counter"
	n0=$(tr -dc 0-9 < "$OUT")
	failed || link_down a || fail "link down"
	failed || link_up a || fail "link did not come back"
	failed || run_on a cat $C || fail "cannot read link_downed"
	n=$(tr -dc 0-9 < "$OUT")
	failed || [ "${n:-0}" -gt "${n0:-0}" ] || fail "link_downed $n0 -> $n: not counted"
	failed || { run_on a $D; rc=$?; }
	failed || [ $rc = 0 ] || fail "exit $rc, want 0 (a WARN is not a FAIL)"
	failed || ! output_has '^FAIL' || fail "a FAIL line"
	failed || output_has "^WARN counters +rxe0 port 1: link errors since the counters were reset: (.*, )?link_downed $n(,|$| -- )" ||
		fail "no counters WARN naming link_downed $n"
	failed || doc_json a || fail "--json exit $?"
	failed || json_ok "doctor --json"
	failed || grep -q "\"name\":\"link_downed\",\"dir\":\"hw_counters\",\"class\":\"link\",\"value\":$n," "$OUT" ||
		fail "JSON lacks link_downed $n as a link counter"
	failed || grep -q "link_downed $n" "$OUT" && grep -q '"failed":0' "$OUT" || fail "JSON lacks the WARN or counts a failure"
}
pass

case_begin "saved expectation: passes as saved, a rate edited to 400 FAILs" 60
need_applet doctor && {
	X=/tmp/doctor.expect
	run_on a $D --save-expect $X || fail "--save-expect exit $?"
	failed || { run_on a $D --expect $X; rc=$?; }
	failed || [ $rc = 0 ] || fail "--expect on the saved host exit $rc, want 0"
	failed || output_has "^PASS expect +[0-9]+ facts as " || fail "no expect PASS"
	failed || run_on a grep -q '^rxe0/1\.rate_gbps ' $X || fail "the file names no rxe0/1.rate_gbps"
	failed || run_on a sed -i 's|^rxe0/1\.rate_gbps .*|rxe0/1.rate_gbps 400|' $X || fail "cannot edit"
	failed || { run_on a $D --expect $X; rc=$?; }
	failed || [ $rc = 1 ] || fail "--expect with rate 400 exit $rc, want 1"
	failed || output_has "^FAIL expect +rxe0 port 1: rate [0-9.]+ Gb/s, expected 400 -- fix: .*--save-expect" ||
		fail "no expect FAIL naming the rate found and expected"
	run_on a rm -f $X
}
pass

case_begin "an extra rxe on a down veth: its port unused, no FAIL" 60
need_applet doctor && {
	# a veth (the guest kernel has no dummy driver), down, so it has no
	# address, not even IPv6 link-local
	run_on a $D; rc0=$?
	run_on a sh -c "/sbin/ip link add veth9 type veth peer name veth9p && /sbin/rdma link add rxe9 type rxe netdev veth9" ||
		fail "cannot create rxe9 on veth9"
	failed || { run_on a $D; rc=$?; }
	failed || [ $rc = $rc0 ] || fail "exit $rc, was $rc0 without rxe9"
	failed || ! output_has '^FAIL' || fail "a FAIL line"
	failed || output_has "^PASS ports +rxe9 port 1: unused: 1: DOWN .*netdev veth9 down .*no local address; not judged" ||
		fail "rxe9's port not reported unused"
	# the batch's later scenarios need the host as it was
	run_on a sh -c "/sbin/rdma link delete rxe9; /sbin/ip link delete veth9; ! test -e /sys/class/infiniband/rxe9" ||
		fail "rxe9 or veth9 not removed"
}
pass

case_begin "MTU mismatch between the hosts: peer-mtu FAIL" 60
need_applet doctor && {
	run_on b /sbin/ip link set eth0 mtu 4200 || fail "cannot set b's MTU"
	failed || bg_start lst b $D --listen -p 7182 --accept-timeout 30
	failed || wait_listen b 7182 20 || fail "doctor --listen not listening"
	failed || { run_on -t 40 a $D "$B" -p 7182; rc=$?; }
	failed || [ $rc = 1 ] || fail "exit $rc, want 1"
	failed || output_has "^FAIL peer-mtu +MTU mismatch: here rxe0 active MTU 1024 \(eth0 MTU 1500\), peer rxe0 active MTU 4096 \(eth0 MTU 4200\).* -- fix: set the same MTU on both netdevs" ||
		fail "no peer-mtu FAIL with its fix"
	run_on b /sbin/ip link set eth0 mtu 1500 || fail "cannot restore b's MTU"
}
pass

case_begin "memlock lowered with ulimit -l: WARN as root, FAIL without CAP_IPC_LOCK" 60
need_applet doctor && {
	run_on a sh -c "ulimit -l 64 && $D"
	output_has "^WARN memlock +64 KiB, below the 1024 KiB .*CAP_IPC_LOCK.* -- fix: raise it: ulimit -l unlimited" ||
		fail "no memlock WARN as root"
	# a user namespace: capabilities there do not count for locked memory
	failed || run_on a sh -c "ulimit -l 64 && /usr/bin/unshare -U $D"
	failed || output_has "^FAIL memlock +64 KiB, below the 1024 KiB the default tests need .* -- fix: raise it: ulimit -l unlimited" ||
		fail "no memlock FAIL without CAP_IPC_LOCK"
}
pass

case_begin "no rxe device: devices FAIL, exit 3; another applet's exit 3 names the fix" 60
need_applet doctor rping && {
	run_on b /sbin/rdma link delete rxe0 || fail "cannot delete rxe0 on b"
	failed || { run_on b $D; rc=$?; }
	failed || [ $rc = 3 ] || fail "exit $rc, want 3"
	failed || output_has "^FAIL devices +no RDMA device in /sys/class/infiniband -- fix: .*rdma link add rxe0 type rxe netdev IFACE" ||
		fail "no devices FAIL with its fix"
	failed || { run_on b $RT/rping -s -a "$B"; rc=$?; }
	failed || [ $rc = 3 ] || fail "rping exit $rc, want 3"
	failed || output_has "^rping: hint: rdmatest doctor: devices FAIL: load the NIC's RDMA driver, or create a Soft-RoCE device" ||
		fail "rping's error does not name doctor's finding"
	run_on b /sbin/rdma link add rxe0 type rxe netdev eth0 || fail "cannot recreate rxe0"
}
pass
