/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime: how long each step of setting up and tearing down RDMA CM
 * connections takes, with -c connections in flight at once.
 *
 * Protocol of upstream cmtime as Debian 12 ships it (rdma-core v44): no
 * payload, only the CM. The client opens -c RC connections to the
 * server's port (TCP port space), then disconnects them all; the server
 * accepts each with a small QP and answers every DREQ. Unlike upstream,
 * the server ends once -c connections came and went (or on
 * --accept-timeout), every wait is bounded by --timeout, and a rejected
 * or failed connection fails the run instead of passing silently.
 *
 * Steps run through the reactor pipelined, not with upstream's barrier
 * between steps: a step's total is its span, from the first connection
 * starting it to the last one finishing it. "create id" includes issuing
 * the address resolution; a -b address is bound as part of it. Memory:
 * one histogram per step (58 KiB each) and -c connections at most; the
 * server frees each connection as soon as it has closed (so it has no
 * "destroy" row of its own). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"

struct cmtime_cfg {
	long long conns;
	long long port;
	long long retries;
	long long resolve_ms; /* -t */
	const char *dst;
	const char *src;
	int format;
};

enum cmtime_step {
	ST_CREATE_ID,
	ST_BIND,
	ST_RESOLVE_ADDR,
	ST_RESOLVE_ROUTE,
	ST_CREATE_QP,
	ST_CONNECT,
	ST_DISCONNECT,
	ST_DESTROY,
	ST_COUNT,
};

/* upstream's row names, in its order */
static const char *const step_names[ST_COUNT] = {
	"create id", "bind addr", "resolve addr", "resolve route",
	"create qp", "connect", "disconnect", "destroy",
};

/* One step over all connections: the per-connection times, and the span
 * from the first start to the last end. */
struct step_stat {
	struct rt_hist h;
	uint64_t first, last;
};

struct cmtime_ctx {
	struct cmtime_cfg *cfg;
	struct rt_run *run;
	struct rt_cm *cm;
	bool server;
	unsigned conns;
	unsigned served;     /* server: connections that came and went */
	uint64_t t_start, t_connected;
	struct step_stat st[ST_COUNT];
};

struct cmtime_conn {
	uint64_t established; /* ns, when the reactor called the hook */
};

#define RT_CFG struct cmtime_cfg

static const struct rt_opt cmtime_opts[] = {
	RT_OPT_ROW_SERVER_ADDR(RT_S(dst)),
	{ 'b', "bind", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "local address to listen on (server) or to connect from (client)", NULL },
	RT_OPT_ROW_CONNECTIONS(RT_L(conns), "100",
			       "connections, all in flight at once; the server ends after N"),
	RT_OPT_ROW_PORT(RT_L(port), "7471"),
	{ 'r', "retries", RT_OPT_INT, RT_L(retries), 0, 7, "2", "N",
	  "client: the QP's transport retry count (as upstream's -r)", NULL },
	{ 't', "resolve-timeout", RT_OPT_INT, RT_L(resolve_ms), 1, 600000, "2000", "MS",
	  "client: address and route resolution timeout, each, in ms", NULL },
	/* not in upstream, so after its options (-s -b -c -p -r -t) */
	RT_OPT_ROW_ADDR_FORMAT(RT_I(format), "how to read addresses"),
	{ 0 },
};

RT_APPLET(cmtime, "RDMA CM connection setup timing: N connections at once, step by step",
	  "[-s server_addr] [-b bind_addr] [-c connections] [-p port] "
	  "[-r retries] [-t timeout_ms] [-f name|ip|ipv6|gid]",
	  "Without -s it is the server: it accepts -c connections and ends once "
	  "they have all disconnected. With -s it is the client: it opens -c "
	  "connections at once, disconnects them and prints how long each step "
	  "took (total, slowest and fastest connection, per connection). "
	  "Wire-compatible with rdma-core v44's cmtime (Debian 12); unlike it, "
	  "the server ends, every wait is bounded by --timeout, and a failed "
	  "connection fails the run. --json adds per-step percentiles and "
	  "connections per second.");

static void stat_add(struct step_stat *s, uint64_t start, uint64_t end)
{
	rt_hist_add(&s->h, end - start);
	if (!s->first || start < s->first)
		s->first = start;
	if (end > s->last)
		s->last = end;
}

static int setup(struct rt_conn *c)
{
	struct cmtime_ctx *x = rt_conn_applet(c);
	/* as upstream: one work request each way, nothing is ever posted */
	struct rt_res_spec spec = { .qp_type = IBV_QPT_RC, .send_depth = 1,
				    .recv_depth = 1 };

	if (rt_conn_refuse_beyond(c, x->conns))
		return -1;
	if (!rt_conn_data(c))
		rt_conn_priv(c, sizeof(struct cmtime_conn));
	return rt_conn_setup_res(c, &spec);
}

static void established(struct rt_conn *c)
{
	struct cmtime_conn *t = rt_conn_data(c);

	if (t)
		t->established = rt_now_ns();
}

/* Turned-away extra requests are warnings; any other failure ends the run. */
static bool only_extra(struct rt_conn *c)
{
	return rt_conn_beyond(c, ((const struct cmtime_ctx *)rt_conn_applet(c))->conns);
}

static const struct rt_cm_hooks hooks = {
	.setup = setup,
	.established = established,
	.failed = only_extra,
};

/* The reactor chains a connection's steps, each starting when the one
 * before ended; counting back from "established" places them in time. */
static void collect_setup(struct cmtime_ctx *x, const struct rt_conn *c)
{
	static const enum cmtime_step back[] = { ST_CONNECT, ST_CREATE_QP,
						  ST_RESOLVE_ROUTE, ST_RESOLVE_ADDR };
	static const enum rt_step from[] = { RT_STEP_CONNECT, RT_STEP_CREATE_QP,
					     RT_STEP_RESOLVE_ROUTE, RT_STEP_RESOLVE_ADDR };
	const struct cmtime_conn *t = rt_conn_data(c);
	const uint64_t *ns = rt_conn_step_ns(c);
	uint64_t end = t ? t->established : 0;
	size_t n = x->server ? 2 : ARRAY_SIZE(back); /* a server resolves nothing */

	for (size_t i = 0; end && i < n; i++) {
		uint64_t d = ns[from[i]];

		stat_add(&x->st[back[i]], end - d, end);
		end -= d;
	}
}

/* ---- server ------------------------------------------------------------- */

static bool all_served(const struct rt_cm *cm, const void *arg)
{
	const struct cmtime_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return x->served >= x->conns;
}

/* Counts the connections that have closed, then frees them and the
 * extra ones turned away, so that memory stays bounded by -c. */
static void harvest(struct rt_cm *cm, void *arg)
{
	struct cmtime_ctx *x = rt_cm_applet(cm);
	struct rt_conn *c;

	(void)arg;
	rt_cm_each(cm, c)
		if (rt_conn_state(c) == RT_CONN_DISCONNECTED) {
			collect_setup(x, c);
			x->served++;
		}
	rt_cm_release_finished(cm);
}

static void served_progress(const struct rt_cm *cm, const void *arg, char *buf, size_t len)
{
	const struct cmtime_ctx *x = rt_cm_applet(cm);
	char census[120];

	(void)arg;
	rt_cm_census(cm, census, sizeof(census));
	snprintf(buf, len, "%u of %u connections came and went; now %s: does the "
		 "client's -c match?", x->served, x->conns, census);
}

static bool children_arrived(const struct rt_cm *cm, const void *arg)
{
	const struct cmtime_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return rt_cm_count(cm) > 0 || x->served > 0;
}

static int serve(struct cmtime_ctx *x, struct sockaddr *addr)
{
	struct rt_wait first = { .done = children_arrived, .step = harvest,
				 .timeout_ms = rt_run_accept_bound(x->run),
				 .what = "a first client" };
	struct rt_wait all = { .done = all_served, .step = harvest,
			       .what = "the clients to connect and disconnect",
			       .progress = served_progress };

	if (rt_cm_listen(x->cm, addr))
		return -1;
	rt_error_phase(&x->run->err, "connect");
	if (rt_cm_run(x->cm, &first))
		return -1;
	x->t_start = rt_now_ns();
	if (rt_cm_run(x->cm, &all))
		return -1;
	x->t_connected = rt_now_ns();
	return 0;
}

/* ---- client ------------------------------------------------------------- */

static int create_ids(struct cmtime_ctx *x, struct rdma_addrinfo *ai)
{
	rt_say(&x->run->log, "creating id");
	x->t_start = rt_now_ns();
	for (unsigned i = 0; i < x->conns; i++) {
		uint64_t t0 = rt_now_ns();

		if (!rt_cm_connect(x->cm, ai->ai_src_addr, ai->ai_dst_addr))
			return -1;
		stat_add(&x->st[ST_CREATE_ID], t0, rt_now_ns());
	}
	return 0;
}

static void connect_progress(const struct rt_cm *cm, const void *arg, char *buf,
			     size_t len)
{
	const struct cmtime_ctx *x = rt_cm_applet(cm);

	(void)arg;
	rt_cm_census_want(cm, x->conns, "is the server up, and does its -c match?", buf, len);
}

static int connect_all(struct cmtime_ctx *x, struct rdma_addrinfo *ai)
{
	struct rt_wait w = { .done = rt_cm_all_established, .arg = &x->conns,
			     .what = "all connections to be established",
			     .progress = connect_progress };
	const struct rt_log *log = &x->run->log;
	int rc;

	rt_error_phase(&x->run->err, "connect");
	if (create_ids(x, ai))
		return -1;
	rt_say(log, "resolving address");
	rt_say(log, "resolving route");
	rt_say(log, "creating qp");
	rt_say(log, "connecting");
	rc = rt_cm_run(x->cm, &w);
	x->t_connected = rt_now_ns();
	return rc;
}

static int disconnect_all(struct cmtime_ctx *x)
{
	struct rt_wait w = { .done = rt_cm_all_closed,
			     .what = "the server to answer the disconnects" };
	struct rt_conn *c;
	uint64_t t0 = rt_now_ns();

	rt_say(&x->run->log, "disconnecting");
	rt_error_phase(&x->run->err, "disconnect");
	rt_cm_each(x->cm, c)
		rt_conn_disconnect(c);
	if (rt_cm_run(x->cm, &w))
		return -1;
	rt_cm_each(x->cm, c) {
		uint64_t d = rt_conn_step_ns(c)[RT_STEP_DISCONNECT];

		collect_setup(x, c);
		rt_hist_add(&x->st[ST_DISCONNECT].h, d);
	}
	x->st[ST_DISCONNECT].first = t0;
	x->st[ST_DISCONNECT].last = rt_now_ns();
	return 0;
}

static void destroy_all(struct cmtime_ctx *x)
{
	struct rt_conn *c;

	rt_say(&x->run->log, "destroying id");
	while ((c = rt_cm_next(x->cm, NULL))) {
		uint64_t t0 = rt_now_ns();

		rt_cm_release(x->cm, c);
		stat_add(&x->st[ST_DESTROY], t0, rt_now_ns());
	}
}

/* ---- report ------------------------------------------------------------- */

/* A server takes part in accepting only: create qp and connect. */
static bool shown(const struct cmtime_ctx *x, int s)
{
	if (x->server)
		return s == ST_CREATE_QP || s == ST_CONNECT;
	return s != ST_BIND || x->cfg->src;
}

static double span_us(const struct step_stat *s)
{
	return s->last > s->first ? (double)(s->last - s->first) / 1e3 : 0;
}

/* upstream's columns: total ms, slowest connection in ms, fastest in µs
 * (999999999.00 when no connection has a time), total µs per connection */
static void print_table(const struct cmtime_ctx *x, unsigned n)
{
	FILE *f = x->run->log.human;

	if (!f)
		return;
	fprintf(f, "step              total ms     max ms     min us  us / conn\n");
	for (int s = 0; s < ST_COUNT; s++) {
		const struct step_stat *st = &x->st[s];
		double total = span_us(st);

		if (!shown(x, s))
			continue;
		fprintf(f, "%-13s: %11.2f%11.2f%11.2f%11.2f\n", step_names[s], total / 1e3,
			(double)st->h.max / 1e6,
			st->h.count ? (double)st->h.min / 1e3 : 999999999.,
			n ? total / n : 0);
	}
}

static void report(struct cmtime_ctx *x, unsigned n)
{
	struct rt_json *j = &x->run->results;
	double secs = (double)(x->t_connected - x->t_start) / 1e9;

	print_table(x, n);
	rt_json_kv_string(j, "role", x->server ? "server" : "client");
	rt_json_kv_uint(j, "connections", n);
	rt_json_kv_double(j, "seconds", secs);
	rt_json_kv_double(j, "connections_per_second", secs > 0 ? n / secs : 0);
	rt_json_key(j, "total_ms");
	rt_json_object_begin(j);
	for (int s = 0; s < ST_COUNT; s++)
		if (shown(x, s))
			rt_json_kv_double(j, step_names[s], span_us(&x->st[s]) / 1e3);
	rt_json_object_end(j);
	rt_json_key(j, "steps_us");
	rt_json_object_begin(j);
	for (int s = 0; s < ST_COUNT; s++) {
		struct rt_summary sum;

		if (!shown(x, s))
			continue;
		rt_hist_summarize(&x->st[s].h, &sum);
		rt_json_key(j, step_names[s]);
		rt_summary_json(j, &sum, 1000);
	}
	rt_json_object_end(j);
}

/* ---- main line ---------------------------------------------------------- */

static int run_test(struct cmtime_ctx *x)
{
	struct cmtime_cfg *cfg = x->cfg;
	struct rt_cm_params p = {
		.ps = RDMA_PS_TCP, .tos = -1, .ack_timeout = -1, .accept_rnr_retry = 7,
		.conn = { .responder_resources = 1, .initiator_depth = 1,
			  .retry_count = (uint8_t)cfg->retries, .rnr_retry_count = 0 },
		.timeout_ms = x->run->common.timeout_ms,
		.wait_server_ms = x->run->common.wait_server_ms,
		.resolve_ms = (int)cfg->resolve_ms,
	};
	struct rt_addr_query q = {
		.node = x->server ? cfg->src : cfg->dst, .port = cfg->port,
		.src = x->server ? NULL : cfg->src, .ps = RDMA_PS_TCP,
		.format = cfg->format, .passive = x->server,
		.what = x->server ? "-b" : "-s",
	};
	struct rdma_addrinfo *ai;
	int rc;

	x->cm = rt_cm_create(&p, &hooks, x, &x->run->log, &x->run->err);
	if (!x->cm)
		return -1;
	rt_error_phase(&x->run->err, x->server ? "listen" : "resolve-addr");
	if (rt_addr_resolve(&q, &ai, &x->run->err))
		return -1;
	if (x->server)
		rc = serve(x, ai->ai_src_addr);
	else
		rc = connect_all(x, ai) || disconnect_all(x) ? -1 : 0;
	rdma_freeaddrinfo(ai);
	if (rc)
		return -1;
	if (!x->server)
		destroy_all(x);
	report(x, x->server ? x->served : x->conns);
	return 0;
}

static int cmtime_main(struct rt_run *run, void *cfgp)
{
	struct cmtime_cfg *cfg = cfgp;
	/* the histograms are large: on the heap, not the stack */
	struct cmtime_ctx *x = rt_xcalloc(1, sizeof(*x));
	int rc;

	x->cfg = cfg;
	x->run = run;
	x->server = !cfg->dst;
	x->conns = (unsigned)cfg->conns;
	rc = run_test(x);
	rt_cm_destroy(x->cm);
	free(x);
	return rc;
}
