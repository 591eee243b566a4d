# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The lab benchmark, run on host a by `lab bench` (which prepends the
# header and the BENCH_* settings). Each pair runs rdmatest and the
# upstream tool alternately, the order flipping every repetition, on the
# same rxe devices; every measurement is one `record` line (JSON) that the
# host collects and test/lab/bench/report.py turns into medians and ratios.
# Clients and senders run on host a; servers and receivers on host b
# (topology "2hosts") or on host a too ("1host": both ends share one
# guest's CPU, where the CPU cost per operation decides). Times are taken
# on host a around the client, so both tools pay the same lab overhead.
# Every process runs under a wrapper that reports its user+sys CPU time,
# and a row's "cpu_s" is the client's plus the server's.
UPB=/usr/bin
REPS=${BENCH_REPS:-3}
# the short rows' repetitions (lab bench --short-reps), REPS or more
SHORT_REPS=${BENCH_SHORT_REPS:-$REPS}
Q=${BENCH_QUICK:-0}
BOUND=${BENCH_BOUND:-300}   # a single run's bound, seconds
TOPOS=${BENCH_TOPOS:-2hosts 1host}
ONLY=${BENCH_ONLY:-rping ucmatose mckey rstream perftest ibperf ibmodes pingpong udaddy cmtime mesh}
# where servers run in the current topology: set by topology()
SRV=b SA=$B HOSTS=2
topology() {
	case $1 in
	2hosts) SRV=b SA=$B HOSTS=2 ;;
	1host) SRV=a SA=$A HOSTS=1 ;;
	*) fail "bench: unknown topology '$1'"; return 1 ;;
	esac
}
selected() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
# SHORT is 1 while a repetition of the short rows alone runs (bench_all);
# long_row PROGRAM: whether an ib_* row sits that out (the bandwidth rows
# move 65 to 330 MB, 5 to 30 s a run)
SHORT=0
long_row() { [ "$SHORT" = 1 ] && case $1 in *_bw) return 0 ;; esac; return 1; }

# CPUW: the body of `sh -c CPUW sh CMD...`: runs CMD, then prints the
# user+sys clock ticks of what it ran (the shell's cutime and cstime,
# fields 16 and 17 of /proc/PID/stat; the comm field is "sh", so the
# fields split on blanks). The guests' busybox has no time(1) that could
# say this for a background server, and both tools pay the same wrapper.
# shellcheck disable=SC2016 # expanded by the sh -c that runs it
CPUW='"$@"; rc=$?; set -- $(cat /proc/$$/stat); echo "BENCH_CPU_TICKS $((${16} + ${17}))"; exit $rc'
ticks() { sed -n 's/^BENCH_CPU_TICKS \([0-9]*\)$/\1/p' | tail -n 1; }
# cpu_metric CLIENT_FILE SERVER_JOB: ', "cpu_s": S' (client + server, in
# seconds: USER_HZ is 100 on x86), or nothing when either is unknown (a
# server that had to be killed prints no ticks)
cpu_metric() {
	local c s
	c=$(ticks < "$1")
	s=$(bg_log "$2" 2> /dev/null | ticks)
	[ -n "$c" ] && [ -n "$s" ] || return 0
	printf ', "cpu_s": %s' "$(div $((c + s)) 100)"
}

# counts: the issue's figures, or a tenth of them for --quick
q() { if [ "$Q" = 1 ]; then echo $((($1 + 9) / 10)); else echo "$1"; fi; }

# busybox date has no %N: the uptime clock, in 10 ms steps
now_us() { local u; read -r u _ < /proc/uptime; echo $((${u%.*} * 1000000 + (1${u#*.} - 100) * 10000)); }
# secs START_US END_US: elapsed seconds with three decimals
secs() { local d=$(($2 - $1)); printf '%d.%03d' $((d / 1000000)) $((d % 1000000 / 1000)); }
# div A B [SCALE]: A/B (x SCALE), six significant digits; awk does the math
div() { awk -v a="$1" -v b="$2" -v k="${3:-1}" 'BEGIN { if (b > 0) printf "%.6g", a * k / b; else print 0 }'; }

# why FILE: the last line a failed client printed (its one-line cause),
# for the error field of its measurement
why() { grep -v '^BENCH_CPU_TICKS ' "$1" | tail -n 1 | tr -d '\000-\037'; }

# meas BENCH ROW SIZE TOOL REP METRICS_JSON [ERROR]: one measurement of
# the current topology
meas() {
	local err=""
	[ -z "${7:-}" ] || err=", \"error\": \"$(printf '%s' "$7" | tr -d '"\\' | cut -c1-200)\""
	record "{\"bench\": \"$1\", \"row\": \"$2\", \"hosts\": $HOSTS, \"size\": $3, \"tool\": \"$4\", \"rep\": $5, \"metrics\": {$6}$err}"
}

# tools REP: the tools in this repetition's order; with a baseline (lab
# bench --baseline: another rdmatest, say the commit before a change) the
# three take turns in every position
BASELINE=${BENCH_BASELINE:-0}
tools() {
	if [ "$BASELINE" = 1 ]; then
		case $(($1 % 3)) in
		1) echo "rdmatest baseline upstream" ;;
		2) echo "baseline upstream rdmatest" ;;
		*) echo "upstream rdmatest baseline" ;;
		esac
	elif [ $(($1 % 2)) = 1 ]; then
		echo "rdmatest upstream"
	else
		echo "upstream rdmatest"
	fi
}
# bin TOOL PROGRAM: the command (the baseline runs as "rdmatest-baseline
# PROGRAM", so its words are split where it is used)
bin() {
	case $1 in
	rdmatest) echo "$RT/$2" ;;
	baseline) echo "$RT/rdmatest-baseline $2" ;;
	*) echo "$UPB/$2" ;;
	esac
}

# timed FILE CMD...: run CMD on host a, output in FILE; sets T (seconds)
# and returns CMD's status
timed() {
	local file=$1 t0 rc
	shift
	t0=$(now_us)
	timeout "$BOUND" sh -c "$CPUW" sh "$@" > "$file" 2>&1
	rc=$?
	T=$(secs "$t0" "$(now_us)")
	return $rc
}

# server NAME PORT CMD...: start CMD on b, wait until it listens on PORT
server() {
	local name=$1 port=$2
	shift 2
	bg_start "$name" "$SRV" sh -c "$CPUW" sh "$@"
	wait_listen "$SRV" "$port" 30
}
# stop_server NAME: a server that outlives its client is stopped
stop_server() { bg_wait "$1" 20 > /dev/null || bg_kill "$1" > /dev/null; }

# ---- rping: -C 10000 -S 64, wall time and round trips ----
bench_rping() {
	local rep=$1 tool c=$(q 10000) r m
	for tool in $(tools "$rep"); do
		r=$(bin "$tool" rping)
		server srv 7174 $r -s -a "$SA" -C "$c" -S 64 || { meas rping "-C $c -S 64" 64 "$tool" "$rep" "" "server did not listen"; continue; }
		if [ "$tool" = rdmatest ]; then
			timed /tmp/b.out $r -c -a "$SA" -C "$c" -S 64 --json
		else
			timed /tmp/b.out $r -c -a "$SA" -C "$c" -S 64
		fi
		rc=$?
		stop_server srv
		[ $rc = 0 ] || { meas rping "-C $c -S 64" 64 "$tool" "$rep" "" "client exit $rc: $(why /tmp/b.out)"; continue; }
		m="\"wall_s\": $T, \"rtt_mean_us\": $(div "$T" "$c" 1e6)$(cpu_metric /tmp/b.out srv)"
		if [ "$tool" = rdmatest ]; then
			m="$m, \"rtt_p50_us\": $(jnum median), \"rtt_p99_us\": $(jnum p99)"
		fi
		meas rping "-C $c -S 64" 64 "$tool" "$rep" "$m"
	done
}
# jnum KEY: a number of the rtt_us summary in /tmp/b.out's JSON
jnum() { sed -n 's/.*"rtt_us":{[^}]*"'"$1"'":\([0-9.e+-]*\).*/\1/p' /tmp/b.out | head -n 1; }

# ---- ucmatose and udaddy: -c N connections (paths), 10 messages each way ----
# conn_bench PROGRAM PORT N REP RATE: the client's wall time for -c N on
# both ends, with connections per second when RATE is 1
conn_bench() {
	local prog=$1 port=$2 n=$3 rep=$4 rate=$5 tool p m
	for tool in $(tools "$rep"); do
		p=$(bin "$tool" "$prog")
		server srv "$port" $p -c "$n" || { meas "$prog" "-c $n" 0 "$tool" "$rep" "" "server did not listen"; continue; }
		timed /tmp/b.out $p -s "$SA" -c "$n"
		rc=$?
		stop_server srv
		[ $rc = 0 ] || { meas "$prog" "-c $n" 0 "$tool" "$rep" "" "client exit $rc: $(why /tmp/b.out)"; continue; }
		m="\"wall_s\": $T"
		[ "$rate" = 0 ] || m="$m, \"conn_per_s\": $(div "$n" "$T")"
		meas "$prog" "-c $n" 0 "$tool" "$rep" "$m$(cpu_metric /tmp/b.out srv)"
	done
}

# ---- mckey: -c 4 -C 10000; datagrams per second at the receiver ----
# The senders are compared: upstream's receiver cannot time anything and
# never ends when a datagram is lost (its sender posts and destroys at once,
# so some never leave), so one rdmatest receiver on b (--json) counts every
# datagram, rdmatest's or upstream's, and times the first to the last. The
# rate is received / that time; delivered_pct is received of sent; cpu_s
# is the sender's alone (the receiver is the same program for both).
bench_mckey() {
	local rep=$1 tool k c=$(q 10000) snd total g=239.1.9.9 n span row rc t
	total=$((4 * 4 * c)) row="-c 4 -C $c"
	for tool in $(tools "$rep"); do
		k=$(bin "$tool" mckey)
		snd="$k -m $g -b $A -s -c 4 -C $c"
		[ "$tool" = upstream ] || snd="$snd --settle 3" # upstream's fixed sleep
		bg_start rcv "$SRV" $RT/mckey -m $g -b "$SA" -c 4 -C "$c" --senders 4 --json \
			--accept-timeout 60 --timeout 5
		wait_log rcv 'receiving data transfers' 40 ||
			{ bg_kill rcv > /dev/null; meas mckey "$row" 0 "$tool" "$rep" "" "receiver not ready"; continue; }
		timeout "$BOUND" sh -c "$CPUW" sh $snd > /tmp/b.out 2>&1
		rc=$?
		bg_wait rcv 60 > /dev/null
		bg_log rcv > /tmp/r.out
		n=$(sed -n 's/.*"totals":{[^}]*"received":\([0-9]*\).*/\1/p' /tmp/r.out | head -n 1)
		span=$(sed -n 's/.*"transfer_seconds":\([0-9.e+-]*\).*/\1/p' /tmp/r.out | head -n 1)
		[ $rc = 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ] ||
			{ meas mckey "$row" 0 "$tool" "$rep" "" "sender exit $rc, receiver counted ${n:-nothing}"; continue; }
		t=$(ticks < /tmp/b.out)
		meas mckey "$row" 0 "$tool" "$rep" "\"dgram_per_s\": $(div "$n" "$span"), \"delivered_pct\": $(div $((n * 100)) "$total")${t:+, \"cpu_s\": $(div "$t" 100)}"
	done
}

# ---- rstream: rows shaped like the default series, counts reduced ----
# (upstream's own series cannot be shortened and takes over ten minutes
# in this lab); both tools print the same row format.
RSTREAM_ROWS="64_lat:64:1:1000 4k_lat:4096:1:300 64k_lat:65536:1:30 1m_lat:1048576:1:4
64_bw:64:5000:1 4k_bw:4096:2000:1 64k_bw:65536:200:1 1m_bw:1048576:20:1"
# split_row NAME:SIZE:COUNT:ITERS: sets name, size, cnt and it (the
# caller's locals), the counts scaled by q
split_row() {
	local r=$1
	name=${r%%:*} r=${r#*:}
	size=${r%%:*} r=${r#*:}
	cnt=$(q "${r%%:*}") it=$(q "${r#*:}")
}
bench_rstream() {
	local rep=$1 row name size cnt it tool s line c
	for row in $RSTREAM_ROWS; do
		split_row "$row"
		for tool in $(tools "$rep"); do
			s=$(bin "$tool" rstream)
			server srv 7471 $s -S "$size" -C "$cnt" -I "$it" || { meas rstream "$name" "$size" "$tool" "$rep" "" "server did not listen"; continue; }
			timed /tmp/b.out $s -s "$SA" -S "$size" -C "$cnt" -I "$it"
			rc=$?
			stop_server srv
			line=$(grep -E '^custom ' /tmp/b.out | tail -n 1)
			[ $rc = 0 ] && [ -n "$line" ] || { meas rstream "$name" "$size" "$tool" "$rep" "" "client exit $rc: $(why /tmp/b.out)"; continue; }
			# name bytes xfers iters total time Gb/sec usec/xfer: the
			# printed Gb/sec has two decimals (0.00 for small rows), so
			# bandwidth rows derive it from usec/xfer and are compared by
			# it alone, latency rows by usec/xfer alone
			set -- $line
			c=$(cpu_metric /tmp/b.out srv)
			case $name in
			*_lat) meas rstream "$name" "$size" "$tool" "$rep" "\"usec_xfer\": $8$c" ;;
			*) meas rstream "$name" "$size" "$tool" "$rep" "\"gbps\": $(div $((size * 8)) "$8" 0.001)$c" ;;
			esac
		done
	done
}

# ---- the rxe ceiling: perftest at the same sizes (rdma_cm, -x 1) ----
bench_perftest() {
	local rep=$1 row name size cnt it prog n line
	for row in $RSTREAM_ROWS; do
		split_row "$row"
		case $name in
		*_lat) prog=ib_send_lat n=$it ;;
		*) prog=ib_send_bw n=$cnt ;;
		esac
		[ "$n" -ge 5 ] || n=5
		server srv 18515 $UPB/$prog -x 1 -R -F -s "$size" -n "$n" --report_gbits ||
			{ meas perftest "$prog $size" "$size" perftest "$rep" "" "server did not listen"; continue; }
		timed /tmp/b.out $UPB/$prog -x 1 -R -F -s "$size" -n "$n" --report_gbits "$SA"
		rc=$?
		stop_server srv
		line=$(awk -v s="$size" '$1 == s { l = $0 } END { print l }' /tmp/b.out)
		[ $rc = 0 ] && [ -n "$line" ] || { meas perftest "$prog $size" "$size" perftest "$rep" "" "exit $rc: $(why /tmp/b.out)"; continue; }
		set -- $line
		if [ $prog = ib_send_lat ]; then
			# bytes iters t_min t_max t_typical t_avg ...: t_avg, one way
			meas perftest "$prog $size" "$size" perftest "$rep" "\"usec_xfer\": $6"
		else
			# bytes iters BW_peak BW_average MsgRate
			meas perftest "$prog $size" "$size" perftest "$rep" "\"gbps\": $4"
		fi
	done
}

record "{\"meta\": {\"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"kernel\": \"$(uname -r)\", \"reps\": $REPS, \"short_reps\": $SHORT_REPS, \"quick\": $Q, \"lab\": \"qemu TCG, 2 guests, rdma_rxe\", \"topologies\": \"$TOPOS\"}}"
# ---- ib_* against perftest 4.5: the applets against the tools they replace ----
# Both run as the same command line (TCP out-of-band on 18515, GID index
# 1, -F); BW rows compare the average of the client's row, LAT rows the
# t_avg and t_typical columns; cpu_s is client plus server.
IBPERF_ROWS="ib_write_bw:65536:5000 ib_read_bw:65536:1000 ib_send_bw:65536:1000
ib_write_lat:2:1000 ib_read_lat:2:1000 ib_send_lat:2:1000"
bench_ibperf() {
	local rep=$1 row prog size n tool p line m
	for row in $IBPERF_ROWS; do
		prog=${row%%:*} row=${row#*:}
		size=${row%%:*} n=$(q "${row#*:}")
		[ "$n" -ge 5 ] || n=5
		! long_row "$prog" || continue
		for tool in $(tools "$rep"); do
			p=$(bin "$tool" "$prog")
			[ -x "${p%% *}" ] || { meas ibperf "$prog $size" "$size" "$tool" "$rep" "" "$p not present"; continue; }
			bg_start srv "$SRV" sh -c "$CPUW" sh $p -x 1 -F -s "$size" -n "$n" --report_gbits
			wait_tcp_listen "$SRV" 18515 30 ||
				{ bg_kill srv > /dev/null; meas ibperf "$prog $size" "$size" "$tool" "$rep" "" "server did not listen"; continue; }
			timed /tmp/b.out $p -x 1 -F -s "$size" -n "$n" --report_gbits "$SA"
			rc=$?
			stop_server srv
			line=$(awk -v s="$size" '$1 == s { l = $0 } END { print l }' /tmp/b.out)
			[ $rc = 0 ] && [ -n "$line" ] || { meas ibperf "$prog $size" "$size" "$tool" "$rep" "" "client exit $rc: $(why /tmp/b.out)"; continue; }
			set -- $line
			case $prog in
			*_lat) m="\"t_avg_us\": $6, \"t_typical_us\": $5" ;;
			*) m="\"gbps\": $4" ;;
			esac
			meas ibperf "$prog $size" "$size" "$tool" "$rep" "$m$(cpu_metric /tmp/b.out srv)"
		done
	done
}

# ---- ib_* modes beyond the defaults, against perftest 25.01 ----
# The same command line for both (as ibperf's, plus the mode's options);
# the client's row. A row is NAME:PROGRAM:SIZE:N:OPTIONS (options with
# commas for blanks):
#   ud_send_bw   UD SEND bandwidth, messages of the MTU (1024 on rxe)
#   write_q4_b   four QPs both ways: the sum of both directions (4 KiB:
#                at 64 KiB both tools end in "remote invalid request" on
#                two hosts with this kernel's rxe)
#   write_report_both  one QP both ways with --report-both: the summed row,
#                then this side's and the peer's tables; the figure is the
#                last row, the peer's own (1 KiB, one packet: multi-packet
#                writes both ways fail now and then on two hosts, above)
IBMODES_ROWS="ud_send_bw:ib_send_bw:1024:10000:-c,UD write_q4_b:ib_write_bw:4096:1000:-q,4,-b"
IBMODES_ROWS="$IBMODES_ROWS write_report_both:ib_write_bw:1024:1000:-b,--report-both"
bench_ibmodes() {
	local rep=$1 row name prog size n opts tool p line
	for row in $IBMODES_ROWS; do
		name=${row%%:*} row=${row#*:}
		prog=${row%%:*} row=${row#*:}
		size=${row%%:*} row=${row#*:}
		n=$(q "${row%%:*}") opts=$(echo "${row#*:}" | tr , ' ')
		[ "$n" -ge 5 ] || n=5
		! long_row "$prog" || continue
		for tool in $(tools "$rep"); do
			p=$(bin "$tool" "$prog")
			bg_start srv "$SRV" sh -c "$CPUW" sh $p -x 1 -F $opts -s "$size" -n "$n" --report_gbits
			wait_tcp_listen "$SRV" 18515 30 ||
				{ bg_kill srv > /dev/null; meas ibmodes "$name $size" "$size" "$tool" "$rep" "" "server did not listen"; continue; }
			timed /tmp/b.out $p -x 1 -F $opts -s "$size" -n "$n" --report_gbits "$SA"
			rc=$?
			stop_server srv
			line=$(awk -v s="$size" '$1 == s { l = $0 } END { print l }' /tmp/b.out)
			[ $rc = 0 ] && [ -n "$line" ] || { meas ibmodes "$name $size" "$size" "$tool" "$rep" "" "client exit $rc: $(why /tmp/b.out)"; continue; }
			set -- $line
			# bytes iters BW_peak BW_average MsgRate
			meas ibmodes "$name $size" "$size" "$tool" "$rep" "\"gbps\": $4, \"mpps\": $5$(cpu_metric /tmp/b.out srv)"
		done
	done
}

# ---- ibv_rc/ud_pingpong: -n N exchanges, microseconds per iteration ----
# The same command line for both (GID index 1, which upstream needs on
# RoCE); the client's "N iters in T seconds = U usec/iter" is the row.
PINGPONG_ROWS="ibv_rc_pingpong:4096:1000 ibv_ud_pingpong:512:1000"
bench_pingpong() {
	local rep=$1 row prog size n tool p u
	for row in $PINGPONG_ROWS; do
		prog=${row%%:*} row=${row#*:}
		size=${row%%:*} n=$(q "${row#*:}")
		for tool in $(tools "$rep"); do
			p=$(bin "$tool" "$prog")
			bg_start srv "$SRV" sh -c "$CPUW" sh $p -g 1 -s "$size" -n "$n"
			wait_tcp_listen "$SRV" 18515 30 ||
				{ bg_kill srv > /dev/null; meas pingpong "$prog $size" "$size" "$tool" "$rep" "" "server did not listen"; continue; }
			timed /tmp/b.out $p -g 1 -s "$size" -n "$n" "$SA"
			rc=$?
			stop_server srv
			u=$(sed -n 's/^[0-9]* iters in [0-9.]* seconds = \([0-9.]*\) usec\/iter$/\1/p' /tmp/b.out | tail -n 1)
			[ $rc = 0 ] && [ -n "$u" ] || { meas pingpong "$prog $size" "$size" "$tool" "$rep" "" "client exit $rc: $(why /tmp/b.out)"; continue; }
			meas pingpong "$prog $size" "$size" "$tool" "$rep" "\"iter_us\": $u$(cpu_metric /tmp/b.out srv)"
		done
	done
}

# ---- cmtime: -c N connections set up and torn down, step by step ----
# Upstream's server never exits, so it is killed, and it prints no CPU
# time: the row's CPU is the client's alone (client_cpu_s), for both.
bench_cmtime() {
	local rep=$1 n=$2 tool c t
	for tool in $(tools "$rep"); do
		c=$(bin "$tool" cmtime)
		server srv 7471 $c -c "$n" || { meas cmtime "-c $n" 0 "$tool" "$rep" "" "server did not listen"; continue; }
		timed /tmp/b.out $c -s "$SA" -c "$n"
		rc=$?
		if [ "$tool" = upstream ]; then bg_kill srv KILL > /dev/null; else stop_server srv; fi
		t=$(ticks < /tmp/b.out)
		[ $rc = 0 ] || { meas cmtime "-c $n" 0 "$tool" "$rep" "" "client exit $rc: $(why /tmp/b.out)"; continue; }
		meas cmtime "-c $n" 0 "$tool" "$rep" "\"wall_s\": $T${t:+, \"client_cpu_s\": $(div "$t" 100)}"
	done
}

# ---- mesh: two ranks, --bw 16m both ways, rdmatest's own (no upstream) ----
# Rank 0 on a, rank 1 on b (2 hosts only: mesh's ranks are hosts). The
# pair's bandwidth each way from rank 0's document, the run's wall time,
# both ranks' CPU, and that CPU per Gbit the bandwidth test moved (16 MiB
# each way: 0.268 Gbit; the pings' bytes are not counted): the figure a
# thread per rail is for, on a real NIC where the packets are the NIC's
# work; on Soft-RoCE the kernel's packet work is counted to no process.
MESH_GBIT=0.268435456
bench_mesh() {
	local rep=$1 tool m args c gb gr rc
	[ "$HOSTS" = 2 ] || return 0
	args="--hosts $A,$B --timeout 30 --pings 20 --bw 16m --min-links 1 --rtt-factor 0 --bw-fraction 0"
	for tool in $(tools "$rep"); do
		[ "$tool" != upstream ] || continue
		m=$(bin "$tool" mesh)
		# shellcheck disable=SC2086 # the words are the options
		bg_start srv b sh -c "$CPUW" sh $m $args
		# shellcheck disable=SC2086
		timed /tmp/b.out $m $args --json
		rc=$?
		stop_server srv
		[ $rc -le 1 ] || { meas mesh "--bw 16m" 16777216 "$tool" "$rep" "" "rank 0 exit $rc: $(why /tmp/b.out)"; continue; }
		# the first pair's figures, a to b and back
		read -r gb gr <<EOF
$(sed -n 's/.*"pairs":\[{[^}]*"gbps":\([0-9.e+-]*\),"gbps_rev":\([0-9.e+-]*\).*/\1 \2/p' /tmp/b.out | head -n 1)
EOF
		[ -n "$gb" ] && [ -n "$gr" ] || { meas mesh "--bw 16m" 16777216 "$tool" "$rep" "" "no bandwidth in rank 0's document (exit $rc)"; continue; }
		c=$(cpu_metric /tmp/b.out srv)
		meas mesh "--bw 16m" 16777216 "$tool" "$rep" "\"wall_s\": $T, \"gbps\": $gb, \"gbps_rev\": $gr$c${c:+, \"cpu_s_per_gbit\": $(div "${c#*: }" "$MESH_GBIT")}"
	done
}

# bench_all REP [short]: every selected bench once in the current
# topology; with "short", the short rows alone, for the repetitions past
# REPS: every row but rping's, mckey's and the ib_*_bw ones takes a few
# seconds a run, and their run-to-run spread (a 2-host ib_send_lat's
# typical latency moves by +-30% from one run to the next) is wider than
# the gaps they must show; with 3 runs a tool, a tie still looks decided
# one time in 20, with 6 one time in 924
bench_all() {
	if [ "${2:-}" = short ]; then SHORT=1; else SHORT=0; fi
	[ $SHORT = 1 ] || ! selected rping || bench_rping "$1"
	! selected ucmatose || { conn_bench ucmatose 7471 "$(q 100)" "$1" 1; conn_bench ucmatose 7471 "$(q 500)" "$1" 1; }
	[ $SHORT = 1 ] || ! selected mckey || bench_mckey "$1"
	! selected rstream || bench_rstream "$1"
	! selected perftest || bench_perftest "$1"
	! selected ibperf || bench_ibperf "$1"
	! selected ibmodes || bench_ibmodes "$1"
	! selected pingpong || bench_pingpong "$1"
	! selected udaddy || conn_bench udaddy 7174 "$(q 50)" "$1" 0
	! selected cmtime || bench_cmtime "$1" "$(q 100)"
	[ $SHORT = 1 ] || ! selected mesh || bench_mesh "$1"
	SHORT=0
}

# warm_up: one short rping of each tool, not recorded, before the first
# repetition: the first run of a program in a fresh TCG guest pays for
# translating its code and libraries (about 1 s of CPU on each host),
# which would fall on whichever tool happens to go first
warm_up() {
	local tool r
	for tool in $(tools 1); do
		r=$(bin "$tool" rping)
		server srv 7174 $r -s -a "$SA" -C 50 -S 64 || continue
		timeout 60 $r -c -a "$SA" -C 50 -S 64 > /dev/null 2>&1
		stop_server srv
	done
}

rep=1
while [ $rep -le "$SHORT_REPS" ]; do
	for topo in $TOPOS; do
		case_begin "bench repetition $rep, $topo" $((BOUND * 10))
		if topology "$topo"; then
			[ $rep != 1 ] || warm_up
			if [ $rep -le "$REPS" ]; then bench_all $rep; else bench_all $rep short; fi
		fi
		pass
	done
	rep=$((rep + 1))
done
