/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The bandwidth engine: one run of one message size (perftest's
 * run_iter_bw, run_iter_bw_server and run_iter_bi, rewritten). */
#include <arpa/inet.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "perftest/perftest_bw.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_report.h"
#include "perftest/perftest_ud.h"
#include "perftest/perftest_runctl.h"
#include "rdmatest/util.h"
#include "rdmatest/watchdog.h"

#define QP_SHIFT 40 /* wr_id: QP index above, message number below */
#define MSG_MASK ((1ull << QP_SHIFT) - 1)
#define WC_BATCH 32

unsigned rt_pt_msg_places(uint64_t size, uint32_t cycle, uint32_t line,
			  unsigned post_list)
{
	uint64_t inc = rt_pt_slot(size, 1, line);

	if (post_list > 1 || size > cycle / 2 || !inc)
		return 1;
	return (unsigned)(cycle / inc);
}

uint64_t rt_pt_msg_offset(uint64_t k, uint64_t size, uint32_t cycle,
			  uint32_t line, unsigned post_list)
{
	return k % rt_pt_msg_places(size, cycle, line, post_list) *
	       rt_pt_slot(size, 1, line);
}

/* ---- one run ------------------------------------------------------------ */

struct bwr {
	struct rt_pt_conn *c;
	const struct rt_pt_params *p;
	uint64_t size;
	unsigned cq_mod;
	uint64_t iters;          /* -n, or the warm-up's */
	bool sends, recvs;       /* this side posts sends / counts receives */
	bool timed;              /* -D */
	uint64_t *scnt, *ccnt, *rcnt, *rpost, *unused; /* per QP */
	unsigned rlist;          /* --recv_post_list */
	struct ibv_recv_wr *rwr; /* rlist of them */
	struct ibv_sge *rsge;
	uint64_t tot_s, tot_c, tot_r, want_r;
	struct ibv_send_wr *wr;  /* -l of them */
	struct ibv_sge *sge;
	uint64_t *tpost, *tcomp; /* peak stamps, or NULL */
	uint64_t t_first, t_last, r_first, r_last;
	uint64_t warm, cool, stop; /* -D: window and end, ns */
	bool stopping;
	uint64_t win_msgs;
	uint64_t win_port[2];    /* --report-per-port: win_msgs by QP's port */
	struct rt_pt_pacer pace; /* the software rate limiter */
	struct rt_watchdog dog;  /* --timeout without progress; interrupts */
	struct rt_pt_cpu cpu[2]; /* --cpu_util: at the window's start and end */
	unsigned cpu_at;         /* samples taken */
};

static int fail_wc(struct bwr *b, const struct ibv_wc *wc, const char *what)
{
	unsigned i = (unsigned)(wc->wr_id >> QP_SHIFT);
	const char *hint = "";

	if (wc->status == IBV_WC_REM_ACCESS_ERR || wc->status == IBV_WC_REM_INV_REQ_ERR)
		hint = " (the peer's buffer is smaller or not open to this verb: do "
		       "both sides run the same test and -s?)";
	else if (wc->status == IBV_WC_LOC_LEN_ERR)
		hint = " (the peer sent larger messages: -s differs)";
	else if (wc->status == IBV_WC_RETRY_EXC_ERR || wc->status == IBV_WC_RNR_RETRY_EXC_ERR)
		hint = " (the peer stopped answering)";
	rt_error_phase(&b->c->run->err, "run");
	return rt_fail(&b->c->run->err, RT_EXIT_FAIL, "%s %llu on QP %u (0x%06x): %s "
		       "(%d)%s", what, (unsigned long long)(wc->wr_id & MSG_MASK), i,
		       i < b->p->opt.qps ? b->c->qp[i]->qp_num : 0,
		       ibv_wc_status_str(wc->status), wc->status, hint);
}

static bool more(const struct bwr *b, unsigned i)
{
	if (!b->timed)
		return b->scnt[i] < b->iters;
	/* the last post of a timed run is a signalled one, so that it drains */
	return !b->stopping || b->scnt[i] % b->cq_mod;
}

static bool signalled(const struct bwr *b, uint64_t k)
{
	return (k + 1) % b->cq_mod == 0 || (!b->timed && k + 1 == b->iters);
}

/* The step of the addresses' walk: a UD receive holds the GRH too, and
 * both sides walk alike, so that what lands at a place came from the
 * same place of the sender (the data check reads place 0). */
static uint64_t walk_size(const struct bwr *b)
{
	return b->size + rt_pt_ud_grh(b->c);
}

static void fill_wr(struct bwr *b, unsigned i, unsigned j, uint64_t k)
{
	const struct rt_pt_conn *c = b->c;
	struct ibv_send_wr *w = &b->wr[j];
	uint64_t off = rt_pt_msg_offset(k, walk_size(b), c->sys.cycle_buffer,
					c->sys.cache_line, b->p->opt.post_list);
	enum rt_pt_verb v = b->p->t.verb;

	b->sge[j] = (struct ibv_sge){ (uintptr_t)rt_pt_conn_local(c, i) + off,
				      (uint32_t)b->size, rt_pt_conn_send_lkey(c, i) };
	*w = (struct ibv_send_wr){ .wr_id = (uint64_t)i << QP_SHIFT | k,
				   .sg_list = &b->sge[j], .num_sge = 1 };
	w->next = j + 1 < b->p->opt.post_list ? &b->wr[j + 1] : NULL;
	w->opcode = v == RT_PT_SEND ? IBV_WR_SEND : v == RT_PT_READ ?
		    IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	w->send_flags = signalled(b, k) ? IBV_SEND_SIGNALED : 0;
	if (v != RT_PT_READ && v != RT_PT_ATOMIC && b->size <= c->max_inline &&
	    b->size <= (uint64_t)b->p->opt.inline_size)
		w->send_flags |= IBV_SEND_INLINE;
	if (v == RT_PT_ATOMIC) {
		bool cas = b->p->opt.atomic_type == RT_PT_CMP_SWAP;

		/* perftest's: add 1, or compare with 0 and swap in 0 */
		w->opcode = cas ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD;
		w->wr.atomic.remote_addr = c->theirs[i].vaddr + off;
		w->wr.atomic.rkey = c->theirs[i].rkey;
		w->wr.atomic.compare_add = cas ? 0 : 1;
		w->wr.atomic.swap = 0;
		return;
	}
	w->wr.rdma.remote_addr = c->theirs[i].vaddr + off;
	w->wr.rdma.rkey = c->theirs[i].rkey;
	if (b->p->opt.imm.write_imm) {
		w->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		w->imm_data = htonl(RT_PT_IMM_DATA);
	}
	if (v == RT_PT_SEND)
		rt_pt_ud_wr(c, i, w);
}

static int post_one(struct bwr *b, unsigned i)
{
	unsigned l = b->p->opt.post_list;
	struct ibv_send_wr *bad;
	uint64_t t = rt_now_ns();
	int rc;

	for (unsigned j = 0; j < l; j++)
		fill_wr(b, i, j, b->scnt[i] + j);
	if (!b->t_first)
		b->t_first = t;
	for (unsigned j = 0; b->tpost && j < l && b->tot_s + j < RT_PT_PEAK_MAX; j++)
		b->tpost[b->tot_s + j] = t;
	rc = ibv_post_send(b->c->qp[i], b->wr, &bad);
	if (rc)
		return rt_fail(&b->c->run->err, RT_EXIT_FAIL, "ibv_post_send on QP %u: %s",
			       i, strerror(rc));
	b->scnt[i] += l;
	b->tot_s += l;
	rt_pt_pacer_sent(&b->pace, l);
	return 1;
}

/* Posts what the send queues take; the number of post calls, or -1. */
static int post_sends(struct bwr *b)
{
	unsigned depth = b->p->opt.tx_depth, l = b->p->opt.post_list;
	int posted = 0;

	if (b->timed && !b->stopping && rt_now_ns() >= b->stop)
		b->stopping = true;
	for (unsigned i = 0; i < b->p->opt.qps; i++)
		while (more(b, i) && b->scnt[i] - b->ccnt[i] + l <= depth &&
		       rt_pt_pacer_may(&b->pace, rt_now_ns())) {
			if (post_one(b, i) < 0)
				return -1;
			posted++;
		}
	return posted;
}

/* n completions of QP i at t; in the window they count, and with -O by
 * the QP's port (perftest's iters_per_port). */
static void count_window(struct bwr *b, unsigned i, uint64_t t, uint64_t n)
{
	if (!b->timed || t < b->warm || t >= b->cool)
		return;
	b->win_msgs += n;
	b->win_port[rt_pt_dual_slot(i, b->p->opt.qps, b->c->dual.on)] += n;
}

static int send_done(struct bwr *b, const struct ibv_wc *wc)
{
	unsigned i = (unsigned)(wc->wr_id >> QP_SHIFT);
	/* the message number from its low 40 bits: a run of more messages
	 * (--run_infinitely) wraps them */
	uint64_t base = b->ccnt[RT_MIN(i, b->p->opt.qps - 1)];
	uint64_t k = base + (((wc->wr_id & MSG_MASK) - base) & MSG_MASK);
	uint64_t t = rt_now_ns(), n;

	if (wc->status != IBV_WC_SUCCESS)
		return fail_wc(b, wc, b->p->t.verb == RT_PT_READ ? "read" :
				   b->p->t.verb == RT_PT_ATOMIC ? "atomic" : "send");
	if (i >= b->p->opt.qps || k < b->ccnt[i] || k >= b->scnt[i])
		return rt_fail(&b->c->run->err, RT_EXIT_FAIL, "completion for a message "
			       "never posted (wr_id %#llx)", (unsigned long long)wc->wr_id);
	n = k + 1 - b->ccnt[i];
	b->ccnt[i] = k + 1;
	b->tot_c += n;
	b->t_last = t;
	if (b->tcomp && b->tot_c - 1 < RT_PT_PEAK_MAX)
		b->tcomp[b->tot_c - 1] = t;
	count_window(b, i, t, n);
	return 0;
}

/* --recv_post_list receives for QP i in one call, on its own queue or
 * with --use-srq the shared one (upstream counts them by the QP they were
 * posted for, whichever consumes them). */
static int post_recv(struct bwr *b, unsigned i)
{
	const struct rt_pt_conn *c = b->c;
	struct ibv_recv_wr *bad;
	int rc;

	for (unsigned j = 0; j < b->rlist; j++) {
		uint64_t off = rt_pt_msg_offset(b->rpost[i] + j, walk_size(b),
						c->sys.cycle_buffer, c->sys.cache_line, 1);

		/* UD: the GRH lands in front of the message */
		b->rsge[j] = (struct ibv_sge){ (uintptr_t)rt_pt_conn_target(c, i) + off,
					       (uint32_t)b->size + rt_pt_ud_grh(c),
					       rt_pt_conn_mr(c, i)->lkey };
		/* a write with immediate places nothing: no buffer */
		b->rwr[j] = (struct ibv_recv_wr){
			.wr_id = (uint64_t)i << QP_SHIFT | (b->rpost[i] + j),
			.sg_list = &b->rsge[j], .num_sge = b->p->opt.imm.write_imm ? 0 : 1,
			.next = j + 1 < b->rlist ? &b->rwr[j + 1] : NULL };
	}
	rc = c->res.srq ? ibv_post_srq_recv(c->res.srq, b->rwr, &bad) :
	     ibv_post_recv(c->qp[i], b->rwr, &bad);
	if (rc)
		return rt_fail(&c->run->err, RT_EXIT_FAIL, "ibv_post_%srecv for QP %u: %s",
			       c->res.srq ? "srq_" : "", i, strerror(rc));
	b->rpost[i] += b->rlist;
	return 0;
}

static bool want_recv(const struct bwr *b, unsigned i)
{
	return b->timed || b->rpost[i] + b->rlist <= b->iters;
}

/* A receive's length (UD: with its GRH); with --write_with_imm the
 * whole completion (perftest_imm.h). */
static int recv_check(const struct bwr *b, const struct ibv_wc *wc)
{
	uint32_t grh = rt_pt_ud_grh(b->c);

	if (b->p->opt.imm.write_imm)
		return rt_pt_imm_wc_check(wc, b->size, rt_pt_peer(&b->c->ch),
					  &b->c->run->err);
	if (wc->byte_len == b->size + grh)
		return 0;
	return rt_fail(&b->c->run->err, RT_EXIT_FAIL, "%s sent a %u-byte message, "
		       "this side runs %llu-byte ones (-s or -a differs)",
		       rt_pt_peer(&b->c->ch), wc->byte_len - grh,
		       (unsigned long long)b->size);
}

static int recv_done(struct bwr *b, const struct ibv_wc *wc)
{
	unsigned i = (unsigned)(wc->wr_id >> QP_SHIFT);
	uint64_t t = rt_now_ns();

	if (wc->status != IBV_WC_SUCCESS)
		return fail_wc(b, wc, "receive");
	if (recv_check(b, wc))
		return -1;
	if (!b->r_first)
		b->r_first = t;
	b->r_last = t;
	b->rcnt[i]++;
	b->tot_r++;
	if (!b->sends)
		count_window(b, i, t, 1);
	if (++b->unused[i] < b->rlist || !want_recv(b, i))
		return 0;
	b->unused[i] -= b->rlist;
	return post_recv(b, i);
}

typedef int wc_fn(struct bwr *b, const struct ibv_wc *wc);

/* Takes what the CQ holds now; the number of completions, or -1. */
static int drain(struct bwr *b, struct ibv_cq *cq, wc_fn *fn)
{
	struct ibv_wc wc[WC_BATCH];
	int n = ibv_poll_cq(cq, WC_BATCH, wc);

	if (n < 0)
		return rt_fail(&b->c->run->err, RT_EXIT_FAIL, "ibv_poll_cq failed");
	for (int k = 0; k < n; k++)
		if (fn(b, &wc[k]))
			return -1;
	return n;
}

static bool sends_done(const struct bwr *b)
{
	for (unsigned i = 0; b->sends && i < b->p->opt.qps; i++)
		if (more(b, i) || b->ccnt[i] < b->scnt[i])
			return false;
	return true;
}

/* A timed receiver ends when the peer's next channel message is there
 * (its run is over, so receives have stopped: the channel is looked at
 * only in a step that took none); a counting one at -n × -q receives. */
static bool recvs_done(const struct bwr *b, bool idle)
{
	struct pollfd pfd = { b->c->ch.tcp.fd, POLLIN, 0 };

	if (!b->recvs)
		return true;
	if (!b->timed)
		return b->tot_r >= b->want_r;
	if (!idle)
		return false;
	/* a failed look ends the run too: the read that follows names it */
	return b->c->ch.cm ? rt_cmchan_peek(b->c->ch.cm) != 0 : poll(&pfd, 1, 0) > 0;
}

static int stalled(struct bwr *b)
{
	rt_error_phase(&b->c->run->err, "run");
	return rt_fail(&b->c->run->err, RT_EXIT_TIMEOUT, "nothing completed for %lld "
		       "ms: %llu of %llu sends completed, %llu of %llu receives arrived "
		       "(is the peer running the same test, -n and -q?%s)",
		       b->c->run->common.timeout_ms, (unsigned long long)b->tot_c,
		       (unsigned long long)(b->timed ? b->tot_s : b->iters * b->p->opt.qps),
		       (unsigned long long)b->tot_r,
		       (unsigned long long)(b->timed ? b->tot_r : b->want_r),
		       b->p->opt.ud.conn == RT_PT_RC ? "" : " UC and UD do not resend a lost "
		       "message");
}

/* With -e and one CQ to wait on, sleep on its channel within the bound
 * instead of spinning; 0 when nothing came. */
static int sleep_events(struct bwr *b)
{
	struct ibv_wc wc[WC_BATCH];
	bool s = b->sends && !b->recvs;
	wc_fn *fn = s ? send_done : recv_done;
	int n;

	if (!b->p->opt.events || b->timed || b->sends == b->recvs)
		return 0;
	n = rt_cqwait_poll(s ? &b->c->sw : &b->c->rw, wc, WC_BATCH, &b->c->run->err);
	if (n < 0)
		return -1;
	for (int k = 0; k < n; k++)
		if (fn(b, &wc[k]))
			return -1;
	return n;
}

/* One step: post, reap; -1 on error, 1 when the run is over. */
static int step(struct bwr *b)
{
	int posted = 0, got = 0, n = 0, rc;
	bool idle, holds;

	if (b->sends && ((posted = post_sends(b)) < 0 ||
			 (n = drain(b, b->c->scq, send_done)) < 0))
		return -1;
	got += n;
	if (b->recvs && (n = drain(b, b->c->rcq, recv_done)) < 0)
		return -1;
	got += b->recvs ? n : 0;
	if (sends_done(b) && recvs_done(b, !got))
		return 1;
	/* the rate limiter's gap is no stall: it naps through it (below) */
	holds = !posted && !got && b->sends && rt_pt_pacer_holds(&b->pace, rt_now_ns());
	idle = !posted && !got && !holds;
	if (!idle)
		rt_watchdog_progress(&b->dog, rt_now_ns());
	/* an idle step looks every time: the next may sleep on the channel.
	 * SIGINT/SIGTERM: the run's verdict says "interrupted" (run.c) */
	if (idle || holds || rt_watchdog_due(&b->dog)) {
		rc = rt_watchdog_check(&b->dog, rt_now_ns());
		if (rc)
			return rc == RT_WATCHDOG_TIMEOUT ? stalled(b) : -1;
	}
	if (holds)
		rt_pt_pacer_nap(&b->pace, rt_now_ns());
	if (idle && (got = sleep_events(b)) < 0)
		return -1;
	if (idle && got)
		rt_watchdog_progress(&b->dog, rt_now_ns());
	return 0;
}

static void bwr_free(struct bwr *b)
{
	free(b->scnt);
	free(b->wr);
	free(b->sge);
	free(b->rwr);
	free(b->rsge);
	free(b->tpost);
	free(b->tcomp);
}

/* What a run does: a measured one as the parameters say, the warm-up
 * its own (a few sends, no peak, no duration). */
struct bw_role {
	uint64_t iters;
	bool timed, peak, sends, recvs;
};

static struct bw_role measured(const struct rt_pt_conn *c)
{
	const struct rt_pt_params *p = c->p;

	return (struct bw_role){ .iters = p->opt.iters, .timed = p->opt.duration > 0,
				 .peak = !p->opt.no_peak, .sends = c->client || p->opt.bidir,
				 .recvs = rt_pt_receives(p) && (!c->client || p->opt.bidir) };
}

static void bwr_init(struct bwr *b, struct rt_pt_conn *c, uint64_t size,
		     const struct bw_role *r)
{
	const struct rt_pt_params *p = c->p;
	unsigned q = p->opt.qps;

	*b = (struct bwr){ .c = c, .p = p, .size = size, .cq_mod = rt_pt_cq_mod(p, size),
			   .iters = r->iters, .timed = r->timed, .sends = r->sends,
			   .recvs = r->recvs };
	b->scnt = rt_xcalloc(5 * (size_t)q, sizeof(*b->scnt));
	b->ccnt = b->scnt + q;
	b->rcnt = b->ccnt + q;
	b->rpost = b->rcnt + q;
	b->unused = b->rpost + q;
	b->rlist = p->opt.res.recv_post_list;
	b->rwr = rt_xcalloc(b->rlist, sizeof(*b->rwr));
	b->rsge = rt_xcalloc(b->rlist, sizeof(*b->rsge));
	b->want_r = r->iters * q;
	b->wr = rt_xcalloc(p->opt.post_list, sizeof(*b->wr));
	b->sge = rt_xcalloc(p->opt.post_list, sizeof(*b->sge));
	if (r->peak && !r->timed && r->sends && r->iters * q <= RT_PT_PEAK_MAX) {
		b->tpost = rt_xcalloc(r->iters * q, sizeof(*b->tpost));
		b->tcomp = rt_xcalloc(r->iters * q, sizeof(*b->tcomp));
	}
}

/* The receives a send run starts with, before the barrier that lets the
 * peer send. */
static int prepost(struct bwr *b)
{
	/* perftest's: -r / --recv_post_list lists per QP, with an SRQ its
	 * depth shared among the QPs */
	unsigned lists = b->p->opt.rx_depth / b->rlist;

	if (b->c->res.srq)
		lists = RT_MAX(lists / b->p->opt.qps, 1u);
	for (unsigned i = 0; b->recvs && i < b->p->opt.qps; i++)
		for (unsigned k = 0; k < lists && want_recv(b, i); k++)
			if (post_recv(b, i))
				return -1;
	return 0;
}

/* --cpu_util: /proc/stat when the sample window opens and closes, as
 * perftest's alarms take it. */
static void cpu_mark(struct bwr *b)
{
	uint64_t t;

	if (!b->p->opt.ctl.cpu_util || !b->timed || b->cpu_at == 2)
		return;
	t = rt_now_ns();
	if (b->cpu_at == 0 && t >= b->warm)
		rt_pt_cpu_sample(&b->cpu[b->cpu_at++]);
	if (b->cpu_at == 1 && t >= b->cool)
		rt_pt_cpu_sample(&b->cpu[b->cpu_at++]);
}

static int loop(struct bwr *b)
{
	uint64_t t0 = rt_now_ns(), s = 1000000000ull;
	int rc;

	rt_watchdog_start(&b->dog, b->c->run->common.timeout_ms, 1024, t0);
	rt_pt_pacer_init(&b->pace, b->c, b->size, t0);
	b->warm = t0 + b->p->opt.margin * s;
	b->cool = t0 + (b->p->opt.duration - b->p->opt.margin) * s;
	b->stop = t0 + b->p->opt.duration * s;
	rt_error_phase(&b->c->run->err, "run");
	do
		cpu_mark(b);
	while (!(rc = step(b)));
	if (b->cpu_at == 2)
		b->c->cpu_util = rt_pt_cpu_util(&b->cpu[0], &b->cpu[1]);
	return rc < 0 ? -1 : 0;
}

/* This side's figures of the run (perftest's print_report_bw). */
static void figures(const struct bwr *b, struct rt_pt_bw_report *r)
{
	const struct rt_pt_params *p = b->p;
	uint64_t best = 0;

	*r = (struct rt_pt_bw_report){ 0 };
	if (b->timed) {
		uint64_t ns = (p->opt.duration - 2 * p->opt.margin) * 1000000000ull;

		rt_pt_bw_figures(r, b->size, b->win_msgs, ns, 0, p->opt.report_gbits);
		rt_pt_dual_figures(r, b->size, b->win_port, ns, p->opt.report_gbits);
		return;
	}
	if (b->tpost)
		best = rt_pt_peak_ns(b->tpost, b->tcomp, b->tot_s, p->opt.post_list,
				     b->cq_mod);
	if (b->sends)
		rt_pt_bw_figures(r, b->size, b->tot_c, b->t_last - b->t_first, best,
				 p->opt.report_gbits);
	else
		rt_pt_bw_figures(r, b->size, b->tot_r, b->r_last - b->r_first, 0,
				 p->opt.report_gbits);
}

int rt_pt_bw_warm_up(struct rt_pt_conn *c, uint64_t size)
{
	const struct rt_pt_params *p = c->p;
	struct bw_role role = { .iters = RT_MAX(p->opt.tx_depth, p->opt.post_list),
				.sends = true };
	struct bwr b;
	int rc;

	if (!p->opt.warm_up || p->t.verb == RT_PT_SEND || !(c->client || p->opt.bidir))
		return 0;
	/* each warm-up write would take a receive the peer never posted */
	if (p->opt.imm.write_imm) {
		rt_warn(&c->run->log, "--perform_warm_up: no warm-up with "
			"--write_with_imm (as perftest: \"Warm up not supported for "
			"WRITE_IMM verb. Skipping\")");
		return 0;
	}
	role.iters -= role.iters % p->opt.post_list;
	bwr_init(&b, c, size, &role);
	rc = loop(&b);
	bwr_free(&b);
	return rc;
}

int rt_pt_bw_measure(struct rt_pt_conn *c, uint64_t size, struct rt_pt_bw_report *r,
		     bool barrier_before, uint64_t *sent)
{
	struct bw_role role = measured(c);
	struct bwr b;
	int rc;

	bwr_init(&b, c, size, &role);
	rc = prepost(&b);
	if (!rc && barrier_before)
		rc = rt_pt_conn_barrier(c, "start of a size");
	if (!rc)
		rc = loop(&b);
	if (!rc)
		figures(&b, r);
	for (unsigned i = 0; !rc && sent && i < c->p->opt.qps; i++)
		sent[i] = b.scnt[i];
	bwr_free(&b);
	return rc;
}

/* ---- --run_infinitely ------------------------------------------------------- */

/* One row of the period that ended at t: its completions over its time;
 * with -b twice this side's, as perftest counts both directions. */
static int inf_row(struct bwr *b, uint64_t t, uint64_t *from, uint64_t *at,
		   rt_pt_bw_row_fn *fn, void *ctx)
{
	unsigned both = b->p->opt.bidir ? 2 : 1;
	struct rt_pt_bw_report r;

	rt_pt_bw_figures(&r, b->size * both, b->win_msgs - *at, t - *from, 0,
			 b->p->opt.report_gbits);
	r.size = b->size;
	r.msg_rate *= both;
	if (b->p->opt.ctl.cpu_util) {
		rt_pt_cpu_sample(&b->cpu[1]);
		b->c->cpu_util = rt_pt_cpu_util(&b->cpu[0], &b->cpu[1]);
		b->cpu[0] = b->cpu[1];
	}
	*at = b->win_msgs;
	*from = t;
	return fn(ctx, &r);
}

/* After SIGINT: no more posts but up to a signalled one, every completion
 * taken, each wait bounded again. */
static int inf_drain(struct bwr *b)
{
	int rc;

	rt_interrupt_wind_down(&b->c->run->err);
	b->stopping = true;
	rt_watchdog_start(&b->dog, b->c->run->common.timeout_ms, 1024, rt_now_ns());
	while (!(rc = step(b)))
		;
	return rc < 0 ? -1 : 1;
}

/* -b: the peer closed the channel (it stopped: its SIGINT); looked at
 * once a row. */
static bool peer_left(const struct bwr *b)
{
	struct pollfd pfd = { b->c->ch.tcp.fd, POLLIN, 0 };

	if (!b->p->opt.bidir)
		return false;
	return b->c->ch.cm ? rt_cmchan_peek(b->c->ch.cm) != 0 : poll(&pfd, 1, 0) > 0;
}

int rt_pt_bw_infinite(struct rt_pt_conn *c, uint64_t size, rt_pt_bw_row_fn *fn,
		      void *ctx)
{
	struct bw_role role = { .timed = true, .sends = c->client || c->p->opt.bidir,
				.recvs = rt_pt_receives(c->p) && !c->client };
	uint64_t period = (uint64_t)c->p->opt.duration * 1000000000ull, from, at = 0, t;
	struct bwr b;
	int rc;

	bwr_init(&b, c, size, &role);
	/* the send test's receives are posted before the barrier that lets
	 * the sender start, as perftest's */
	if (prepost(&b) || (rt_pt_receives(c->p) &&
			    rt_pt_conn_barrier(c, "start of the run"))) {
		bwr_free(&b);
		return -1;
	}
	from = rt_now_ns();
	rt_watchdog_start(&b.dog, c->run->common.timeout_ms, 1024, from);
	b.warm = from;
	b.cool = b.stop = UINT64_MAX;
	if (c->p->opt.ctl.cpu_util)
		rt_pt_cpu_sample(&b.cpu[0]);
	rt_error_phase(&c->run->err, "run");
	while (!(rc = step(&b))) {
		t = rt_now_ns();
		if (t - from < period)
			continue;
		if (inf_row(&b, t, &from, &at, fn, ctx)) {
			rc = -1;
			break;
		}
		if (peer_left(&b)) {
			/* its QP is gone: what is in flight will not complete */
			bwr_free(&b);
			return 2;
		}
	}
	/* a receiver's SIGINT is an interrupted run: it waits for nothing */
	if (rc < 0 && b.sends && rt_interrupt_pending())
		rc = inf_drain(&b);
	bwr_free(&b);
	return rc;
}
