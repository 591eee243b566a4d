# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 400
# rcopy interop over rsockets: rdmatest and upstream (rdma-core v44) as
# client and server both ways and rdmatest both sides, on 7427 and -p;
# every copy checked with cksum(1) on the receiving host against the
# client's printed (or the source's) checksum. Then the confinement
# refusals with Debian's client as the peer, a full --dir, a missing and
# a killed server. Client on host a, server on host b.
UP=/usr/bin/rcopy
RTC=$RT/rcopy
RTSRV="$RT/rcopy -d /tmp/rc --accept-timeout 60"

run_on -t 20 a sh -c 'head -c 5000000 /dev/urandom > /tmp/big.bin; printf x > /tmp/one.bin;
	: > /tmp/empty.bin' >/dev/null
run_on -t 10 b mkdir -p /tmp/rc /tmp/outside >/dev/null
run_on -t 10 b ln -s /tmp/outside /tmp/rc/out >/dev/null

# src_sum FILE: cksum's "CRC SIZE" of a source on host a
src_sum() { run_on -t 10 a cksum "$1" >/dev/null && awk '{ print $1 " " $2 }' "$OUT"; }
# dest_sum PATH: the same of a file on host b
dest_sum() { run_on -t 10 b cksum "$1" >/dev/null && awk '{ print $1 " " $2 }' "$OUT"; }

# copy NAME SERVER CLIENT SRC DEST_ARG DEST_PATH [ARGS]: one copy, both
# exit 0 (an upstream server is killed after), the bytes on b are the source's.
copy() {
	local name=$1 srv=$2 cli=$3 src=$4 darg=$5 dpath=$6 port=7427 want
	shift 6
	[ "$1" = -p ] && port=$2
	case_begin "$name" 60
	want=$(src_sum "$src")
	run_on -t 10 b rm -f "$dpath" >/dev/null
	bg_start srv b $srv "$@"
	wait_listen b "$port" 20 || fail "server not listening on $port"
	failed || run_on -t 40 a $cli "$src" "$B:$darg" "$@" || fail "client exited $?"
	if [ "$cli" = "$RTC" ]; then
		failed || output_has "^cksum ${want% *} ${want#* } " || fail "client printed no cksum $want"
	fi
	if [ "$srv" = "$UP" ]; then bg_kill srv KILL >/dev/null
	else failed || bg_wait srv 30 || fail "server exited $?"; fi
	failed || [ "$(dest_sum "$dpath")" = "$want" ] || fail "copy on b is not the source ($want)"
	pass
}

for p in "" "-p 7999"; do
	tag=${p:-7427}; tag=${tag// /}
	copy "rt client -> upstream server 5 MB $tag" "$UP" "$RTC" /tmp/big.bin /tmp/rc/up.bin /tmp/rc/up.bin $p
	copy "upstream client -> rt server 5 MB $tag" "$RTSRV --clients 1" "$UP" /tmp/big.bin up2.bin /tmp/rc/up2.bin $p
	copy "rt -> rt 5 MB $tag" "$RTSRV --clients 1" "$RTC" /tmp/big.bin rt.bin /tmp/rc/rt.bin $p
done
copy "rt -> rt 1 byte" "$RTSRV --clients 1" "$RTC" /tmp/one.bin one.bin /tmp/rc/one.bin
copy "rt -> rt empty file" "$RTSRV --clients 1" "$RTC" /tmp/empty.bin empty.bin /tmp/rc/empty.bin
copy "rt client -> upstream server 1 byte" "$UP" "$RTC" /tmp/one.bin /tmp/rc/one-up.bin /tmp/rc/one-up.bin

case_begin "upstream client refused: absolute, '..', a link out; each one server line" 90
bg_start srv b $RTSRV --clients 3
wait_listen b 7427 20 || fail "server not listening"
for d in /tmp/abs.bin ../dotdot.bin out/link.bin; do
	failed || ! run_on -t 30 a $UP /tmp/one.bin "$B:$d" || fail "upstream client succeeded with $d"
done
failed || { bg_wait srv 30; [ $? = 1 ] || fail "server did not exit 1"; }
failed || [ "$(bg_log srv | grep -c "refused '")" = 3 ] || fail "not one refusal line each"
failed || bg_log srv | grep -q "refused '/tmp/abs.bin': absolute path" || fail "absolute not named"
failed || bg_log srv | grep -q "refused 'out/link.bin': a symbolic link on the way" || fail "link not named"
failed || ! run_on -t 10 b ls /tmp/abs.bin /tmp/dotdot.bin /tmp/outside/link.bin || fail "a file escaped"
pass

case_begin "rt client: the refusal is named" 60
bg_start srv b $RTSRV --clients 1
wait_listen b 7427 20 || fail "server not listening"
failed || run_on -t 30 a $RTC /tmp/one.bin "$B:../x"; rc=$?
[ $rc = 1 ] || fail "client exit $rc, wanted 1"
failed || output_has "the server refused OPEN '../x': Operation not permitted" || fail "refusal not named"
bg_wait srv 30 >/dev/null
pass

case_begin "full --dir: ENOSPC named on both sides, bounded" 60
run_on -t 10 b sh -c 'mkdir -p /tmp/small && mount -t tmpfs -o size=1m tmpfs /tmp/small' || fail "no small tmpfs"
failed || bg_start srv b $RT/rcopy -d /tmp/small --clients 1 --accept-timeout 60
failed || wait_listen b 7427 20 || fail "server not listening"
failed || run_on -t 40 a $RTC --timeout 5 /tmp/big.bin "$B:big.bin"; rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "client exit $rc, wanted 1 or 124"
failed || { bg_wait srv 30; [ $? = 1 ] || fail "server did not exit 1"; }
failed || bg_log srv | grep -q "no room for 5000000 bytes" || fail "the server did not name ENOSPC"
pass

case_begin "no server: bounded exit 1" 40
run_on -t 30 a $RTC --timeout 5 /tmp/one.bin "$B:x"; rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "exit $rc, wanted 1 or 124"
pass

case_begin "server killed before the client came: bounded exit" 40
bg_start srv b $UP
wait_listen b 7427 20 || fail "server not listening"
bg_kill srv KILL >/dev/null
failed || run_on -t 30 a $RTC --timeout 5 /tmp/one.bin "$B:x"; rc=$?
[ $rc = 1 ] || [ $rc = 124 ] || fail "exit $rc, wanted 1 or 124"
pass

case_begin "no client: the rt server ends after --accept-timeout" 30
run_on -t 20 b $RT/rcopy -d /tmp/rc --accept-timeout 2; rc=$?
[ $rc = 124 ] || fail "exit $rc, wanted 124"
pass
