# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest udpong between host a (192.0.2.1, client) and host b
# (192.0.2.2, server) over kernel UDP (-T s: rxe cannot carry datagram
# rsockets, see interop-udpong): 10000 x 1000-byte datagrams against
# rdmatest and against upstream udpong, with the loss the server counted.
RTU=$RT/udpong

for peer in rdmatest upstream; do
	case $peer in
	rdmatest) srv="$RTU -T s --clients 1 --accept-timeout 60" ;;
	*) srv="/usr/bin/udpong -T s -b $B" ;; # without -b it binds 127.0.0.1
	esac
	case_begin "udpong: rt client -> $peer server, 10000 x 1000 bytes over UDP" 60
	bg_start srv b $srv
	_poll b 20 "udp bound to 7174" "grep -q ':1C06 ' /proc/net/udp" || fail "server not bound to 7174"
	failed || run_on -t 40 a $RTU -T s -s "$B" -C 10000 -S 1000 || fail "client exited $?"
	row=$(grep '^custom ' "$OUT")
	failed || [ -n "$row" ] || fail "no custom row"
	[ $peer = rdmatest ] && { failed || bg_wait srv 30 || fail "server exited $?"; }
	[ $peer = upstream ] && bg_kill srv KILL >/dev/null
	demo_row udpong "$peer" "rt client -> $(side "$peer") server" \
		"$(echo "$row" | awk '{ print $6 " Gb/s, " $3 " counted, " $8 " lost" }')"
	pass
done
