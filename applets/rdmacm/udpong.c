/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* udpong: datagram ping-pong and throughput over datagram rsockets, or
 * kernel UDP with -T s, wire-compatible with rdma-core's udpong (v44).
 *
 * A message is {op, client id, seqno, reserved, 32-bit big-endian data}
 * and up to 2048 payload bytes; control messages (login 0, start 1, end
 * 4) are 16 bytes. The client logs in, and per row sends start, then its
 * transfers (echo 3: each answered by the server; data 2: only counted),
 * then end, whose answer carries how many the server counted. Each
 * control message and echo is sent again until its answer (same op and
 * seqno) arrives; unlike upstream, that retrying ends after --timeout
 * (exit 124, or 1 when the port was unreachable). Loss is a column of
 * the table: for bandwidth rows the datagrams the server did not count,
 * for latency rows the echoes sent again. Echo answers are checked
 * against the payload sent.
 *
 * Unlike upstream's server, which never exits, ours ends after --clients
 * clients said goodbye (op 5, which upstream's server counts as data and
 * ignores) or fell silent for --timeout, and waits for a first client at
 * most --accept-timeout. Memory is fixed: one message buffer each way and
 * a 256-entry client table (ids are 8 bits, as upstream).
 *
 * librdmacm addresses a datagram rsocket's peer by LID without a GRH,
 * which RoCE devices refuse: there the client's rconnect fails, exit 3
 * naming it (-T s works everywhere). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/interrupt.h"
#include "rdmacm/rsock.h"
#include "rdmacm/udpong.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"

#define PAYLOAD RT_UDPONG_PAYLOAD
#define HDR RT_UDPONG_HDR
#define CTRL 16
#define SLICE_MS 100          /* longest poll between interrupt checks */
#define RETRY_CTRL_MS 1000    /* login and start, as upstream */
#define RETRY_FAST_MS 50      /* end and echo (upstream: 1 ms) */
#define BYES 3                /* goodbyes sent, unanswered */

enum { OP_LOGIN, OP_START, OP_DATA, OP_ECHO, OP_END, OP_BYE };
enum { T_SOCKET = 1, T_ASYNC = 2, T_BLOCK = 4, T_NONBLOCK = 8, T_ECHO = 16 };

_Static_assert(sizeof(struct rt_udpong_msg) == HDR + PAYLOAD, "udpong's message layout");

struct udpong_cfg {
	const char *dst, *src;
	long long bufsize, count, size, port, clients, scale;
	int modes;
};

struct row {
	char name[16];
	uint32_t size, count;
	bool echo;
};

struct udpong {
	struct udpong_cfg *cfg;
	struct rt_run *run;
	const struct rt_sock_ops *ops;
	int fd;
	struct rt_udpong_msg out, in;
	uint8_t seqno, id;
	bool refused;         /* the port was unreachable (kernel UDP) */
	uint64_t resent;      /* this row's retransmissions */
	/* server */
	struct rt_udpong_clients clients;
	uint64_t datagrams;
};

#define RT_CFG struct udpong_cfg

static const struct rt_enum test_modes[] = {
	{ "socket", T_SOCKET, "kernel UDP sockets instead of datagram rsockets" },
	{ "async", T_ASYNC, "poll before every call (accepted: ours always polls)" },
	{ "block", T_BLOCK, "blocking calls (accepted: ours always polls)" },
	{ "nonblock", T_NONBLOCK, "non-blocking calls (the default)" },
	{ "echo", T_ECHO, "custom row: the server echoes every transfer" },
	{ NULL, 0, NULL },
};

static const struct rt_opt udpong_opts[] = {
	RT_OPT_ROW_SERVER_ADDR(RT_S(dst)),
	{ 'b', "bind", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "server: address to listen on; client: source address", NULL },
	{ 'B', "buffer-size", RT_OPT_SIZE, RT_L(bufsize), 0, 1LL << 30, "512k", "SIZE",
	  "SO_SNDBUF and SO_RCVBUF (0: 512k)", NULL },
	{ 'C', "count", RT_OPT_INT, RT_L(count), 1, 0x7fffffff, "1000", "N",
	  "transfers of a custom row (makes a custom run)", NULL },
	{ 'S', "size", RT_OPT_INT, RT_L(size), CTRL, HDR + PAYLOAD, "1000", "BYTES",
	  "transfer size of a custom row, 16..2056 (makes a custom run)", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7174", "PORT", "UDP port", NULL },
	{ 'T', "test", RT_OPT_FLAGS, RT_I(modes), 0, 0, NULL, "MODE",
	  "s kernel UDP; a, b, n accepted (every wait polls, bounded); e the "
	  "custom row is echoed", test_modes },
	{ 0, "clients", RT_OPT_INT, RT_L(clients), 0, 256, "0", "N",
	  "server: end once N clients said goodbye or fell silent for --timeout "
	  "(0: serve until interrupted)", NULL },
	{ 0, "scale", RT_OPT_INT, RT_L(scale), 1, 1000000, "1", "N",
	  "client: divide the default series' counts by N", NULL },
	{ 0 },
};

RT_APPLET(udpong, "datagram latency and bandwidth over rsockets or UDP",
	  "[-s server_addr] [-b bind_addr] [-B buffer_size] [-C transfer_count] "
	  "[-S transfer_size] [-p port] [-T s|a|b|n|e] [--clients N] [--scale N]",
	  "Without -s it is the server. The client runs upstream's default "
	  "series (latency rows with echoes, then bandwidth rows, 64 to 1536 "
	  "bytes) or one custom row (-C/-S), and prints upstream's table with a "
	  "lost column: datagrams the server did not count (bandwidth rows) or "
	  "echoes sent again (latency rows). Wire-compatible with rdma-core's "
	  "udpong (UDP port 7174); every retry ends after --timeout, and the "
	  "server ends after --clients clients. Datagram rsockets need LID "
	  "addressing, which RoCE (rxe) lacks: there the client exits 3; -T s "
	  "uses kernel UDP.");

/* ---- bounded waits ---- */

/* poll for one descriptor, waiting up to ms. rdma-core v44's rpoll leaks
 * its count of pollers whenever a finite timeout expires, and from the
 * second such call on it spins forever (seen in the lab: a datagram
 * rsocket server past --accept-timeout); so an rsocket is only asked,
 * never waited on, and the sleep is ours. */
static int poll_one(struct udpong *x, short events, int ms)
{
	struct pollfd p = { .fd = x->fd, .events = events };
	struct timespec nap = { 0, 1000000 };
	int n;

	if (!x->ops->rdma)
		return x->ops->poll(&p, 1, ms);
	n = x->ops->poll(&p, 1, 0);
	if (!n && ms > 0)
		nanosleep(&nap, NULL);
	return n;
}

/* 1 readable, 0 not within ms (-1: no bound), -1 error, RT_INTERRUPTED. */
static int wait_in(struct udpong *x, long long ms)
{
	uint64_t end = ms < 0 ? 0 : rt_now_ns() + (uint64_t)ms * 1000000ULL;

	for (;;) {
		long long left = ms < 0 ? SLICE_MS :
				 (long long)((end - RT_MIN(end, rt_now_ns())) / 1000000ULL);
		int n;

		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		n = poll_one(x, POLLIN, (int)RT_MIN(left, (long long)SLICE_MS));
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return rt_fail_errno(&x->run->err, RT_EXIT_FAIL, errno, "%spoll",
					     x->ops->prefix ? "r" : "");
		if (ms >= 0 && rt_now_ns() >= end)
			return 0;
	}
}

/* Sends one datagram (to sa, or the connected peer), waiting for room at
 * most --timeout. */
static int send_dgram(struct udpong *x, const void *m, size_t len,
		      const struct sockaddr *sa, socklen_t salen)
{
	uint64_t end = rt_now_ns() + (uint64_t)x->run->common.timeout_ms * 1000000ULL;

	for (;;) {
		ssize_t n = sa ? x->ops->sendto(x->fd, m, len, 0, sa, salen) :
				 x->ops->send(x->fd, m, len, 0);

		if (n == (ssize_t)len)
			return 0;
		if (n >= 0)
			return rt_fail(&x->run->err, RT_EXIT_FAIL, "%ssend: %zd of %zu bytes",
				       x->ops->prefix ? "r" : "", n, len);
		if (errno == ECONNREFUSED && !sa) {
			x->refused = true; /* an earlier datagram found no listener */
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS && errno != EINTR)
			return rt_fail_errno(&x->run->err, RT_EXIT_FAIL, errno, "%ssend",
					     x->ops->prefix ? "r" : "");
		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		if (rt_now_ns() >= end)
			return rt_fail(&x->run->err, RT_EXIT_TIMEOUT, "no room to send for "
				       "%lld ms", x->run->common.timeout_ms);
		poll_one(x, POLLOUT, 10);
	}
}

/* ---- client ---- */

static const char *op_name(uint8_t op)
{
	static const char *const names[] = { "login", "start", "data", "echo", "end" };

	return op < 5 ? names[op] : "?";
}

/* One answer to x->out within ms: 1 got it (in x->in), 0 not yet. */
static int await_answer(struct udpong *x, size_t len, long long ms)
{
	uint64_t end = rt_now_ns() + (uint64_t)ms * 1000000ULL;

	for (;;) {
		long long left = (long long)((end - RT_MIN(end, rt_now_ns())) / 1000000ULL);
		int w = wait_in(x, left);
		ssize_t n;

		if (w <= 0)
			return w;
		n = x->ops->recv(x->fd, &x->in, sizeof(x->in), MSG_DONTWAIT);
		if (n < 0 && errno == ECONNREFUSED) {
			x->refused = true;
			return 0; /* nobody listens yet: send again after the interval */
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return rt_fail_errno(&x->run->err, RT_EXIT_FAIL, errno, "%srecv",
					     x->ops->prefix ? "r" : "");
		/* stale answers to earlier tries are skipped, as upstream */
		if (n >= HDR && x->in.seqno == x->out.seqno && x->in.op == x->out.op) {
			if (x->out.op == OP_ECHO && ((size_t)n != len ||
			    memcmp(x->in.buf, x->out.buf, len - HDR)))
				return rt_fail(&x->run->err, RT_EXIT_FAIL, "echo of %zu bytes "
					       "came back as %zd different bytes", len, n);
			return 1;
		}
	}
}

/* Sends x->out until its answer arrives, at most --timeout in all. */
static int exchange(struct udpong *x, size_t len, long long retry_ms)
{
	uint64_t end = rt_now_ns() + (uint64_t)x->run->common.timeout_ms * 1000000ULL;
	bool first = true;

	x->out.seqno = x->seqno;
	while (rt_now_ns() < end) {
		int rc;

		if (!first)
			x->resent++;
		first = false;
		rc = send_dgram(x, &x->out, len, NULL, 0);
		if (!rc)
			rc = await_answer(x, len, retry_ms);
		if (rc < 0)
			return rc;
		if (rc) {
			x->seqno++;
			return 0;
		}
	}
	if (x->refused)
		return rt_fail(&x->run->err, RT_EXIT_FAIL, "%s: the server's port is "
			       "unreachable (no udpong server there?)", op_name(x->out.op));
	return rt_fail(&x->run->err, RT_EXIT_TIMEOUT, "%s: no answer from the server "
		       "within %lld ms", op_name(x->out.op), x->run->common.timeout_ms);
}

static void say_header(struct udpong *x)
{
	rt_say(&x->run->log, "%-10s%-8s%-8s%-8s%8s %10s%13s%8s", "name", "bytes", "xfers",
	       "total", "time", "Gb/sec", "usec/xfer", "lost");
}

static void report_row(struct udpong *x, const struct row *r, uint64_t ns,
		       uint64_t received, uint64_t lost)
{
	uint64_t xfers = r->echo ? 2ULL * r->count : received, bytes = xfers * r->size;
	double usec = (double)ns / 1e3;
	char sz[32], cnt[32], tot[32];
	struct rt_json *j = &x->run->results;

	rt_size_str(sz, sizeof(sz), r->size);
	rt_cnt_str(cnt, sizeof(cnt), xfers);
	rt_size_str(tot, sizeof(tot), bytes);
	rt_say(&x->run->log, "%-10s%-8s%-8s%-8s%8.2fs%10.2f%11.2f%8llu", r->name, sz, cnt,
	       tot, usec / 1e6, usec > 0 ? (double)bytes * 8 / (1000. * usec) : 0.0,
	       xfers ? usec / (double)xfers : 0.0, (unsigned long long)lost);
	rt_json_object_begin(j);
	rt_json_kv_string(j, "name", r->name);
	rt_json_kv_uint(j, "size", r->size);
	rt_json_kv_uint(j, "sent", r->count);
	rt_json_kv_uint(j, "server_counted", received);
	rt_json_kv_uint(j, "transfers", xfers);
	rt_json_kv_uint(j, "lost", lost);
	rt_json_kv_uint(j, "retransmits", x->resent);
	rt_json_kv_double(j, "seconds", usec / 1e6);
	rt_json_kv_double(j, "gbps", usec > 0 ? (double)bytes * 8 / (1000. * usec) : 0.0);
	rt_json_kv_double(j, "usec_per_xfer", xfers ? usec / (double)xfers : 0.0);
	rt_json_object_end(j);
}

static int run_row(struct udpong *x, const struct row *r)
{
	uint64_t t0, received, lost, echo_resent;
	int rc;

	x->resent = 0;
	x->out.op = OP_START;
	if ((rc = exchange(x, CTRL, RETRY_CTRL_MS)))
		return rc;
	x->resent = 0;
	for (size_t i = 0; i < r->size - HDR; i++)
		x->out.buf[i] = (uint8_t)(i * 7 + r->size);
	t0 = rt_now_ns();
	for (uint32_t i = 0; i < r->count && !rc; i++) {
		x->out.op = r->echo ? OP_ECHO : OP_DATA;
		rc = r->echo ? exchange(x, r->size, RETRY_FAST_MS) :
			       send_dgram(x, &x->out, r->size, NULL, 0);
	}
	echo_resent = x->resent;
	x->out.op = OP_END;
	if (rc || (rc = exchange(x, CTRL, RETRY_FAST_MS)))
		return rc;
	received = ntohl(x->in.data);
	if (!r->echo && received > r->count)
		return rt_fail(&x->run->err, RT_EXIT_FAIL, "row %s: the server counted %llu "
			       "of %u datagrams sent (another client with our id?)", r->name,
			       (unsigned long long)received, r->count);
	lost = r->echo ? echo_resent : r->count - received;
	report_row(x, r, rt_now_ns() - t0, received, lost);
	return 0;
}

static size_t series(const struct udpong_cfg *cfg, struct row *rows)
{
	static const uint32_t sizes[] = { 64, 128, 192, 256, 384, 512, 768, 1024, 1536 };
	const size_t n = sizeof(sizes) / sizeof(sizes[0]);

	for (size_t i = 0; i < 2 * n; i++) {
		struct row *r = &rows[i];
		uint64_t c = rt_size_to_count(sizes[i % n]) / (i < n ? 10 : 1);
		char sz[8];

		rt_size_str(sz, sizeof(sz), sizes[i % n]);
		r->size = sizes[i % n];
		r->echo = i < n;
		r->count = (uint32_t)RT_MAX(c / (uint64_t)cfg->scale, 1);
		snprintf(r->name, sizeof(r->name), "%s_%s", sz, r->echo ? "lat" : "bw");
	}
	return 2 * n;
}

/* The datagram socket of either side, tuned (-B) and non-blocking. */
static int open_socket(struct udpong *x, int family)
{
	struct rt_sock_tuning t = { .bufsize = (int)x->cfg->bufsize, .inline_size = -1 };

	x->fd = x->ops->socket(family, SOCK_DGRAM, 0);
	if (x->fd < 0)
		return x->ops->rdma ? rt_fail(&x->run->err, RT_EXIT_ENV, "rsocket "
					      "(datagram): no RDMA device for it; -T s "
					      "uses kernel UDP") :
				      rt_fail_errno(&x->run->err, RT_EXIT_FAIL, errno, "socket");
	rt_sock_tune(x->ops, x->fd, &t, &x->run->log);
	x->ops->fcntl(x->fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static int client_open(struct udpong *x)
{
	struct rt_addr_query q = { .node = x->cfg->dst, .port = x->cfg->port,
				   .src = x->cfg->src, .ps = RDMA_PS_UDP, .what = "-s" };
	struct rt_sockaddr ep = { 0 };
	int rc = rt_addr_lookup(&q, false, &ep, &x->run->err) ||
		 open_socket(x, ep.addr.ss_family) ? -1 : 0;

	if (!rc && ep.src_len && x->ops->bind(x->fd, (struct sockaddr *)&ep.src, ep.src_len))
		rc = rt_fail_errno(&x->run->err, RT_EXIT_ENV, errno, "%sbind to -b",
				   x->ops->prefix ? "r" : "");
	if (!rc && x->ops->connect(x->fd, (struct sockaddr *)&ep.addr, ep.addr_len))
		rc = x->ops->rdma ?
		     rt_fail_errno(&x->run->err, RT_EXIT_ENV, errno, "rconnect (datagram "
				   "rsocket): rsocket datagrams need LID addressing, and "
				   "RoCE (rxe) gives them no GRH; use -T s") :
		     rt_fail_errno(&x->run->err, RT_EXIT_FAIL, errno, "connect");
	rt_sockaddr_free(&ep);
	return rc;
}

static int client_run(struct udpong *x)
{
	struct row rows[18], custom = { .name = "custom", .size = (uint32_t)x->cfg->size,
					.count = (uint32_t)x->cfg->count,
					.echo = (x->cfg->modes & T_ECHO) != 0 };
	bool is_custom = rt_opt_was_given(&x->run->tabs[0], "count") ||
			 rt_opt_was_given(&x->run->tabs[0], "size");
	size_t n = is_custom ? 1 : series(x->cfg, rows);
	int rc;

	rt_error_phase(&x->run->err, "connect");
	if (client_open(x))
		return -1;
	say_header(x);
	x->out.op = OP_LOGIN;
	rc = exchange(x, CTRL, RETRY_CTRL_MS);
	x->id = x->in.id;
	x->out.id = x->id;
	rt_error_phase(&x->run->err, "transfer");
	rt_json_kv_string(&x->run->results, "role", "client");
	rt_json_kv_string(&x->run->results, "transport", x->ops->rdma ? "rsocket" : "udp");
	rt_json_key(&x->run->results, "rows");
	rt_json_array_begin(&x->run->results);
	for (size_t i = 0; i < n && !rc; i++)
		rc = run_row(x, is_custom ? &custom : &rows[i]);
	rt_json_array_end(&x->run->results);
	x->out.op = OP_BYE;
	for (int i = 0; i < BYES && rc != RT_INTERRUPTED; i++)
		send_dgram(x, &x->out, CTRL, NULL, 0);
	return rc;
}

/* ---- server ---- */

enum rt_udpong_take rt_udpong_take(struct rt_udpong_clients *t, struct rt_udpong_msg *m,
				   size_t n)
{
	if (n < HDR || m->op > OP_BYE) {
		t->ignored++;
		return RT_UDPONG_FOREIGN;
	}
	switch (m->op) {
	case OP_LOGIN:
		m->id = (uint8_t)t->logins++;
		t->count[m->id] = 0;
		t->gone[m->id] = false;
		return RT_UDPONG_LOGIN;
	case OP_START:
		t->count[m->id] = 0;
		return RT_UDPONG_ANSWER;
	case OP_END:
		m->data = htonl((uint32_t)t->count[m->id]);
		return RT_UDPONG_ANSWER;
	case OP_BYE:
		t->byes += !t->gone[m->id];
		t->gone[m->id] = true;
		return RT_UDPONG_BYE;
	default:
		t->count[m->id]++;
		return m->op == OP_DATA ? RT_UDPONG_COUNTED : RT_UDPONG_ANSWER;
	}
}

/* Answers one datagram as upstream's server does; 1 on a goodbye. */
static int serve(struct udpong *x, size_t n, const struct sockaddr_storage *from,
		 socklen_t flen)
{
	struct rt_udpong_msg *m = &x->in;
	char a[80];

	switch (rt_udpong_take(&x->clients, m, n)) {
	case RT_UDPONG_FOREIGN:
		if (x->clients.ignored == 1)
			rt_warn(&x->run->log, "ignored a %zu-byte datagram (op %u) from %s: "
				"not udpong", n, n ? m->op : 0,
				rt_addr_str((const struct sockaddr *)from, a, sizeof(a)));
		return 0;
	case RT_UDPONG_LOGIN:
		inet_ntop(from->ss_family, from->ss_family == AF_INET ?
			  (const void *)&((const struct sockaddr_in *)from)->sin_addr :
			  (const void *)&((const struct sockaddr_in6 *)from)->sin6_addr,
			  a, sizeof(a));
		rt_say(&x->run->log, "client login from %s", a);
		break;
	case RT_UDPONG_BYE:
		return 1;
	case RT_UDPONG_COUNTED:
		return 0;
	case RT_UDPONG_ANSWER:
		break;
	}
	return send_dgram(x, m, n, (const struct sockaddr *)from, flen);
}

/* How long the server waits for the next datagram (-1: no bound). */
static long long idle_bound(const struct udpong *x)
{
	if (!x->clients.logins)
		return rt_run_accept_bound(x->run);
	if (x->cfg->clients && x->clients.logins >= (unsigned)x->cfg->clients)
		return x->run->common.timeout_ms;
	return -1;
}

static int server_loop(struct udpong *x)
{
	unsigned want = (unsigned)x->cfg->clients;

	while (!want || x->clients.byes < want) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		int w = wait_in(x, idle_bound(x));
		ssize_t n;

		if (w < 0)
			return w;
		if (!w && !x->clients.logins)
			return rt_fail(&x->run->err, RT_EXIT_TIMEOUT, "no client within "
				       "--accept-timeout");
		if (!w)
			break; /* the last clients fell silent: upstream's never say bye */
		n = x->ops->recvfrom(x->fd, &x->in, sizeof(x->in), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &flen);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue;
		if (n < 0)
			return rt_fail_errno(&x->run->err, RT_EXIT_FAIL, errno, "%srecvfrom",
					     x->ops->prefix ? "r" : "");
		x->datagrams++;
		if (serve(x, (size_t)n, &from, flen) < 0)
			return -1;
	}
	return 0;
}

static int server_run(struct udpong *x)
{
	struct rt_addr_query q = { .node = x->cfg->src, .port = x->cfg->port,
				   .ps = RDMA_PS_UDP, .passive = true, .what = "-b" };
	struct rt_sockaddr ep = { 0 };
	int rc, one = 1;

	rt_error_phase(&x->run->err, "listen");
	rc = rt_addr_lookup(&q, false, &ep, &x->run->err) ||
	     open_socket(x, ep.addr.ss_family) ? -1 : 0;
	if (!rc) {
		x->ops->setsockopt(x->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (x->ops->bind(x->fd, (struct sockaddr *)&ep.addr, ep.addr_len))
			rc = rt_fail_errno(&x->run->err, RT_EXIT_ENV, errno, "%sbind to "
					   "port %lld", x->ops->prefix ? "r" : "", x->cfg->port);
	}
	rt_sockaddr_free(&ep);
	if (rc)
		return rc;
	rt_say(&x->run->log, "waiting for clients on UDP port %lld (%s)...", x->cfg->port,
	       x->ops->rdma ? "datagram rsocket" : "kernel socket");
	rt_log_flush(&x->run->log);
	rt_error_phase(&x->run->err, "transfer");
	rc = server_loop(x);
	rt_json_kv_string(&x->run->results, "role", "server");
	rt_json_kv_uint(&x->run->results, "clients", x->clients.logins);
	rt_json_kv_uint(&x->run->results, "goodbyes", x->clients.byes);
	rt_json_kv_uint(&x->run->results, "datagrams", x->datagrams);
	rt_json_kv_uint(&x->run->results, "ignored", x->clients.ignored);
	return rc;
}

static int udpong_main(struct rt_run *run, void *cfgp)
{
	struct udpong_cfg *cfg = cfgp;
	struct udpong x = { .cfg = cfg, .run = run, .fd = -1,
			    .ops = cfg->modes & T_SOCKET ? &rt_sock_kernel : &rt_sock_rdma };
	int rc;

	if (!cfg->bufsize)
		cfg->bufsize = 512 * 1024;
	run->interrupt_is_end = !cfg->dst && !cfg->clients;
	rc = cfg->dst ? client_run(&x) : server_run(&x);
	if (x.fd >= 0)
		x.ops->close(x.fd);
	return rc;
}
