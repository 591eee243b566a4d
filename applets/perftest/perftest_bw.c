/* The bandwidth engine: one run of one message size (perftest's
 * run_iter_bw, run_iter_bw_server and run_iter_bi, rewritten). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest/perftest_atomic.h"
#include "perftest/perftest_bw.h"
#include "perftest/perftest_report.h"
#include "rdmatest/util.h"
#include "rdmatest/watchdog.h"

#define QP_SHIFT 40 /* wr_id: QP index above, message number below */
#define MSG_MASK ((1ull << QP_SHIFT) - 1)
#define WC_BATCH 32

uint8_t rt_pt_pattern(unsigned qp, uint64_t off)
{
	return (uint8_t)(off * 131u + qp * 17u + 0x5au);
}

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

uint64_t rt_pt_peak_ns(const uint64_t *tpost, const uint64_t *tcomp, uint64_t n,
		       unsigned post_list, unsigned cq_mod)
{
	uint64_t best = 0, stride = cq_mod ? cq_mod : 1;

	for (uint64_t i = 0; i < n; i += post_list ? post_list : 1) {
		for (uint64_t j = (i + stride) / stride * stride - 1; j < n + stride - 1; j += stride) {
			uint64_t jj = j < n ? j : n - 1, t;

			if (!tcomp[jj] || tcomp[jj] < tpost[i])
				continue;
			t = (tcomp[jj] - tpost[i]) / (jj - i + 1);
			if (!best || t < best)
				best = t;
		}
	}
	return best;
}

/* ---- one run ------------------------------------------------------------ */

struct bwr {
	struct rt_pt_conn *c;
	const struct rt_pt_params *p;
	uint64_t size;
	unsigned cq_mod;
	bool sends, recvs;       /* this side posts sends / counts receives */
	bool timed;              /* -D */
	uint64_t *scnt, *ccnt, *rcnt, *rpost; /* per QP */
	uint64_t tot_s, tot_c, tot_r, want_r;
	struct ibv_send_wr *wr;  /* -l of them */
	struct ibv_sge *sge;
	uint64_t *tpost, *tcomp; /* peak stamps, or NULL */
	uint64_t t_first, t_last, r_first, r_last;
	uint64_t warm, cool, stop; /* -D: window and end, ns */
	bool stopping;
	uint64_t win_msgs;
	struct rt_watchdog dog;  /* --timeout without progress; interrupts */
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
		       i < b->p->qps ? b->c->qp[i]->qp_num : 0,
		       ibv_wc_status_str(wc->status), wc->status, hint);
}

static bool more(const struct bwr *b, unsigned i)
{
	if (!b->timed)
		return b->scnt[i] < b->p->iters;
	/* the last post of a timed run is a signalled one, so that it drains */
	return !b->stopping || b->scnt[i] % b->cq_mod;
}

static bool signalled(const struct bwr *b, uint64_t k)
{
	return (k + 1) % b->cq_mod == 0 || (!b->timed && k + 1 == b->p->iters);
}

static void fill_wr(struct bwr *b, unsigned i, unsigned j, uint64_t k)
{
	const struct rt_pt_conn *c = b->c;
	struct ibv_send_wr *w = &b->wr[j];
	uint64_t off = rt_pt_msg_offset(k, b->size, c->sys.cycle_buffer,
					c->sys.cache_line, b->p->post_list);
	enum rt_pt_verb v = b->p->t.verb;

	b->sge[j] = (struct ibv_sge){ (uintptr_t)rt_pt_conn_local(c, i) + off,
				      (uint32_t)b->size, c->mr->lkey };
	*w = (struct ibv_send_wr){ .wr_id = (uint64_t)i << QP_SHIFT | k,
				   .sg_list = &b->sge[j], .num_sge = 1 };
	w->next = j + 1 < b->p->post_list ? &b->wr[j + 1] : NULL;
	w->opcode = v == RT_PT_SEND ? IBV_WR_SEND : v == RT_PT_READ ?
		    IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	w->send_flags = signalled(b, k) ? IBV_SEND_SIGNALED : 0;
	if (v != RT_PT_READ && v != RT_PT_ATOMIC && b->size <= c->max_inline &&
	    b->size <= b->p->inline_size)
		w->send_flags |= IBV_SEND_INLINE;
	if (v == RT_PT_ATOMIC) {
		bool cas = b->p->atomic == RT_PT_CMP_SWAP;

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
}

static int post_one(struct bwr *b, unsigned i)
{
	unsigned l = b->p->post_list;
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
	return 1;
}

/* Posts what the send queues take; the number of post calls, or -1. */
static int post_sends(struct bwr *b)
{
	unsigned depth = b->p->tx_depth, l = b->p->post_list;
	int posted = 0;

	if (b->timed && !b->stopping && rt_now_ns() >= b->stop)
		b->stopping = true;
	for (unsigned i = 0; i < b->p->qps; i++)
		while (more(b, i) && b->scnt[i] - b->ccnt[i] + l <= depth) {
			if (post_one(b, i) < 0)
				return -1;
			posted++;
		}
	return posted;
}

static void count_window(struct bwr *b, uint64_t t, uint64_t n)
{
	if (b->timed && t >= b->warm && t < b->cool)
		b->win_msgs += n;
}

static int send_done(struct bwr *b, const struct ibv_wc *wc)
{
	unsigned i = (unsigned)(wc->wr_id >> QP_SHIFT);
	uint64_t k = wc->wr_id & MSG_MASK, t = rt_now_ns(), n;

	if (wc->status != IBV_WC_SUCCESS)
		return fail_wc(b, wc, b->p->t.verb == RT_PT_READ ? "read" :
				   b->p->t.verb == RT_PT_ATOMIC ? "atomic" : "send");
	if (i >= b->p->qps || k < b->ccnt[i] || k >= b->scnt[i])
		return rt_fail(&b->c->run->err, RT_EXIT_FAIL, "completion for a message "
			       "never posted (wr_id %#llx)", (unsigned long long)wc->wr_id);
	n = k + 1 - b->ccnt[i];
	b->ccnt[i] = k + 1;
	b->tot_c += n;
	b->t_last = t;
	if (b->tcomp && b->tot_c - 1 < RT_PT_PEAK_MAX)
		b->tcomp[b->tot_c - 1] = t;
	count_window(b, t, n);
	return 0;
}

static int post_recv(struct bwr *b, unsigned i)
{
	const struct rt_pt_conn *c = b->c;
	uint64_t off = rt_pt_msg_offset(b->rpost[i], b->size, c->sys.cycle_buffer,
					c->sys.cache_line, 1);
	struct ibv_sge s = { (uintptr_t)rt_pt_conn_target(c, i) + off,
			     (uint32_t)b->size, c->mr->lkey };
	struct ibv_recv_wr w = { .wr_id = (uint64_t)i << QP_SHIFT | b->rpost[i],
				 .sg_list = &s, .num_sge = 1 }, *bad;
	int rc = ibv_post_recv(c->qp[i], &w, &bad);

	if (rc)
		return rt_fail(&c->run->err, RT_EXIT_FAIL, "ibv_post_recv on QP %u: %s",
			       i, strerror(rc));
	b->rpost[i]++;
	return 0;
}

static bool want_recv(const struct bwr *b, unsigned i)
{
	return b->timed || b->rpost[i] < b->p->iters;
}

static int recv_done(struct bwr *b, const struct ibv_wc *wc)
{
	unsigned i = (unsigned)(wc->wr_id >> QP_SHIFT);
	uint64_t t = rt_now_ns();

	if (wc->status != IBV_WC_SUCCESS)
		return fail_wc(b, wc, "receive");
	if (wc->byte_len != b->size)
		return rt_fail(&b->c->run->err, RT_EXIT_FAIL, "%s sent a %u-byte message, "
			       "this side runs %llu-byte ones (-s or -a differs)",
			       b->c->oob.peer_name, wc->byte_len,
			       (unsigned long long)b->size);
	if (!b->r_first)
		b->r_first = t;
	b->r_last = t;
	b->rcnt[i]++;
	b->tot_r++;
	if (!b->sends)
		count_window(b, t, 1);
	return want_recv(b, i) ? post_recv(b, i) : 0;
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
	for (unsigned i = 0; b->sends && i < b->p->qps; i++)
		if (more(b, i) || b->ccnt[i] < b->scnt[i])
			return false;
	return true;
}

/* A timed receiver ends when the peer's next channel message is there
 * (its run is over, so receives have stopped: the channel is looked at
 * only in a step that took none); a counting one at -n × -q receives. */
static bool recvs_done(const struct bwr *b, bool idle)
{
	struct pollfd pfd = { b->c->oob.fd, POLLIN, 0 };

	if (!b->recvs)
		return true;
	if (!b->timed)
		return b->tot_r >= b->want_r;
	return idle && poll(&pfd, 1, 0) > 0;
}

static int stalled(struct bwr *b)
{
	rt_error_phase(&b->c->run->err, "run");
	return rt_fail(&b->c->run->err, RT_EXIT_TIMEOUT, "nothing completed for %lld "
		       "ms: %llu of %llu sends completed, %llu of %llu receives arrived "
		       "(is the peer running the same test, -n and -q?)",
		       b->c->run->common.timeout_ms, (unsigned long long)b->tot_c,
		       (unsigned long long)(b->timed ? b->tot_s : b->p->iters * b->p->qps),
		       (unsigned long long)b->tot_r,
		       (unsigned long long)(b->timed ? b->tot_r : b->want_r));
}

/* With -e and one CQ to wait on, sleep on its channel within the bound
 * instead of spinning; 0 when nothing came. */
static int sleep_events(struct bwr *b)
{
	struct ibv_wc wc[WC_BATCH];
	bool s = b->sends && !b->recvs;
	wc_fn *fn = s ? send_done : recv_done;
	int n;

	if (!b->p->events || b->timed || b->sends == b->recvs)
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
	bool idle;

	if (b->sends && ((posted = post_sends(b)) < 0 ||
			 (n = drain(b, b->c->scq, send_done)) < 0))
		return -1;
	got += n;
	if (b->recvs && (n = drain(b, b->c->rcq, recv_done)) < 0)
		return -1;
	got += b->recvs ? n : 0;
	if (sends_done(b) && recvs_done(b, !got))
		return 1;
	idle = !posted && !got;
	if (!idle)
		rt_watchdog_progress(&b->dog, rt_now_ns());
	/* an idle step looks every time: the next may sleep on the channel.
	 * SIGINT/SIGTERM: the run's verdict says "interrupted" (run.c) */
	if (idle || rt_watchdog_due(&b->dog)) {
		rc = rt_watchdog_check(&b->dog, rt_now_ns());
		if (rc)
			return rc == RT_WATCHDOG_TIMEOUT ? stalled(b) : -1;
	}
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
	free(b->tpost);
	free(b->tcomp);
}

static void bwr_init(struct bwr *b, struct rt_pt_conn *c, uint64_t size)
{
	const struct rt_pt_params *p = c->p;
	unsigned q = p->qps;

	*b = (struct bwr){ .c = c, .p = p, .size = size, .cq_mod = rt_pt_cq_mod(p, size),
			   .timed = p->duration > 0 };
	b->sends = c->client || p->bidir;
	b->recvs = p->t.verb == RT_PT_SEND && (!c->client || p->bidir);
	b->scnt = rt_xcalloc(4 * (size_t)q, sizeof(*b->scnt));
	b->ccnt = b->scnt + q;
	b->rcnt = b->ccnt + q;
	b->rpost = b->rcnt + q;
	b->want_r = p->iters * q;
	b->wr = rt_xcalloc(p->post_list, sizeof(*b->wr));
	b->sge = rt_xcalloc(p->post_list, sizeof(*b->sge));
	if (!p->no_peak && !b->timed && b->sends && p->iters * q <= RT_PT_PEAK_MAX) {
		b->tpost = rt_xcalloc(p->iters * q, sizeof(*b->tpost));
		b->tcomp = rt_xcalloc(p->iters * q, sizeof(*b->tcomp));
	}
}

/* The receives a send run starts with, before the barrier that lets the
 * peer send. */
static int prepost(struct bwr *b)
{
	for (unsigned i = 0; b->recvs && i < b->p->qps; i++)
		for (unsigned k = 0; k < b->p->rx_depth && want_recv(b, i); k++)
			if (post_recv(b, i))
				return -1;
	return 0;
}

static int loop(struct bwr *b)
{
	uint64_t t0 = rt_now_ns(), s = 1000000000ull;
	int rc;

	rt_watchdog_start(&b->dog, b->c->run->common.timeout_ms, 1024, t0);
	b->warm = t0 + b->p->margin * s;
	b->cool = t0 + (b->p->duration - b->p->margin) * s;
	b->stop = t0 + b->p->duration * s;
	rt_error_phase(&b->c->run->err, "run");
	while (!(rc = step(b)))
		;
	return rc < 0 ? -1 : 0;
}

/* This side's figures of the run (perftest's print_report_bw). */
static void figures(const struct bwr *b, struct rt_pt_bw_report *r)
{
	const struct rt_pt_params *p = b->p;
	uint64_t best = 0;

	if (b->timed) {
		rt_pt_bw_figures(r, b->size, b->win_msgs,
				 (p->duration - 2 * p->margin) * 1000000000ull, 0, p->gbits);
		return;
	}
	if (b->tpost)
		best = rt_pt_peak_ns(b->tpost, b->tcomp, b->tot_s, p->post_list, b->cq_mod);
	if (b->sends)
		rt_pt_bw_figures(r, b->size, b->tot_c, b->t_last - b->t_first, best, p->gbits);
	else
		rt_pt_bw_figures(r, b->size, b->tot_r, b->r_last - b->r_first, 0, p->gbits);
}

/* ---- data check ------------------------------------------------------------ */

#define NOT_RUN "not run"

/* The area of QP i where the peer's data lands. */
static uint8_t *dest(const struct rt_pt_conn *c, unsigned i)
{
	return c->p->t.verb == RT_PT_READ ? rt_pt_conn_local(c, i) : rt_pt_conn_target(c, i);
}

static uint8_t *source(const struct rt_pt_conn *c, unsigned i)
{
	return c->p->t.verb == RT_PT_READ ? rt_pt_conn_target(c, i) : rt_pt_conn_local(c, i);
}

static void fill(struct rt_pt_conn *c)
{
	for (unsigned i = 0; i < c->p->qps; i++) {
		uint8_t *s = source(c, i);

		for (uint64_t k = 0; k < c->slot; k++)
			s[k] = rt_pt_pattern(i, k);
		memset(dest(c, i), 0, (size_t)c->slot);
	}
}

static bool zero(const uint8_t *a, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (a[k])
			return false;
	return true;
}

/* The first message of each QP (it lands at offset 0 however the
 * addresses walk). */
static int verify(struct rt_pt_conn *c, uint64_t size, const char **result)
{
	uint8_t sig[8];

	*result = "not checked: messages below 8 bytes";
	if (size < 8 || size > c->slot)
		return 0;
	for (unsigned i = 0; i < c->p->qps; i++) {
		const uint8_t *d = dest(c, i);

		for (unsigned k = 0; k < sizeof(sig); k++)
			sig[k] = rt_pt_pattern(i, k);
		if (zero(d, (size_t)size))
			return rt_fail(&c->run->err, RT_EXIT_FAIL, "data check: QP %u's "
				       "first message of %llu bytes never arrived (all zero)",
				       i, (unsigned long long)size);
		if (memcmp(d, sig, sizeof(sig))) {
			*result = "not checked: the peer's data is not rdmatest's pattern";
			return 0;
		}
		for (uint64_t k = 0; k < size; k++)
			if (d[k] != rt_pt_pattern(i, k))
				return rt_fail(&c->run->err, RT_EXIT_FAIL, "data check: QP %u, "
					       "byte %llu of the first message is 0x%02x, not "
					       "0x%02x", i, (unsigned long long)k, d[k],
					       rt_pt_pattern(i, k));
	}
	*result = "first message of every QP verified";
	return 0;
}

static bool receives_data(const struct rt_pt_conn *c)
{
	if (c->p->bidir)
		return true;
	return c->p->t.verb == RT_PT_READ ? c->client : !c->client;
}

/* ---- rows ------------------------------------------------------------------ */

struct sess {
	struct rt_pt_conn *c;
	struct rt_pt_out *o;
	const char *check;
	struct rt_pt_bw_report last; /* the client's, for the idle server */
	int limit_rc;            /* a -w/-y miss, reported after the close */
	struct rt_error limit_err;
	/* the atomic check: the counters of the checked QPs, and what each
	 * QP posted in the run */
	struct rt_pt_atomic_counter *ax;
	unsigned aq, an;         /* checked QPs, counters per QP */
	uint64_t *sent;
	char check_buf[224];     /* the check's verdict when it has figures */
};

static int check_size(struct sess *s, uint64_t size);

static int row(struct sess *s, const struct rt_pt_bw_report *r)
{
	const struct rt_pt_params *p = s->c->p;
	char text[200];
	struct rt_pt_field f[] = {
		{ "MsgSize", (double)r->size }, { "n_iterations", (double)r->iters },
		{ "BW_peak", r->bw_peak }, { "BW_average", r->bw_avg },
		{ "MsgRate", r->msg_rate },
	};

	s->last = *r;
	rt_pt_bw_row(text, sizeof(text), r, p->gbits);
	if (rt_pt_out_row(s->o, text, p->output == RT_PT_OUT_MSGRATE ? r->msg_rate
				      : r->bw_avg, f, ARRAY_SIZE(f)))
		return -1;
	if (!s->limit_rc && rt_pt_check_limits(p, r->bw_avg, r->msg_rate, &s->limit_err))
		s->limit_rc = -1;
	return 0;
}

static void sum(struct rt_pt_bw_report *a, const struct rt_pt_bw_report *b)
{
	a->bw_peak += b->bw_peak;
	a->bw_avg += b->bw_avg;
	a->msg_rate += b->msg_rate;
}

/* -b: both reports, their sum printed. */
static int duplex_row(struct sess *s, struct rt_pt_bw_report *mine)
{
	struct rt_pt_conn *c = s->c;
	struct rt_pt_bw_report theirs;

	if (rt_pt_bw_report_xchg(&c->oob, c->client, c->sys.peer_version, mine,
				 &theirs, &c->run->err) ||
	    rt_pt_bw_report_check(&theirs, mine->size, c->oob.peer_name, &c->run->err) ||
	    check_size(s, mine->size))
		return -1;
	sum(mine, &theirs);
	return row(s, mine);
}

static int finish(struct sess *s, int rc)
{
	free(s->ax);
	free(s->sent);
	s->ax = NULL;
	s->sent = NULL;
	rt_pt_out_kv_string(s->o, "data_check", s->check);
	if (!rc && s->limit_rc) {
		s->c->run->err = s->limit_err;
		return -1;
	}
	return rc;
}

/* ---- one size ------------------------------------------------------------- */

/* Warm-up (--perform_warm_up, write and read): tx-depth messages of the
 * size, outside the measurement. */
static int warm_up(struct rt_pt_conn *c, uint64_t size)
{
	struct rt_pt_params w = *c->p;
	const struct rt_pt_params *saved = c->p;
	struct bwr b;
	int rc;

	if (!saved->warm_up || saved->t.verb == RT_PT_SEND || !(c->client || saved->bidir))
		return 0;
	w.iters = RT_MAX(saved->tx_depth, saved->post_list);
	w.iters -= w.iters % w.post_list;
	w.duration = 0;
	w.no_peak = true;
	w.bidir = false;
	c->p = &w;
	bwr_init(&b, c, size);
	b.sends = true;
	b.recvs = false;
	rc = loop(&b);
	bwr_free(&b);
	c->p = saved;
	return rc;
}

/* sent: NULL, or where each QP's count of posted messages goes. */
static int measure(struct rt_pt_conn *c, uint64_t size, struct rt_pt_bw_report *r,
		   bool barrier_before, uint64_t *sent)
{
	struct bwr b;
	int rc;

	bwr_init(&b, c, size);
	rc = prepost(&b);
	if (!rc && barrier_before)
		rc = rt_pt_conn_barrier(c, "start of a size");
	if (!rc)
		rc = loop(&b);
	if (!rc)
		figures(&b, r);
	for (unsigned i = 0; !rc && sent && i < c->p->qps; i++)
		sent[i] = b.scnt[i];
	bwr_free(&b);
	return rc;
}

/* The atomic tests check what the atomics fetched instead (below). */
static int check_size(struct sess *s, uint64_t size)
{
	if (s->c->p->t.verb == RT_PT_ATOMIC)
		return 0;
	return receives_data(s->c) ? verify(s->c, size, &s->check) : 0;
}

/* ---- the atomic check (perftest_atomic.h) ----------------------------------- */

/* Reads counter `off` of QP i with a FETCH_AND_ADD of 0 into the local
 * area at the same offset, waiting for it within --timeout. */
static int read_counter(struct rt_pt_conn *c, unsigned i, uint64_t off, uint64_t *v)
{
	uint8_t *at = rt_pt_conn_local(c, i) + off;
	struct ibv_sge sge = { (uintptr_t)at, RT_PT_ATOMIC_SIZE, c->mr->lkey };
	struct ibv_send_wr w = { .wr_id = UINT64_MAX, .sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int rc, n;

	w.wr.atomic.remote_addr = c->theirs[i].vaddr + off;
	w.wr.atomic.rkey = c->theirs[i].rkey;
	rc = ibv_post_send(c->qp[i], &w, &bad);
	if (rc)
		return rt_fail(&c->run->err, RT_EXIT_FAIL, "atomic check: ibv_post_send "
			       "on QP %u: %s", i, strerror(rc));
	n = rt_cqwait_poll(&c->sw, &wc, 1, &c->run->err);
	if (n == 0)
		return rt_fail(&c->run->err, RT_EXIT_TIMEOUT, "atomic check: %s did not "
			       "answer the read of QP %u's counter at +%llu within %lld ms",
			       c->oob.peer_name, i, (unsigned long long)off,
			       c->sw.timeout_ms);
	if (n < 0)
		return -1;
	if (wc.status != IBV_WC_SUCCESS)
		return rt_fail(&c->run->err, RT_EXIT_FAIL, "atomic check: the read of QP "
			       "%u's counter at +%llu failed: %s (%d)%s", i,
			       (unsigned long long)off, ibv_wc_status_str(wc.status),
			       wc.status, wc.status == IBV_WC_REM_ACCESS_ERR ||
			       wc.status == IBV_WC_REM_INV_REQ_ERR ? " (the peer's buffer "
			       "takes no atomics: does it run ib_atomic_bw?)" : "");
	memcpy(v, at, sizeof(*v));
	return 0;
}

/* Before a run of the side that posts atomics: every counter's value. */
static int atomic_before(struct sess *s, uint64_t size)
{
	struct rt_pt_conn *c = s->c;
	const struct rt_pt_params *p = c->p;
	uint64_t inc = rt_pt_slot(size, 1, c->sys.cache_line);

	if (p->t.verb != RT_PT_ATOMIC || !(c->client || p->bidir))
		return 0;
	if (p->qps > RT_PT_ATOMIC_CHECK_QPS) {
		s->check = "not checked: more than 8 QPs";
		return 0;
	}
	s->aq = p->qps;
	s->an = rt_pt_msg_places(size, c->sys.cycle_buffer, c->sys.cache_line,
				 p->post_list);
	s->ax = rt_xcalloc((size_t)s->aq * s->an, sizeof(*s->ax));
	s->sent = rt_xcalloc(s->aq, sizeof(*s->sent));
	rt_error_phase(&c->run->err, "check");
	for (unsigned i = 0; i < s->aq; i++)
		for (unsigned j = 0; j < s->an; j++)
			if (read_counter(c, i, j * inc, &s->ax[i * s->an + j].before))
				return -1;
	return 0;
}

/* After it: each counter's last fetched value (still in the local area)
 * and its value now, checked against what the run posted. */
static int atomic_after(struct sess *s, uint64_t size)
{
	struct rt_pt_conn *c = s->c;
	uint64_t inc = rt_pt_slot(size, 1, c->sys.cache_line);

	if (!s->ax)
		return 0;
	rt_error_phase(&c->run->err, "check");
	for (unsigned i = 0; i < s->aq; i++)
		for (unsigned j = 0; j < s->an; j++) {
			struct rt_pt_atomic_counter *x = &s->ax[i * s->an + j];

			memcpy(&x->last, rt_pt_conn_local(c, i) + j * inc, sizeof(x->last));
			x->hits = rt_pt_atomic_hits(s->sent[i], s->an, j);
			if (read_counter(c, i, j * inc, &x->after) ||
			    rt_pt_atomic_counter_check(x, c->p->atomic, i, j, s->an,
						       &c->run->err))
				return -1;
		}
	snprintf(s->check_buf, sizeof(s->check_buf), "every atomic verified: the "
		 "value the last one on each of %u counters fetched, and the count "
		 "each took (QP 0's first counter held %#" PRIx64 " before the run)",
		 s->an, s->ax[0].before);
	s->check = s->check_buf;
	return 0;
}

/* ---- write and read ---------------------------------------------------------- */

static int rdma_setup(struct rt_pt_conn *c, struct rt_pt_out *o)
{
	fill(c);
	if (rt_pt_conn_keys(c, "first exchange") ||
	    rt_pt_conn_up(c, c->client || c->p->bidir) ||
	    rt_pt_conn_keys(c, "second exchange"))
		return -1;
	rt_pt_print_addrs(c);
	if (rt_pt_conn_barrier(c, "after the QPs are connected"))
		return -1;
	rt_pt_out_header(o, RT_PT_LINE);
	rt_pt_out_header(o, rt_pt_bw_header(c->p->gbits));
	return 0;
}

/* The idle server of a unidirectional run: the client's report. */
static int rdma_server(struct sess *s)
{
	struct rt_pt_conn *c = s->c;
	struct rt_pt_bw_report mine = { c->p->size, 0, 0, 0, 0 }, theirs;
	const struct rt_pt_params *p = c->p;
	/* -D bounds the client's run; -n does not (its length is the link's) */
	long long run_ms = p->duration ? (long long)p->duration * 1000 +
					c->run->common.timeout_ms : -1;

	if (p->t.verb == RT_PT_ATOMIC)
		s->check = "not checked here: the client checks what its atomics fetch";

	if (rt_pt_conn_await_peer(c, run_ms, "end of the client's run") ||
	    rt_pt_conn_barrier(c, "end of the run") ||
	    rt_pt_bw_report_xchg(&c->oob, false, c->sys.peer_version, &mine, &theirs,
				 &c->run->err) ||
	    rt_pt_bw_report_check(&theirs, c->p->all ? theirs.size : c->p->size,
				  c->oob.peer_name, &c->run->err) ||
	    check_size(s, RT_MIN(theirs.size, c->slot)) || row(s, &theirs) ||
	    rt_pt_conn_close(c))
		return -1;
	rt_pt_out_end(s->o);
	return 0;
}

static int rdma_size(struct sess *s, uint64_t size)
{
	struct rt_pt_conn *c = s->c;
	bool bi = c->p->bidir;
	struct rt_pt_bw_report r;

	if (warm_up(c, size) || atomic_before(s, size) ||
	    measure(c, size, &r, bi, s->sent) || atomic_after(s, size) ||
	    (bi && c->p->all && rt_pt_conn_barrier(c, "end of a size")))
		return -1;
	return bi ? duplex_row(s, &r) : row(s, &r);
}

static int sizes(struct sess *s, int (*one)(struct sess *, uint64_t))
{
	const struct rt_pt_params *p = s->c->p;

	if (!p->all)
		return one(s, p->size);
	for (uint64_t size = RT_PT_ALL_MIN; size <= RT_PT_ALL_MAX; size *= 2)
		if (one(s, size))
			return -1;
	return 0;
}

int rt_pt_bw_rdma_session(struct rt_pt_conn *c, struct rt_pt_out *o)
{
	struct sess s = { .c = c, .o = o, .check = NOT_RUN };
	struct rt_pt_bw_report theirs;

	if (rdma_setup(c, o))
		return finish(&s, -1);
	if (!c->client && !c->p->bidir)
		return finish(&s, rdma_server(&s));
	if (sizes(&s, rdma_size))
		return finish(&s, -1);
	rt_pt_out_end(o);
	/* the client's last report goes to the idle server, which prints it */
	if (!c->p->bidir &&
	    (rt_pt_conn_barrier(c, "end of the run") ||
	     rt_pt_bw_report_xchg(&c->oob, true, c->sys.peer_version,
				  &s.last, &theirs, &c->run->err)))
		return finish(&s, -1);
	return finish(&s, rt_pt_conn_close(c));
}

/* ---- send ---------------------------------------------------------------------- */

static int send_size(struct sess *s, uint64_t size)
{
	struct rt_pt_conn *c = s->c;
	struct rt_pt_bw_report r;

	if (measure(c, size, &r, true, NULL) || (!c->p->bidir && check_size(s, size)))
		return -1;
	if (c->p->bidir ? duplex_row(s, &r) : row(s, &r))
		return -1;
	return c->p->all ? rt_pt_conn_barrier(c, "end of a size") : 0;
}

int rt_pt_bw_send_session(struct rt_pt_conn *c, struct rt_pt_out *o)
{
	struct sess s = { .c = c, .o = o, .check = NOT_RUN };

	fill(c);
	if (rt_pt_conn_keys(c, "first exchange") ||
	    rt_pt_conn_up(c, c->client || c->p->bidir) ||
	    rt_pt_conn_barrier(c, "after the QPs are connected") ||
	    rt_pt_conn_keys(c, "second exchange"))
		return finish(&s, -1);
	rt_pt_print_addrs(c);
	rt_pt_out_header(o, RT_PT_LINE);
	rt_pt_out_header(o, rt_pt_bw_header(c->p->gbits));
	if (sizes(&s, send_size))
		return finish(&s, -1);
	rt_pt_out_end(o);
	return finish(&s, rt_pt_conn_close(c));
}
