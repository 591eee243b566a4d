# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 240
# ib_atomic_bw and ib_atomic_lat against Debian 13's perftest 25.01 both ways
# and against themselves, with FETCH_AND_ADD and CMP_AND_SWAP: both sides
# exit 0, the side that prints rows prints one of 8 bytes and -n
# iterations, and an rdmatest client says in --json that every value its
# atomics fetched was right, against perftest's server too (whose buffer
# starts with random bytes). Then the robustness cases: an atomic client
# against a read server (its buffer takes no atomics) is a named error on
# both sides, never a hang. Counts are small (-n 200): nothing here
# depends on a figure.
. "$LAB_SCEN/perftest.inc"

# perftest's rows: BW (size, iterations, peak, average, rate) and latency
# (size, iterations, then seven figures). perftest's own figures come from
# its CPU clock sampling, which fails now and then under emulation, so
# only an rdmatest side's row is matched in full.
bw_row() { echo "^ 8 +$1 +$R"; }
lat_row() { echo "^ 8 +$1 +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}"; }
# perftest's side of ROW: its size and iterations only
pt_row() { echo "$(echo "$1" | cut -d' ' -f1-3) "; }

# try TEST SRV CLI ROW N OPTS...: one attempt of -n N; on failure WHY says
# what went wrong. The client prints ROW (its size and iterations when it
# is perftest), so does the BW server; an rdmatest client's --json says
# its check passed.
try() {
	local t=$1 s=$2 c=$3 row=$4 n=$5 crow srow json=""
	shift 5
	crow=$row srow=$row
	[ "$c" = pt ] && crow=$(pt_row "$row")
	[ "$s" = pt ] && srow=$(pt_row "$row")
	[ "$c" = rt ] && json=--json
	: > /tmp/pt.srv
	bg_start srv b $(cmd "$s" "$t" b) -n "$n" "$@"
	wait_tcp_listen b 18515 20 || { why="server not listening on 18515"; bg_kill srv; return 1; }
	run_on -t 60 a $(cmd "$c" "$t" a) $json -n "$n" "$@" "$B" ||
		{ why="$c client $* exited $?"; bg_kill srv; bg_log srv > /tmp/pt.srv; return 1; }
	output_has "$crow" || { why="$c client $*: no row /$crow/"; bg_kill srv; return 1; }
	if [ "$c" = rt ]; then
		$RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || { why="client --json: not valid JSON"; bg_kill srv; return 1; }
		output_has '"data_check":"every (atomic|fetched value) verified' ||
			{ why="client --json: the atomic check did not pass"; bg_kill srv; return 1; }
	fi
	bg_wait srv 30 || { why="$s server $* exited $?"; bg_log srv > /tmp/pt.srv; return 1; }
	bg_log srv > /tmp/pt.srv
	case $t in *_bw) grep -Eq "$srow" /tmp/pt.srv || { why="$s server $*: no row /$srow/"; return 1; } ;; esac
}


for t in ib_atomic_bw ib_atomic_lat; do
	case $t in *_bw) row=$(bw_row 200) ;; *) row=$(lat_row 200) ;; esac
	for a in FETCH_AND_ADD CMP_AND_SWAP; do
		# rt against rt: the -q, -b and -D cases below check every
		# counter on both sides
		for pair in "rt pt" "pt rt"; do
			set -- $pair
			case_begin "$t -A $a: $2 client -> $1 server, -n 200" 60
			one $t "$1" "$2" "$row" 200 -A $a
			pass
		done
	done
done

case_begin "ib_atomic_bw -q 2 -D 3, rt client -> rt server: every counter of both QPs checked" 60
one ib_atomic_bw rt rt "^ 8 +[0-9]+ +$R" 200 -q 2 -D 3
pass

case_begin "ib_atomic_bw -q 4, rt client -> perftest server: the counters of 4 QPs checked" 60
one ib_atomic_bw pt rt "$(bw_row 800)" 200 -q 4
pass

case_begin "ib_atomic_bw -b -l 4 --perform_warm_up, rt client -> rt server: both sides check" 60
one ib_atomic_bw rt rt "^ 8 +[0-9]+ +$R" 200 -b -l 4 --perform_warm_up
pass

case_begin "ib_atomic_lat -D 3, rt client -> perftest server: one duration row, checked" 60
bg_start srv b /usr/bin/ib_atomic_lat -x "$GB" -D 3
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_atomic_lat --timeout 20 --json -D 3 "$B" || fail "client exited $?"
failed || output_has "^ 8 +[0-9]+ +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}" || fail "no duration row"
failed || output_has '"data_check":"every fetched value verified' || fail "the check did not pass"
failed || exit_in srv 0
pass

# ---- robustness ----------------------------------------------------------------

case_begin "ib_atomic_bw client -> perftest ib_read_bw server: the client names it, exit 1" 60
bg_start srv b /usr/bin/ib_read_bw -x "$GB" -s 8 -n 200
wait_tcp_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_atomic_bw --timeout 10 -n 200 "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has "takes no atomics: does it run ib_atomic_bw" || fail "client did not name it"
bg_kill srv
pass

# against_rt_read TEST SERVER CLIENT_REGEX SERVER_REGEX: an atomic client
# against an rdmatest read server; both exit 1 and say why
against_rt_read() {
	bg_start srv b $RT/$2 --timeout 10 -s 8 -n 200
	wait_tcp_listen b 18515 20 || fail "server not listening"
	failed || run_on -t 40 a $RT/$1 --timeout 10 -n 200 "$B"
	rc=$?
	failed || [ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
	failed || output_has "$3" || fail "client did not name it"
	failed || exit_in srv 1
	failed || log_has srv "$4"
}

case_begin "ib_atomic_bw client -> rt ib_read_bw server: both sides name it, no hang" 60
against_rt_read ib_atomic_bw ib_read_bw "takes no atomics: does it run ib_atomic_bw" 'closed|reset'
pass

case_begin "ib_atomic_lat client -> rt ib_read_lat server: both sides name it, no hang" 60
against_rt_read ib_atomic_lat ib_read_lat \
	"atomic completion: .*takes no atomics, does it run ib_atomic_lat" "closed the connection"
pass
