# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 240
# udpong interop over kernel UDP (-T s): rdmatest and upstream (rdma-core
# v44) as client and server both ways and rdmatest both sides (custom rows,
# an echoed row, the default series with --scale), every row in upstream's
# table. Datagram rsockets (the default) cannot work on rxe: librdmacm
# addresses a datagram rsocket's peer by LID without a GRH, which RoCE
# refuses; upstream's client fails in rconnect, ours exits 3 naming it.
# Upstream's server binds the loopback address unless given -b (it asks
# getaddrinfo for no node without AI_PASSIVE): the record is checked, and
# the interop cases give it -b.
# Then a server that is absent or on another port, bounded on our side.
# Server on host b, client on host a.
UP=/usr/bin/udpong
RTU="$RT/udpong"
NUMS='[ 0-9]{5}\.[0-9]{2}s[ 0-9]{7}\.[0-9]{2}[ 0-9]{8}\.[0-9]{2}'
ROW="[0-9a-z._]+ +[0-9.kmg]+ +[0-9kmb]+ +[0-9.kmg]+ +$NUMS"

# wait_udp a|b PORT SEC: a UDP socket is bound to PORT.
wait_udp() {
	local hex
	hex=$(printf '%04X' "$2")
	_poll "$1" "$3" "udp bound to port $2" \
		"cat /proc/net/udp /proc/net/udp6 2>/dev/null | awk '{ print \$2 }' | grep -q ':$hex\$'"
}

case_begin "default mode on rxe: rt client exit 3 names the missing capability" 30
run_on -t 20 a $RTU -s "$B" --timeout 3; rc=$?
[ $rc = 3 ] || fail "exit $rc, wanted 3"
failed || output_has "rsocket datagrams need LID addressing, and RoCE \(rxe\) gives them no GRH; use -T s" ||
	fail "capability not named"
pass

case_begin "default mode on rxe: rt server ends by --accept-timeout (v44's rpoll bypassed)" 30
run_on -t 20 b $RTU --accept-timeout 2; rc=$?
[ $rc = 124 ] || fail "exit $rc, wanted 124"
failed || output_has "no client within --accept-timeout" || fail "end not named"
pass

case_begin "default mode on rxe: upstream's client fails in rconnect (the record)" 30
bg_start srv b $UP
run_on -t 15 a $UP -s "$B" -C 10; rc=$?
[ $rc = 124 ] && fail "upstream client hung"
failed || output_has "rconnect: " || fail "no rconnect failure (exit $rc)"
note "upstream default mode: exit $rc, $(grep rconnect "$OUT" | head -1)"
bg_kill srv KILL >/dev/null
pass

# attempt SERVER CLIENT: the server on b, then the client on a (45 s).
# Upstream's client never resends: one datagram the emulated link drops
# (the rt -> rt series counts a lost one now and then) leaves it waiting
# for its echo for ever. So a client of upstream's gets 20 s (its runs
# take 2 to 5 s) and, when it timed out, up to two more attempts, noted;
# ours resends and gets one attempt.
attempt() {
	local srv=$1 cli=$2 rc n=1 bound=45
	case $cli in
	$UP*) n=3 bound=20 ;;
	esac
	while :; do
		bg_start srv b $srv
		wait_udp b 7174 20 || { fail "server not bound to 7174"; return 1; }
		run_on -t $bound a $cli && return 0
		rc=$?
		case "$rc:$cli" in
		124:$UP*) ;;
		*) fail "client exited $rc"; return 1 ;;
		esac
		n=$((n - 1))
		[ $n -gt 0 ] || { fail "client timed out three times"; return 1; }
		note "upstream client timed out (a lost datagram?): once more"
		bg_kill srv KILL >/dev/null
	done
}

# one NAME SERVER CLIENT ROWS [REGEX]: the server on b, the client on a,
# the client exits 0 with ROWS rows (and a line matching REGEX); an
# upstream server is killed after, ours ends by itself.
one() {
	local name=$1 srv=$2 cli=$3 rows=$4 re=${5:-.} n
	case_begin "$name" 110
	attempt "$srv" "$cli"
	n=$(grep -Ec "^$ROW" "$OUT")
	failed || [ "$n" = "$rows" ] || fail "$n rows, wanted $rows"
	failed || output_has "$re" || fail "no line matching $re"
	case $srv in
	$UP*) bg_kill srv KILL >/dev/null ;;
	*) failed || bg_wait srv 30 || fail "server exited $?"
	   failed || bg_log srv | grep -q "^client login from $A\$" || fail "no login line" ;;
	esac
	pass
}
case_begin "upstream server without -b: bound to loopback only (the record)" 40
bg_start srv b $UP -T s
wait_udp b 7174 20 || fail "server not bound to 7174"
# 127.0.0.1 or ::1, whichever getaddrinfo returned first
failed || run_on -t 10 b grep -Eq '^ *[0-9]+: (0100007F|0{24}01000000):1C06 ' \
	/proc/net/udp /proc/net/udp6 || fail "not on loopback port 7174"
failed || { run_on -t 20 a $RTU -T s -s "$B" --timeout 2; rc=$?; [ $rc = 1 ] || fail "client exit $rc"; }
failed || output_has "login: the server's port is unreachable" || fail "not named"
bg_kill srv KILL >/dev/null
pass

one "rt client -> upstream server, custom 1000 x 1000" "$UP -T s -b $B" "$RTU -T s -s $B -C 1000" 1 \
	"^custom    1000    "
one "rt client -> upstream server, echoed 200 x 100" "$UP -T s -b $B" "$RTU -T s,e -s $B -C 200 -S 100" 1
one "rt client -> upstream server, default series / 100" "$UP -T s -b $B" "$RTU -T s -s $B --scale 100" 18
one "upstream client -> rt server, custom 1000 x 1000" "$RTU -T s --clients 1 --timeout 2 --accept-timeout 30" \
	"$UP -T s -s $B -C 1000" 1
one "upstream client -> rt server, echoed 200 x 100" "$RTU -T s --clients 1 --timeout 2 --accept-timeout 30" \
	"$UP -T s -T e -s $B -C 200 -S 100" 1 "^custom    100     400     "
one "rt -> rt, default series / 100" "$RTU -T s --clients 1 --accept-timeout 30" \
	"$RTU -T s -s $B --scale 100" 18

case_begin "server absent: rt client ends within --timeout, named" 30
run_on -t 20 a $RTU -T s -s "$B" --timeout 2; rc=$?
[ $rc = 1 ] || fail "exit $rc, wanted 1"
failed || output_has "login: the server's port is unreachable" || fail "not named"
pass

case_begin "mismatched port: rt client ends, rt server ends by --accept-timeout" 40
bg_start srv b $RTU -T s -p 7175 --clients 1 --accept-timeout 4
wait_udp b 7175 20 || fail "server not bound to 7175"
failed || { run_on -t 20 a $RTU -T s -s "$B" --timeout 2; rc=$?; [ $rc = 1 ] || fail "client exit $rc"; }
failed || { bg_wait srv 20; rc=$?; [ $rc = 124 ] || fail "server exit $rc, wanted 124"; }
failed || bg_log srv | grep -q "no client within --accept-timeout" || fail "server end not named"
pass
