# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 200
# Demo: rdmatest riostream between host a (192.0.2.1, client) and host b
# (192.0.2.2, server) over Soft-RoCE: 64k iomap writes, against rdmatest
# and against Debian's riostream (v44).
for peer in rdmatest upstream; do
	case $peer in rdmatest) srv="$RT/riostream --accept-timeout 60" ;; *) srv=/usr/bin/riostream ;; esac
	case_begin "riostream: rt client -> $peer server, 64k x 100" 90
	bg_start srv b $srv -S 65536 -C 100
	wait_listen b 7471 20 || fail "server not listening on 7471"
	failed || run_on -t 60 a $RT/riostream -s "$B" -S 65536 -C 100 --json || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	demo_row riostream "$peer" "rt client -> $(side "$peer") server" \
		"$(num 3 "$(json_num "$OUT" gbps)" Gb/s)"
	pass
done
