/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's second protocol (cmtime_v56.h): rdma-core 52-58. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rdmacm/cmtime_report.h"
#include "rdmacm/cmtime_v56.h"
#include "rdmacm/cmtsync.h"
#include "rdmatest/util.h"

/* ---- v56: the TCP sync -------------------------------------------------- */

static int sync_step(struct rt_cmt_ctx *x, enum rt_cmt_sync step)
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
static int run_reset(struct rt_cmt_ctx *x, unsigned n, bool qpless, long long delay_us)
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
	struct rt_cmt_ctx *x = rt_cm_applet(cm);
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
	return ((const struct rt_cmt_ctx *)rt_cm_applet(cm))->oob.fd >= 0;
}

static bool run_established(const struct rt_cm *cm, const void *arg)
{
	const struct rt_cmt_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return x->est >= x->run_n;
}

static bool run_closed(const struct rt_cm *cm, const void *arg)
{
	const struct rt_cmt_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return x->closed >= x->run_n;
}

static void run_progress(const struct rt_cm *cm, const void *arg, char *buf, size_t len)
{
	const struct rt_cmt_ctx *x = rt_cm_applet(cm);

	(void)arg;
	rt_cm_census_want(cm, x->run_n, "does the client's -c match?", buf, len);
}

static void print_line(const struct rt_cmt_ctx *x, const char *fmt, unsigned n,
		       long long us)
{
	if (x->run->log.human) {
		fprintf(x->run->log.human, fmt, n, us);
		fputc('\n', x->run->log.human);
	}
}

static int serve_run(struct rt_cmt_ctx *x, unsigned n, bool qpless, long long delay_us)
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
		const struct rt_cmt_conn *t = rt_conn_data(c);
		uint64_t d = rt_conn_step_ns(c)[RT_STEP_CONNECT];

		rt_cmt_collect_setup(x, c);
		/* upstream's server times "cm connect" from the first request */
		if (t && t->established)
			rt_cmt_span_add(&x->st[RT_CMT_ST_CONNECT],
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
	rt_cmt_destroy_all(x);
	return 0;
}

/* ---- v56 client --------------------------------------------------------- */

static int client_run(struct rt_cmt_ctx *x, struct rdma_addrinfo *ai, unsigned n,
		      bool qpless, long long delay_us)
{
	rt_error_phase(&x->run->err, "sync");
	if (run_reset(x, n, qpless, delay_us) || rt_cmt_connect_all(x, ai, n))
		return -1;
	if (sync_step(x, RT_CMT_SYNC_CONNECTED) || rt_cmt_disconnect_all(x))
		return -1;
	if (sync_step(x, RT_CMT_SYNC_DISCONNECTED))
		return -1;
	rt_cmt_destroy_all(x);
	return 0;
}

/* A refused TCP connection: no server yet, or a v44 one (no TCP at all). */
static void refused_hint(struct rt_cmt_ctx *x)
{
	struct rt_error *e = &x->run->err;
	size_t l = strlen(e->reason);

	if (strstr(e->reason, "refused") && l < sizeof(e->reason))
		snprintf(e->reason + l, sizeof(e->reason) - l, "; a cmtime server of "
			 "rdma-core 51 or older (Debian 12) has no TCP sync: for it "
			 "use --proto v44");
}

/* ---- the runs ---------------------------------------------------------- */

static void run_header(const struct rt_cmt_ctx *x, bool accept_, bool qpless, bool mimic)
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
int rt_cmt_v56_run(struct rt_cmt_ctx *x, struct rdma_addrinfo *ai, bool mimic)
{
	struct rt_wait tcp = { .done = sync_connected, .step = try_accept, .tick_ms = 50,
			       .timeout_ms = rt_run_accept_bound(x->run),
			       .what = "a client's TCP sync connection (a Debian 12 "
				       "cmtime client has none: --proto v44)" };
	FILE *f = x->run->log.human;
	struct rt_cmt_stat main_st[RT_CMT_ST_COUNT];
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
	rt_cmt_print_v56(x, x->conns);
	memcpy(main_st, x->st, sizeof(main_st));
	t0 = x->t_start;
	t1 = x->t_connected;
	run_header(x, x->server, true, false);
	if (x->server ? serve_run(x, x->conns, true, 0) : client_run(x, ai, x->conns, true, 0))
		return -1;
	rt_cmt_print_v56(x, x->conns);
	memcpy(x->st, main_st, sizeof(main_st));
	x->t_start = t0;
	x->t_connected = t1;
	x->qpless = mimic;
	return 0;
}

/* -S: upstream's baseline, n plain TCP connections to the port, no sync.
 * The server takes n within the bounds (the first within
 * --accept-timeout), then closes them; the client opens n, then closes. */
int rt_cmt_socket_run(struct rt_cmt_ctx *x)
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
		rt_cmt_span_add(&x->st[RT_CMT_ST_FULL_CONNECT], t0, x->t_connected);
	} else {
		x->t_start = rt_now_ns();
		for (; n < x->conns; n++) {
			uint64_t t = rt_now_ns();

			rt_oob_init(&o[n], x->run->common.timeout_ms);
			if (rt_oob_connect(&o[n], x->cfg->dst, (unsigned)x->cfg->port,
					   n ? 0 : x->run->common.wait_server_ms, err))
				goto out;
			rt_cmt_stat_add(&x->st[RT_CMT_ST_CONNECT], t, rt_now_ns());
		}
		x->t_connected = rt_now_ns();
		rt_cmt_span_add(&x->st[RT_CMT_ST_FULL_CONNECT], x->t_start, x->t_connected);
	}
	t0 = rt_now_ns();
	for (unsigned i = 0; i < n; i++)
		rt_oob_close(&o[i]);
	rt_cmt_span_add(&x->st[RT_CMT_ST_DESTROY_ID], t0, rt_now_ns());
	if (x->run->log.human)
		fprintf(x->run->log.human, x->server ? "Server baseline socket results:\n"
			: "Client baseline socket results:\n");
	x->qpless = true; /* upstream prints cm_conn for it */
	rt_cmt_print_v56(x, x->conns);
	rc = 0;
out:
	for (unsigned i = 0; i <= x->conns; i++)
		if (o[i].fd > 0 || o[i].lfd > 0)
			rt_oob_close(&o[i]);
	free(o);
	return rc;
}

