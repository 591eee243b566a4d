/* rstream: latency and bandwidth of a byte stream over rsockets (or kernel
 * TCP sockets with -T s), wire-compatible with rdma-core's rstream (v44).
 *
 * Each row: 16 bytes client to server, 16 back (the sync), then per
 * iteration `count` transfers of `size` bytes client to server and as many
 * back. The default series runs the latency rows on one connection and the
 * bandwidth rows on a second one; any of -I/-C/-S makes one custom row on
 * one connection. There is no other framing, so both sides must agree on
 * the parameters. Unlike upstream, every wait is bounded: a peer that
 * closes or stalls ends the run with the row, the byte count and what
 * probably differs. Two rdmatest peers also compare their parameters in
 * the sync bytes, which upstream never reads (see stream.h). */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/child.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/rsock.h"
#include "rdmatest/stream.h"
#include "rdmatest/stream_test.h"
#include "rdmatest/util.h"

#define DEFAULT_BUF (1 << 19)   /* SO_SNDBUF/SO_RCVBUF without -B */
#define MAX_SIZE (1LL << 30)

struct rstream_cfg {
	const char *dst;
	const char *src;
	int format;
	long long bufsize;
	long long inline_size;
	long long iters;
	long long count;
	const char *size;
	long long port;
	long long keepalive;
	int modes; /* MODE_* */
	long long scale;
};

struct modes {
	bool sockets, async, blocking, fork, resolve, verify;
};

/* Which socket options a connection gets, as upstream. */
enum phase { PHASE_LAT, PHASE_BW, PHASE_CUSTOM };

struct rstream {
	struct rstream_cfg *cfg;
	struct rt_run *run;
	struct modes m;
	bool server, custom, all;
	uint64_t size; /* custom rows */
	const struct rt_sock_ops *ops;
	struct rt_sockaddr ep;
	int lfd;
	struct rt_stream s;
	struct rt_stream_test t; /* the rows over s */
};

enum {
	MODE_SOCKET = 1 << 0, MODE_ASYNC = 1 << 1, MODE_BLOCK = 1 << 2,
	MODE_NONBLOCK = 1 << 3, MODE_FORK = 1 << 4, MODE_RESOLVE = 1 << 5,
	MODE_VERIFY = 1 << 6,
};

/* Upstream's -T words; their first letters are upstream's -T letters. */
static const struct rt_enum test_modes[] = {
	{ "socket", MODE_SOCKET, "kernel TCP sockets instead of rsockets" },
	{ "async", MODE_ASYNC, "poll before every call" },
	{ "block", MODE_BLOCK, "blocking calls" },
	{ "nonblock", MODE_NONBLOCK, "non-blocking calls (the default)" },
	{ "fork", MODE_FORK, "the server runs each client in a process of its own (implies socket)" },
	{ "resolve", MODE_RESOLVE, "resolve addresses with the RDMA CM" },
	{ "verify", MODE_VERIFY, "check every byte" },
	{ NULL, 0, NULL },
};

#define RT_CFG struct rstream_cfg

static const struct rt_opt rstream_opts[] = {
	RT_OPT_ROW_SERVER_ADDR(RT_S(dst)),
	{ 'b', "bind", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "server: address to listen on; client: source address", NULL },
	RT_OPT_ROW_ADDR_FORMAT(RT_I(format), "how to read addresses (gid implies -T r)"),
	{ 'B', "buffer-size", RT_OPT_SIZE, RT_L(bufsize), 0, 1LL << 30, "512k", "SIZE",
	  "SO_SNDBUF and SO_RCVBUF (0: 512k)", NULL },
	{ 'i', "inline", RT_OPT_INT, RT_L(inline_size), 0, 65535, "64", "BYTES",
	  "rsocket inline size of the latency connection", NULL },
	{ 'I', "iterations", RT_OPT_INT, RT_L(iters), 1, 0x7fffffff, "1", "N",
	  "iterations of a custom row (makes a custom run)", NULL },
	{ 'C', "count", RT_OPT_INT, RT_L(count), 1, 0x7fffffff, "1000", "N",
	  "transfers each way per iteration of a custom row (makes a custom run)", NULL },
	{ 'S', "size", RT_OPT_STRING, RT_S(size), 0, 0, "1000", "SIZE|all",
	  "transfer size of a custom row (makes a custom run), or 'all': the full size ladder", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7471", "PORT", "port", NULL },
	{ 'k', "keepalive", RT_OPT_INT, RT_L(keepalive), 0, 32767, "0", "SEC",
	  "TCP keepalive idle time (0: off)", NULL },
	{ 'T', "test", RT_OPT_FLAGS, RT_I(modes), 0, 0, NULL, "MODES",
	  "test modes: s kernel TCP sockets; a poll before every call; b blocking; "
	  "n non-blocking (the default); f a server process per client (implies s); "
	  "r resolve with the RDMA CM; v check every byte. -T s -T v, -T sv and "
	  "-T socket,verify all mean kernel sockets with verification", test_modes },
	{ 0, "scale", RT_OPT_INT, RT_L(scale), 1, 1000000, "1", "N",
	  "divide the default series' counts by N (both sides rdmatest with the "
	  "same N: upstream always runs the full counts)", NULL },
	{ 0 },
};

RT_APPLET(rstream, "stream latency and bandwidth over rsockets (or kernel TCP sockets)",
	  "[-s server_addr] [-b bind_addr] [-f name|ip|ipv6|gid] [-B buffer_size] "
	  "[-i inline_size] [-I iterations] [-C transfer_count] "
	  "[-S transfer_size|all] [-p port] [-k keepalive_time] [-T sabnfrv] "
	  "[--scale N]",
	  "Without -s it is the server. By default it runs the latency rows (64, "
	  "4k, 64k, 1m) on one connection and the bandwidth rows on a second one; "
	  "-S all runs every size from 64 to 6m; any of -I, -C or -S SIZE makes "
	  "one custom row. The table is upstream's, byte for byte. Wire-compatible "
	  "with rdma-core's rstream, including -T v's running counter; unlike it, "
	  "a peer that closes or stalls ends the run within --timeout (exit 1 or "
	  "124) naming the row and what probably differs, and two rdmatest peers "
	  "compare -S/-C/-I before each row. --json gives one record per row, with "
	  "latency percentiles (per transfer: the iteration's round trip / 2 / "
	  "transfers) when a row has more than one iteration.");

/* ---- options ------------------------------------------------------------------ */

/* The -T set as switches. Upstream lets the later of b and n win; a set
 * has no order, so asking for both is an error rather than a guess. */
static int parse_modes(int bits, struct modes *m, struct rt_error *err)
{
	if ((bits & MODE_BLOCK) && (bits & MODE_NONBLOCK))
		return rt_fail(err, RT_EXIT_USAGE, "--test: block and nonblock "
			       "(b and n) exclude each other");
	m->sockets = bits & (MODE_SOCKET | MODE_FORK);
	m->async = bits & MODE_ASYNC;
	m->blocking = bits & MODE_BLOCK;
	m->fork = bits & MODE_FORK;
	m->resolve = bits & MODE_RESOLVE;
	m->verify = bits & MODE_VERIFY;
	return 0;
}

static int parse_size(struct rstream *x, struct rt_error *err)
{
	const char *t = x->cfg->size;
	long long v;

	if (!strncasecmp(t, "all", 3)) { /* a prefix, as upstream */
		x->all = true;
		return 0;
	}
	if (rt_parse_ll(t, RT_OPT_SIZE, &v) || v < 1 || v > MAX_SIZE)
		return rt_fail(err, RT_EXIT_USAGE, "--size: invalid value '%s' "
			       "(1..1g bytes, k/m/g suffix, or 'all')", t);
	x->size = (uint64_t)v;
	return 0;
}

static void test_init(struct rstream *x)
{
	struct rt_run *run = x->run;

	x->t = (struct rt_stream_test){
		.s = &x->s, .server = x->server, .verify = x->m.verify,
		.hint = x->custom ? "do -S/-C/-I and -T v match on both sides?" :
			"does the peer run the same series (-S all on both sides or neither, "
			"the same --scale, no -S/-C/-I) and the same -T v?",
		.name = run->name, .log = &run->log, .err = &run->err,
		.progress_out = isatty(STDERR_FILENO) && !run->common.quiet ? stderr : NULL,
		.results = &run->results,
	};
}

static int configure(struct rstream *x)
{
	struct rt_error *err = &x->run->err;
	const struct rt_opt_table *t = &x->run->tabs[0];

	if (parse_modes(x->cfg->modes, &x->m, err))
		return -1;
	if (parse_size(x, err))
		return -1;
	x->custom = rt_opt_was_given(t, "iterations") || rt_opt_was_given(t, "count") ||
		    (rt_opt_was_given(t, "size") && !x->all);
	if (x->custom)
		x->all = false;
	else
		x->size = 1000;
	if (x->cfg->format == RT_FMT_GID)
		x->m.resolve = true;
	x->ops = x->m.sockets ? &rt_sock_kernel : &rt_sock_rdma;
	x->server = !x->cfg->dst;
	test_init(x);
	return 0;
}

/* ---- addresses and socket options ------------------------------------------- */

static int resolve(struct rstream *x)
{
	struct rt_addr_query q = {
		.node = x->server ? x->cfg->src : x->cfg->dst, .port = x->cfg->port,
		.src = x->server ? NULL : x->cfg->src, .ps = RDMA_PS_TCP,
		.format = x->cfg->format, .passive = x->server,
		.what = x->server ? "-b" : "-s",
	};

	rt_error_phase(&x->run->err, "resolve-addr");
	return rt_addr_lookup(&q, x->m.resolve, &x->ep, &x->run->err);
}

/* As upstream: buffers, no Nagle, the phase's inline size, keepalive. */
static void tuning(struct rstream *x, enum phase ph, struct rt_sock_tuning *t)
{
	*t = (struct rt_sock_tuning){
		.bufsize = x->cfg->bufsize ? (int)x->cfg->bufsize : DEFAULT_BUF,
		.nodelay = true, .keepalive_s = (int)x->cfg->keepalive,
		.inline_size = ph == PHASE_CUSTOM ? -1 : ph == PHASE_LAT ? (int)x->cfg->inline_size : 0,
	};
}

static void set_options(struct rstream *x, int fd, enum phase ph)
{
	struct rt_sock_tuning t;

	tuning(x, ph, &t);
	rt_sock_tune(x->ops, fd, &t, &x->run->log);
}

/* ---- connections ----------------------------------------------------------------------- */

static void stream_init(struct rstream *x, int fd)
{
	x->s = (struct rt_stream){
		.ops = x->ops, .fd = fd,
		.wait = x->m.blocking ? RT_WAIT_BLOCK : x->m.async ? RT_WAIT_POLL : RT_WAIT_SPIN,
		.timeout_ms = x->run->common.timeout_ms,
		.describe = rt_stream_test_describe, .describe_arg = &x->t,
	};
}

static int client_connect(struct rstream *x, enum phase ph)
{
	struct rt_sock_tuning t;

	rt_error_phase(&x->run->err, "connect");
	stream_init(x, -1);
	tuning(x, ph, &t);
	return rt_stream_dial(&x->s, &x->ep, &t, x->run->common.wait_server_ms,
			      &x->run->log, &x->run->err);
}

static int server_listen(struct rstream *x)
{
	rt_error_phase(&x->run->err, "listen");
	if (rt_sock_open(x->ops, x->ep.addr.ss_family, &x->lfd, &x->run->err))
		return -1;
	return rt_sock_listen(x->ops, x->lfd, (struct sockaddr *)&x->ep.addr,
			      x->ep.addr_len, &x->run->err);
}

/* The first client may take --accept-timeout (0: forever); the second
 * connection of a series follows at once, so it gets --timeout. */
static int server_accept(struct rstream *x, enum phase ph)
{
	long long t = x->t.conn == 1 ? rt_run_accept_bound(x->run) : x->run->common.timeout_ms;
	struct rt_error e = { 0 };
	int fd, rc;

	rt_error_phase(&x->run->err, "accept");
	set_options(x, x->lfd, ph); /* rsockets inherit the listener's */
	rc = rt_sock_accept(x->ops, x->lfd, t, &fd, &e);
	if (!rc) {
		stream_init(x, fd);
		x->s.connected = true;
	}
	if (!rc || rc == RT_INTERRUPTED)
		return rc;
	if (x->t.conn > 1 && e.exit_code == RT_EXIT_TIMEOUT)
		return rt_fail(&x->run->err, e.exit_code, "the client did not come back "
			       "for the bandwidth rows within %g s", (double)t / 1000);
	return rt_error_adopt(&x->run->err, &e);
}

static int setup_accepted(struct rstream *x, enum phase ph)
{
	set_options(x, x->s.fd, ph);
	return rt_stream_set_wait(&x->s, &x->run->err);
}

/* ---- fork (-T f): a server process per client ------------------------------------------ */

struct forked {
	struct rstream *x;
	const struct rt_stream_row *rows;
	size_t n;
	enum phase ph;
};

static int serve_child(struct rt_child_share *share, void *arg)
{
	struct forked *f = arg;
	struct rstream *x = f->x;
	struct rt_error *e = &x->run->err;
	int rc;

	x->t.child = share;
	x->ops->close(x->lfd);
	rc = setup_accepted(x, f->ph) || rt_stream_test_rows(&x->t, f->rows, f->n) ? -1 : 0;
	rt_stream_close(&x->s, rc == 0 || !e->set); /* done, or interrupted */
	if (rc) /* a no-op unless a signal came and nothing failed */
		rt_stream_test_interrupted(&x->t);
	if (rc && !e->set)
		rt_fail(e, RT_EXIT_FAIL, "failed (no reason recorded)");
	rt_child_error(share, e);
	rt_log_flush(&x->run->log);
	return e->set ? e->exit_code : 0;
}

/* The child's waits end after --timeout; silence for twice that means it hangs. */
static int serve_forked(struct rstream *x, const struct rt_stream_row *rows,
			size_t n, enum phase ph)
{
	struct forked f = { .x = x, .rows = rows, .n = n, .ph = ph };
	struct rt_child c;
	char what[64];

	rt_log_flush(&x->run->log);
	if (rt_child_start(&c, serve_child, &f, &x->run->err))
		return -1;
	x->ops->close(x->s.fd); /* the child's copy carries the connection */
	x->s.fd = -1;
	snprintf(what, sizeof(what), "the server process of connection %u", x->t.conn);
	if (rt_child_wait(&c, 2 * x->run->common.timeout_ms + 1000, what,
			  &x->run->results, &x->run->err))
		return -1;
	if (x->m.verify)
		rt_stream_verify_skip(&x->t.v, rows, n);
	return 0;
}

/* ---- the run --------------------------------------------------------------------------------- */

static int connection(struct rstream *x, unsigned conn, enum phase ph,
		      const struct rt_stream_row *rows, size_t n)
{
	bool orderly;
	int rc;

	x->t.conn = conn;
	x->t.row = NULL;
	if (x->server ? server_accept(x, ph) : client_connect(x, ph)) {
		rt_stream_test_interrupted(&x->t);
		rt_stream_close(&x->s, false);
		return -1;
	}
	if (x->server && x->m.fork)
		return serve_forked(x, rows, n, ph);
	rc = (x->server && setup_accepted(x, ph)) || rt_stream_test_rows(&x->t, rows, n) ? -1 : 0;
	orderly = rc == 0 || !x->run->err.set; /* done, or interrupted */
	if (rc)
		rt_stream_test_interrupted(&x->t); /* while x->t.row still points into rows */
	rt_stream_close(&x->s, orderly);
	return rc;
}

static int series(struct rstream *x)
{
	struct rt_stream_row rows[RT_STREAM_LADDER_LEN];
	size_t n;

	if (x->custom) {
		rt_stream_row_init(&rows[0], RT_ROW_CUSTOM, x->size,
				   (uint64_t)x->cfg->count, (uint64_t)x->cfg->iters);
		return connection(x, 1, PHASE_CUSTOM, rows, 1);
	}
	n = rt_stream_series(RT_ROW_LAT, x->all, (uint64_t)x->cfg->scale, rows);
	if (connection(x, 1, PHASE_LAT, rows, n))
		return -1;
	n = rt_stream_series(RT_ROW_BW, x->all, (uint64_t)x->cfg->scale, rows);
	return connection(x, 2, PHASE_BW, rows, n);
}

static void header(struct rstream *x)
{
	char line[128];

	rt_stream_header(line, sizeof(line));
	rt_say(&x->run->log, "%s", line);
	rt_log_flush(&x->run->log);
}

static void results_head(struct rstream *x)
{
	struct rt_json *j = &x->run->results;

	rt_json_kv_string(j, "role", x->server ? "server" : "client");
	rt_json_kv_string(j, "transport", x->ops->name);
	rt_json_kv_string(j, "series", x->custom ? "custom" : x->all ? "all" : "default");
	rt_json_key(j, "modes");
	rt_json_object_begin(j);
	rt_json_kv_bool(j, "async", x->m.async);
	rt_json_kv_bool(j, "blocking", x->m.blocking);
	rt_json_kv_bool(j, "fork", x->m.fork);
	rt_json_kv_bool(j, "resolve", x->m.resolve);
	rt_json_kv_bool(j, "verify", x->m.verify);
	rt_json_object_end(j);
	rt_json_key(j, "rows");
	rt_json_array_begin(j);
}

static void results_tail(struct rstream *x)
{
	struct rt_json *j = &x->run->results;

	rt_json_array_end(j);
	if (x->m.verify)
		rt_json_kv_uint(j, "verified_bytes", x->t.v.checked);
}

static int run_all(struct rstream *x)
{
	size_t buflen = x->custom ? (size_t)x->size : RT_STREAM_LADDER_MAX;

	buflen = RT_MAX(buflen, (size_t)RT_STREAM_SYNC_LEN);
	x->t.sbuf = rt_xcalloc(1, buflen);
	x->t.rbuf = rt_xcalloc(1, buflen);
	if (resolve(x))
		return -1;
	if (x->server && server_listen(x))
		return -1;
	header(x);
	results_head(x);
	if (series(x) && !rt_interrupt_signal())
		return -1;
	results_tail(x);
	return x->run->err.set ? -1 : 0;
}

static int rstream_main(struct rt_run *run, void *cfgp)
{
	struct rstream x = { .cfg = cfgp, .run = run, .lfd = -1 };
	int rc;

	x.s.fd = -1;
	if (configure(&x))
		return -1;
	rc = run_all(&x);
	rt_stream_close(&x.s, false);
	if (x.lfd >= 0)
		x.ops->close(x.lfd);
	free(x.t.sbuf);
	free(x.t.rbuf);
	rt_sockaddr_free(&x.ep);
	return rc;
}
