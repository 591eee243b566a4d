/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One pair's RDMA CM test of a mesh run (meshtest.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/cm.h"
#include "mesh/meshctr.h"
#include "mesh/meshgpu.h"
#include "mesh/meshtest.h"
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

/* One connection's test on the connecting side (a rail has --qps of
 * them): its figures. */
struct rail_run {
	uint64_t seq;       /* the ping in flight */
	uint64_t sent_at;
	unsigned got;       /* echoes timed */
	struct rt_hist h;
	/* bandwidth: the partner's window, what is posted and done; writes
	 * first (to the partner), then reads (from it) */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t posted, written, bw_t0, bw_t1;
	uint64_t rposted, read, rd_t0, rd_t1;
	unsigned inflight, rinflight; /* writes, reads */
	bool verifying;     /* both ways on a GPU: the read that checks */
	bool ctr_got;       /* the listener's answer to the final ping came */
};

/* One connection's port: the reading before its traffic, its rises. */
struct port_snap {
	struct rt_portctrs before, after;
	bool read;          /* before was read: the rises can be */
	bool taken;         /* after was read: own holds this end's rises */
	struct rt_mesh_ctrs own, peer; /* this end's; the listener's (connecting side) */
};

struct pair_test {
	const struct rt_mesh_cm_test *t;
	bool active;
	uint64_t deadline;  /* ns */
	/* the test's connections: qps a rail (or the host) on the connecting
	 * side; on the listener its assignment's, every partner's */
	unsigned nconn;
	unsigned qps;
	unsigned nrails;    /* results: the assignment's rails, or 1 (the host) */
	struct rail_run *runs; /* active side: one a connection */
	unsigned created;   /* connections started (active side) */
	char *last_error;   /* t's, or its rail thread's */
	uint8_t conn_rail[RT_MESH_TEST_CONNS]; /* a connection's rail, by creation order */
	struct port_snap *snaps; /* one a connection, nconn (16 KiB each) */
	unsigned nsnaps;
	uint32_t round;     /* the assignment's: the GPU chunk's pattern */
	bool both;          /* RT_MESH_ASSIGN_BOTH_WAYS: writes and reads at once */
};

struct pair_conn {
	struct rt_buf *buf; /* slot 0 receives, 1..SLOTS send */
	struct rt_buf *bw;  /* the chunk to write from and read into, or the
			     * window written into and read from */
	struct rail_run *run; /* active side: its own */
	struct port_snap *snap; /* its port's counters, or NULL */
	/* --gpu: bw is gpu.bw, and the reads land in gpu.land */
	struct rt_mesh_gpu_conn gpu;
	bool on_gpu;
};

/* A connection's place in this side's creation order (its rail's in
 * conn_rail); 0 for one this side did not create (the listener's). */
static unsigned created_as(const struct pair_test *p, const struct rt_conn *c)
{
	return rt_conn_index(c) < p->created ? rt_conn_index(c) : 0;
}

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

static bool port_of(const struct rt_conn *c, const char **dev, unsigned *port);

/* --gpu: the bandwidth buffers of the connection's rail (its device and
 * port) in its GPU; the connecting side's reads land in the slot of its
 * connection, apart from the pair's other rails'. */
static int setup_gpu(struct rt_conn *c, struct pair_conn *u)
{
	const struct pair_test *p = rt_conn_applet(c);
	struct rt_mesh_gpu_rail *r = NULL;
	const char *dev = "?";
	unsigned port = 0, slot = created_as(p, c);

	if (port_of(c, &dev, &port))
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

/* The device and port under a connection's id: its counters' place. */
static bool port_of(const struct rt_conn *c, const char **dev, unsigned *port)
{
	const struct rdma_cm_id *id = rt_conn_id(c);

	if (!id || !id->verbs || !id->port_num)
		return false;
	*dev = ibv_get_device_name(id->verbs->device);
	*port = id->port_num;
	return *dev != NULL;
}

/* The first reading of the connection's port, before its traffic; a port
 * whose counters cannot be read (none in sysfs) reports no rises. */
static void snap_before(struct rt_conn *c, struct pair_conn *u)
{
	struct pair_test *p = (struct pair_test *)rt_conn_applet(c);
	const char *dev;
	unsigned port;

	if (p->nsnaps >= p->nconn)
		return;
	u->snap = &p->snaps[p->nsnaps++];
	u->snap->read = port_of(c, &dev, &port) &&
			rt_portctr_read(p->t->sysfs, dev, port, &u->snap->before) > 0;
}

/* The second reading, once the traffic is done: this end's rises. */
static void snap_after(struct rt_conn *c, struct pair_conn *u, enum rt_mesh_end end)
{
	const struct pair_test *p = rt_conn_applet(c);
	const char *dev;
	unsigned port;

	if (!u->snap || !u->snap->read || u->snap->taken || !port_of(c, &dev, &port) ||
	    !rt_portctr_read(p->t->sysfs, dev, port, &u->snap->after))
		return;
	u->snap->taken = true;
	rt_mesh_ctr_rises(&u->snap->before, &u->snap->after, end, &u->snap->own);
}

/* A rail's result gets both ends' rises, whatever its status: a test
 * that failed may have failed for what they count. */
static void attach_counters(struct rt_conn *c, struct rt_mesh_result *r)
{
	struct pair_conn *u = rt_conn_data(c);

	if (!u || !u->snap)
		return;
	snap_after(c, u, RT_MESH_END_B); /* a rail that ended early: now */
	rt_mesh_ctr_join(&u->snap->peer, &u->snap->own, &r->ctr);
	if (r->ctr.n)
		r->flags |= RT_MESH_HAS_CTR;
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
		snap_before(c, u); /* the connecting side's: when established */
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

	snap_after(c, u, RT_MESH_END_B);
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
	snap_before(c, u);
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

	snap_after(c, u, RT_MESH_END_A);
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

static bool past(const struct pair_test *p)
{
	return rt_now_ns() >= p->deadline;
}

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

static uint64_t connect_ns(const struct rt_conn *c)
{
	static const enum rt_step steps[] = { RT_STEP_RESOLVE_ADDR, RT_STEP_RESOLVE_ROUTE,
					      RT_STEP_CREATE_QP, RT_STEP_CONNECT };
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

/* Why rail i's figures are not all in (NULL when they are); *timeout
 * when its bound passed. */
static const char *short_of(const struct pair_test *p, const struct rail_run *r,
			    const char *peer, bool *timeout, char *buf, size_t len)
{
	const struct rt_mesh_cm_test *t = p->t;
	const char *end = past(p) ? "within the test's bound" : "before the disconnect";

	*timeout = past(p);
	if (r->got < t->pings)
		snprintf(buf, len, "%s: %u of %u echoes %s", peer, r->got, t->pings, end);
	else if (r->written < t->bw_bytes)
		snprintf(buf, len, "%s: %llu of %llu bytes written %s", peer,
			 (unsigned long long)r->written, (unsigned long long)t->bw_bytes, end);
	else if (r->read < t->bw_bytes)
		snprintf(buf, len, "%s: %llu of %llu bytes read %s", peer,
			 (unsigned long long)r->read, (unsigned long long)t->bw_bytes, end);
	else
		return NULL;
	return buf;
}

/* A rail's connections as one: their round trips together, their bytes
 * each way over the span from the first one's start to the last one's
 * end (all of them loading the link at once), the slowest set-up. */
struct rail_sum {
	struct rail_run all;
	uint64_t conn_ns;
	unsigned ok;       /* connections with all their figures */
	bool ctr;          /* its first connection's counters are attached */
};

static void span(uint64_t *t0, uint64_t *t1, uint64_t s0, uint64_t s1)
{
	*t0 = *t0 && *t0 < s0 ? *t0 : s0;
	*t1 = RT_MAX(*t1, s1);
}

static void sum_add(struct rail_sum *m, const struct rail_run *run, uint64_t conn_ns)
{
	rt_hist_merge(&m->all.h, &run->h);
	m->all.got += run->got;
	m->all.read += run->read;
	m->all.written += run->written;
	span(&m->all.bw_t0, &m->all.bw_t1, run->bw_t0, run->bw_t1);
	span(&m->all.rd_t0, &m->all.rd_t1, run->rd_t0, run->rd_t1);
	m->conn_ns = RT_MAX(m->conn_ns, conn_ns);
	m->ok++;
}

static void fill(struct rt_mesh_result *r, const struct pair_test *p,
		 const struct rail_run *run, uint64_t conn_ns);

/* One connection's outcome into its rail's: its figures summed, or the
 * rail failed (timed out) with the first failure's reason. The port's
 * counters are read once a rail: its first connection's. */
static void conclude_conn(struct rt_conn *c, struct pair_test *p, struct rt_mesh_result *r,
			  struct rail_sum *m, char *why)
{
	unsigned k = created_as(p, c);
	const char *reason;
	char buf[160];
	bool timeout;

	if (!m->ctr) {
		attach_counters(c, r);
		m->ctr = true;
	}
	reason = short_of(p, &p->runs[k], rt_conn_peer(c), &timeout, buf, sizeof(buf));
	if (!reason) {
		sum_add(m, &p->runs[k], connect_ns(c));
		return;
	}
	if (rt_conn_err(c)->set)
		reason = rt_conn_err(c)->reason;
	if (why[0])
		return;
	r->status = timeout || rt_conn_err(c)->exit_code == RT_EXIT_TIMEOUT ? RT_MESH_TIMEOUT
									     : RT_MESH_FAILED;
	rt_strlcpy(why, reason, 160);
}

/* Each rail's result into r[]: its connections' figures as one when
 * every one of them has its figures, else failed or timed out with the
 * reason kept in p->last_error. */
static void conclude(struct rt_cm *cm, struct pair_test *p, struct rt_mesh_result *r,
		     char (*why)[160])
{
	struct rail_sum *m = rt_xcalloc(p->nrails, sizeof(*m)); /* 58 KiB a rail */
	struct rt_conn *c;

	rt_cm_each(cm, c) {
		unsigned i = p->conn_rail[created_as(p, c)];

		conclude_conn(c, p, &r[i], &m[i], why[i]);
	}
	for (unsigned i = 0; i < p->nrails; i++) {
		if (!why[i][0] && m[i].ok == p->qps)
			fill(&r[i], p, &m[i].all, m[i].conn_ns);
		else if (!why[i][0])
			snprintf(why[i], sizeof(why[i]), "%u of %u connections of the rail had "
				 "their figures", m[i].ok, p->qps);
		if (why[i][0]) {
			rt_dbg(p->t->log, "rail %u of %u: %s", i, p->nrails, why[i]);
			rt_strlcpy(p->last_error, why[i], RT_MESH_WHY_LEN);
		}
	}
	free(m);
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
	conclude(cm, p, r, why);
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

static void fill(struct rt_mesh_result *r, const struct pair_test *p,
		 const struct rail_run *run, uint64_t conn_ns)
{
	uint8_t ctr = r->flags & RT_MESH_HAS_CTR; /* attached before */

	rt_mesh_result_rtt(r, &run->h, conn_ns);
	r->flags |= ctr;
	if (p->t->bw_bytes && run->bw_t1 > run->bw_t0 && run->rd_t1 > run->rd_t0) {
		/* bits per ns are Gbit/s; a thousand times that Mbit/s. This
		 * side is b (meshrun.h): its reads carry a to b, its writes b to a. */
		r->mbps = run->read * 8000u / (run->rd_t1 - run->rd_t0);
		r->mbps_rev = run->written * 8000u / (run->bw_t1 - run->bw_t0);
		r->flags |= RT_MESH_HAS_BW;
	}
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

/* One test in one reactor: its results into r[], a failure's reason into
 * last_error (160 bytes). */
static void test_one(const struct rt_mesh_cm_test *t, const struct rt_mesh_assign *a,
		     struct rt_mesh_result *r, char *last_error)
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
	p->last_error = last_error;
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
	else if (cm && run_listen(cm, p, &err) && err.set)
		rt_strlcpy(last_error, err.reason, RT_MESH_WHY_LEN);
	if (cm && !active)
		rt_dbg(t->log, "listened for %u connections: %s", p->nconn,
		       err.set ? err.reason : "the partner came and went");
	if (!cm && err.set)
		rt_strlcpy(last_error, err.reason, RT_MESH_WHY_LEN);
	gpu_release(cm);
	rt_cm_destroy(cm);
	free(p->runs);
	free(p->snaps);
	free(p);
}

/* One rail of the connecting side's test, on a thread of its own. */
struct rail_job {
	const struct rt_mesh_cm_test *t;
	struct rt_mesh_assign a;    /* the assignment cut to this rail */
	struct rt_mesh_result *r;   /* its result */
	char why[RT_MESH_WHY_LEN];  /* its failure's reason */
	pthread_t th;
	bool threaded;              /* th runs it (else it ran inline) */
};

static void *rail_thread(void *arg)
{
	struct rail_job *j = arg;

	test_one(j->t, &j->a, j->r, j->why);
	return NULL;
}

/* The connecting side of several rails: each rail's connections, pings
 * and bandwidth in a reactor on a thread of its own, so that posting
 * and completions of 8 rails at line rate are not one core's work; a
 * thread that cannot start runs its rail here, after the others started.
 * The threads share only t (read) and their own job; the first failed
 * rail's reason (in rail order) becomes t's. */
static void rails_in_threads(const struct rt_mesh_cm_test *t, const struct rt_mesh_assign *a,
			     struct rt_mesh_result *r, char *last_error)
{
	struct rail_job *jobs = rt_xcalloc(a->nrails, sizeof(*jobs)); /* 1 KiB a rail */
	unsigned i;

	for (i = 0; i < a->nrails; i++) {
		struct rail_job *j = &jobs[i];

		*j = (struct rail_job){ .t = t, .a = *a, .r = &r[i] };
		j->a.nrails = 1;
		j->a.rails[0] = a->rails[i];
		j->a.conns = (uint16_t)(a->qps ? a->qps : 1);
		j->threaded = !pthread_create(&j->th, NULL, rail_thread, j);
	}
	for (i = 0; i < a->nrails; i++)
		if (!jobs[i].threaded)
			rail_thread(&jobs[i]);
	for (i = 0; i < a->nrails && jobs[i].threaded; i++)
		;
	rt_dbg(t->log, "%u rails: %s", a->nrails, i == a->nrails ? "a thread each" :
	       "a thread could not start, its rail ran on the test's own");
	for (i = 0; i < a->nrails; i++)
		if (jobs[i].threaded)
			pthread_join(jobs[i].th, NULL);
	for (i = 0; i < a->nrails && !jobs[i].why[0]; i++)
		;
	if (i < a->nrails)
		rt_strlcpy(last_error, jobs[i].why, RT_MESH_WHY_LEN);
	free(jobs);
}

void rt_mesh_cm_test_run(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
			 struct rt_mesh_result *r)
{
	struct rt_mesh_cm_test *t = ctx;
	char own[RT_MESH_WHY_LEN] = "";
	/* a round's several tests run at once (meshfollow.c): each keeps its
	 * reason to itself (its --debug lines say it) */
	char *why = a->tests > 1 ? own : t->last_error;

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
		rails_in_threads(t, a, r, why);
	else
		test_one(t, a, r, why);
}
