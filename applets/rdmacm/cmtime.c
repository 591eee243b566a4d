/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime: how long each step of setting up and tearing down RDMA CM
 * connections takes, with -c connections in flight at once.
 *
 * Two upstream protocols, chosen with --proto (they cannot talk to each
 * other, and neither announces itself):
 *
 * v56, the default: upstream cmtime of rdma-core 52-58 (Debian 13). The
 * client first opens one TCP connection to the server's port (the same
 * number as the CM port) and the two sides keep in step over it with
 * one-byte syncs (cmtsync.h). There are three runs, each synced at its
 * start, once all connections are up and once all are closed: a warm-up
 * with one connection, the main run with -c (QPs, or with -m none and a
 * sleep in their place), and -c again without QPs (fake QP numbers from
 * -q). Both sides need the same -c. -S instead times plain TCP
 * connections to the same port.
 *
 * v44: upstream cmtime of rdma-core 51 and older (Debian 12): no payload
 * and no sync, only the CM. The client opens -c RC connections to the
 * server's port, then disconnects them all; the server accepts each with
 * a small QP and answers every DREQ.
 *
 * Unlike upstream, the server ends once its runs are over (v44: once -c
 * connections came and went, or on --accept-timeout), every wait is
 * bounded by --timeout, and a rejected or failed connection fails the
 * run instead of passing silently. Steps run through the reactor
 * pipelined, not with upstream's barrier between steps: a step's total
 * is its span, from the first connection starting it to the last one
 * finishing it. "create id" includes issuing the address resolution; a
 * -b address is bound as part of it. The reactor creates and moves a QP
 * with the CM, so the init/rtr/rts rows of the v56 table stay 0: their
 * time is in "create qp" and "cm connect". Memory: one histogram per
 * step (58 KiB each) and -c connections at most. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmtsync.h"
#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/oob.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"

struct cmtime_cfg {
	long long conns;
	long long port;
	long long retries;
	long long resolve_ms; /* -t */
	long long mimic_us;   /* -m */
	long long threads;    /* -n */
	long long base_qpn;   /* -q */
	int socket;           /* -S */
	int proto;            /* enum rt_cmt_proto */
	const char *dst;
	const char *src;
	int format;
};

/* upstream v56's rows, in its order; v44 prints a subset (v44_rows) */
enum cmtime_step {
	ST_FULL_CONNECT,
	ST_CREATE_ID,
	ST_BIND,
	ST_RESOLVE_ADDR,
	ST_RESOLVE_ROUTE,
	ST_CREATE_QP,
	ST_INIT_QP_ATTR,
	ST_INIT_QP,
	ST_RTR_QP_ATTR,
	ST_RTR_QP,
	ST_RTS_QP_ATTR,
	ST_RTS_QP,
	ST_CONNECT,
	ST_ESTABLISH,
	ST_DISCONNECT,
	ST_DESTROY_ID,
	ST_DESTROY_QP,
	ST_COUNT,
};

static const char *const step_names[ST_COUNT] = {
	"full connect", "create id", "bind addr", "resolve addr", "resolve route",
	"create qp", "init qp attr", "init qp", "rtr qp attr", "rtr qp",
	"rts qp attr", "rts qp", "cm connect", "establish", "disconnect",
	"destroy id", "destroy qp",
};

/* v44's rows and its names for them */
static const struct {
	enum cmtime_step step;
	const char *name;
} v44_rows[] = {
	{ ST_CREATE_ID, "create id" }, { ST_BIND, "bind addr" },
	{ ST_RESOLVE_ADDR, "resolve addr" }, { ST_RESOLVE_ROUTE, "resolve route" },
	{ ST_CREATE_QP, "create qp" }, { ST_CONNECT, "connect" },
	{ ST_DISCONNECT, "disconnect" }, { ST_DESTROY_ID, "destroy" },
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
	struct rt_oob oob;   /* v56: the sync connection */
	bool server;
	bool v56;
	unsigned conns;
	unsigned served;     /* v44 server: connections that came and went */
	/* the current v56 run */
	unsigned run_n;      /* its connections */
	unsigned accepted, est, closed; /* server: requests taken, established, closed */
	bool qpless;         /* connections without QPs (fake QP numbers) */
	long long delay_us;  /* -m: sleep in place of each QP operation */
	uint32_t next_qpn;
	uint64_t t_start, t_connected;
	struct step_stat st[ST_COUNT];
};

struct cmtime_conn {
	uint64_t created;     /* ns, client: when its id was created */
	uint64_t established; /* ns, when the reactor called the hook */
};

#define RT_CFG struct cmtime_cfg

static const struct rt_enum proto_choices[] = {
	{ "v56", RT_CMT_V56, "rdma-core 52-58's cmtime (Debian 13): TCP sync, three runs" },
	{ "v44", RT_CMT_V44, "rdma-core 51's and older (Debian 12): the CM only" },
	{ NULL, 0, NULL },
};

static const struct rt_opt cmtime_opts[] = {
	RT_OPT_ROW_SERVER_ADDR(RT_S(dst)),
	{ 'b', "bind", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "local address to listen on (server) or to connect from (client)", NULL },
	RT_OPT_ROW_CONNECTIONS(RT_L(conns), "100",
			       "connections, all in flight at once; v56: both sides "
			       "need the same; v44: the server ends after N"),
	{ 'm', "mimic-qp-delay", RT_OPT_INT, RT_L(mimic_us), 0, 10000000, NULL, "US",
	  "v56: the main run has no QPs; each QP operation is a sleep of US "
	  "microseconds instead", NULL },
	{ 'n', "threads", RT_OPT_INT, RT_L(threads), 1, 1024, "1", "N",
	  "v56: upstream's work-queue threads; only 1 (one event loop drives "
	  "every connection)", NULL },
	RT_OPT_ROW_PORT(RT_L(port), "7471"),
	{ 'q', "base-qpn", RT_OPT_INT, RT_L(base_qpn), 1, 0xffffff, "1000", "QPN",
	  "v56: first fake QP number of the runs without QPs", NULL },
	{ 'r', "retries", RT_OPT_INT, RT_L(retries), 0, 7, "2", "N",
	  "v44 client: the QP's transport retry count (as upstream's -r); "
	  "v56: accepted, as upstream's address resolution retries, unused", NULL },
	{ 'S', "socket", RT_OPT_FLAG, RT_I(socket), 0, 0, NULL, NULL,
	  "v56: time plain TCP connections to the port instead (upstream's "
	  "socket baseline)", NULL },
	{ 't', "resolve-timeout", RT_OPT_INT, RT_L(resolve_ms), 1, 600000, "2000", "MS",
	  "client: address and route resolution timeout, each, in ms", NULL },
	/* not in upstream, so after its options (-s -b -c -m -n -p -q -r -S -t) */
	RT_OPT_ROW_ADDR_FORMAT(RT_I(format), "how to read addresses"),
	{ 0, "proto", RT_OPT_ENUM, RT_I(proto), 0, 0, "v56", "GEN",
	  "the peer's cmtime: v56 for rdma-core 52-58 (Debian 13), v44 for "
	  "rdma-core 51 and older (Debian 12); the two cannot talk to each other",
	  proto_choices },
	{ 0 },
};

RT_APPLET(cmtime, "RDMA CM connection setup timing: N connections at once, step by step",
	  "[-s server_addr] [-b bind_addr] [-c connections] [-m mimic_us] "
	  "[-n 1] [-p port] [-q base_qpn] [-r retries] [-S] [-t timeout_ms] "
	  "[-f name|ip|ipv6|gid] [--proto v56|v44]",
	  "Without -s it is the server, with -s the client: it opens -c "
	  "connections at once, disconnects them and prints how long each step "
	  "took (total, per connection, slowest, fastest). By default it speaks "
	  "to upstream cmtime of rdma-core 52-58 (Debian 13): a TCP connection "
	  "on the same port keeps the two sides in step through a warm-up, the "
	  "main run and a run without QPs, each printing its table; both sides "
	  "need the same -c. --proto v44 speaks to rdma-core 51 and older "
	  "(Debian 12) instead: no TCP, one run, v44's table. A v56 client "
	  "finds no TCP listener at a v44 server; a v56 server rejects a v44 "
	  "client's connection request that comes before any TCP connection; "
	  "both say to use the other --proto. Unlike upstream, the server ends "
	  "after its runs, every wait is bounded by --timeout, and a failed "
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

/* A step with a span but no per-connection times (a server's disconnect). */
static void span_add(struct step_stat *s, uint64_t start, uint64_t end)
{
	if (!s->first || start < s->first)
		s->first = start;
	if (end > s->last)
		s->last = end;
}

static void sleep_us(long long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	while (us > 0 && nanosleep(&ts, &ts) && errno == EINTR && !rt_interrupt_pending())
		;
}

static int setup(struct rt_conn *c)
{
	struct cmtime_ctx *x = rt_conn_applet(c);
	/* as upstream: one work request each way, nothing is ever posted */
	struct rt_res_spec spec = { .qp_type = IBV_QPT_RC, .send_depth = 1,
				    .recv_depth = 1 };

	if (!x->v56) {
		if (rt_conn_refuse_beyond(c, x->conns))
			return -1;
	} else if (rt_conn_passive(c)) {
		if (x->oob.fd < 0)
			return rt_conn_fail(c, RT_EXIT_FAIL, "%s: a CM connection request "
					    "came before any TCP sync connection: the client "
					    "is a cmtime of rdma-core 51 or older (Debian 12); "
					    "use --proto v44 here", rt_conn_peer(c));
		if (x->accepted >= x->run_n)
			return rt_conn_fail(c, RT_EXIT_FAIL, "%s: extra connection request "
					    "beyond -c %u: rejected (does the client's -c "
					    "match?)", rt_conn_peer(c), x->run_n);
		x->accepted++;
	}
	if (!rt_conn_data(c))
		rt_conn_priv(c, sizeof(struct cmtime_conn));
	if (!x->qpless)
		return rt_conn_setup_res(c, &spec);
	/* upstream sleeps for create and INIT here; the server also for RTR
	 * and RTS, which the client does on the CM's response */
	sleep_us(x->delay_us * (rt_conn_passive(c) ? 4 : 2));
	rt_conn_set_qp_num(c, x->next_qpn++);
	return 0;
}

/* A client without QPs: the CM hands the response over; RTU goes out
 * with rdma_establish. */
static int connect_response(struct rt_conn *c)
{
	struct cmtime_ctx *x = rt_conn_applet(c);
	uint64_t t0 = rt_now_ns();

	sleep_us(x->delay_us * 2);
	if (rdma_establish(rt_conn_id(c)))
		return rt_conn_fail(c, RT_EXIT_FAIL, "rdma_establish %s: %s",
				    rt_conn_peer(c), strerror(errno));
	stat_add(&x->st[ST_ESTABLISH], t0, rt_now_ns());
	return 0;
}

static void established(struct rt_conn *c)
{
	struct cmtime_ctx *x = rt_conn_applet(c);
	struct cmtime_conn *t = rt_conn_data(c);

	x->est++;
	if (t)
		t->established = rt_now_ns();
}

static void disconnected(struct rt_conn *c)
{
	struct cmtime_ctx *x = rt_conn_applet(c);
	uint64_t now = rt_now_ns();

	x->closed++;
	if (x->server && x->v56)
		span_add(&x->st[ST_DISCONNECT], now, now);
}

/* Turned-away extra requests are warnings in v44; any other failure, and
 * every failure in v56, ends the run. */
static bool only_extra(struct rt_conn *c)
{
	const struct cmtime_ctx *x = rt_conn_applet(c);

	return !x->v56 && rt_conn_beyond(c, x->conns);
}

static const struct rt_cm_hooks hooks = {
	.setup = setup,
	.established = established,
	.disconnected = disconnected,
	.failed = only_extra,
	.connect_response = connect_response,
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

	if (t && t->created && end)
		stat_add(&x->st[ST_FULL_CONNECT], t->created, end);
	for (size_t i = 0; end && i < n; i++) {
		uint64_t d = ns[from[i]];

		stat_add(&x->st[back[i]], end - d, end);
		end -= d;
	}
}

/* ---- v44 server --------------------------------------------------------- */

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

static int serve_v44(struct cmtime_ctx *x)
{
	struct rt_wait first = { .done = children_arrived, .step = harvest,
				 .timeout_ms = rt_run_accept_bound(x->run),
				 .what = "a first client" };
	struct rt_wait all = { .done = all_served, .step = harvest,
			       .what = "the clients to connect and disconnect",
			       .progress = served_progress };

	rt_error_phase(&x->run->err, "connect");
	if (rt_cm_run(x->cm, &first))
		return -1;
	x->t_start = rt_now_ns();
	if (rt_cm_run(x->cm, &all))
		return -1;
	x->t_connected = rt_now_ns();
	return 0;
}

/* ---- client steps (both protocols) -------------------------------------- */

static int create_ids(struct cmtime_ctx *x, struct rdma_addrinfo *ai, unsigned n)
{
	rt_say(&x->run->log, "creating id");
	x->t_start = rt_now_ns();
	for (unsigned i = 0; i < n; i++) {
		uint64_t t0 = rt_now_ns();
		struct rt_conn *c = rt_cm_connect(x->cm, ai->ai_src_addr, ai->ai_dst_addr);
		struct cmtime_conn *t;

		if (!c)
			return -1;
		stat_add(&x->st[ST_CREATE_ID], t0, rt_now_ns());
		t = rt_conn_priv(c, sizeof(*t));
		t->created = t0;
	}
	return 0;
}

static void connect_progress(const struct rt_cm *cm, const void *arg, char *buf,
			     size_t len)
{
	(void)arg;
	rt_cm_census_want(cm, *(const unsigned *)arg, "is the server up, and does "
			  "its -c match?", buf, len);
}

static int connect_all(struct cmtime_ctx *x, struct rdma_addrinfo *ai, unsigned n)
{
	struct rt_wait w = { .done = rt_cm_all_established, .arg = &n,
			     .what = "all connections to be established",
			     .progress = connect_progress };
	const struct rt_log *log = &x->run->log;
	int rc;

	rt_error_phase(&x->run->err, "connect");
	if (create_ids(x, ai, n))
		return -1;
	rt_say(log, "resolving address");
	rt_say(log, "resolving route");
	rt_say(log, "creating qp");
	rt_say(log, "connecting");
	rc = rt_cm_run(x->cm, &w);
	x->t_connected = rt_now_ns();
	span_add(&x->st[ST_FULL_CONNECT], x->t_start, x->t_connected);
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
		stat_add(&x->st[ST_DESTROY_ID], t0, rt_now_ns());
	}
}

/* ---- v56: the TCP sync -------------------------------------------------- */

static int sync_step(struct cmtime_ctx *x, enum rt_cmt_sync step)
{
	unsigned char b = (unsigned char)step;
	struct rt_error *err = &x->run->err;

	rt_error_phase(err, "sync");
	rt_dbg(&x->run->log, "TCP sync %u (%s)", (unsigned)step, rt_cmt_sync_name(step));
	if (x->server)
		return rt_oob_read(&x->oob, &b, 1, err) || rt_cmt_sync_check(step, b, err) ||
		       rt_oob_write(&x->oob, &b, 1, err) ? -1 : 0;
	return rt_oob_write(&x->oob, &b, 1, err) || rt_oob_read(&x->oob, &b, 1, err) ||
	       rt_cmt_sync_check(step, b, err) ? -1 : 0;
}

/* Starts a run: its counters and tables are fresh, QP numbers restart. */
static int run_reset(struct cmtime_ctx *x, unsigned n, bool qpless, long long delay_us)
{
	x->run_n = n;
	x->accepted = x->est = x->closed = 0;
	x->qpless = qpless;
	x->delay_us = delay_us;
	x->next_qpn = (uint32_t)x->cfg->base_qpn;
	memset(x->st, 0, sizeof(x->st));
	return sync_step(x, RT_CMT_SYNC_RESET);
}

/* ---- v56 server --------------------------------------------------------- */

/* Waiting for the client's TCP connection, the reactor keeps going: a
 * CM request first is a v44 client (setup names it). */
static void try_accept(struct rt_cm *cm, void *arg)
{
	struct cmtime_ctx *x = rt_cm_applet(cm);
	struct pollfd p = { .fd = x->oob.lfd, .events = POLLIN };

	(void)arg;
	if (x->oob.fd < 0 && x->oob.lfd >= 0 && poll(&p, 1, 0) == 1 &&
	    rt_oob_accept(&x->oob, &x->run->err) == 0) {
		x->oob.timeout_ms = x->run->common.timeout_ms;
		rt_dbg(&x->run->log, "TCP sync connection from %s", x->oob.peer_name);
	}
}

static bool sync_connected(const struct rt_cm *cm, const void *arg)
{
	(void)arg;
	return ((const struct cmtime_ctx *)rt_cm_applet(cm))->oob.fd >= 0;
}

static bool run_established(const struct rt_cm *cm, const void *arg)
{
	const struct cmtime_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return x->est >= x->run_n;
}

static bool run_closed(const struct rt_cm *cm, const void *arg)
{
	const struct cmtime_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return x->closed >= x->run_n;
}

static void run_progress(const struct rt_cm *cm, const void *arg, char *buf, size_t len)
{
	const struct cmtime_ctx *x = rt_cm_applet(cm);

	(void)arg;
	rt_cm_census_want(cm, x->run_n, "does the client's -c match?", buf, len);
}

static void print_line(const struct cmtime_ctx *x, const char *fmt, unsigned n,
		       long long us)
{
	if (x->run->log.human) {
		fprintf(x->run->log.human, fmt, n, us);
		fputc('\n', x->run->log.human);
	}
}

static int serve_run(struct cmtime_ctx *x, unsigned n, bool qpless, long long delay_us)
{
	struct rt_wait up = { .done = run_established, .progress = run_progress,
			      .what = "the client's connections to be established" };
	struct rt_wait down = { .done = run_closed, .progress = run_progress,
				.what = "the client to disconnect" };
	struct rt_conn *c;

	rt_error_phase(&x->run->err, "sync");
	if (run_reset(x, n, qpless, delay_us))
		return -1;
	x->t_start = rt_now_ns();
	rt_error_phase(&x->run->err, "connect");
	if (rt_cm_run(x->cm, &up))
		return -1;
	x->t_connected = rt_now_ns();
	rt_cm_each(x->cm, c) {
		const struct cmtime_conn *t = rt_conn_data(c);
		uint64_t d = rt_conn_step_ns(c)[RT_STEP_CONNECT];

		collect_setup(x, c);
		/* upstream's server times "cm connect" from the first request */
		if (t && t->established)
			span_add(&x->st[ST_CONNECT],
				 t->established - d - rt_conn_step_ns(c)[RT_STEP_CREATE_QP],
				 t->established);
	}
	if (sync_step(x, RT_CMT_SYNC_CONNECTED))
		return -1;
	rt_error_phase(&x->run->err, "disconnect");
	if (rt_cm_run(x->cm, &down))
		return -1;
	if (sync_step(x, RT_CMT_SYNC_DISCONNECTED))
		return -1;
	destroy_all(x);
	return 0;
}

/* ---- v56 client --------------------------------------------------------- */

static int client_run(struct cmtime_ctx *x, struct rdma_addrinfo *ai, unsigned n,
		      bool qpless, long long delay_us)
{
	rt_error_phase(&x->run->err, "sync");
	if (run_reset(x, n, qpless, delay_us) || connect_all(x, ai, n))
		return -1;
	if (sync_step(x, RT_CMT_SYNC_CONNECTED) || disconnect_all(x))
		return -1;
	if (sync_step(x, RT_CMT_SYNC_DISCONNECTED))
		return -1;
	destroy_all(x);
	return 0;
}

/* A refused TCP connection: no server yet, or a v44 one (no TCP at all). */
static void refused_hint(struct cmtime_ctx *x)
{
	struct rt_error *e = &x->run->err;
	size_t l = strlen(e->reason);

	if (strstr(e->reason, "refused") && l < sizeof(e->reason))
		snprintf(e->reason + l, sizeof(e->reason) - l, "; a cmtime server of "
			 "rdma-core 51 or older (Debian 12) has no TCP sync: for it "
			 "use --proto v44");
}

/* ---- report ------------------------------------------------------------- */

/* v44: a server takes part in accepting only: create qp and connect. */
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

/* v44's columns: total ms, slowest connection in ms, fastest in µs
 * (999999999.00 when no connection has a time), total µs per connection */
static void print_table_v44(const struct cmtime_ctx *x, unsigned n)
{
	FILE *f = x->run->log.human;

	if (!f)
		return;
	fprintf(f, "step              total ms     max ms     min us  us / conn\n");
	for (size_t i = 0; i < ARRAY_SIZE(v44_rows); i++) {
		const struct step_stat *st = &x->st[v44_rows[i].step];
		double total = span_us(st);

		if (!shown(x, (int)v44_rows[i].step))
			continue;
		fprintf(f, "%-13s: %11.2f%11.2f%11.2f%11.2f\n", v44_rows[i].name,
			total / 1e3, (double)st->h.max / 1e6,
			st->h.count ? (double)st->h.min / 1e3 : 999999999.,
			n ? total / n : 0);
	}
}

/* v56's: the connection count and kind, threads, then every row in µs */
static void print_table_v56(const struct cmtime_ctx *x, unsigned n)
{
	FILE *f = x->run->log.human;
	char line[160];

	if (!f)
		return;
	fprintf(f, "%s        %10u\n", x->qpless ? "cm_conn" : "qp_conn", n);
	fprintf(f, "threads        %10d\n", 1);
	fprintf(f, "step             avg/iter  total(us)    us/conn    sum(us)    max(us)    min(us)\n");
	for (int s = 0; s < ST_COUNT; s++) {
		const struct step_stat *st = &x->st[s];
		struct rt_cmt_step r = {
			.span = st->last > st->first ? (st->last - st->first) / 1000 : 0,
			.sum = st->h.sum_lo / 1000, .max = st->h.max / 1000,
			.min = st->h.min / 1000, .count = st->h.count,
		};

		/* as upstream: the sum of full connect means nothing */
		if (s == ST_FULL_CONNECT)
			r.sum = 0;
		rt_cmt_row_format(line, sizeof(line), step_names[s], &r, n);
		fputs(line, f);
	}
}

static const char *json_name(const struct cmtime_ctx *x, int s)
{
	if (!x->v56)
		for (size_t i = 0; i < ARRAY_SIZE(v44_rows); i++)
			if ((int)v44_rows[i].step == s)
				return v44_rows[i].name;
	return step_names[s];
}

static void report_json(struct cmtime_ctx *x, unsigned n)
{
	struct rt_json *j = &x->run->results;
	double secs = (double)(x->t_connected - x->t_start) / 1e9;

	rt_json_kv_string(j, "role", x->server ? "server" : "client");
	rt_json_kv_string(j, "proto", x->v56 ? "v56" : "v44");
	rt_json_kv_uint(j, "connections", n);
	rt_json_kv_double(j, "seconds", secs);
	rt_json_kv_double(j, "connections_per_second", secs > 0 ? n / secs : 0);
	rt_json_key(j, "total_ms");
	rt_json_object_begin(j);
	for (int s = 0; s < ST_COUNT; s++)
		if (x->v56 ? x->st[s].h.count || x->st[s].last : shown(x, s))
			rt_json_kv_double(j, json_name(x, s), span_us(&x->st[s]) / 1e3);
	rt_json_object_end(j);
	rt_json_key(j, "steps_us");
	rt_json_object_begin(j);
	for (int s = 0; s < ST_COUNT; s++) {
		struct rt_summary sum;

		if (x->v56 ? !x->st[s].h.count : !shown(x, s))
			continue;
		rt_hist_summarize(&x->st[s].h, &sum);
		rt_json_key(j, json_name(x, s));
		rt_summary_json(j, &sum, 1000);
	}
	rt_json_object_end(j);
}

/* ---- main line ---------------------------------------------------------- */

static void run_header(const struct cmtime_ctx *x, bool accept_, bool qpless, bool mimic)
{
	long long us = x->cfg->mimic_us;

	if (qpless && !mimic)
		print_line(x, accept_ ? "Accept (%u) test - no QPs" : "Connect (%u) test - no QPs",
			   x->conns, 0);
	else if (mimic)
		print_line(x, accept_ ? "Accept (%u) simulated QPs test (delay %lld us)"
			   : "Connect (%u) simulated QPs test (delay %lld us)", x->conns, us);
	else
		print_line(x, accept_ ? "Accept (%u) QPs test" : "Connect (%u) QPs test",
			   x->conns, 0);
}

/* v56: warm-up with one connection, the main run, the run without QPs;
 * the JSON results are the main run's. */
static int run_v56(struct cmtime_ctx *x, struct rdma_addrinfo *ai, bool mimic)
{
	struct rt_wait tcp = { .done = sync_connected, .step = try_accept, .tick_ms = 50,
			       .timeout_ms = rt_run_accept_bound(x->run),
			       .what = "a client's TCP sync connection (a Debian 12 "
				       "cmtime client has none: --proto v44)" };
	FILE *f = x->run->log.human;
	struct step_stat main_st[ST_COUNT];
	uint64_t t0, t1;

	rt_oob_init(&x->oob, x->run->common.timeout_ms);
	rt_error_phase(&x->run->err, "connect");
	if (x->server) {
		if (rt_oob_listen(&x->oob, x->cfg->src, (unsigned)x->cfg->port, &x->run->err))
			return -1;
		x->oob.timeout_ms = 0; /* try_accept polls first: take it at once */
		if (rt_cm_run(x->cm, &tcp))
			return -1;
	} else if (rt_oob_connect(&x->oob, x->cfg->dst, (unsigned)x->cfg->port,
				  x->run->common.wait_server_ms, &x->run->err)) {
		refused_hint(x);
		return -1;
	}
	if (f)
		fprintf(f, x->server ? "Server warmup\n" : "Client warmup\n");
	if (x->server ? serve_run(x, 1, false, 0) : client_run(x, ai, 1, false, 0))
		return -1;
	run_header(x, x->server, mimic, mimic);
	if (x->server ? serve_run(x, x->conns, mimic, x->cfg->mimic_us)
		      : client_run(x, ai, x->conns, mimic, x->cfg->mimic_us))
		return -1;
	print_table_v56(x, x->conns);
	memcpy(main_st, x->st, sizeof(main_st));
	t0 = x->t_start;
	t1 = x->t_connected;
	run_header(x, x->server, true, false);
	if (x->server ? serve_run(x, x->conns, true, 0) : client_run(x, ai, x->conns, true, 0))
		return -1;
	print_table_v56(x, x->conns);
	memcpy(x->st, main_st, sizeof(main_st));
	x->t_start = t0;
	x->t_connected = t1;
	x->qpless = mimic;
	return 0;
}

/* -S: upstream's baseline, n plain TCP connections to the port, no sync.
 * The server takes n within the bounds (the first within
 * --accept-timeout), then closes them; the client opens n, then closes. */
static int run_socket(struct cmtime_ctx *x)
{
	struct rt_error *err = &x->run->err;
	struct rt_oob *o = rt_xcalloc(x->conns + 1, sizeof(*o));
	unsigned n = 0;
	uint64_t t0 = 0;
	int rc = -1;

	if (x->run->log.human)
		fprintf(x->run->log.human, x->server ? "Server baseline socket setup\n"
			: "Client baseline socket setup\n");
	rt_error_phase(err, "connect");
	if (x->server) {
		rt_oob_init(&o[x->conns], x->run->common.timeout_ms);
		o[x->conns].backlog = (int)x->conns;
		if (rt_oob_listen(&o[x->conns], x->cfg->src, (unsigned)x->cfg->port, err))
			goto out;
		for (; n < x->conns; n++) {
			struct pollfd p = { .fd = o[x->conns].lfd, .events = POLLIN };
			long long ms = n ? x->run->common.timeout_ms : rt_run_accept_bound(x->run);
			int r = poll(&p, 1, ms > 0 ? (int)ms : -1);

			if (r <= 0) {
				if (r < 0 && errno == EINTR)
					goto out;
				rt_fail(err, RT_EXIT_TIMEOUT, "%u of %u TCP connections "
					"within %.3g s: does the client's -c match?", n,
					x->conns, ms / 1000.0);
				goto out;
			}
			o[n].fd = accept(o[x->conns].lfd, NULL, NULL);
			if (o[n].fd < 0) {
				rt_fail_errno(err, RT_EXIT_FAIL, errno, "accept");
				goto out;
			}
			if (!n)
				t0 = x->t_start = rt_now_ns();
		}
		x->t_connected = rt_now_ns();
		span_add(&x->st[ST_FULL_CONNECT], t0, x->t_connected);
	} else {
		x->t_start = rt_now_ns();
		for (; n < x->conns; n++) {
			uint64_t t = rt_now_ns();

			rt_oob_init(&o[n], x->run->common.timeout_ms);
			if (rt_oob_connect(&o[n], x->cfg->dst, (unsigned)x->cfg->port,
					   n ? 0 : x->run->common.wait_server_ms, err))
				goto out;
			stat_add(&x->st[ST_CONNECT], t, rt_now_ns());
		}
		x->t_connected = rt_now_ns();
		span_add(&x->st[ST_FULL_CONNECT], x->t_start, x->t_connected);
	}
	t0 = rt_now_ns();
	for (unsigned i = 0; i < n; i++)
		rt_oob_close(&o[i]);
	span_add(&x->st[ST_DESTROY_ID], t0, rt_now_ns());
	if (x->run->log.human)
		fprintf(x->run->log.human, x->server ? "Server baseline socket results:\n"
			: "Client baseline socket results:\n");
	x->qpless = true; /* upstream prints cm_conn for it */
	print_table_v56(x, x->conns);
	rc = 0;
out:
	for (unsigned i = 0; i <= x->conns; i++)
		if (o[i].fd > 0 || o[i].lfd > 0)
			rt_oob_close(&o[i]);
	free(o);
	return rc;
}

static int run_test(struct cmtime_ctx *x, bool mimic)
{
	struct cmtime_cfg *cfg = x->cfg;
	struct rt_cm_params p = {
		.ps = RDMA_PS_TCP, .tos = -1, .ack_timeout = -1,
		/* v56 connects and accepts with no retries at all */
		.accept_rnr_retry = x->v56 ? 0 : 7,
		.conn = { .responder_resources = 1, .initiator_depth = 1,
			  .retry_count = x->v56 ? 0 : (uint8_t)cfg->retries,
			  .rnr_retry_count = 0 },
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

	if (cfg->socket)
		return run_socket(x);
	x->cm = rt_cm_create(&p, &hooks, x, &x->run->log, &x->run->err);
	if (!x->cm)
		return -1;
	rt_error_phase(&x->run->err, x->server ? "listen" : "resolve-addr");
	if (rt_addr_resolve(&q, &ai, &x->run->err))
		return -1;
	if (x->server)
		rc = rt_cm_listen(x->cm, ai->ai_src_addr) ? -1
		     : x->v56 ? run_v56(x, ai, mimic) : serve_v44(x);
	else if (x->v56)
		rc = run_v56(x, ai, mimic);
	else
		rc = connect_all(x, ai, x->conns) || disconnect_all(x) ? -1 : 0;
	rdma_freeaddrinfo(ai);
	if (rc)
		return -1;
	if (!x->v56 && !x->server)
		destroy_all(x);
	if (!x->v56)
		print_table_v44(x, x->server ? x->served : x->conns);
	report_json(x, x->v56 || !x->server ? x->conns : x->served);
	return 0;
}

static int cmtime_main(struct rt_run *run, void *cfgp)
{
	struct cmtime_cfg *cfg = cfgp;
	const struct rt_opt_table *t = &run->tabs[0];
	struct rt_cmt_opts o = {
		.proto = (enum rt_cmt_proto)cfg->proto, .client = cfg->dst != NULL,
		.threads = cfg->threads,
		.threads_given = rt_opt_was_given(t, "threads"),
		.mimic_given = rt_opt_was_given(t, "mimic-qp-delay"),
		.qpn_given = rt_opt_was_given(t, "base-qpn"),
		.socket_given = cfg->socket != 0,
	};
	/* the histograms are large: on the heap, not the stack */
	struct cmtime_ctx *x;
	int rc;

	if (rt_cmt_opts_check(&o, &run->err))
		return -1;
	x = rt_xcalloc(1, sizeof(*x));
	x->cfg = cfg;
	x->run = run;
	x->server = !cfg->dst;
	x->v56 = cfg->proto == RT_CMT_V56;
	x->conns = (unsigned)cfg->conns;
	x->oob.fd = x->oob.lfd = -1;
	rc = run_test(x, o.mimic_given);
	rt_oob_close(&x->oob);
	rt_cm_destroy(x->cm);
	free(x);
	return rc;
}
