# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 120
# Demo: rdmatest rcopy from host a (192.0.2.1) to host b (192.0.2.2) over
# an rsocket: 8 MiB to an rdmatest server (confined to /tmp/rcopy) and to
# Debian's rcopy (v44), the cksum compared with cksum(1) on host b.
run_on -t 10 a sh -c 'head -c 8388608 /dev/urandom > /tmp/demo.bin' >/dev/null
run_on -t 10 b mkdir -p /tmp/rcopy >/dev/null
for peer in rdmatest upstream; do
	case $peer in
	rdmatest) srv="$RT/rcopy -d /tmp/rcopy --clients 1 --accept-timeout 60" dest=demo.bin ;;
	*) srv=/usr/bin/rcopy dest=/tmp/rcopy/demo.bin ;;
	esac
	case_begin "rcopy: rt client -> $peer server, 8 MiB" 60
	run_on -t 10 b rm -f /tmp/rcopy/demo.bin >/dev/null
	bg_start srv b $srv
	wait_listen b 7427 20 || fail "server not listening on 7427"
	failed || run_on -t 40 a $RT/rcopy /tmp/demo.bin "$B:$dest" --json || fail "client exited $?"
	ck=$(json_num "$OUT" results cksum)
	failed || run_on -t 10 b cksum /tmp/rcopy/demo.bin || fail "no copy on b"
	failed || output_has "^$ck 8388608 " || fail "cksum on b differs from the client's $ck"
	[ $peer = rdmatest ] && { failed || bg_wait srv 30 || fail "server exited $?"; }
	[ $peer = upstream ] && bg_kill srv KILL >/dev/null
	demo_row rcopy "$peer" "rt client -> $(side "$peer") server" "8 MiB, cksum $ck matches"
	pass
done
