# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 240
# Debian 12's peers (rdma-core 44, perftest 4.5) where they differ from
# Debian 13's, whose tools the interop matrices use: perftest 4.5 sends
# the version "6.06" in its TCP exchange (25.01: "6.24"; every ib_* test
# exchanges it the same way, so ib_send_bw stands for them), and v44's
# rping server has its exit race (upstream.inc). One case each way. rdma-core
# 44's ibv_devinfo text is the same as 56's (checked, so no case), and its
# cmtime is interop-cmtime's only peer.
. "$LAB_SCEN/upstream.inc"
. "$LAB_SCEN/perftest.inc"

# rping: rdmatest and Debian 12's rping, 10 verified pings each way
case_begin "rping: rdmatest client -> Debian 12 rping server" 60
bg_start srv b up12 rping -s -a "$B" -C 10
wait_listen b 7174 20 || fail "server not listening on 7174"
failed || run_on -t 40 a "$RT/rping" -c -a "$B" -C 10 -V || fail "client exited $?"
failed || rping_srv_wait srv 20 || fail "server exited $?"
pass

case_begin "rping: Debian 12 rping client -> rdmatest server" 60
bg_start srv b "$RT/rping" -s -a "$B" -C 10
wait_listen b 7174 20 || fail "server not listening on 7174"
failed || run_on -t 40 a up12 rping -c -a "$B" -C 10 -V || fail "client exited $?"
failed || bg_wait srv 20 || fail "server exited $?"
pass

# try TEST SRV CLI ROW OPTS... for perftest.inc's one: perftest 4.5 on the
# pt side, a server on b, a client on a, both print ROW
try() {
	local t=$1 s=$2 c=$3 row=$4 sc cc
	shift 4
	sc=$(cmd "$s" "$t" b) cc=$(cmd "$c" "$t" a)
	[ "$s" = rt ] || sc="up12 $sc"
	[ "$c" = rt ] || cc="up12 $cc"
	: > /tmp/pt.srv
	bg_start srv b $sc "$@"
	wait_tcp_listen b 18515 20 || { why="server not listening on 18515"; bg_kill srv; return 1; }
	run_on -t 60 a $cc "$@" "$B" || { why="$c client exited $?"; bg_kill srv; bg_log srv > /tmp/pt.srv; return 1; }
	output_has "$row" || { why="$c client: no row /$row/"; bg_kill srv; return 1; }
	bg_wait srv 30 || { why="$s server exited $?"; bg_log srv > /tmp/pt.srv; return 1; }
	bg_log srv > /tmp/pt.srv
	grep -Eq "$row" /tmp/pt.srv || { why="$s server: no row /$row/"; return 1; }
}

for d in "rt pt" "pt rt"; do
	set -- $d
	case_begin "ib_send_bw: $2 client -> $1 server, perftest 4.5 (6.06), 64K x 50" 90
	one ib_send_bw "$1" "$2" '^ 65536 +50 +[0-9.]+ +[0-9.]+[[:space:]]+[0-9.]+' -s 65536 -n 50
	pass
done
