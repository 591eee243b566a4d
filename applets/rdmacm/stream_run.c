/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A stream-test run (stream_run.h): what rstream and riostream share
 * beyond the rows themselves (stream_test.h). */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmacm/child.h"
#include "rdmatest/interrupt.h"
#include "rdmacm/rsock.h"
#include "rdmacm/stream.h"
#include "rdmacm/stream_run.h"
#include "rdmatest/cm.h"
#include "rdmacm/stream_test.h"
#include "rdmatest/util.h"

#define DEFAULT_BUF (1 << 19)   /* SO_SNDBUF/SO_RCVBUF without -B */
#define MAX_SIZE (1LL << 30)

struct modes {
	bool sockets, async, blocking, fork, resolve, verify, iomap;
};

/* Which socket options a connection gets, as upstream. */
enum phase { PHASE_LAT, PHASE_BW, PHASE_CUSTOM };

struct rstream {
	struct rt_stream_cfg *cfg;
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

/* ---- options ------------------------------------------------------------------ */

/* The -T set as switches. Upstream lets the later of b and n win; a set
 * has no order, so asking for both is an error rather than a guess. */
static int parse_modes(int bits, struct modes *m, struct rt_error *err)
{
	if ((bits & RT_SMODE_BLOCK) && (bits & RT_SMODE_NONBLOCK))
		return rt_fail(err, RT_EXIT_USAGE, "--test: block and nonblock "
			       "(b and n) exclude each other");
	m->sockets = bits & (RT_SMODE_SOCKET | RT_SMODE_FORK);
	m->async = bits & RT_SMODE_ASYNC;
	m->blocking = bits & RT_SMODE_BLOCK;
	m->fork = bits & RT_SMODE_FORK;
	m->resolve = bits & RT_SMODE_RESOLVE;
	m->verify = bits & RT_SMODE_VERIFY;
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
	int tos = rt_cm_tos_opt(&x->run->tabs[0], x->cfg->tos);

	*t = (struct rt_sock_tuning){
		.bufsize = x->cfg->bufsize ? (int)x->cfg->bufsize : DEFAULT_BUF,
		.nodelay = true, .keepalive_s = (int)x->cfg->keepalive,
		.inline_size = ph == PHASE_CUSTOM ? -1 : ph == PHASE_LAT ? (int)x->cfg->inline_size : 0,
		.iomap_size = x->m.iomap ? 1 : 0, /* riostream maps one buffer */
		.set_tos = tos >= 0, .tos = (uint8_t)tos, /* the client's dial */
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
	rt_json_kv_string(j, "transport", x->m.iomap ? "rsocket-iomap" : x->ops->name);
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
	if (x->m.iomap) /* the peer writes here, riomap registers it per row */
		x->t.iomap = rt_xcalloc(1, buflen);
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

int rt_stream_run_main(struct rt_run *run, struct rt_stream_cfg *cfg, bool iomap)
{
	struct rstream x = { .cfg = cfg, .run = run, .lfd = -1, .m.iomap = iomap };
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
	free(x.t.iomap);
	rt_sockaddr_free(&x.ep);
	return rc;
}
