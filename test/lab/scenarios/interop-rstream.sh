# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 1200
# rstream interop: rdmatest and upstream (rdma-core v44) as server and
# client in both directions, over rsockets and kernel TCP (-T s), custom
# rows shaped like the default series' (upstream's series cannot be cut
# short, and takes over ten minutes in this lab), -T v, every -T mode; the
# default series and -S all between rdmatest peers with --scale; then
# killed peers and mismatched parameters, which must end within their
# bounds with exit 1 or 124. Server on host b, client on host a. Sizes are
# plain numbers: upstream reads -S with atoi ("64k" is 64 to it).
UP=/usr/bin/rstream
RTS="$RT/rstream"
RTSRV="$RTS --accept-timeout 60"  # an rdmatest server gives up without a client
ROWS=1                            # table rows a pair must print
NUMS='[ 0-9]{5}\.[0-9]{2}s[ 0-9]{7}\.[0-9]{2}[ 0-9]{8}\.[0-9]{2}$'
HDR='^name      bytes   xfers   iters   total       time     Gb/sec    usec/xfer$'
ROW="^[0-9a-z._]+ +[0-9.kmg]+ +[0-9kmb]+ +[0-9kmb]+ +[0-9.kmg]+ +$NUMS"

# start_srv rdma|tcp CMD...: the server job "srv" on b, ready once it listens
start_srv() {
	local kind=$1
	shift
	bg_start srv b "$@"
	if [ "$kind" = tcp ]; then
		wait_tcp_listen b 7471 20
	else
		wait_listen b 7471 20
	fi || fail "server not listening on 7471"
}

# end_srv ROWS: the server printed ROWS table rows, then exited 0
end_srv() {
	local rc
	failed && return 1
	wait_log srv "$ROW" 30 || fail "server printed no row"
	bg_wait srv 30
	rc=$?
	[ "$rc" = 0 ] || fail "server exited $rc"
}

# client_rows N: the client's output had the header and N rows
client_rows() {
	output_has "$HDR" || { fail "client printed no header"; return 1; }
	[ "$(grep -cE "$ROW" "$OUT")" = "$1" ] || fail "client printed $(grep -cE "$ROW" "$OUT") rows, wanted $1"
}

# pair NAME rdma|tcp "SERVER [ARGS]" "CLIENT [ARGS]" [COMMON ARGS...]:
# both exit 0, both print the table (one custom row unless ROWS is set).
pair() {
	local name=$1 kind=$2 srv=$3 cli=$4
	shift 4
	case_begin "$name" 150
	start_srv "$kind" $srv "$@"
	failed || run_on -t 120 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || client_rows "$ROWS"
	end_srv
	pass
}

# both TAG rdma|tcp RT_MODES UP_MODES ARGS...: rdmatest against upstream,
# each as client and as server
both() {
	local tag=$1 kind=$2 rtm=$3 upm=$4
	shift 4
	pair "rt client/upstream server $tag" "$kind" "$UP $upm" "$RTS $rtm" "$@"
	pair "upstream client/rt server $tag" "$kind" "$RTSRV $rtm" "$UP $upm" "$@"
}

# ---- rsockets, custom rows shaped like the series (reduced counts) ----
# sizes: one small message and 1 MiB each way, latency and bandwidth;
# 4 KiB and 64 KiB between took the same rsocket paths (8 cases, 21 s)
both "64 lat" rdma "" "" -S 64 -C 1 -I 200
both "1m lat" rdma "" "" -S 1048576 -C 1 -I 2
both "64 bw" rdma "" "" -S 64 -C 2000
both "1m bw" rdma "" "" -S 1048576 -C 5
# a size that is no power of two, several transfers and iterations, the
# data verified: one pair each way (1500 x 10 x 3 without -T v, and
# -T v at 4k and at 1000 x 100, walked the same transfer path: 4 cases)
both "-T v 1500 x 20 x 3" rdma "-T v" "-T v" -S 1500 -C 20 -I 3
# ---- kernel TCP against upstream -T s ----
both "-T s 64k" tcp "-T s" "-T s" -S 65536 -C 50
both "-T s -T v" tcp "-T s -T v" "-T s -T v" -S 4096 -C 10 -I 3

# ---- the series between rdmatest peers: two connections, every row ----
ROWS=8
pair "rt/rt default series (--scale 100)" rdma "$RTSRV --scale 100" "$RTS --scale 100"
ROWS=66
pair "rt/rt -S all (--scale 1000)" rdma "$RTSRV -S all --scale 1000" "$RTS -S all --scale 1000"
ROWS=1

# ---- every -T mode (a, b, n and r are local: they mix with anything) ----
pair "-T a client/upstream -T b server" rdma "$UP -T b" "$RTS -T a" -S 4096 -C 20 -I 2
pair "upstream -T a client/-T b server" rdma "$RTSRV -T b" "$UP -T a" -S 4096 -C 20 -I 2
pair "-T ab client/-T n server" rdma "$RTSRV -T n" "$RTS -T ab" -S 65536 -C 10 -I 2
pair "-T r client/upstream -T r server" rdma "$UP -T r" "$RTS -T r" -S 4096 -C 20
pair "upstream -T r client/-T r server" rdma "$RTSRV -T r" "$UP -T r" -S 4096 -C 20
pair "-T f server/upstream -T s client" tcp "$RTSRV -T f" "$UP -T s" -S 4096 -C 20 -I 2
pair "-T fv server/-T sv client" tcp "$RTSRV -T fv" "$RTS -T sv" -S 4096 -C 20 -I 2
ROWS=8
pair "-T f server, default series (--scale 100)" tcp "$RTSRV -T f --scale 100" "$RTS -T s --scale 100"
ROWS=1
pair "-k 5 keepalive against upstream" rdma "$UP -k 5" "$RTS -k 5" -S 1000 -C 10
case_begin "-k 5 reported as upstream" 10
output_has '^Keepalive: ON$' && output_has '^  time: 5$' || fail "no keepalive lines"
pass
pair "--json against upstream" rdma "$UP" "$RTS --json" -S 64 -C 1 -I 100
case_begin "--json: rows with latency percentiles" 10
output_has '"rows":\[\{"name":"custom","connection":1,"size":64,"transfers":1,"iterations":100,' ||
	fail "no row record"
output_has '"latency_us":\{"count":100,' || fail "no latency percentiles"
pass

# ---- killed peers: the rdmatest side ends at once, 1 (or 124) ----
# killed SIDE NAME SERVER CLIENT: kill SIDE (srv|cli) two seconds into a long
# row; the other side, rdmatest, must end within 30 s with 1 or 124.
killed() {
	local victim=$1 name=$2 srv=$3 cli=$4 rc survivor
	case_begin "$name" 90
	survivor=cli
	[ "$victim" = cli ] && survivor=srv
	start_srv rdma $srv -S 65536 -C 1000000
	failed || bg_start cli a $cli -s "$B" -S 65536 -C 1000000
	failed || wait_log cli "$HDR" 20 || fail "client did not start"
	sleep 2 # into the transfers
	bg_kill "$victim" KILL > /dev/null
	bg_wait "$survivor" 30
	rc=$?
	[ "$rc" = 1 ] || [ "$rc" = 124 ] || fail "$survivor exited $rc, wanted 1 or 124"
	# 124 comes with its own reason: no DREQ or RST reached the survivor
	grep -Eq 'row custom .*(closed|reset) by the peer|no data for 10 s' \
		"$LAB_TRANSCRIPT" || fail "no reason given"
	pass
}
killed srv "upstream server killed mid-stream: rt client ends" "$UP" "$RTS --timeout 10"
killed cli "upstream client killed mid-stream: rt server ends" "$RTSRV --timeout 10" "$UP"
killed srv "rt server killed mid-stream: rt client ends" "$RTSRV" "$RTS --timeout 10"

# ---- mismatched parameters: no hang, the likely difference named ----
case_begin "-C differs from upstream's: exit 124 within --timeout" 60
start_srv rdma $UP -S 1000 -C 100
failed || run_on -t 40 a $RTS -s "$B" -S 1000 -C 50 --timeout 5
rc=$?
[ $rc = 124 ] || fail "client exit $rc, wanted 124"
failed || output_has 'no data for 5 s after .*: do -S/-C/-I and -T v match on both sides\?' ||
	fail "the likely mismatch was not named"
bg_kill srv > /dev/null # upstream waits forever
pass

case_begin "-S differs between rdmatest peers: both exit 1 at once, naming -S" 60
start_srv rdma $RTSRV -S 2000 -C 100 --timeout 5
failed || run_on -t 40 a $RTS -s "$B" -S 1000 -C 100 --timeout 5
rc=$?
[ $rc = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'the peer runs -S 2000 -C 100 -I 1, this side -S 1000 -C 100 -I 1' ||
	fail "the sizes were not named"
bg_wait srv 30
rc=$?
[ $rc = 1 ] || fail "server exit $rc, wanted 1"
pass

case_begin "-S all on one side only: exit 1 at the second row" 120
start_srv rdma $RTSRV --scale 100 --timeout 5
failed || run_on -t 100 a $RTS -s "$B" -S all --scale 100 --timeout 5
rc=$?
[ $rc = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'row 128_lat: sync: the peer runs -S 4096 ' || fail "the row was not named"
bg_wait srv 30 > /dev/null
pass

case_begin "upstream client -T v, rt server without: exit 1 naming -T v" 60
start_srv rdma $RTSRV -S 1000 -C 10 --timeout 5
failed || bg_start cli a $UP -s "$B" -T v -S 1000 -C 10
bg_wait srv 30
rc=$?
[ $rc = 1 ] || fail "server exit $rc, wanted 1"
grep -q 'it uses -T v, this side does not' "$LAB_TRANSCRIPT" || fail "-T v was not named"
bg_wait cli 20 > /dev/null # upstream fails verifying our sync and exits
pass

case_begin "rt client -T v, upstream server without: exit 1" 60
start_srv rdma $UP -S 1000 -C 10
failed || run_on -t 40 a $RTS -s "$B" -T v -S 1000 -C 10 --timeout 5
rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "client exit $rc, wanted 1 or 124"
bg_kill srv > /dev/null
pass

case_begin "rsocket client, -T s server: refused at once" 40
start_srv tcp $RTSRV -T s -C 10
failed || run_on -t 30 a $RTS -s "$B" -C 10
rc=$?
[ $rc = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'connection refused: nothing listening on that port \(is the server running, and without -T s\?\)' ||
	fail "no reason given"
bg_kill srv > /dev/null
pass
