# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 300
# The ib_* applets' addressing and resource options (perftest_res.h)
# against perftest 25.01 (Debian 13), both directions where perftest runs
# the option on Soft-RoCE: --bind_source_ip (a second address on each
# host; with -R too), --ipv6 (the guests' eth0 gains a ULA: the GID is
# its RoCE v2 GID though the exchange runs over IPv4), --mr_per_qp -q 2,
# --use-srq (send BW -q 2, send latency), --recv_post_list 4 (send BW -b),
# --use_hugepages (none free: exit 3 naming them; then with 64 of 2 MiB),
# --mmap with --mmap-offset, --force-link Ethernet. What the guests'
# rxe (kernel 6.1) lacks exits 3 naming it before any peer: --odp (no
# On-Demand Paging: empty odp_caps), -O (one port), --pkey_index 1 (one
# P_Key); --dlid on RoCE exits 2. No perftest peer there: rdmatest stops
# before it would need one (how perftest 25.01 fails these on rxe was not
# checked). -n 200: a second or two each; the whole file about 80 s.
. "$LAB_SCEN/faults.inc"

UP=/opt/peers/up13
bw_row() { echo "^ $1 +$2 +$R"; }
ROW=$(bw_row 65536 200)

# side rt|pt TEST: the command of one side (perftest 25.01 chooses its GID)
side() {
	if [ "$1" = rt ]; then echo "$RT/$2 --timeout 10"; else echo "$UP/$2"; fi
}

# pair SRV CLI TEST "SRV_OPTS" "CLI_OPTS" [-R]: the server on b, the
# client on a (to $CONNECT, default $B); both exit 0 and the rdmatest
# side prints the row. The server's output is left in /tmp/res.srv.
pair() {
	local s=$1 c=$2 t=$3 so=$4 co=$5 m=${6:-}
	case_begin "$t${m:+ $m} $co: $c client -> $s server${so:+ $so}" 40
	bg_start srv b $(side "$s" "$t") -d "$DEV_B" $m $so -n 200
	if [ -n "$m" ]; then
		wait_listen b 18515 20 || fail "server not listening on 18515"
	else
		wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	fi
	failed || run_on -t 30 a $(side "$c" "$t") -d "$DEV_A" $m $co -n 200 "${CONNECT:-$B}" ||
		fail "$c client exited $?"
	failed || bg_wait srv 20 || fail "$s server exited $?"
	bg_log srv > /tmp/res.srv
	if [ "$c" = rt ]; then failed || output_has "$ROW" || fail "client printed no row"; fi
	if [ "$s" = rt ]; then failed || grep -Eq "$ROW" /tmp/res.srv || fail "server printed no row"; fi
}

# ---- --bind_source_ip: a second address on each host's eth0 ---------------
run_on a ip addr add 192.0.2.101/24 dev eth0
run_on b ip addr add 192.0.2.102/24 dev eth0
sleep 1 # the GID tables take the new addresses

# the rdmatest client's local GID is its source's; the rdmatest server
# listens on its own source only and names the client's
pair pt rt ib_write_bw "" "--bind_source_ip 192.0.2.101"
failed || output_has '^ local address: .*' || fail "client: no local address"
failed || output_has ' GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:00:02:101$' ||
	fail "client: local GID not 192.0.2.101's"
pass
CONNECT=192.0.2.102 pair rt pt ib_write_bw "--bind_source_ip 192.0.2.102" "--bind_source_ip 192.0.2.101"
failed || grep -q ' GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:00:02:102$' /tmp/res.srv ||
	fail "server: local GID not 192.0.2.102's"
pass
pair pt rt ib_send_bw "" "--bind_source_ip 192.0.2.101" -R
failed || output_has ' GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:00:02:101$' ||
	fail "-R client: QPs' GID not 192.0.2.101's"
pass

case_begin "--bind_source_ip an address the host lacks: exit 3 naming it" 20
run_on -t 15 a $RT/ib_write_bw --timeout 5 -d "$DEV_A" --bind_source_ip 192.0.2.199 "$B"
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has "bind_source_ip 192.0.2.199: no interface of this host can bind it" ||
	fail "not named"
pass

# ---- --ipv6: an IPv6 RoCE v2 GID over an IPv4 exchange -------------------
run_on a ip -6 addr add fd00:77::1/64 dev eth0 nodad
run_on b ip -6 addr add fd00:77::2/64 dev eth0 nodad
# the GID table follows the address through the kernel's RoCE GID work
# queue: wait for each host's GID rather than a fixed time
for h in a b; do
	n=1; [ "$h" = a ] || n=2
	_poll $h 10 "fd00:77::$n in rxe0's GID table" \
		"cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -q '^fd00:0077:0000:0000:0000:0000:0000:000$n\$'"
done
pair rt pt ib_send_bw "--ipv6" "--ipv6"
failed || grep -q ' GID: 253:00:00:119:00:00:00:00:00:00:00:00:00:00:00:02$' /tmp/res.srv ||
	fail "server: local GID not fd00:77::2's"
pass
pair pt rt ib_write_bw "--ipv6" "--ipv6"
failed || output_has ' GID: 253:00:00:119:00:00:00:00:00:00:00:00:00:00:00:01$' ||
	fail "client: local GID not fd00:77::1's"
pass

# ---- --mr_per_qp -q 2 --------------------------------------------------------
ROW=$(bw_row 65536 400)
pair rt pt ib_write_bw "--mr_per_qp -q 2" "--mr_per_qp -q 2"
pass
pair pt rt ib_read_bw "--mr_per_qp -q 2" "--mr_per_qp -q 2"
failed || [ "$(grep -c 'RKey' "$OUT")" -ge 4 ] || fail "client: fewer than 4 address lines"
pass
ROW=$(bw_row 65536 200)

# ---- --use-srq (send tests) and --recv_post_list (send BW) --------------------
# -s 1024, one packet a message: with 64 KiB messages perftest 25.01's SRQ
# server failed two runs of three against rdmatest's client under load
# (a receive completing with a local QP operation error after 100 to 190
# messages; the client sees a remote error), and passed the third and
# once against its own client. Not understood yet; the SRQ itself is what
# these cases are about.
ROW=$(bw_row 1024 400)
pair rt pt ib_send_bw "--use-srq -q 2 -s 1024" "--use-srq -q 2 -s 1024"
failed || grep -q 'Using SRQ      : ON' /tmp/res.srv || fail "server: no 'Using SRQ : ON'"
pass
pair pt rt ib_send_bw "--use-srq -q 2 -s 1024" "--use-srq -q 2 -s 1024"
pass
ROW="^ 2 +200 +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}"
pair rt pt ib_send_lat "--use-srq" "--use-srq"
failed || grep -q 'Using SRQ      : ON' /tmp/res.srv || fail "server: no 'Using SRQ : ON'"
pass
pair pt rt ib_send_lat "--use-srq" "--use-srq"
pass
ROW=$(bw_row 65536 "[0-9]+")
pair rt pt ib_send_bw "-b --recv_post_list 4" "-b --recv_post_list 4"
pass
pair pt rt ib_send_bw "-b --recv_post_list 4" "-b --recv_post_list 4"
pass
ROW=$(bw_row 65536 200)

# ---- --use_hugepages -----------------------------------------------------------
case_begin "--use_hugepages with none free: exit 3 naming them" 20
run_on -t 15 a $RT/ib_write_bw --timeout 5 -d "$DEV_A" --use_hugepages
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has "use_hugepages: no [0-9]+ bytes of huge pages" || fail "not named"
pass
run_on a sh -c 'echo 64 > /proc/sys/vm/nr_hugepages'
run_on b sh -c 'echo 64 > /proc/sys/vm/nr_hugepages'
pair rt pt ib_send_bw "--use_hugepages" "--use_hugepages"
pass
pair pt rt ib_write_bw "--use_hugepages" "--use_hugepages"
pass

# ---- --mmap ---------------------------------------------------------------------
run_on a dd if=/dev/zero of=/tmp/res.map bs=1M count=4
run_on b dd if=/dev/zero of=/tmp/res.map bs=1M count=4
pair rt pt ib_write_bw "--mmap /tmp/res.map --mmap-offset 8192" "--mmap /tmp/res.map"
pass
pair pt rt ib_read_bw "--mmap /tmp/res.map" "--mmap /tmp/res.map --mmap-offset 4096"
pass
case_begin "--mmap of a file too short: exit 2 naming it" 20
run_on a dd if=/dev/zero of=/tmp/res.short bs=4096 count=1
run_on -t 15 a $RT/ib_write_bw --timeout 5 -d "$DEV_A" --mmap /tmp/res.short
rc=$?
[ "$rc" = 2 ] || fail "exit $rc, wanted 2"
failed || output_has "mmap /tmp/res.short: 4096 bytes, the buffer needs" || fail "not named"
pass

# ---- --force-link ---------------------------------------------------------------
pair rt pt ib_write_bw "--force-link Ethernet" "--force-link Ethernet"
pass
case_begin "--force-link IB on RoCE: exit 3 naming the link layer" 20
run_on -t 15 a $RT/ib_write_bw --timeout 5 -d "$DEV_A" --force-link IB
rc=$?
[ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has "force-link IB: $DEV_A port 1 is Ethernet" || fail "not named"
pass

# ---- what rxe lacks: exit 3 (2 for --dlid), before any peer ----------------------
# expect3 CODE REGEX CMD...: the applet exits CODE naming REGEX, at once
expect3() {
	local want=$1 re=$2 exe=$3
	shift 3
	case_begin "${exe##*/} $* on rxe: exit $want naming it" 20
	run_on -t 15 a "$exe" "$@"
	rc=$?
	[ "$rc" = "$want" ] || fail "exit $rc, wanted $want"
	failed || output_has "$re" || fail "no /$re/"
	pass
}
expect3 3 "odp: $DEV_A has no On-Demand Paging" $RT/ib_write_bw -d "$DEV_A" --odp
expect3 3 "odp: $DEV_A has no On-Demand Paging" $RT/ib_send_lat -d "$DEV_A" --odp "$B"
expect3 3 "dualport\\): $DEV_A has 1 port, a dual-port run needs two" $RT/ib_send_bw -d "$DEV_A" -O
expect3 2 "dlid: $DEV_A port 1 is RoCE" $RT/ib_write_bw -d "$DEV_A" --dlid 5
expect3 3 "pkey_index 1: $DEV_A port 1 has no P_Key there" $RT/ib_write_bw -d "$DEV_A" --pkey_index 1

# leave the hosts as they were for the scenarios after this one
for h in a b; do
	n=1; [ "$h" = a ] || n=2
	run_on $h sh -c "ip addr del 192.0.2.10$n/24 dev eth0; ip -6 addr del fd00:77::$n/64 dev eth0;
		echo 0 > /proc/sys/vm/nr_hugepages; rm -f /tmp/res.map /tmp/res.short" > /dev/null
done
