# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 420
# A static rdmatest (-Dstatic=true) in a guest with no shared RDMA library:
# libibverbs, librdmacm, the provider .so files and their driver config are
# moved away first (the base image carries them for a dynamic rdmatest), so
# the only providers are the ones linked into the binary. Each applet runs
# server and client over rxe1, including rstream's rsocket path, which
# reaches librdmacm without going through rt_cm_init's device check.
LIBDIR=/usr/lib/x86_64-linux-gnu
HIDDEN=/tmp/lab/hidden-rdma-libs

case_begin static/no-shared-rdma-libs 30
mkdir -p "$HIDDEN"
for f in "$LIBDIR"/libibverbs.so* "$LIBDIR"/librdmacm.so* "$LIBDIR"/libibverbs "$LIBDIR"/librxe* \
	/etc/libibverbs.d; do
	[ -e "$f" ] && mv "$f" "$HIDDEN/"
done
left=$(ls -d "$LIBDIR"/libibverbs* "$LIBDIR"/librdmacm* "$LIBDIR"/lib*-rdmav*.so /etc/libibverbs.d 2>/dev/null)
[ -z "$left" ] || fail "still present: $left"
# The upstream peers run chrooted in /opt/peers with libraries of their own,
# which this guest's loader never searches: no copy may be left anywhere it
# does (the library directories; the loader's cache is not in the image).
left=$(find /lib /usr/lib /usr/local/lib \( -name 'libibverbs.so*' -o -name 'librdmacm.so*' \
	-o -name '*-rdmav*.so' \) 2>/dev/null)
failed || [ -z "$left" ] || fail "the libraries are not gone: $left"
pass

case_begin static/rping 90
bg_start srv a "$RT/rping" -s -a "$B" -v
wait_listen a 7174 20 || fail "rping server not listening on 7174"
failed || run_on -t 60 a "$RT/rping" -c -a "$B" -C 10 -V -v || fail "rping client exited $?"
failed || [ "$(grep -c 'ping data: rdma-ping-' "$OUT")" = 10 ] || fail "client did not print 10 pings"
failed || bg_wait srv 20 || fail "rping server exited $?"
pass

case_begin static/ucmatose 90
bg_start srv a "$RT/ucmatose"
wait_listen a 7471 20 || fail "ucmatose server not listening on 7471"
failed || run_on -t 60 a "$RT/ucmatose" -s "$B" || fail "ucmatose client exited $?"
failed || bg_wait srv 20 || fail "ucmatose server exited $?"
pass

case_begin static/mckey 90
if need_applet mckey; then
	bg_start rcv a "$RT/mckey" --timeout 5 -m 239.1.2.3 -b "$B" -C 10
	wait_log rcv 'receiving data transfers' 40 || fail "mckey receiver did not get ready"
	failed || run_on -t 60 a "$RT/mckey" -m 239.1.2.3 -b "$B" -s -C 10 || fail "mckey sender exited $?"
	failed || bg_wait rcv 30 || fail "mckey receiver exited $?"
fi
pass

# rsocket() and rdma_getaddrinfo() make librdmacm look for devices itself.
case_begin static/rstream-rsockets 120
if need_applet rstream; then
	bg_start srv a "$RT/rstream" -S 1000 -C 100
	wait_listen a 7471 20 || fail "rstream server not listening on 7471"
	failed || run_on -t 90 a "$RT/rstream" -s "$B" -S 1000 -C 100 || fail "rstream client exited $?"
	failed || bg_wait srv 20 || fail "rstream server exited $?"
fi
pass

# glibc's static getaddrinfo: numeric addresses need nothing; a name from
# /etc/hosts works too (files is built into libc.a since glibc 2.34).
case_begin static/host-name-from-etc-hosts 60
bg_start srv a "$RT/rping" -s -a "$B"
wait_listen a 7174 20 || fail "rping server not listening on 7174"
failed || run_on -t 40 a "$RT/rping" -c -a b -C 2 || fail "rping -a b (from /etc/hosts) exited $?"
failed || bg_wait srv 20 || fail "rping server exited $?"
pass

# GPU memory needs a driver loaded with dlopen, which a static glibc
# binary cannot do: refused before any peer is reached, naming the build
# to use
case_begin "static/ib_write_bw --use_cuda: exit 3 naming the dynamic build" 30
if need_applet ib_write_bw; then
	run_on -t 20 a "$RT/ib_write_bw" --timeout 5 --use_cuda=0 "$B"
	rc=$?
	[ "$rc" = 3 ] || fail "exit $rc, expected 3"
	failed || output_has "needs the dynamically linked rdmatest: this static build cannot load libcuda.so.1" ||
		fail "no reason naming the dynamic build"
fi
pass

case_begin static/restore-libs 20
for f in "$HIDDEN"/*; do
	case ${f##*/} in libibverbs.d) mv "$f" /etc/ ;; *) mv "$f" "$LIBDIR/" ;; esac
done
run_on a /usr/bin/rping -h
[ "$?" != 127 ] || fail "upstream rping still does not start"
pass
