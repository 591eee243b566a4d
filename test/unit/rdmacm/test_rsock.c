/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The stream test's pure parts (size ladder, row rules, the table byte for
 * byte, sync block, running-counter verification) and the stream socket
 * helpers over real kernel sockets: socketpairs and TCP on 127.0.0.1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmacm/rsock.h"
#include "rdmacm/stream.h"
#include "rdmatest/util.h"

/* ---- ladder and rows ---- */

static void ladder_is_upstreams(void **state)
{
	static const uint32_t want[RT_STREAM_LADDER_LEN] = {
		64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
		6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536, 98304,
		131072, 196608, 262144, 393216, 524288, 786432, 1048576, 1572864,
		2097152, 3145728, 4194304, 6291456,
	};
	size_t defaults = 0;

	(void)state;
	for (size_t i = 0; i < RT_STREAM_LADDER_LEN; i++) {
		assert_int_equal(rt_stream_ladder_size(i), want[i]);
		if (rt_stream_ladder_default(i)) {
			uint32_t s = want[i];

			assert_true(s == 64 || s == 4096 || s == 65536 || s == 1048576);
			defaults++;
		}
	}
	assert_int_equal(defaults, 4);
	assert_int_equal(RT_STREAM_LADDER_MAX, want[RT_STREAM_LADDER_LEN - 1]);
}

static void rows_follow_the_iteration_rule(void **state)
{
	static const struct { uint64_t size, n; } t[] = {
		{ 64, 100000 }, { 1023, 100000 }, { 1024, 10000 }, { 4096, 10000 },
		{ 65535, 10000 }, { 65536, 1000 }, { 1048575, 1000 }, { 1048576, 100 },
		{ 6291456, 100 },
	};
	struct rt_stream_row r;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		rt_stream_row_init(&r, RT_ROW_LAT, t[i].size, 7, 7);
		assert_int_equal(r.count, 1);
		assert_int_equal(r.iters, t[i].n);
		rt_stream_row_init(&r, RT_ROW_BW, t[i].size, 7, 7);
		assert_int_equal(r.count, t[i].n);
		assert_int_equal(r.iters, 1);
	}
	rt_stream_row_init(&r, RT_ROW_LAT, 1536, 0, 0);
	assert_string_equal(r.name, "1.5k_lat");
	rt_stream_row_init(&r, RT_ROW_BW, 6291456, 0, 0);
	assert_string_equal(r.name, "6m_bw");
	rt_stream_row_init(&r, RT_ROW_CUSTOM, 1500, 10, 3);
	assert_string_equal(r.name, "custom");
	assert_int_equal(r.count, 10);
	assert_int_equal(r.iters, 3);
	assert_int_equal(rt_stream_row_bytes(&r), 90000);
}

/* ---- the table: upstream's own output (reference §6.5), and times that
 * reproduce each line ---- */

static void header_is_byte_exact(void **state)
{
	char buf[128];

	(void)state;
	rt_stream_header(buf, sizeof(buf));
	assert_string_equal(buf, "name      bytes   xfers   iters   total       "
			    "time     Gb/sec    usec/xfer");
}

static void rows_are_byte_exact(void **state)
{
	static const struct {
		enum rt_row_kind kind;
		uint64_t size;
		double usec;
		const char *line;
	} t[] = {
		{ RT_ROW_LAT, 64, 2546000, "64_lat    64      1       100k    12m         2.55s      0.04      12.73" },
		{ RT_ROW_LAT, 4096, 94400, "4k_lat    4k      1       10k     78m         0.09s      6.94       4.72" },
		{ RT_ROW_LAT, 65536, 37205, "64k_lat   64k     1       1k      125m        0.04s     28.18      18.60" },
		{ RT_ROW_LAT, 1048576, 30420, "1m_lat    1m      1       100     200m        0.03s     55.15     152.10" },
		{ RT_ROW_BW, 64, 838000, "64_bw     64      100k    1       12m         0.84s      0.12       4.19" },
		{ RT_ROW_BW, 4096, 121280, "4k_bw     4k      10k     1       78m         0.12s      5.40       6.06" },
		{ RT_ROW_BW, 65536, 93620, "64k_bw    64k     1k      1       125m        0.09s     11.20      46.81" },
		{ RT_ROW_BW, 1048576, 99916, "1m_bw     1m      100     1       200m        0.10s     16.79     499.58" },
	};
	struct rt_stream_row r;
	char buf[160];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		rt_stream_row_init(&r, t[i].kind, t[i].size, 0, 0);
		rt_stream_row_format(buf, sizeof(buf), &r, t[i].usec);
		assert_string_equal(buf, t[i].line);
	}
	rt_stream_row_init(&r, RT_ROW_CUSTOM, 1500, 10, 3);
	rt_stream_row_format(buf, sizeof(buf), &r, 340.2);
	assert_string_equal(buf, "custom    1.4k    10      3       87k         0.00s      2.12       5.67");
}

/* ---- sync block ---- */

static void sync_block_round_trip(void **state)
{
	struct rt_stream_row r;
	struct rt_stream_sync s;
	uint8_t b[RT_STREAM_SYNC_LEN];

	(void)state;
	rt_stream_row_init(&r, RT_ROW_CUSTOM, 70000, 1000, 123456);
	rt_stream_sync_encode(b, 's', &r);
	assert_memory_equal(b, "rts\1", 4);
	assert_true(rt_stream_sync_decode(b, &s));
	assert_int_equal(s.role, 's');
	assert_int_equal(s.size, 70000);
	assert_int_equal(s.count, 1000);
	assert_int_equal(s.iters, 123456);
	assert_int_equal(b[4], 0); /* big-endian 70000 = 0x00011170 */
	assert_int_equal(b[5], 0x01);
	assert_int_equal(b[6], 0x11);
	assert_int_equal(b[7], 0x70);
	memset(b, 0, sizeof(b)); /* upstream's first sync: a fresh buffer */
	assert_false(rt_stream_sync_decode(b, &s));
	rt_stream_sync_encode(b, 'x', &r);
	assert_false(rt_stream_sync_decode(b, &s));
}

/* ---- verification: the same answers as upstream's common.c ---- */

/* A straight model of upstream's format_buf/verify_buf statics. */
struct model {
	uint8_t data;
	long long total;
};

static long long model_check(struct model *m, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++, m->total++)
		if (b[i] != m->data++)
			return m->total;
	return -1;
}

static void fill_is_a_running_counter(void **state)
{
	struct rt_stream_verify v = { 0 };
	uint8_t b[700];

	(void)state;
	rt_stream_verify_fill(&v, b, 16);  /* a sync */
	rt_stream_verify_fill(&v, b + 16, 684);
	for (size_t i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], (uint8_t)i);
	assert_int_equal(v.fill_next, (uint8_t)700);
	assert_int_equal(v.check_next, 0); /* the two counters are separate */
}

static void check_numbers_failures_across_calls(void **state)
{
	struct rt_stream_verify tx = { 0 }, rx = { 0 };
	struct model m = { 0 };
	uint8_t b[1000];

	(void)state;
	for (int call = 0; call < 5; call++) { /* 16 + 4 x 1000 good bytes */
		size_t n = call ? sizeof(b) : 16;

		rt_stream_verify_fill(&tx, b, n);
		assert_int_equal(rt_stream_verify_check(&rx, b, n), -1);
		assert_int_equal(model_check(&m, b, n), -1);
	}
	assert_int_equal(rx.checked, 4016);
	rt_stream_verify_fill(&tx, b, sizeof(b));
	b[777] ^= 0x40;
	assert_int_equal(rt_stream_verify_check(&rx, b, sizeof(b)), 4016 + 777);
	assert_int_equal(model_check(&m, b, sizeof(b)), 4016 + 777);
	/* after a failure both keep the counter shifted past the bad byte */
	rt_stream_verify_fill(&tx, b, 64);
	assert_int_equal(rt_stream_verify_check(&rx, b, 64), model_check(&m, b, 64));
	assert_int_equal(rx.checked, (uint64_t)m.total);
}

static void check_finds_the_first_bad_byte_anywhere(void **state)
{
	uint8_t b[600];

	(void)state;
	for (size_t bad = 0; bad < sizeof(b); bad += 37) {
		struct rt_stream_verify tx = { .fill_next = 200 }, rx = { .check_next = 200 };
		struct model m = { .data = 200 };

		rt_stream_verify_fill(&tx, b, sizeof(b));
		b[bad]++;
		assert_int_equal(rt_stream_verify_check(&rx, b, sizeof(b)), (int64_t)bad);
		assert_int_equal(model_check(&m, b, sizeof(b)), (long long)bad);
	}
}

/* ---- socket helpers over kernel sockets ---- */

struct ctx {
	int calls;
};

static void describe(void *arg, char *where, size_t wl, char *hint, size_t hl)
{
	((struct ctx *)arg)->calls++;
	snprintf(where, wl, "row 4k_lat");
	snprintf(hint, hl, "do -S/-C/-I match?");
}

static void pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static struct rt_stream stream(int fd, enum rt_stream_wait w, long long ms,
			       struct ctx *c)
{
	struct rt_stream s = { .ops = &rt_sock_kernel, .fd = fd, .wait = w,
			       .timeout_ms = ms, .describe = describe,
			       .describe_arg = c };
	struct rt_error e = { 0 };

	assert_int_equal(rt_stream_set_wait(&s, &e), 0);
	return s;
}

static const enum rt_stream_wait modes[] = { RT_WAIT_SPIN, RT_WAIT_POLL, RT_WAIT_BLOCK };

/* The writer, in a child: more than a socket buffer holds. */
static void write_child(int fd, enum rt_stream_wait w, const uint8_t *buf, size_t len)
{
	struct ctx c = { 0 };
	struct rt_error e = { 0 };
	struct rt_stream s = stream(fd, w, 5000, &c);

	_exit(rt_stream_send_all(&s, buf, len, &e) ? 1 : 0);
}

static void round_trip_in_every_mode(void **state)
{
	static uint8_t out[200000], in[200000];

	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		struct rt_stream_verify v = { 0 }, w = { 0 };
		struct ctx c = { 0 };
		struct rt_error e = { 0 };
		struct rt_stream r;
		int sv[2], st;
		pid_t pid;

		pair(sv);
		rt_stream_verify_fill(&v, out, sizeof(out));
		pid = fork();
		if (pid == 0) {
			close(sv[0]);
			write_child(sv[1], modes[m], out, sizeof(out));
		}
		close(sv[1]);
		r = stream(sv[0], modes[m], 5000, &c);
		assert_int_equal(rt_stream_recv_all(&r, in, sizeof(in), &e), 0);
		assert_int_equal(rt_stream_verify_check(&w, in, sizeof(in)), -1);
		assert_int_equal(r.received, sizeof(in));
		assert_int_equal(c.calls, 0);
		close(sv[0]);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_int_equal(st, 0);
	}
}

static void peer_close_mid_receive_is_exit_1(void **state)
{
	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		uint8_t buf[200] = { 0 };
		struct ctx c = { 0 };
		struct rt_error e = { 0 };
		uint64_t t0 = rt_now_ns();
		struct rt_stream s;
		int sv[2];

		pair(sv);
		assert_int_equal(write(sv[1], buf, 100), 100);
		close(sv[1]);
		s = stream(sv[0], modes[m], 5000, &c);
		assert_int_equal(rt_stream_recv_all(&s, buf, sizeof(buf), &e), -1);
		assert_int_equal(e.exit_code, RT_EXIT_FAIL);
		assert_string_equal(e.reason, "row 4k_lat: closed by the peer after 100 "
				    "of 200 bytes: do -S/-C/-I match?");
		assert_int_equal(s.received, 100);
		assert_true(rt_now_ns() - t0 < 2000000000ull); /* not the timeout */
		close(sv[0]);
	}
}

static void stalled_receive_is_exit_124(void **state)
{
	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		uint8_t buf[100] = { 0 };
		struct ctx c = { 0 };
		struct rt_error e = { 0 };
		uint64_t t0 = rt_now_ns(), ms;
		struct rt_stream s;
		int sv[2];

		pair(sv);
		assert_int_equal(write(sv[1], buf, 10), 10);
		s = stream(sv[0], modes[m], 200, &c);
		assert_int_equal(rt_stream_recv_all(&s, buf, sizeof(buf), &e), -1);
		ms = (rt_now_ns() - t0) / 1000000;
		assert_int_equal(e.exit_code, RT_EXIT_TIMEOUT);
		assert_string_equal(e.reason, "row 4k_lat: no data for 0.2 s after 10 "
				    "of 100 bytes: do -S/-C/-I match?");
		assert_true(ms >= 190 && ms < 2000);
		close(sv[0]);
		close(sv[1]);
	}
}

static void stalled_send_is_exit_124(void **state)
{
	size_t len = 64 << 20;
	uint8_t *buf = rt_xcalloc(1, len);

	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		struct ctx c = { 0 };
		struct rt_error e = { 0 };
		struct rt_stream s;
		int sv[2];

		pair(sv);
		s = stream(sv[0], modes[m], 200, &c);
		assert_int_equal(rt_stream_send_all(&s, buf, len, &e), -1);
		assert_int_equal(e.exit_code, RT_EXIT_TIMEOUT);
		assert_non_null(strstr(e.reason, "the peer took no data for 0.2 s after"));
		assert_true(s.sent > 0 && s.sent < len);
		close(sv[0]);
		close(sv[1]);
	}
	free(buf);
}

static void send_to_a_closed_peer_is_exit_1(void **state)
{
	uint8_t buf[100000] = { 0 };
	struct ctx c = { 0 };
	struct rt_error e = { 0 };
	struct rt_stream s;
	int sv[2];

	(void)state;
	pair(sv);
	close(sv[1]);
	s = stream(sv[0], RT_WAIT_POLL, 1000, &c);
	assert_int_equal(rt_stream_send_all(&s, buf, sizeof(buf), &e), -1); /* no SIGPIPE */
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(e.reason, "connection reset by the peer after 0 of 100000 bytes"));
	close(sv[0]);
}

static void await_close_counts_stray_bytes(void **state)
{
	struct ctx c = { 0 };
	struct rt_stream s;
	uint64_t extra = 0, t0;
	int sv[2];

	(void)state;
	pair(sv);
	s = stream(sv[0], RT_WAIT_SPIN, 1000, &c);
	assert_int_equal(write(sv[1], "0123456789", 10), 10);
	close(sv[1]);
	assert_int_equal(rt_stream_await_close(&s, 1000, &extra), 0);
	assert_int_equal(extra, 10);
	close(sv[0]);

	pair(sv); /* a peer that stays: -1 after the bound */
	s = stream(sv[0], RT_WAIT_BLOCK, 1000, &c);
	extra = 0;
	t0 = rt_now_ns();
	assert_int_equal(rt_stream_await_close(&s, 150, &extra), -1);
	assert_true(rt_now_ns() - t0 >= 140000000ull);
	assert_int_equal(extra, 0);
	close(sv[0]);
	close(sv[1]);
}

/* ---- connect and accept over TCP on 127.0.0.1 ---- */

static int listener(struct sockaddr_in *sin)
{
	struct rt_error e = { 0 };
	socklen_t len = sizeof(*sin);
	int fd;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(rt_sock_open(&rt_sock_kernel, AF_INET, &fd, &e), 0);
	assert_int_equal(rt_sock_listen(&rt_sock_kernel, fd, (struct sockaddr *)sin,
					sizeof(*sin), &e), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)sin, &len), 0);
	return fd;
}

static void connect_and_accept(void **state)
{
	struct sockaddr_in sin;
	struct rt_error e = { 0 };
	struct ctx c = { 0 };
	struct rt_stream s = { .ops = &rt_sock_kernel, .wait = RT_WAIT_SPIN,
			       .timeout_ms = 2000, .describe = describe, .describe_arg = &c };
	struct rt_stream a;
	int lfd = listener(&sin), afd;
	char hello[6] = "";

	(void)state;
	assert_int_equal(rt_sock_open(&rt_sock_kernel, AF_INET, &s.fd, &e), 0);
	assert_int_equal(rt_stream_connect(&s, (struct sockaddr *)&sin, sizeof(sin), 2000, &e), 0);
	assert_int_equal(rt_sock_accept(&rt_sock_kernel, lfd, 2000, &afd, &e), 0);
	assert_int_equal(rt_stream_send_all(&s, "hello", 6, &e), 0);
	a = stream(afd, RT_WAIT_BLOCK, 2000, &c);
	assert_int_equal(rt_stream_recv_all(&a, hello, 6, &e), 0);
	assert_string_equal(hello, "hello");
	rt_stream_close(&s, true);
	assert_int_equal(s.fd, -1);
	assert_int_equal(rt_stream_recv_all(&a, hello, 1, &e), -1); /* orderly close seen */
	assert_non_null(strstr(e.reason, "closed by the peer after 0 of 1 bytes"));
	rt_stream_close(&a, true);
	close(lfd);
}

static void accept_times_out_with_124(void **state)
{
	struct sockaddr_in sin;
	struct rt_error e = { 0 };
	int lfd = listener(&sin), fd;
	uint64_t t0 = rt_now_ns();

	(void)state;
	assert_int_equal(rt_sock_accept(&rt_sock_kernel, lfd, 150, &fd, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_TIMEOUT);
	assert_string_equal(e.reason, "no client connected within 0.15 s");
	assert_true(rt_now_ns() - t0 >= 140000000ull);
	close(lfd);
}

static void refused_connect_is_exit_1(void **state)
{
	struct sockaddr_in sin;
	struct rt_error e = { 0 };
	struct rt_stream s = { .ops = &rt_sock_kernel, .wait = RT_WAIT_SPIN,
			       .timeout_ms = 2000 };

	(void)state;
	close(listener(&sin)); /* the port is free now: nothing listens there */
	assert_int_equal(rt_sock_open(&rt_sock_kernel, AF_INET, &s.fd, &e), 0);
	assert_int_equal(rt_stream_connect(&s, (struct sockaddr *)&sin, sizeof(sin), 2000, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(e.reason, "connection refused: nothing listening on that port"));
	rt_stream_close(&s, false);
}

static void bind_in_use_names_the_cause(void **state)
{
	struct sockaddr_in sin;
	struct rt_error e = { 0 };
	int lfd = listener(&sin), fd;

	(void)state;
	assert_int_equal(rt_sock_open(&rt_sock_kernel, AF_INET, &fd, &e), 0);
	assert_int_equal(rt_sock_listen(&rt_sock_kernel, fd, (struct sockaddr *)&sin,
					sizeof(sin), &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(e.reason, "another server holds this port"));
	close(fd);
	close(lfd);
}

/* ---- closing rsockets: never an unbounded wait on the peer ---- */

/* An ops table that claims to be rsockets over real kernel descriptors,
 * counting closes, with a shutdown that never returns (what rclose does
 * when the peer's link is cut: it waits for an acknowledgement). */
static int fake_closes;
static int fake_close(int fd) { fake_closes++; return close(fd); }
static int stuck_shutdown(int fd, int how)
{
	(void)fd, (void)how;
	sleep(30); /* longer than the test's own bound: the backstop must end it */
	return 0;
}

static struct rt_sock_ops fake_rdma_ops(void)
{
	struct rt_sock_ops o = rt_sock_kernel;

	o.rdma = true;
	o.close = fake_close;
	o.shutdown = stuck_shutdown;
	return o;
}

/* Before the fix the failed connection's rclose hung the run (lab: the
 * server 90 s past --timeout, blocked in ibv_get_cq_event). */
static void failed_rsocket_is_abandoned_not_closed(void **state)
{
	struct rt_sock_ops o = fake_rdma_ops();
	struct rt_stream s = { .ops = &o, .timeout_ms = 1000 };
	int sv[2];

	(void)state;
	pair(sv);
	fake_closes = 0;
	s.fd = sv[0], s.connected = true;
	rt_stream_close(&s, false);
	assert_int_equal(s.fd, -1);
	assert_int_equal(fake_closes, 0);
	/* one that never connected has nobody to wait for: closed */
	s.fd = sv[0], s.connected = false;
	rt_stream_close(&s, false);
	assert_int_equal(fake_closes, 1);
	close(sv[1]);
}

static void orderly_rsocket_close_is_bounded(void **state)
{
	struct rt_sock_ops o = fake_rdma_ops();
	uint64_t t0 = rt_now_ns();
	int sv[2], err[2], st = 0;
	char buf[512] = "";
	ssize_t n = 0;
	pid_t pid;

	(void)state;
	pair(sv);
	assert_int_equal(pipe(err), 0);
	pid = fork();
	if (pid == 0) {
		struct rt_stream s = { .ops = &o, .fd = sv[0], .timeout_ms = 100,
				       .connected = true };

		dup2(err[1], STDERR_FILENO);
		rt_stream_close(&s, true);
		_exit(0); /* the close returned: not what a stuck rshutdown does */
	}
	close(err[1]);
	{
		struct pollfd p = { .fd = err[0], .events = POLLIN };

		if (poll(&p, 1, 10000) == 1)
			n = read(err[0], buf, sizeof(buf) - 1);
	}
	if (n <= 0)
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), RT_EXIT_TIMEOUT);
	if (!strstr(buf, "rshutdown (end of the stream): no answer within 2.1 s"))
		fail_msg("stderr: %s", buf);
	assert_true(rt_now_ns() - t0 < 6000000000ull);
	close(err[0]);
	close(sv[0]);
	close(sv[1]);
}

/* ---- rsocket waits: rpoll never ends by a timeout of its own ---- */

/* rdma-core before v63 spins for good in the rpoll after one that timed
 * out, so an rsocket wait must give rpoll only 0 (a look) or -1 (sleep
 * until a descriptor beside the socket, its timer, fires). */
static int rpoll_calls, rpoll_timed;
static int counting_poll(struct pollfd *f, nfds_t n, int timeout_ms)
{
	rpoll_calls++;
	rpoll_timed += timeout_ms > 0;
	return poll(f, n, timeout_ms);
}

static void rsocket_accept_sleeps_with_no_rpoll_timeout(void **state)
{
	struct rt_sock_ops o = rt_sock_kernel;
	struct sockaddr_in sin;
	struct rt_error e = { 0 };
	uint64_t t0 = rt_now_ns();
	int lfd = listener(&sin), fd;

	(void)state;
	o.rdma = true;
	o.poll = counting_poll;
	rpoll_calls = rpoll_timed = 0;
	assert_int_equal(rt_sock_accept(&o, lfd, 300, &fd, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_TIMEOUT);
	assert_int_equal(rpoll_timed, 0);
	/* 10 ms slices, a look and a sleep each: no spinning */
	assert_in_range(rpoll_calls, 2, 2 * (300 / 10 + 2));
	assert_true(rt_now_ns() - t0 >= 300000000ull);
	close(lfd);
}

/* ---- tuning, read back from a real TCP socket ---- */

static int int_opt(int fd, int level, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	assert_int_equal(getsockopt(fd, level, name, &v, &len), 0);
	return v;
}

static void tuning_is_read_back(void **state)
{
	struct rt_sock_tuning t = { .bufsize = 256 * 1024, .nodelay = true,
				    .inline_size = 64, .keepalive_s = 7 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct rt_log log = { .prefix = "t", .human = out, .diag = out };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(int_opt(fd, IPPROTO_TCP, TCP_NODELAY), 0);
	assert_int_equal(int_opt(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
	rt_sock_tune(&rt_sock_kernel, fd, &t, &log);
	fclose(out);
	/* Linux doubles the buffer sizes it is asked for (socket(7)) */
	assert_true(int_opt(fd, SOL_SOCKET, SO_SNDBUF) >= 256 * 1024);
	assert_true(int_opt(fd, SOL_SOCKET, SO_RCVBUF) >= 256 * 1024);
	assert_int_not_equal(int_opt(fd, IPPROTO_TCP, TCP_NODELAY), 0);
	assert_int_not_equal(int_opt(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
	assert_int_equal(int_opt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 7);
	assert_string_equal(text, "Keepalive: ON\n  time: 7\n"); /* upstream's lines */
	free(text);
	close(fd);
}

static void tuning_leaves_what_is_zero(void **state)
{
	struct rt_sock_tuning t = { .inline_size = -1 };
	struct rt_log log = { .prefix = "t", .human = stdout, .diag = stderr };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int snd = int_opt(fd, SOL_SOCKET, SO_SNDBUF);

	(void)state;
	rt_sock_tune(&rt_sock_kernel, fd, &t, &log);
	assert_int_equal(int_opt(fd, SOL_SOCKET, SO_SNDBUF), snd);
	assert_int_equal(int_opt(fd, IPPROTO_TCP, TCP_NODELAY), 0);
	assert_int_equal(int_opt(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
	close(fd);
}

/* ---- rt_stream_dial: a whole client connect ---- */

struct dial {
	struct sockaddr_in sin;
	struct rt_sockaddr a;
	struct rt_sock_tuning t;
	struct rt_log log;
	struct rt_error e;
	struct ctx c;
	struct rt_stream s;
	int lfd; /* -1: nobody listens on sin's port */
};

static void dial_init(struct dial *d, bool listening)
{
	memset(d, 0, sizeof(*d));
	d->lfd = listener(&d->sin);
	if (!listening) {
		close(d->lfd);
		d->lfd = -1;
	}
	memcpy(&d->a.addr, &d->sin, sizeof(d->sin));
	d->a.addr_len = sizeof(d->sin);
	d->t.inline_size = -1;
	d->log = (struct rt_log){ .prefix = "t", .human = stdout, .diag = stderr };
	d->s = (struct rt_stream){ .ops = &rt_sock_kernel, .fd = -1, .wait = RT_WAIT_SPIN,
				   .timeout_ms = 2000, .describe = describe, .describe_arg = &d->c };
}

static void dial_binds_the_source_and_tunes(void **state)
{
	struct dial d;
	struct sockaddr_in local;
	socklen_t len = sizeof(local);
	int afd;

	(void)state;
	dial_init(&d, true);
	d.t.nodelay = true;
	assert_int_equal(rt_addr_parse_numeric("127.0.0.1", &d.a.src), 0);
	d.a.src_len = sizeof(struct sockaddr_in);
	assert_int_equal(rt_stream_dial(&d.s, &d.a, &d.t, 0, &d.log, &d.e), 0);
	assert_false(d.e.set);
	assert_true(d.s.connected);
	assert_int_not_equal(int_opt(d.s.fd, IPPROTO_TCP, TCP_NODELAY), 0);
	assert_int_equal(getsockname(d.s.fd, (struct sockaddr *)&local, &len), 0);
	assert_int_equal(local.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	assert_int_equal(rt_sock_accept(&rt_sock_kernel, d.lfd, 2000, &afd, &d.e), 0);
	close(afd);
	rt_stream_close(&d.s, false);
	close(d.lfd);
}

/* --tos: the client's socket carries it before it connects. TCP keeps
 * the ECN bits to itself (ip(7)), so 106 reads back as DSCP 26's 104. */
static void dial_sets_the_tos(void **state)
{
	struct dial d;
	int afd;

	(void)state;
	dial_init(&d, true);
	d.t.set_tos = true;
	d.t.tos = 106;
	assert_int_equal(rt_stream_dial(&d.s, &d.a, &d.t, 0, &d.log, &d.e), 0);
	assert_int_equal(int_opt(d.s.fd, IPPROTO_IP, IP_TOS) & 0xfc, 104);
	assert_int_equal(rt_sock_accept(&rt_sock_kernel, d.lfd, 2000, &afd, &d.e), 0);
	close(afd);
	rt_stream_close(&d.s, false);
	close(d.lfd);
}

/* Without it the socket keeps the default, 0. */
static void dial_leaves_the_tos_alone(void **state)
{
	struct dial d;
	int afd;

	(void)state;
	dial_init(&d, true);
	assert_int_equal(rt_stream_dial(&d.s, &d.a, &d.t, 0, &d.log, &d.e), 0);
	assert_int_equal(int_opt(d.s.fd, IPPROTO_IP, IP_TOS), 0);
	assert_int_equal(rt_sock_accept(&rt_sock_kernel, d.lfd, 2000, &afd, &d.e), 0);
	close(afd);
	rt_stream_close(&d.s, false);
	close(d.lfd);
}

/* A closed port: one refused try without --wait-server, exit 1. */
static void dial_refused_is_exit_1(void **state)
{
	struct dial d;

	(void)state;
	dial_init(&d, false);
	assert_int_equal(rt_stream_dial(&d.s, &d.a, &d.t, 0, &d.log, &d.e), -1);
	assert_int_equal(d.e.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(d.e.reason, "refused"));
	assert_int_equal(d.s.fd, -1);
}

/* --wait-server: the server comes up 300 ms after the first try. */
static void dial_retries_until_the_server_is_up(void **state)
{
	struct dial d;
	int st, one = 1;
	pid_t pid;

	(void)state;
	dial_init(&d, false);
	pid = fork();
	if (pid == 0) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		usleep(300000);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&d.sin, sizeof(d.sin)) || listen(fd, 1))
			_exit(2);
		_exit(accept(fd, NULL, NULL) < 0);
	}
	assert_int_equal(rt_stream_dial(&d.s, &d.a, &d.t, 3000, &d.log, &d.e), 0);
	assert_false(d.e.set);
	rt_stream_close(&d.s, true);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
}

/* ---- series, records and the sync check ---- */

static void series_rows_and_scale(void **state)
{
	struct rt_stream_row rows[RT_STREAM_LADDER_LEN], big;

	(void)state;
	assert_int_equal(rt_stream_series(RT_ROW_LAT, false, 1, rows), 4);
	assert_string_equal(rows[0].name, "64_lat");
	assert_string_equal(rows[3].name, "1m_lat");
	assert_int_equal(rt_stream_series(RT_ROW_BW, true, 1, rows), RT_STREAM_LADDER_LEN);
	rt_stream_row_init(&big, RT_ROW_BW, 64, 0, 0);
	assert_int_equal(rt_stream_series(RT_ROW_BW, false, 100, rows), 4);
	assert_int_equal(rows[0].count, big.count / 100);
	assert_int_equal(rows[0].iters, 1);
	rt_stream_series(RT_ROW_LAT, false, 1000000, rows);
	assert_int_equal(rows[3].count, 1); /* never below one */
	assert_int_equal(rows[3].iters, 1);
}

static void row_record_has_latency_only_with_samples(void **state)
{
	struct rt_stream_row r;
	struct rt_hist lat = { 0 };
	struct rt_json j;

	(void)state;
	rt_stream_row_init(&r, RT_ROW_CUSTOM, 1000, 10, 3);
	rt_json_init(&j);
	rt_stream_row_json(&j, &r, 2, 1e6, &lat);
	rt_json_finish(&j);
	assert_non_null(strstr(rt_json_text(&j), "{\"name\":\"custom\",\"connection\":2,"
			       "\"size\":1000,\"transfers\":10,\"iterations\":3,\"bytes\":60000,"
			       "\"seconds\":1"));
	assert_null(strstr(rt_json_text(&j), "latency_us"));
	rt_json_free(&j);
	rt_hist_add(&lat, 5000);
	rt_json_init(&j);
	rt_stream_row_json(&j, &r, 1, 1e6, &lat);
	rt_json_finish(&j);
	assert_non_null(strstr(rt_json_text(&j), "\"latency_us\":{\"count\":1,"));
	rt_json_free(&j);
}

static void sync_check_tells_the_three_cases(void **state)
{
	struct rt_stream_row r, other;
	struct rt_stream_sync p;
	struct rt_stream_verify v = { .fill_next = 77 };
	uint8_t b[RT_STREAM_SYNC_LEN];

	(void)state;
	rt_stream_row_init(&r, RT_ROW_CUSTOM, 1000, 50, 1);
	rt_stream_row_init(&other, RT_ROW_CUSTOM, 1000, 100, 1);
	rt_stream_sync_encode(b, 's', &r);
	assert_int_equal(rt_stream_sync_check(b, 'c', &r, &p), RT_SYNC_OK);
	rt_stream_sync_encode(b, 'c', &other); /* our own block echoed */
	assert_int_equal(rt_stream_sync_check(b, 'c', &r, &p), RT_SYNC_OK);
	rt_stream_sync_encode(b, 's', &other);
	assert_int_equal(rt_stream_sync_check(b, 'c', &r, &p), RT_SYNC_DIFFERS);
	assert_int_equal(p.count, 100);
	rt_stream_verify_fill(&v, b, sizeof(b));
	assert_int_equal(rt_stream_sync_check(b, 'c', &r, &p), RT_SYNC_VERIFIES);
	memset(b, 0, sizeof(b)); /* upstream's stale buffer */
	assert_int_equal(rt_stream_sync_check(b, 'c', &r, &p), RT_SYNC_OK);
}

/* Skipping rows leaves the counters where moving their bytes would. */
static void verify_skip_matches_moving_the_bytes(void **state)
{
	static uint8_t buf[RT_STREAM_SYNC_LEN + 3 * 1000 * 7];
	struct rt_stream_row rows[2];
	struct rt_stream_verify moved = { .fill_next = 9, .check_next = 200 }, skipped = moved;

	(void)state;
	rt_stream_row_init(&rows[0], RT_ROW_CUSTOM, 1000, 7, 3);
	rt_stream_row_init(&rows[1], RT_ROW_CUSTOM, 3, 1, 1);
	for (size_t i = 0; i < 2; i++) {
		size_t n = RT_STREAM_SYNC_LEN + rows[i].size * rows[i].count * rows[i].iters;
		struct rt_stream_verify peer = { .fill_next = moved.check_next };

		rt_stream_verify_fill(&moved, buf, n); /* what we send */
		rt_stream_verify_fill(&peer, buf, n);  /* what the peer sends us */
		assert_int_equal(rt_stream_verify_check(&moved, buf, n), -1);
	}
	rt_stream_verify_skip(&skipped, rows, 2);
	assert_int_equal(skipped.fill_next, moved.fill_next);
	assert_int_equal(skipped.check_next, moved.check_next);
	assert_int_equal(skipped.checked, moved.checked);
}

/* ---- riostream's marker wait ---- */

/* A peer whose iomap writes land just before its close is seen: the
 * recv hook plays both (the byte set, then "closed"). */
static volatile uint8_t marker_byte;
static ssize_t write_then_close(int fd, void *b, size_t l, int f)
{
	(void)fd; (void)b; (void)l; (void)f;
	marker_byte = 7;
	return 0;
}

static ssize_t just_close(int fd, void *b, size_t l, int f)
{
	(void)fd; (void)b; (void)l; (void)f;
	return 0;
}

static void await_byte_takes_writes_before_the_close(void **state)
{
	struct rt_sock_ops ops = rt_sock_kernel;
	struct rt_stream s = { .ops = &ops, .fd = -1, .timeout_ms = 2000 };
	struct rt_error err = { 0 };

	(void)state;
	marker_byte = 6;
	ops.recv = write_then_close;
	assert_int_equal(rt_stream_await_byte(&s, &marker_byte, 7, 100, &err), 0);
	assert_int_equal(s.received, 100);
	assert_false(err.set);
	/* a close with no marker is the peer leaving: exit 1 */
	marker_byte = 6;
	ops.recv = just_close;
	assert_int_equal(rt_stream_await_byte(&s, &marker_byte, 7, 100, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "closed by the peer before its iomap writes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ladder_is_upstreams),
		cmocka_unit_test(tuning_is_read_back),
		cmocka_unit_test(tuning_leaves_what_is_zero),
		cmocka_unit_test(dial_binds_the_source_and_tunes),
		cmocka_unit_test(dial_sets_the_tos),
		cmocka_unit_test(dial_leaves_the_tos_alone),
		cmocka_unit_test(dial_refused_is_exit_1),
		cmocka_unit_test(dial_retries_until_the_server_is_up),
		cmocka_unit_test(series_rows_and_scale),
		cmocka_unit_test(row_record_has_latency_only_with_samples),
		cmocka_unit_test(sync_check_tells_the_three_cases),
		cmocka_unit_test(verify_skip_matches_moving_the_bytes),
		cmocka_unit_test(rows_follow_the_iteration_rule),
		cmocka_unit_test(header_is_byte_exact),
		cmocka_unit_test(rows_are_byte_exact),
		cmocka_unit_test(sync_block_round_trip),
		cmocka_unit_test(fill_is_a_running_counter),
		cmocka_unit_test(check_numbers_failures_across_calls),
		cmocka_unit_test(check_finds_the_first_bad_byte_anywhere),
		cmocka_unit_test(round_trip_in_every_mode),
		cmocka_unit_test(peer_close_mid_receive_is_exit_1),
		cmocka_unit_test(stalled_receive_is_exit_124),
		cmocka_unit_test(stalled_send_is_exit_124),
		cmocka_unit_test(send_to_a_closed_peer_is_exit_1),
		cmocka_unit_test(await_close_counts_stray_bytes),
		cmocka_unit_test(connect_and_accept),
		cmocka_unit_test(accept_times_out_with_124),
		cmocka_unit_test(refused_connect_is_exit_1),
		cmocka_unit_test(bind_in_use_names_the_cause),
		cmocka_unit_test(failed_rsocket_is_abandoned_not_closed),
		cmocka_unit_test(await_byte_takes_writes_before_the_close),
		cmocka_unit_test(orderly_rsocket_close_is_bounded),
		cmocka_unit_test(rsocket_accept_sleeps_with_no_rpoll_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
