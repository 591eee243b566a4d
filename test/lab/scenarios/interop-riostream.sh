# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 600
# riostream interop: rdmatest and upstream (rdma-core v44) as server and
# client in both directions over rsocket iomap writes, custom rows shaped
# like the series' (upstream's series cannot be cut short), -T v and the
# -T modes; the default series between rdmatest peers with --scale; then
# a killed peer, mismatched parameters and an rstream peer, which must end
# within their bounds. Server on host b, client on host a. The record:
# Debian's riostream runs on rxe here (kernel 6.1, rdma-core 44), so iomap
# is there and the interop matrix, not an exit 3, is what is checked.
UP=/usr/bin/riostream
RTS="$RT/riostream"
RTSRV="$RTS --accept-timeout 60"
ROWS=1
NUMS='[ 0-9]{5}\.[0-9]{2}s[ 0-9]{7}\.[0-9]{2}[ 0-9]{8}\.[0-9]{2}$'
HDR='^name      bytes   xfers   iters   total       time     Gb/sec    usec/xfer$'
ROW="^[0-9a-z._]+ +[0-9.kmg]+ +[0-9kmb]+ +[0-9kmb]+ +[0-9.kmg]+ +$NUMS"

start_srv() {
	bg_start srv b "$@"
	wait_listen b 7471 20 || fail "server not listening on 7471"
}

# pair NAME "SERVER [ARGS]" "CLIENT [ARGS]" [COMMON ARGS...]: both exit 0
# and print the header and ROWS rows.
pair() {
	local name=$1 srv=$2 cli=$3 rc
	shift 3
	case_begin "$name" 120
	start_srv $srv "$@"
	failed || run_on -t 90 a $cli -s "$B" "$@" || fail "client exited $?"
	failed || output_has "$HDR" || fail "client printed no header"
	failed || [ "$(grep -cE "$ROW" "$OUT")" = "$ROWS" ] || fail "client printed $(grep -cE "$ROW" "$OUT") rows, wanted $ROWS"
	failed || wait_log srv "$ROW" 30 || fail "server printed no row"
	if ! failed; then
		bg_wait srv 30; rc=$?
		[ "$rc" = 0 ] || fail "server exited $rc"
	fi
	pass
}

both() {
	local tag=$1 rtm=$2 upm=$3
	shift 3
	pair "rt client/upstream server $tag" "$UP $upm" "$RTS $rtm" "$@"
	pair "upstream client/rt server $tag" "$RTSRV $rtm" "$UP $upm" "$@"
	# rt against rt: the default series below; each set again (7 cases,
	# 17 s) proved what the two directions had
}

# 4 KiB: the -T v and -T b rows below
both "64 lat" "" "" -S 64 -C 1 -I 150
both "64k bw" "" "" -S 65536 -C 50
both "1m bw" "" "" -S 1048576 -C 5
both "1500 x 10 x 3" "" "" -S 1500 -C 10 -I 3
both "-T v 4k" "-T v" "-T v" -S 4096 -C 20 -I 3
both "-T b" "-T b" "-T b" -S 4096 -C 20 -I 2
pair "-T a client/upstream -T b server" "$UP -T b" "$RTS -T a" -S 4096 -C 20 -I 2
pair "upstream -T a client/-T ab server" "$RTSRV -T ab" "$UP -T a" -S 4096 -C 20 -I 2

ROWS=8
pair "rt/rt default series (--scale 100)" "$RTSRV --scale 100" "$RTS --scale 100"
ROWS=1
pair "--json against upstream" "$UP" "$RTS --json" -S 64 -C 1 -I 100
case_begin "--json: transport and latency" 10
output_has '"transport":"rsocket-iomap"' || fail "transport not named"
output_has '"latency_us":\{"count":100,' || fail "no latency percentiles"
pass

case_begin "upstream server killed mid-stream: rt client ends bounded" 90
start_srv $UP -S 65536 -C 1000000
failed || bg_start cli a $RTS --timeout 10 -s "$B" -S 65536 -C 1000000
failed || wait_log cli "$HDR" 20 || fail "client did not start"
sleep 2
bg_kill srv KILL > /dev/null
bg_wait cli 40; rc=$?
[ "$rc" = 1 ] || [ "$rc" = 124 ] || fail "client exited $rc, wanted 1 or 124"
pass

case_begin "rt -C differs from rt: both name it at the sync" 60
start_srv $RTSRV -S 1000 -C 100
failed || run_on -t 40 a $RTS -s "$B" -S 1000 -C 50 --timeout 5
rc=$?
[ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'the peer runs -S 1000 -C 100 -I 1' || fail "the difference was not named"
bg_wait srv 30 > /dev/null
pass

# (a -C that differs from upstream's passes unnoticed: the marker protocol
# counts nothing, and upstream ignores the sync bytes)
case_begin "-S smaller than upstream's: the rt client ends 124" 60
start_srv $UP -S 2000 -C 10
failed || run_on -t 40 a $RTS -s "$B" -S 1000 -C 10 --timeout 5
rc=$?
[ "$rc" = 124 ] || fail "client exit $rc, wanted 124"
failed || output_has 'no iomap write from the peer within 5 s' || fail "the wait was not named"
bg_kill srv KILL > /dev/null
pass

case_begin "rstream server: riowrite to a peer without iomap is named" 60
start_srv $RT/rstream --accept-timeout 30 -S 1000 -C 10
failed || run_on -t 40 a $RTS -s "$B" -S 1000 -C 10 --timeout 5
rc=$?
[ "$rc" = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has 'no iomap slot: the peer did not ask for RDMA_IOMAPSIZE' || fail "iomap was not named"
bg_kill srv KILL > /dev/null
pass

case_begin "no server: bounded exit" 40
run_on -t 30 a $RTS -s "$B" -C 1 --timeout 5
rc=$?
[ "$rc" = 1 ] || [ "$rc" = 124 ] || fail "exit $rc, wanted 1 or 124"
pass
