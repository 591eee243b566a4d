# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest rdma_xclient on host a (192.0.2.1) against rdmatest and against
# Debian's rdma_xserver (v44) on host b (192.0.2.2).
for peer in rdmatest upstream; do
	case $peer in rdmatest) srv=$RT/rdma_xserver ;; *) srv=/usr/bin/rdma_xserver ;; esac
	case_begin "rdma_xclient: rt client -> $peer rdma_xserver" 60
	bg_start srv b $srv
	wait_listen b 7471 20 || fail "server not listening on 7471"
	failed || run_on -t 40 a $RT/rdma_xclient -s "$B" --json || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	demo_row rdma_xclient "$peer" "rt client -> $(side "$peer") server" \
		"sent $(json_num "$OUT" results sent), received $(json_num "$OUT" results received)"
	pass
done
