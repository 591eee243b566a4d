/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One pair's RDMA CM test of a mesh run (meshtest.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/cm.h"
#include "mesh/meshctr.h"
#include "mesh/meshgpu.h"
#include "mesh/meshpar.h"
#include "mesh/meshtest.h"
#include "mesh/meshtest_priv.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

#define MSG RT_MESH_MSG_LEN
/* A buffer slot: a ping, an echo, or the listener's counters */
#define SLOT RT_MESH_CTR_MSG_LEN
/* Send slots in turn: a send's bytes stay untouched until three later
 * sends were posted, by which time its echo (so its ACK) has come. */
#define SLOTS 4u
/* The listener waits this much longer than the connecting side, whose
 * test starts a little later (the ASSIGNs go out one after the other). */
#define LISTEN_GRACE_MS 500

static int post_msg(struct rt_conn *c, uint64_t v)
{
	struct pair_conn *u = rt_conn_data(c);
	size_t off = (size_t)(1 + v % SLOTS) * SLOT;
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

/* --gpu: the bandwidth buffers of the connection's rail (its device and
 * port) in its GPU; the connecting side's reads land in the slot of its
 * connection, apart from the pair's other rails'. */
static int setup_gpu(struct rt_conn *c, struct pair_conn *u)
{
	const struct pair_test *p = rt_conn_applet(c);
	struct rt_mesh_gpu_rail *r = NULL;
	const char *dev = "?";
	unsigned port = 0, slot = created_as(p, c);

	if (rt_mesh_conn_port(c, &dev, &port))
		r = rt_mesh_gpu_rail_of(p->t->gpu, p->t->rails, p->t->nrails, dev, port);
	if (!r)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: --gpu: %s port %u is no rail of this "
				    "host's", rt_conn_peer(c), dev, port);
	u->on_gpu = true;
	if (rt_mesh_gpu_conn_open(&u->gpu, r, rt_conn_res(c)->pd, p->active, slot, p->round,
				  rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	u->bw = &u->gpu.bw;
	return 0;
}

/* The bandwidth buffers: a chunk to write from and read into, or the
 * window the partner writes into and reads from. */
static int setup_bw(struct rt_conn *c, struct pair_conn *u)
{
	const struct pair_test *p = rt_conn_applet(c);

	if (!p->t->bw_bytes)
		return 0;
	if (p->t->gpu)
		return setup_gpu(c, u);
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

	const struct pair_test *p = rt_conn_applet(c);

	/* the assigned connections: a stray extra request is turned away */
	if (rt_conn_refuse_beyond(c, p->nconn))
		return -1;
	u = rt_conn_data(c);
	if (u) /* a retried connection's first MRs, before they are forgotten */
		rt_mesh_gpu_conn_close(&u->gpu);
	u = rt_conn_priv(c, sizeof(*u));
	if (p->active)
		u->run = &p->runs[created_as(p, c)];
	else
		rt_mesh_snap_before(c, u); /* the connecting side's: when established */
	if (rt_conn_setup_res(c, &spec))
		return -1;
	u->buf = rt_res_buf(rt_conn_res(c), (size_t)SLOT * (SLOTS + 1), IBV_ACCESS_LOCAL_WRITE,
			    rt_conn_err(c));
	if (!u->buf || setup_bw(c, u) ||
	    rt_post_recv(rt_conn_res(c), u->buf, 0, SLOT, 0, rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	return 0;
}

/* Keeps RT_MESH_BW_WINDOW writes (or, once they are done, reads) in
 * flight until bw_bytes are posted. Reads all land in the one chunk: the
 * figure is what counts, not the bytes. */
static int post_rdma(struct rt_conn *c, const struct pair_test *t, enum ibv_wr_opcode op)
{
	struct pair_conn *u = rt_conn_data(c);
	struct rail_run *p = u->run;
	uint64_t *posted = op == IBV_WR_RDMA_READ ? &p->rposted : &p->posted;
	unsigned *inflight = op == IBV_WR_RDMA_READ ? &p->rinflight : &p->inflight;
	/* both ways at once: each direction has half the window */
	unsigned window = t->both ? RT_MESH_BW_WINDOW / 2 : RT_MESH_BW_WINDOW;

	while (*inflight < window && *posted < t->t->bw_bytes) {
		uint64_t left = t->t->bw_bytes - *posted;
		size_t len = left < RT_MESH_BW_CHUNK ? (size_t)left : RT_MESH_BW_CHUNK;
		uint64_t slot = (*posted / RT_MESH_BW_CHUNK) % RT_MESH_BW_WINDOW;

		if (rt_post_rdma(rt_conn_res(c), op,
				 op == IBV_WR_RDMA_READ && u->on_gpu ? &u->gpu.land : u->bw, 0, len,
				 p->raddr + slot * RT_MESH_BW_CHUNK, p->rkey, len, rt_conn_err(c)))
			return rt_conn_fail_recorded(c);
		*posted += len;
		(*inflight)++;
	}
	return 0;
}

/* The figures are in: this end's second reading, then the final ping,
 * which the listener answers with its own rises. */
static int ask_counters(struct rt_conn *c, struct rail_run *p)
{
	struct pair_conn *u = rt_conn_data(c);

	rt_mesh_snap_after(c, u, RT_MESH_END_B);
	p->seq = RT_MESH_SEQ_FINAL;
	return post_msg(c, RT_MESH_SEQ_FINAL);
}

static int start_bw(struct rt_conn *c, const struct pair_test *t, struct rail_run *p)
{
	if (!p->raddr) /* (an rkey may be 0; an address is not) */
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: the partner offers no bandwidth window "
				    "(does its --bw match?)", rt_conn_peer(c));
	p->bw_t0 = p->rd_t0 = rt_now_ns();
	if (post_rdma(c, t, IBV_WR_RDMA_WRITE))
		return -1;
	return t->both ? post_rdma(c, t, IBV_WR_RDMA_READ) : 0;
}

/* GPU memory is not the CPU's to read: the landing's copy is checked. */
static int gpu_check(struct rt_conn *c, const struct pair_test *t, struct rail_run *p)
{
	const struct pair_conn *u = rt_conn_data(c);

	if (u->on_gpu && rt_mesh_gpu_check(&u->gpu, t->round, (size_t)t->t->bw_bytes,
					   rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	return ask_counters(c, p);
}

/* Both ways, once both directions are done: on a GPU the reads raced the
 * writes, so the window's first chunk is read once more, after every
 * write has landed, and that is what is checked. */
static int both_done(struct rt_conn *c, const struct pair_test *t, struct rail_run *p)
{
	struct pair_conn *u = rt_conn_data(c);
	uint64_t n = RT_MIN(t->t->bw_bytes, (uint64_t)RT_MESH_BW_CHUNK);

	if (p->written < t->t->bw_bytes || p->read < t->t->bw_bytes)
		return 0;
	if (!u->on_gpu)
		return ask_counters(c, p);
	p->verifying = true;
	p->rinflight++;
	if (rt_post_rdma(rt_conn_res(c), IBV_WR_RDMA_READ, &u->gpu.land, 0, (size_t)n, p->raddr,
			 p->rkey, (size_t)n, rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	return 0;
}

/* The last write's completion starts the reads: each direction is timed
 * alone, by this side's own clock. */
static int write_done(struct rt_conn *c, const struct pair_test *t, struct rail_run *p,
		      const struct ibv_wc *wc)
{
	p->inflight--;
	p->written += RT_WR_N(wc->wr_id);
	if (p->written < t->t->bw_bytes)
		return post_rdma(c, t, IBV_WR_RDMA_WRITE);
	/* completions come in order: all written means none in flight */
	p->bw_t1 = rt_now_ns();
	if (t->both)
		return both_done(c, t, p);
	p->rd_t0 = p->bw_t1;
	return post_rdma(c, t, IBV_WR_RDMA_READ);
}

static int read_done(struct rt_conn *c, const struct pair_test *t, struct rail_run *p,
		     const struct ibv_wc *wc)
{
	p->rinflight--;
	if (p->verifying)
		return gpu_check(c, t, p);
	p->read += RT_WR_N(wc->wr_id);
	if (p->read < t->t->bw_bytes)
		return post_rdma(c, t, IBV_WR_RDMA_READ);
	p->rd_t1 = rt_now_ns();
	return t->both ? both_done(c, t, p) : gpu_check(c, t, p);
}

static void established(struct rt_conn *c)
{
	const struct pair_test *t = rt_conn_applet(c);
	struct pair_conn *u = rt_conn_data(c);

	if (!t->active)
		return;
	rt_mesh_snap_before(c, u);
	u->run->sent_at = rt_now_ns();
	post_msg(c, u->run->seq);
}

/* The listener's answer to the final ping: its second reading's rises
 * (end a), RT_MESH_CTR_MSG_LEN bytes: the final sequence number, then a
 * RESULT's counter block (meshwire.h). */
static int send_counters(struct rt_conn *c, struct pair_conn *u)
{
	size_t off = (size_t)(1 + RT_MESH_SEQ_FINAL % SLOTS) * SLOT;
	uint64_t seq = RT_MESH_SEQ_FINAL;
	struct rt_mesh_ctrs none = {0};

	rt_mesh_snap_after(c, u, RT_MESH_END_A);
	memcpy(u->buf->addr + off, &seq, sizeof(seq));
	rt_mesh_ctrs_encode(u->snap ? &u->snap->own : &none, u->buf->addr + off + sizeof(seq));
	if (rt_post_send(rt_conn_res(c), u->buf, off, RT_MESH_CTR_MSG_LEN, seq, true,
			 rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	return 0;
}

/* The connecting side takes the listener's rises; a rail whose answer is
 * not one keeps its figures and reports this end's rises alone. */
static int take_counters(struct rt_conn *c, struct pair_conn *u, const struct ibv_wc *wc)
{
	char why[128];

	u->run->ctr_got = true;
	if (!u->snap)
		return 0;
	if (rt_mesh_ctr_msg_take(u->buf->addr, wc->byte_len, &u->snap->peer, why, sizeof(why)))
		rt_dbg(((const struct pair_test *)rt_conn_applet(c))->t->log, "%s: %s",
		       rt_conn_peer(c), why);
	return 0;
}

/* The listener echoes what came; the connecting side checks that its
 * ping came back, times it and sends the next. */
static int completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	const struct pair_test *t = rt_conn_applet(c);
	struct pair_conn *u = rt_conn_data(c);
	struct rail_run *p = u->run;
	struct rt_mesh_echo m;
	char why[96];
	uint64_t now = rt_now_ns();

	if (RT_WR_KIND(wc->wr_id) == RT_WR_WRITE)
		return write_done(c, t, p, wc);
	if (RT_WR_KIND(wc->wr_id) == RT_WR_READ)
		return read_done(c, t, p, wc);
	if (RT_WR_KIND(wc->wr_id) != RT_WR_RECV)
		return 0;
	if (t->active && p->seq == RT_MESH_SEQ_FINAL)
		return take_counters(c, u, wc);
	if (rt_mesh_echo_take(u->buf->addr, wc->byte_len, t->active ? &p->seq : NULL, &m,
			      why, sizeof(why)))
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: %s", rt_conn_peer(c), why);
	if (rt_post_recv(rt_conn_res(c), u->buf, 0, SLOT, 0, rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	if (!t->active)
		return m.seq == RT_MESH_SEQ_FINAL ? send_counters(c, u) : post_msg(c, m.seq);
	rt_hist_add(&p->h, now - p->sent_at);
	p->raddr = m.raddr;
	p->rkey = m.rkey;
	if (++p->got >= t->t->pings)
		return t->t->bw_bytes ? start_bw(c, t, p) : ask_counters(c, p);
	p->seq++;
	p->sent_at = rt_now_ns();
	return post_msg(c, p->seq);
}

/* The listener's turned-away extra requests do not end its test, and a
 * rail that fails does not end the others'. */
static bool extra_only(struct rt_conn *c)
{
	const struct pair_test *p = rt_conn_applet(c);

	return p->nconn > 1 || rt_conn_beyond(c, p->nconn);
}

static const struct rt_cm_hooks hooks = {
	.setup = setup,
	.established = established,
	.completion = completion,
	.failed = extra_only,
};

static bool ended(const struct rt_conn *c)
{
	return rt_conn_state(c) == RT_CONN_FAILED || rt_conn_state(c) == RT_CONN_DISCONNECTED;
}

/* Every rail's connection has its figures, or ended. */
static bool pings_done(const struct rt_cm *cm, const void *arg)
{
	const struct pair_test *p = rt_cm_applet(cm);
	const struct rt_conn *c;
	unsigned done = 0;

	(void)arg;
	rt_cm_each(cm, c) {
		const struct rail_run *r = &p->runs[created_as(p, c)];

		done += ended(c) ||
			(r->got >= p->t->pings && r->read >= p->t->bw_bytes && r->ctr_got);
	}
	return done >= p->created || past(p);
}

/* Every rail's partner connection came and ended. */
static bool partner_gone(const struct rt_cm *cm, const void *arg)
{
	const struct pair_test *p = rt_cm_applet(cm);
	const struct rt_conn *c;
	unsigned gone = 0;

	(void)arg;
	rt_cm_each(cm, c)
		gone += !rt_conn_beyond(c, p->nconn) && ended(c);
	return gone >= p->nconn || past(p);
}

static long long left_ms(const struct pair_test *p)
{
	uint64_t now = rt_now_ns();

	return now >= p->deadline ? 1 : (long long)((p->deadline - now) / 1000000u) + 1;
}

/* This rank's address on its rail `rail` (its hello's), or NULL. */
static const char *own_addr(const struct rt_mesh_cm_test *t, unsigned rail)
{
	for (unsigned i = 0; i < t->nrails; i++)
		if (t->rails[i].rail == rail)
			return t->rails[i].addr;
	return NULL;
}

/* The connecting side starts qps connections a rail, each from this
 * rank's address on it to the partner's (or to the partner's host); a
 * rail whose start fails is that rail's failure (in why). */
static void start_rails(struct rt_cm *cm, struct pair_test *p, const struct rt_mesh_assign *a,
			char (*why)[160])
{
	for (unsigned k = 0; k < p->nconn; k++) {
		unsigned i = k / p->qps;
		struct rt_addr_query q = { .node = a->nrails ? a->rails[i].addr : a->host,
			.src = a->nrails ? own_addr(p->t, a->rails[i].rail) : NULL,
			.port = a->port, .ps = RDMA_PS_TCP, .format = RT_FMT_NAME,
			.what = "the partner's host" };
		struct rt_error e = { 0 };

		if (rt_cm_start(cm, &q, 1, &e)) {
			rt_strlcpy(why[i], e.reason, sizeof(why[i]));
			continue;
		}
		p->conn_rail[p->created++] = (uint8_t)i;
	}
}

/* The connecting side: connect every rail, ping, disconnect (best
 * effort: the figures are in by then). */
static void run_connect(struct rt_cm *cm, struct pair_test *p, const struct rt_mesh_assign *a,
			struct rt_mesh_result *r)
{
	struct rt_wait w = { .done = pings_done, .tick_ms = 20, .timeout_ms = left_ms(p),
			     .what = "the partner's echoes" };
	struct rt_wait closed = { .done = rt_cm_all_closed, .what = "the partner's disconnect" };
	char (*why)[160] = rt_xcalloc(p->nrails, sizeof(*why));
	struct rt_conn *c;

	start_rails(cm, p, a, why);
	if (p->created)
		rt_cm_run(cm, &w); /* each rail's outcome is its connection's */
	rt_mesh_test_conclude(cm, p, r, why);
	rt_cm_each(cm, c)
		if (rt_conn_state(c) != RT_CONN_FAILED)
			rt_conn_disconnect(c);
	closed.timeout_ms = left_ms(p);
	rt_cm_run(cm, &closed);
	free(why);
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

/* --gpu's MRs are the test's, not the connections' (core frees only its
 * own buffers): deregistered before the device's PD goes. */
static void gpu_release(struct rt_cm *cm)
{
	struct rt_conn *c;

	if (!cm)
		return;
	rt_cm_each(cm, c) {
		struct pair_conn *u = rt_conn_data(c);

		if (u)
			rt_mesh_gpu_conn_close(&u->gpu);
	}
}

/* One test in one reactor: its results into r[]; a failure's reason is
 * a --debug line (the result's status is what travels to rank 0). */
static void test_one(const struct rt_mesh_cm_test *t, const struct rt_mesh_assign *a,
		     struct rt_mesh_result *r)
{
	bool active = a->role == RT_MESH_CONNECT;
	long long bound = t->timeout_ms + (active ? 0 : LISTEN_GRACE_MS);
	struct rt_cm_params params = {
		.ps = RDMA_PS_TCP, .tos = t->tos, .ack_timeout = -1, .accept_rnr_retry = 7,
		/* the connecting side reads a window at a time where the
		 * devices allow it (both sides clip to their own; cm.c) */
		.conn = { .responder_resources = 1, .initiator_depth = RT_MESH_BW_WINDOW,
			  .retry_count = 7, .rnr_retry_count = 7 },
		.timeout_ms = bound, .wait_server_ms = active ? bound : 0,
	};
	struct pair_test *p = rt_xcalloc(1, sizeof(*p));
	struct rt_error err = { 0 };
	struct rt_cm *cm;
	unsigned n = a->nrails ? a->nrails : 1, qps = a->qps ? a->qps : 1;

	p->t = t;
	p->active = active;
	p->nrails = n;
	p->qps = qps;
	/* (the decoder holds conns to the rails and qps: meshwire.c) */
	p->nconn = RT_MIN(active || !a->conns ? n * qps : a->conns, RT_MESH_TEST_CONNS);
	p->runs = active ? rt_xcalloc(p->nconn, sizeof(*p->runs)) : NULL; /* 58 KiB each */
	p->snaps = rt_xcalloc(p->nconn, sizeof(*p->snaps)); /* 16 KiB each */
	p->deadline = rt_now_ns() + (uint64_t)bound * 1000000u;
	p->round = a->round;
	p->both = a->flags & RT_MESH_ASSIGN_BOTH_WAYS;
	for (unsigned i = 0; i < n; i++)
		r[i].status = RT_MESH_FAILED;
	cm = rt_cm_create(&params, &hooks, p, t->log, &err);
	if (cm && active)
		run_connect(cm, p, a, r);
	else if (cm)
		run_listen(cm, p, &err);
	if (cm && !active)
		rt_dbg(t->log, "listened for %u connections: %s", p->nconn,
		       err.set ? err.reason : "the partner came and went");
	if (!cm)
		rt_dbg(t->log, "the test's CM: %s", err.set ? err.reason : "not created");
	gpu_release(cm);
	rt_cm_destroy(cm);
	free(p->runs);
	free(p->snaps);
	free(p);
}

/* One rail of the connecting side's test, on a thread of its own. */
struct rail_job {
	struct rt_mesh_par par;     /* first: rt_mesh_par_run's */
	const struct rt_mesh_cm_test *t;
	struct rt_mesh_assign a;    /* the assignment cut to this rail */
	struct rt_mesh_result *r;   /* its result */
};

static void *rail_thread(void *arg)
{
	struct rail_job *j = arg;

	test_one(j->t, &j->a, j->r);
	return NULL;
}

/* The connecting side of several rails: each rail's connections, pings
 * and bandwidth in a reactor on a thread of its own (meshpar.h), so that
 * posting and completions of 8 rails at line rate are not one core's
 * work. The threads share only t (read) and their own job. */
static void rails_in_threads(const struct rt_mesh_cm_test *t, const struct rt_mesh_assign *a,
			     struct rt_mesh_result *r)
{
	struct rail_job *jobs = rt_xcalloc(a->nrails, sizeof(*jobs)); /* 1 KiB a rail */
	size_t threaded;
	unsigned i;

	for (i = 0; i < a->nrails; i++) {
		struct rail_job *j = &jobs[i];

		*j = (struct rail_job){ .t = t, .a = *a, .r = &r[i] };
		j->a.nrails = 1;
		j->a.rails[0] = a->rails[i];
		j->a.conns = (uint16_t)(a->qps ? a->qps : 1);
	}
	threaded = rt_mesh_par_run(jobs, a->nrails, sizeof(*jobs), rail_thread);
	rt_dbg(t->log, "%u rails: %s", a->nrails, threaded == a->nrails ? "a thread each" :
	       "a thread could not start, its rail ran on the test's own");
	free(jobs);
}

void rt_mesh_cm_test_run(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
			 struct rt_mesh_result *r)
{
	const struct rt_mesh_cm_test *t = ctx;

	(void)self;
	if (a->role == RT_MESH_REST)
		return;
	/* the listener's CPU touches no byte of the bandwidth (RDMA WRITE and
	 * READ are the NICs' work): one reactor; --gpu's driver context is
	 * current on the thread that opened it: one thread */
	/* a round's several tests (alltoall) are a thread each already: their
	 * rails share it, so that a rank runs at most RT_MESH_TESTS_MAX or
	 * RT_MESH_RAILS_MAX threads, never their product */
	if (a->role == RT_MESH_CONNECT && a->nrails > 1 && !t->gpu && a->tests <= 1)
		rails_in_threads(t, a, r);
	else
		test_one(t, a, r);
}
