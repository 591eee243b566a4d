# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 240
# Every server-mode applet waits for clients without burning a CPU and
# ends promptly on SIGTERM with its verdict: each is started
# with no client, its CPU time read from /proc over 1 s, then SIGTERM.
# The rsocket servers (rcopy, rstream -b, riostream -b) used to spin at
# 100% and ignore SIGTERM: librdmacm 44's rpoll does not come back after a
# timeout of its own once one has expired (applets/rdmacm/rsock.c).

# idle "NAME|CMD ARGS" ...: each CMD as a server on a with no client, all
# of them at once (their ports do not meet: see the groups below), given
# 2 s to set up (their start-ups share the guest's one CPU). Pass: each
# uses at most 25 ticks (of 100 a second) in the next 1 s (a quarter of
# a CPU; a spinning server takes all 100). The rsocket servers (rstream
# and riostream -b, udpong) wake up now and then while idle: 5 ticks a
# second here on a quiet host, 11 while ./check loaded it (the emulated
# guest runs the same work slower). After SIGTERM each has ended
# within 150 cs (a second, plus the emulated guest's slack) with 0 or 143
# (its verdict, docs/exit-codes.md). CMD's words hold no space.
idle() {
	local spec names="" r name cpu cs rc
	for spec; do names="$names${names:+, }${spec%%|*}"; done
	case_begin "idle below 25% of a CPU, end promptly on SIGTERM: $names" 30
	# shellcheck disable=SC2016 # expanded by the inner shell
	run_on -t 20 a sh -c '
		# utime + stime (fields 14, 15; the names here hold no space)
		ticks() {
			[ -r /proc/$1/stat ] || return 1
			set -- $(cat /proc/$1/stat)
			echo $((${14} + ${15}))
		}
		# the uptime in centiseconds (no leading 0 in the fraction: octal)
		cs() {
			read -r up _ < /proc/uptime
			f=${up#*.}
			echo $((${up%.*} * 100 + ${f#0}))
		}
		n=0
		for spec; do
			${spec#*|} > /tmp/lab/idle.$n.out 2>&1 &
			eval "pid$n=\$! name$n=\${spec%%|*}"
			n=$((n + 1))
		done
		sleep 2
		i=0
		while [ $i -lt $n ]; do eval "t0_$i=\$(ticks \$pid$i || echo gone)"; i=$((i + 1)); done
		sleep 1
		i=0
		while [ $i -lt $n ]; do eval "t1_$i=\$(ticks \$pid$i || echo gone)"; i=$((i + 1)); done
		i=0
		while [ $i -lt $n ]; do eval "kill -TERM \$pid$i"; i=$((i + 1)); done
		s0=$(cs) left=$n k=0
		while [ $left -gt 0 ] && [ $k -lt 60 ]; do
			sleep 0.05
			k=$((k + 1)) i=0 left=0
			while [ $i -lt $n ]; do
				eval "p=\$pid$i e=\${end$i:-}"
				if [ -z "$e" ]; then
					if kill -0 $p 2> /dev/null; then left=$((left + 1)); else eval "end$i=$(cs)"; fi
				fi
				i=$((i + 1))
			done
		done
		i=0
		while [ $i -lt $n ]; do
			eval "p=\$pid$i nm=\$name$i a=\$t0_$i b=\$t1_$i e=\${end$i:-$(cs)}"
			kill -KILL $p 2> /dev/null
			wait $p
			rc=$?
			case "$a$b" in
			*gone*) echo "$nm|gone before the sample ended" ;;
			*) echo "$nm|cpu $((b - a)) cs $((e - s0)) rc $rc" ;;
			esac
			i=$((i + 1))
		done
	' sh "$@"
	for spec; do
		name=${spec%%|*}
		r=$(grep -F "$name|" "$OUT" | tail -n 1)
		r=${r#*|}
		note "$name: $r"
		case $r in
		cpu*) ;;
		*) fail "$name: ${r:-no figures} (it did not wait for a client)"; continue ;;
		esac
		# shellcheck disable=SC2086 # "cpu N cs N rc N"
		set -- $r
		cpu=$2 cs=$4 rc=$6
		[ "$cpu" -le 25 ] || fail "$name: $cpu ticks of CPU in 1 s while idle"
		[ "$cs" -le 150 ] || fail "$name: still running $cs cs after SIGTERM"
		[ "$rc" = 0 ] || [ "$rc" = 143 ] || fail "$name: exit $rc after SIGTERM, wanted 0 or 143"
		record "idle $name: $cpu ticks in 1 s, ended ${cs}0 ms after SIGTERM, exit $rc"
	done
	pass
}

# Groups whose servers share no port: 7471 (rstream, riostream, ucmatose,
# cmtime, rdma_server, rdma_xserver), 18515 (the ibv_*_pingpong and ib_*
# tools), 7174 (rping over the CM's TCP space; udaddy, mckey and udpong
# over its UDP space), 7427 (rcopy); doctor --listen's own.
idle "rstream -b|$RT/rstream -b $A" "ibv_rc_pingpong|$RT/ibv_rc_pingpong" "rcopy|$RT/rcopy" \
	"rping -s|$RT/rping -s -a $A"
idle "riostream -b|$RT/riostream -b $A" "ibv_srq_pingpong|$RT/ibv_srq_pingpong" "udaddy|$RT/udaddy"
idle "ucmatose|$RT/ucmatose" "ib_write_bw|$RT/ib_write_bw" "udpong|$RT/udpong"
idle "cmtime|$RT/cmtime -b $A" "ib_send_lat|$RT/ib_send_lat" "mckey receiver|$RT/mckey -m 239.1.1.1 -b $A"
idle "rdma_server|$RT/rdma_server" "doctor --listen|$RT/rdmatest doctor --listen"
idle "rdma_xserver|$RT/rdma_xserver"
