/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One pair's RDMA CM test of a mesh run (meshtest.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/cm.h"
#include "mesh/meshtest.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

/* A message: the ping's sequence number, and in echoes the listener's
 * bandwidth window (address, rkey; 0 without one). */
#define MSG 24u
/* Send slots in turn: a send's bytes stay untouched until three later
 * sends were posted, by which time its echo (so its ACK) has come. */
#define SLOTS 4u
/* The listener waits this much longer than the connecting side, whose
 * test starts a little later (the ASSIGNs go out one after the other). */
#define LISTEN_GRACE_MS 500

struct pair_test {
	const struct rt_mesh_cm_test *t;
	bool active;
	uint64_t deadline;  /* ns */
	uint64_t seq;       /* the ping in flight (active side) */
	uint64_t sent_at;
	unsigned got;       /* echoes timed */
	struct rt_hist h;
	/* bandwidth, connecting side: the partner's window, what is posted
	 * and done; writes first (to the partner), then reads (from it) */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t posted, written, bw_t0, bw_t1;
	uint64_t rposted, read, rd_t0, rd_t1;
	unsigned inflight;
};

struct pair_conn {
	struct rt_buf *buf; /* slot 0 receives, 1..SLOTS send */
	struct rt_buf *bw;  /* the chunk to write from and read into, or the
			     * window written into and read from */
};

static int post_msg(struct rt_conn *c, uint64_t v)
{
	struct pair_conn *u = rt_conn_data(c);
	size_t off = (size_t)(1 + v % SLOTS) * MSG;
	uint64_t m[3] = { v, 0, 0 };

	if (u->bw && !((const struct pair_test *)rt_conn_applet(c))->active) {
		m[1] = (uint64_t)(uintptr_t)u->bw->addr;
		m[2] = u->bw->mr->rkey;
	}
	memcpy(u->buf->addr + off, m, MSG);
	if (rt_post_send(rt_conn_res(c), u->buf, off, MSG, v, true, rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	return 0;
}

/* The bandwidth buffers: a chunk to write from and read into, or the
 * window the partner writes into and reads from. */
static int setup_bw(struct rt_conn *c, struct pair_conn *u)
{
	const struct pair_test *p = rt_conn_applet(c);

	if (!p->t->bw_bytes)
		return 0;
	u->bw = p->active ? rt_res_buf(rt_conn_res(c), RT_MESH_BW_CHUNK, IBV_ACCESS_LOCAL_WRITE,
				       rt_conn_err(c))
			  : rt_res_buf(rt_conn_res(c), (size_t)RT_MESH_BW_CHUNK * RT_MESH_BW_WINDOW,
				       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ,
				       rt_conn_err(c));
	return u->bw ? 0 : -1;
}

static int setup(struct rt_conn *c)
{
	struct rt_res_spec spec = { .qp_type = IBV_QPT_RC,
				    .send_depth = SLOTS + RT_MESH_BW_WINDOW,
				    .recv_depth = 2, .sig_all = true };
	struct pair_conn *u;

	/* one partner per test: a stray second request is turned away */
	if (rt_conn_refuse_beyond(c, 1))
		return -1;
	u = rt_conn_priv(c, sizeof(*u));
	if (rt_conn_setup_res(c, &spec))
		return -1;
	u->buf = rt_res_buf(rt_conn_res(c), MSG * (SLOTS + 1), IBV_ACCESS_LOCAL_WRITE,
			    rt_conn_err(c));
	if (!u->buf || setup_bw(c, u) ||
	    rt_post_recv(rt_conn_res(c), u->buf, 0, MSG, 0, rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	return 0;
}

/* Keeps RT_MESH_BW_WINDOW writes (or, once they are done, reads) in
 * flight until bw_bytes are posted. Reads all land in the one chunk: the
 * figure is what counts, not the bytes. */
static int post_rdma(struct rt_conn *c, struct pair_test *p, enum ibv_wr_opcode op)
{
	struct pair_conn *u = rt_conn_data(c);
	uint64_t *posted = op == IBV_WR_RDMA_READ ? &p->rposted : &p->posted;

	while (p->inflight < RT_MESH_BW_WINDOW && *posted < p->t->bw_bytes) {
		uint64_t left = p->t->bw_bytes - *posted;
		size_t len = left < RT_MESH_BW_CHUNK ? (size_t)left : RT_MESH_BW_CHUNK;
		uint64_t slot = (*posted / RT_MESH_BW_CHUNK) % RT_MESH_BW_WINDOW;

		if (rt_post_rdma(rt_conn_res(c), op, u->bw, 0, len,
				 p->raddr + slot * RT_MESH_BW_CHUNK, p->rkey, len, rt_conn_err(c)))
			return rt_conn_fail_recorded(c);
		*posted += len;
		p->inflight++;
	}
	return 0;
}

static int start_bw(struct rt_conn *c, struct pair_test *p)
{
	if (!p->raddr) /* (an rkey may be 0; an address is not) */
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: the partner offers no bandwidth window "
				    "(does its --bw match?)", rt_conn_peer(c));
	p->bw_t0 = rt_now_ns();
	return post_rdma(c, p, IBV_WR_RDMA_WRITE);
}

/* The last write's completion starts the reads: each direction is timed
 * alone, by this side's own clock. */
static int write_done(struct rt_conn *c, struct pair_test *p, const struct ibv_wc *wc)
{
	p->inflight--;
	p->written += RT_WR_N(wc->wr_id);
	if (p->written < p->t->bw_bytes)
		return post_rdma(c, p, IBV_WR_RDMA_WRITE);
	/* completions come in order: all written means none in flight */
	p->bw_t1 = p->rd_t0 = rt_now_ns();
	return post_rdma(c, p, IBV_WR_RDMA_READ);
}

static int read_done(struct rt_conn *c, struct pair_test *p, const struct ibv_wc *wc)
{
	p->inflight--;
	p->read += RT_WR_N(wc->wr_id);
	if (p->read < p->t->bw_bytes)
		return post_rdma(c, p, IBV_WR_RDMA_READ);
	p->rd_t1 = rt_now_ns();
	return 0;
}

static void established(struct rt_conn *c)
{
	struct pair_test *p = rt_conn_applet(c);

	if (!p->active)
		return;
	p->sent_at = rt_now_ns();
	post_msg(c, p->seq);
}

/* The listener echoes what came; the connecting side checks that its
 * ping came back, times it and sends the next. */
static int completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct pair_test *p = rt_conn_applet(c);
	struct pair_conn *u = rt_conn_data(c);
	uint64_t m[3], v, now = rt_now_ns();

	if (RT_WR_KIND(wc->wr_id) == RT_WR_WRITE)
		return write_done(c, p, wc);
	if (RT_WR_KIND(wc->wr_id) == RT_WR_READ)
		return read_done(c, p, wc);
	if (RT_WR_KIND(wc->wr_id) != RT_WR_RECV)
		return 0;
	if (wc->byte_len != MSG)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: a message of %u bytes, expected %u",
				    rt_conn_peer(c), wc->byte_len, MSG);
	memcpy(m, u->buf->addr, MSG);
	v = m[0];
	if (rt_post_recv(rt_conn_res(c), u->buf, 0, MSG, 0, rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	if (!p->active)
		return post_msg(c, v);
	if (v != p->seq)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: echo of ping %llu for ping %llu",
				    rt_conn_peer(c), (unsigned long long)v,
				    (unsigned long long)p->seq);
	rt_hist_add(&p->h, now - p->sent_at);
	p->raddr = m[1];
	p->rkey = (uint32_t)m[2];
	if (++p->got >= p->t->pings)
		return p->t->bw_bytes ? start_bw(c, p) : 0;
	p->seq++;
	p->sent_at = rt_now_ns();
	return post_msg(c, p->seq);
}

/* The listener's turned-away extra requests do not end its test. */
static bool extra_only(struct rt_conn *c)
{
	return rt_conn_beyond(c, 1);
}

static const struct rt_cm_hooks hooks = {
	.setup = setup,
	.established = established,
	.completion = completion,
	.failed = extra_only,
};

static bool past(const struct pair_test *p)
{
	return rt_now_ns() >= p->deadline;
}

static bool pings_done(const struct rt_cm *cm, const void *arg)
{
	const struct pair_test *p = rt_cm_applet(cm);
	const struct rt_conn *c;

	(void)arg;
	rt_cm_each(cm, c)
		if (rt_conn_state(c) == RT_CONN_FAILED || rt_conn_state(c) == RT_CONN_DISCONNECTED)
			return true;
	return (p->got >= p->t->pings && p->read >= p->t->bw_bytes) || past(p);
}

static bool partner_gone(const struct rt_cm *cm, const void *arg)
{
	const struct pair_test *p = rt_cm_applet(cm);
	const struct rt_conn *c;

	(void)arg;
	rt_cm_each(cm, c)
		if (!rt_conn_beyond(c, 1) && (rt_conn_state(c) == RT_CONN_FAILED ||
					      rt_conn_state(c) == RT_CONN_DISCONNECTED))
			return true;
	return past(p);
}

static uint64_t connect_ns(const struct rt_cm *cm)
{
	static const enum rt_step steps[] = { RT_STEP_RESOLVE_ADDR, RT_STEP_RESOLVE_ROUTE,
					      RT_STEP_CREATE_QP, RT_STEP_CONNECT };
	const struct rt_conn *c = rt_cm_next(cm, NULL);
	uint64_t ns = 0;

	for (size_t i = 0; c && i < ARRAY_SIZE(steps); i++)
		ns += rt_conn_step_ns(c)[steps[i]];
	return ns;
}

static long long left_ms(const struct pair_test *p)
{
	uint64_t now = rt_now_ns();

	return now >= p->deadline ? 1 : (long long)((p->deadline - now) / 1000000u) + 1;
}

/* The connecting side: connect, ping, disconnect (best effort: the
 * figures are in by then). */
static int run_connect(struct rt_cm *cm, struct pair_test *p,
		       const struct rt_mesh_assign *a, struct rt_error *err)
{
	struct rt_addr_query q = { .node = a->host, .port = a->port, .ps = RDMA_PS_TCP,
				   .format = RT_FMT_NAME, .what = "the partner's host" };
	struct rt_wait w = { .done = pings_done, .tick_ms = 20, .timeout_ms = left_ms(p),
			     .what = "the partner's echoes" };
	struct rt_wait closed = { .done = rt_cm_all_closed, .what = "the partner's disconnect" };
	struct rt_conn *c;

	if (rt_cm_start(cm, &q, 1, err) || rt_cm_run(cm, &w))
		return -1;
	if (p->got < p->t->pings)
		return past(p) ? rt_fail(err, RT_EXIT_TIMEOUT, "%s: %u of %u echoes within "
					 "the test's bound", a->host, p->got, p->t->pings)
			       : rt_fail(err, RT_EXIT_FAIL, "%s: disconnected after %u of %u echoes",
					 a->host, p->got, p->t->pings);
	if (p->written < p->t->bw_bytes)
		return past(p) ? rt_fail(err, RT_EXIT_TIMEOUT, "%s: %llu of %llu bytes written "
					 "within the test's bound", a->host,
					 (unsigned long long)p->written,
					 (unsigned long long)p->t->bw_bytes)
			       : rt_fail(err, RT_EXIT_FAIL, "%s: disconnected after %llu of %llu "
					 "bytes written", a->host, (unsigned long long)p->written,
					 (unsigned long long)p->t->bw_bytes);
	if (p->read < p->t->bw_bytes)
		return past(p) ? rt_fail(err, RT_EXIT_TIMEOUT, "%s: %llu of %llu bytes read "
					 "within the test's bound", a->host,
					 (unsigned long long)p->read,
					 (unsigned long long)p->t->bw_bytes)
			       : rt_fail(err, RT_EXIT_FAIL, "%s: disconnected after %llu of %llu "
					 "bytes read", a->host, (unsigned long long)p->read,
					 (unsigned long long)p->t->bw_bytes);
	rt_cm_each(cm, c)
		rt_conn_disconnect(c);
	closed.timeout_ms = left_ms(p);
	rt_cm_run(cm, &closed);
	return 0;
}

static int run_listen(struct rt_cm *cm, struct pair_test *p, struct rt_error *err)
{
	struct rt_addr_query q = { .port = p->t->port, .ps = RDMA_PS_TCP, .passive = true,
				   .format = RT_FMT_NAME, .what = "--port" };
	struct rt_wait w = { .done = partner_gone, .tick_ms = 20, .timeout_ms = left_ms(p),
			     .what = "the partner" };

	if (rt_cm_start(cm, &q, 0, err))
		return -1;
	return rt_cm_run(cm, &w);
}

static void fill(struct rt_mesh_result *r, const struct pair_test *p, uint64_t conn_ns)
{
	r->status = RT_MESH_OK;
	r->flags = RT_MESH_HAS_RTT;
	r->connect_ns = conn_ns;
	r->rtt_p50_ns = rt_hist_permille(&p->h, 500);
	r->rtt_p99_ns = rt_hist_permille(&p->h, 990);
	/* nearest-rank on a histogram: both clamp to the samples, never crossing */
	if (r->rtt_p50_ns > r->rtt_p99_ns)
		r->rtt_p50_ns = r->rtt_p99_ns;
	if (p->t->bw_bytes && p->bw_t1 > p->bw_t0 && p->rd_t1 > p->rd_t0) {
		/* bits per ns are Gbit/s; a thousand times that Mbit/s. This
		 * side is b (meshrun.h): its reads carry a to b, its writes b to a. */
		r->mbps = p->read * 8000u / (p->rd_t1 - p->rd_t0);
		r->mbps_rev = p->written * 8000u / (p->bw_t1 - p->bw_t0);
		r->flags |= RT_MESH_HAS_BW;
	}
}

void rt_mesh_cm_test_run(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
			 struct rt_mesh_result *r)
{
	struct rt_mesh_cm_test *t = ctx;
	bool active = a->role == RT_MESH_CONNECT;
	long long bound = t->timeout_ms + (active ? 0 : LISTEN_GRACE_MS);
	struct rt_cm_params params = {
		.ps = RDMA_PS_TCP, .tos = -1, .ack_timeout = -1, .accept_rnr_retry = 7,
		/* the connecting side reads a window at a time where the
		 * devices allow it (both sides clip to their own; cm.c) */
		.conn = { .responder_resources = 1, .initiator_depth = RT_MESH_BW_WINDOW,
			  .retry_count = 7, .rnr_retry_count = 7 },
		.timeout_ms = bound, .wait_server_ms = active ? bound : 0,
	};
	struct pair_test *p;
	struct rt_error err = { 0 };
	struct rt_cm *cm;
	int rc = -1;

	(void)self;
	if (a->role == RT_MESH_REST)
		return;
	p = rt_xcalloc(1, sizeof(*p)); /* the histogram is 58 KiB */
	p->t = t;
	p->active = active;
	p->deadline = rt_now_ns() + (uint64_t)bound * 1000000u;
	cm = rt_cm_create(&params, &hooks, p, t->log, &err);
	if (cm)
		rc = active ? run_connect(cm, p, a, &err) : run_listen(cm, p, &err);
	if (!rc && active)
		fill(r, p, connect_ns(cm));
	else if (active)
		r->status = err.exit_code == RT_EXIT_TIMEOUT || past(p) ? RT_MESH_TIMEOUT
									: RT_MESH_FAILED;
	if (rc && err.set)
		rt_strlcpy(t->last_error, err.reason, sizeof(t->last_error));
	rt_cm_destroy(cm);
	free(p);
}
