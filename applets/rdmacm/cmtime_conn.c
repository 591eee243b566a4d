/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's connections on the reactor (cmtime_conn.h): the hooks that
 * time them and the client's steps, shared by both protocols. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "rdmacm/cmtime_conn.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"

void rt_cmt_stat_add(struct rt_cmt_stat *s, uint64_t start, uint64_t end)
{
	rt_hist_add(&s->h, end - start);
	if (!s->first || start < s->first)
		s->first = start;
	if (end > s->last)
		s->last = end;
}

/* A step with a span but no per-connection times (a server's disconnect). */
void rt_cmt_span_add(struct rt_cmt_stat *s, uint64_t start, uint64_t end)
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
	struct rt_cmt_ctx *x = rt_conn_applet(c);
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
		rt_conn_priv(c, sizeof(struct rt_cmt_conn));
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
	struct rt_cmt_ctx *x = rt_conn_applet(c);
	uint64_t t0 = rt_now_ns();

	sleep_us(x->delay_us * 2);
	if (rdma_establish(rt_conn_id(c)))
		return rt_conn_fail(c, RT_EXIT_FAIL, "rdma_establish %s: %s",
				    rt_conn_peer(c), strerror(errno));
	rt_cmt_stat_add(&x->st[RT_CMT_ST_ESTABLISH], t0, rt_now_ns());
	return 0;
}

static void established(struct rt_conn *c)
{
	struct rt_cmt_ctx *x = rt_conn_applet(c);
	struct rt_cmt_conn *t = rt_conn_data(c);

	x->est++;
	if (t)
		t->established = rt_now_ns();
}

static void disconnected(struct rt_conn *c)
{
	struct rt_cmt_ctx *x = rt_conn_applet(c);
	uint64_t now = rt_now_ns();

	x->closed++;
	if (x->server && x->v56)
		rt_cmt_span_add(&x->st[RT_CMT_ST_DISCONNECT], now, now);
}

/* Turned-away extra requests are warnings in v44; any other failure, and
 * every failure in v56, ends the run. */
static bool only_extra(struct rt_conn *c)
{
	const struct rt_cmt_ctx *x = rt_conn_applet(c);

	return !x->v56 && rt_conn_beyond(c, x->conns);
}

const struct rt_cm_hooks rt_cmt_hooks = {
	.setup = setup,
	.established = established,
	.disconnected = disconnected,
	.failed = only_extra,
	.connect_response = connect_response,
};

/* The reactor chains a connection's steps, each starting when the one
 * before ended; counting back from "established" places them in time. */
void rt_cmt_collect_setup(struct rt_cmt_ctx *x, const struct rt_conn *c)
{
	static const enum rt_cmt_step_id back[] = { RT_CMT_ST_CONNECT, RT_CMT_ST_CREATE_QP,
						  RT_CMT_ST_RESOLVE_ROUTE, RT_CMT_ST_RESOLVE_ADDR };
	static const enum rt_step from[] = { RT_STEP_CONNECT, RT_STEP_CREATE_QP,
					     RT_STEP_RESOLVE_ROUTE, RT_STEP_RESOLVE_ADDR };
	const struct rt_cmt_conn *t = rt_conn_data(c);
	const uint64_t *ns = rt_conn_step_ns(c);
	uint64_t end = t ? t->established : 0;
	size_t n = x->server ? 2 : ARRAY_SIZE(back); /* a server resolves nothing */

	if (t && t->created && end)
		rt_cmt_stat_add(&x->st[RT_CMT_ST_FULL_CONNECT], t->created, end);
	for (size_t i = 0; end && i < n; i++) {
		uint64_t d = ns[from[i]];

		rt_cmt_stat_add(&x->st[back[i]], end - d, end);
		end -= d;
	}
}
/* ---- the client's steps (both protocols) ---- */

static int create_ids(struct rt_cmt_ctx *x, struct rdma_addrinfo *ai, unsigned n)
{
	rt_say(&x->run->log, "creating id");
	x->t_start = rt_now_ns();
	for (unsigned i = 0; i < n; i++) {
		uint64_t t0 = rt_now_ns();
		struct rt_conn *c = rt_cm_connect(x->cm, ai->ai_src_addr, ai->ai_dst_addr);
		struct rt_cmt_conn *t;

		if (!c)
			return -1;
		rt_cmt_stat_add(&x->st[RT_CMT_ST_CREATE_ID], t0, rt_now_ns());
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

int rt_cmt_connect_all(struct rt_cmt_ctx *x, struct rdma_addrinfo *ai, unsigned n)
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
	rt_cmt_span_add(&x->st[RT_CMT_ST_FULL_CONNECT], x->t_start, x->t_connected);
	return rc;
}

int rt_cmt_disconnect_all(struct rt_cmt_ctx *x)
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

		rt_cmt_collect_setup(x, c);
		rt_hist_add(&x->st[RT_CMT_ST_DISCONNECT].h, d);
	}
	x->st[RT_CMT_ST_DISCONNECT].first = t0;
	x->st[RT_CMT_ST_DISCONNECT].last = rt_now_ns();
	return 0;
}

void rt_cmt_destroy_all(struct rt_cmt_ctx *x)
{
	struct rt_conn *c;

	rt_say(&x->run->log, "destroying id");
	while ((c = rt_cm_next(x->cm, NULL))) {
		uint64_t t0 = rt_now_ns();

		rt_cm_release(x->cm, c);
		rt_cmt_stat_add(&x->st[RT_CMT_ST_DESTROY_ID], t0, rt_now_ns());
	}
}
