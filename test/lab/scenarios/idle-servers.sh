# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 240
# Every server-mode applet waits for clients without burning a CPU and
# ends promptly on SIGTERM with its verdict: each is started
# with no client, its CPU time read from /proc over 1 s, then SIGTERM.
# The rsocket servers (rcopy, rstream -b, riostream -b) used to spin at
# 100% and ignore SIGTERM: librdmacm 44's rpoll does not come back after a
# timeout of its own once one has expired (applets/rdmacm/rsock.c).

# idle NAME CMD...: CMD as a server on a with no client. Pass: it uses at
# most 10 ticks (of 100 a second) in the 1 s (10% of a CPU; a spinning
# server takes all 100),
# and after SIGTERM it has ended within 150 cs (a second, plus the
# emulated guest's slack) with 0 or 143 (its verdict, docs/exit-codes.md).
idle() {
	local name=$1 r cpu cs rc
	shift
	case_begin "$name: idle below 20% of a CPU, ends promptly on SIGTERM" 30
	# shellcheck disable=SC2016 # expanded by the inner shell
	run_on -t 20 a sh -c '
		"$@" > /tmp/lab/idle.out 2>&1 &
		pid=$!
		sleep 1
		# utime + stime (fields 14, 15; the names here hold no space)
		ticks() {
			[ -r /proc/$pid/stat ] || return 1
			set -- $(cat /proc/$pid/stat)
			echo $(($14 + $15))
		}
		# the uptime in centiseconds (no leading 0 in the fraction: octal)
		cs() {
			read -r up _ < /proc/uptime
			f=${up#*.}
			echo $((${up%.*} * 100 + ${f#0}))
		}
		t0=$(ticks) || { echo "gone before the sample"; exit 0; }
		sleep 1
		t1=$(ticks) || { echo "gone during the sample"; exit 0; }
		kill -TERM $pid
		s0=$(cs)
		n=0
		while kill -0 $pid 2> /dev/null && [ $n -lt 60 ]; do sleep 0.05; n=$((n + 1)); done
		s1=$(cs)
		kill -KILL $pid 2> /dev/null
		wait $pid
		echo "cpu $((t1 - t0)) cs $((s1 - s0)) rc $?"
	' sh "$@"
	r=$(grep -E '^(cpu|gone)' "$OUT" | tail -n 1)
	note "$name: $r"
	case $r in
	cpu*) ;;
	*) fail "$r (it did not wait for a client)" ;;
	esac
	set -- $r
	cpu=$2 cs=$4 rc=$6
	failed || [ "$cpu" -le 10 ] || fail "$cpu ticks of CPU in 1 s while idle"
	failed || [ "$cs" -le 150 ] || fail "still running $cs cs after SIGTERM"
	failed || [ "$rc" = 0 ] || [ "$rc" = 143 ] || fail "exit $rc after SIGTERM, wanted 0 or 143"
	record "idle $name: $cpu ticks in 1 s, ended ${cs}0 ms after SIGTERM, exit $rc"
	pass
}

idle rcopy "$RT/rcopy"
idle "rstream -b" "$RT/rstream" -b "$A"
idle "riostream -b" "$RT/riostream" -b "$A"
idle "rping -s" "$RT/rping" -s -a "$A"
idle ucmatose "$RT/ucmatose"
idle udaddy "$RT/udaddy"
idle cmtime "$RT/cmtime" -b "$A"
idle udpong "$RT/udpong"
idle rdma_server "$RT/rdma_server"
idle rdma_xserver "$RT/rdma_xserver"
idle "mckey receiver" "$RT/mckey" -m 239.1.1.1 -b "$A"
idle ibv_rc_pingpong "$RT/ibv_rc_pingpong"
idle ibv_srq_pingpong "$RT/ibv_srq_pingpong"
idle ib_write_bw "$RT/ib_write_bw"
idle ib_send_lat "$RT/ib_send_lat"
idle "doctor --listen" "$RT/rdmatest" doctor --listen
