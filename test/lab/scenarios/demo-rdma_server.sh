# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest rdma_server on host b (192.0.2.2) against rdmatest and against
# Debian's rdma_client (v44) on host a (192.0.2.1).
for peer in rdmatest upstream; do
	case $peer in rdmatest) cli=$RT/rdma_client ;; *) cli=/usr/bin/rdma_client ;; esac
	case_begin "rdma_server: $peer rdma_client -> rt server" 60
	bg_start srv b $RT/rdma_server --json
	wait_listen b 7471 20 || fail "server not listening on 7471"
	failed || run_on -t 40 a $cli -s "$B" || fail "client exited $?"
	failed || bg_wait srv 30 || fail "server exited $?"
	demo_row rdma_server "$peer" "$(side "$peer") client -> rt server" \
		"$(bg_log srv | grep -c '"received":1') message received"
	pass
done
