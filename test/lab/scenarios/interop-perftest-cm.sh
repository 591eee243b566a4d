# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 300
# -R and -z: the whole exchange over an RDMA CM connection, and with -R the test QPs
# connected by the RDMA CM, as perftest does. perftest 25.01's -R (Debian
# 13) on either side of bandwidth, latency and atomic tests, with -q and
# -b; perftest 4.5's (Debian 12) on either side of a bandwidth and a
# latency test; rdmatest against itself where no perftest case covers it
# (the write and read latency tests, -q 4 with --json, -x with -R); and
# the bounds: no server, a peer killed mid-run. Then -T and --retry_count
# with -R, --tclass with -z, and --dont_xchg_versions, against perftest
# 25.01 both ways. -n 50: a few seconds each.
. "$LAB_SCEN/perftest.inc"   # clock_retry, R (and faults.inc)

# bw and lat rows: size and iterations, then figures
bw_row() { echo "^ $1 +$2 +$R"; }
lat_row() { echo "^ $1 +$2 +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}"; }

# pair TEST ROW OPTS...: rdmatest -R server on b, client on a; both exit 0,
# both print "rdma_cm QPs : ON" and the client its row (and the server,
# but for a read latency server, which is idle and prints none)
pair() {
	local t=$1 row=$2
	shift 2
	case_begin "$t -R: rt client -> rt server $*" 60
	bg_start srv b $RT/$t --timeout 10 -d "$DEV_B" -R "$@"
	wait_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 40 a $RT/$t --timeout 10 -d "$DEV_A" -R "$@" "$B" || fail "client exited $?"
	failed || output_has "$row" || fail "client printed no row /$row/"
	failed || output_has '^ rdma_cm QPs	 : ON$' || fail "client: no 'rdma_cm QPs : ON'"
	failed || exit_in srv 0
	failed || log_has srv '^ rdma_cm QPs	 : ON$'
	[ "$t" = ib_read_lat ] || { failed || log_has srv "$row"; }
	pass
}

pair ib_write_lat "$(lat_row 2 50)" -n 50
pair ib_read_lat "$(lat_row 2 50)" -n 50

case_begin "ib_write_bw -R -q 4 --json: four CM connections, a valid document" 60
bg_start srv b $RT/ib_write_bw --timeout 10 -d "$DEV_B" -R -q 4 -n 50
wait_listen b 18515 20 || fail "server not listening on 18515"
failed || run_on -t 40 a $RT/ib_write_bw --timeout 10 -d "$DEV_A" -R -q 4 -n 50 --json "$B" ||
	fail "client exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "client --json: not valid JSON"
failed || output_has '"rdma_cm":true' || fail "client --json: no rdma_cm true"
failed || output_has '"MsgSize":65536' || fail "client --json: no row"
failed || exit_in srv 0
n=$(bg_log srv | grep -c '^ remote address: LID')
failed || [ "$n" = 4 ] || fail "server printed $n remote QPs, wanted 4"
pass

case_begin "no server: the -R client retries for --timeout, then exit 1 naming the refusal" 30
run_on -t 20 a $RT/ib_write_bw --timeout 2 -d "$DEV_A" -R "$B"
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, wanted 1"
failed || output_has "$B:18515: rejected: nothing listening" || fail "no refusal named"
pass

case_begin "-x with -R is accepted, as perftest accepts it" 60
gb=$(gid_index b); ga=$(gid_index a)
bg_start srv b $RT/ib_write_bw --timeout 10 -d "$DEV_B" -R -x "$gb" -n 50
wait_listen b 18515 20 || fail "server not listening"
failed || run_on -t 40 a $RT/ib_write_bw --timeout 10 -d "$DEV_A" -R -x "$ga" -n 50 "$B" ||
	fail "client exited $?"
failed || output_has "GID index       : $ga" || fail "client: no GID index $ga"
failed || exit_in srv 0
pass

case_begin "server killed mid-run (ib_write_lat -R -D 20): the client names it, no hang" 60
bg_start srv b $RT/ib_write_lat --timeout 5 -d "$DEV_B" -R -D 20
wait_listen b 18515 20 || fail "server not listening"
failed || bg_start cli a $RT/ib_write_lat --timeout 5 -d "$DEV_A" -R -D 20 "$B"
failed || wait_log cli 'remote address' 20 || fail "client never connected"
sleep 2
failed || bg_kill srv
failed || bg_wait cli 30
rc=$?
failed || [ "$rc" = 1 ] || [ "$rc" = 124 ] || fail "client exit $rc, wanted 1 or 124"
failed || log_has cli 'disconnect|closed|reset|retry|no .* within|exceeded'
pass

# up_pair REL MODE TEST ROW OPTS...: perftest of Debian REL (12, 13)
# against rdmatest, both directions, with MODE -R (exchange and QPs over
# the CM) or -z (the exchange over the CM, the QPs by hand); both sides
# exit 0 and the rdmatest side prints the row. Each direction is one
# attempt (up_rt_server, up_rt_client, on up_pair's locals) through
# clock_retry: perftest fails its report now and then on a loaded guest.
up_pair() {
	local up=/opt/peers/up$1 m=$2 t=$3 row=$4 name="perftest (Debian $1)" why
	shift 4
	case_begin "$t $m: $name client -> rt server $*" 60
	why=""
	clock_retry up_rt_server "$@" || fail "$why"
	pass
	case_begin "$t $m: rt client -> $name server $*" 60
	why=""
	clock_retry up_rt_client "$@" || fail "$why"
	pass
}

# a perftest client on a, the rdmatest server on b; WHY on failure
up_rt_server() {
	: > /tmp/pt.srv
	bg_start srv b $RT/$t --timeout 10 -d "$DEV_B" $m "$@"
	wait_listen b 18515 20 || { why="server not listening on 18515"; bg_kill srv; return 1; }
	run_on -t 40 a $up/$t -d "$DEV_A" $m "$@" "$B" ||
		{ why="perftest client exited $?"; bg_kill srv; return 1; }
	bg_wait srv 30 || { why="srv exited $?, wanted 0"; return 1; }
	# a read or atomic latency server is idle and prints no row
	case $t in ib_read_lat | ib_atomic_lat) return 0 ;; esac
	bg_log srv | grep -Eq "$row" || { why="srv printed no row /$row/"; return 1; }
}

# the rdmatest client on a, a perftest server on b (its output kept in
# /tmp/pt.srv for clock_retry); WHY on failure
up_rt_client() {
	: > /tmp/pt.srv
	bg_start srv b $up/$t -d "$DEV_B" $m "$@"
	wait_listen b 18515 20 || { why="perftest server not listening on 18515"; bg_kill srv; return 1; }
	run_on -t 40 a $RT/$t --timeout 10 -d "$DEV_A" $m "$@" "$B" ||
		{ why="client exited $?"; bg_kill srv; bg_log srv > /tmp/pt.srv; return 1; }
	output_has "$row" || { why="client printed no row /$row/"; bg_kill srv; return 1; }
	output_has '^ Data ex. method : rdma_cm( |$)' ||
		{ why="client: exchange not over the CM"; bg_kill srv; return 1; }
	bg_wait srv 30 || { why="perftest server exited $?, wanted 0"; bg_log srv > /tmp/pt.srv; return 1; }
}

up_pair 13 -R ib_write_bw "$(bw_row 65536 50)" -n 50
up_pair 13 -R ib_send_lat "$(lat_row 2 50)" -n 50
up_pair 13 -R ib_read_bw "$(bw_row 65536 100)" -n 50 -q 2
up_pair 13 -R ib_atomic_lat "$(lat_row 8 50)" -n 50
up_pair 13 -R ib_send_bw "$(bw_row 65536 "[0-9]+")" -n 50 -b
up_pair 12 -R ib_write_bw "$(bw_row 65536 50)" -n 50
up_pair 12 -R ib_read_lat "$(lat_row 2 50)" -n 50
up_pair 12 -z ib_read_bw "$(bw_row 65536 50)" -n 50

# -T with -R and --tclass with -z, perftest 25.01 both ways: both sides
# take them and run, and the rdmatest side names the ToS with -R (what
# reaches the wire is tos-2hosts' to check); --retry_count 5 on both.
up_pair 13 -R ib_write_bw 'Data ex. method : rdma_cm 	TOS    : 96$' -T 96 --retry_count 5 -n 50
up_pair 13 -z ib_write_lat "$(lat_row 2 50)" --tclass 32 -n 50

# --dont_xchg_versions: no version, page, cache line or MTU message. Two
# rdmatest sides run; perftest 25.01 drops the same messages, then exits 1
# at its version check (the version it did not receive reads as 0), and
# the rdmatest side names the closed channel, bounded (one direction: the
# other fails the same way). -z with a perftest peer is the --tclass
# cases'.
case_begin "ib_write_bw -z --dont_xchg_versions: rt client -> rt server" 60
bg_start srv b $RT/ib_write_bw --timeout 10 -d "$DEV_B" -z --dont_xchg_versions -n 50
wait_listen b 18515 20 || fail "server not listening on 18515"
failed || run_on -t 40 a $RT/ib_write_bw --timeout 10 -d "$DEV_A" -z --dont_xchg_versions -n 50 "$B" ||
	fail "client exited $?"
failed || output_has "$(bw_row 65536 50)" || fail "client printed no row"
failed || exit_in srv 0
pass
case_begin "ib_write_bw -z --dont_xchg_versions: perftest (Debian 13) client -> rt server: perftest exits 1, rt names it" 60
bg_start srv b $RT/ib_write_bw --timeout 5 -d "$DEV_B" -z --dont_xchg_versions -n 50
wait_listen b 18515 20 || fail "server not listening on 18515"
failed || run_on -t 40 a /opt/peers/up13/ib_write_bw -d "$DEV_A" -z --dont_xchg_versions -n 50 "$B"
rc=$?
failed || [ "$rc" = 1 ] || fail "perftest client exit $rc, wanted 1"
failed || output_has "not compatible with versions older than 5.70" || fail "perftest: no version message"
failed || exit_in srv 1
pass
