/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rdmatest/interrupt.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_lat.h"
#include "rdmatest/util.h"
#include "rdmatest/watchdog.h"

unsigned rt_ptl_rtt_factor(enum rt_ptl_verb v)
{
	return v == RT_PTL_READ || v == RT_PTL_ATOMIC ? 1 : 2;
}

/* ---- duration mode ------------------------------------------------------ */

enum rt_ptl_phase rt_ptl_phase_at(const struct rt_ptl_window *w, uint64_t now_ns)
{
	uint64_t t = now_ns > w->start_ns ? now_ns - w->start_ns : 0;

	if (t >= w->duration_ns)
		return RT_PTL_END;
	if (t < w->margin_ns)
		return RT_PTL_WARMUP;
	return t < w->duration_ns - w->margin_ns ? RT_PTL_SAMPLE : RT_PTL_COOLDOWN;
}

void rt_ptl_dur_figures(struct rt_ptl_dur *d, uint64_t size, uint64_t iters,
			uint64_t window_ns, unsigned rtt_factor)
{
	double us = (double)window_ns / 1000.0;

	d->size = size;
	d->iters = iters;
	d->t_avg = iters ? us / (rtt_factor ? rtt_factor : 1) / (double)iters : 0;
	d->tps = us > 0 ? (double)iters / (us / 1e6) : 0;
}

#define DUR_HEADER " #bytes        #iterations       t_avg[usec]    tps average"

const char *rt_ptl_dur_header(void)
{
	return DUR_HEADER;
}

const char *rt_ptl_dur_header_cpu(void)
{
	return DUR_HEADER RT_PT_CPU_HEADER;
}

void rt_ptl_dur_row(char *buf, size_t len, const struct rt_ptl_dur *d)
{
	snprintf(buf, len, " %-7" PRIu64 "       %" PRIu64 "            %-7.2f        %-7.2f",
		 d->size, d->iters, d->t_avg, d->tps);
}

/* ---- one measurement ---------------------------------------------------------- */

void rt_ptl_meas_start(struct rt_ptl_meas *m, uint64_t duration_ns,
		       uint64_t margin_ns, uint64_t now_ns)
{
	memset(m, 0, sizeof(*m));
	m->duration = duration_ns > 0;
	m->win = (struct rt_ptl_window){ now_ns, margin_ns, duration_ns };
}

uint64_t rt_ptl_on_post(struct rt_ptl_meas *m, uint64_t now_ns)
{
	uint64_t d = 0;

	if (m->duration && rt_ptl_phase_at(&m->win, now_ns) != RT_PTL_SAMPLE) {
		m->last_post_ns = 0;
		return 0;
	}
	if (m->last_post_ns) {
		d = now_ns - m->last_post_ns;
		rt_pt_lat_add(&m->lat, d);
	}
	m->last_post_ns = now_ns;
	return d;
}

void rt_ptl_on_count(struct rt_ptl_meas *m, uint64_t now_ns)
{
	if (m->duration && rt_ptl_phase_at(&m->win, now_ns) == RT_PTL_SAMPLE)
		m->window_iters++;
}

/* ---- rows beyond perftest's ------------------------------------------------------ */

void rt_ptl_extra_line(char *buf, size_t len, uint64_t size,
		       const struct rt_pt_lat_figures *f)
{
	snprintf(buf, len, " rdmatest: %" PRIu64 " B, %" PRIu64 " samples: max %.2f p50 %.2f "
		 "p90 %.2f p99 %.2f p99.9 %.2f p99.99 %.2f usec", size, f->samples,
		 f->max, f->p50, f->p90, f->p99_all, f->p999_all, f->p9999_all);
}

/* perftest's columns, then rdmatest's figures of every sample. */
static size_t extra_fields(struct rt_pt_field *out, size_t n,
			   const struct rt_pt_lat_figures *f)
{
	if (!f)
		return n;
	out[n++] = (struct rt_pt_field){ "samples", (double)f->samples };
	out[n++] = (struct rt_pt_field){ "stdev", f->stdev };
	out[n++] = (struct rt_pt_field){ "max", f->max };
	out[n++] = (struct rt_pt_field){ "p50", f->p50 };
	out[n++] = (struct rt_pt_field){ "p90", f->p90 };
	out[n++] = (struct rt_pt_field){ "p99", f->p99_all };
	out[n++] = (struct rt_pt_field){ "p99_9", f->p999_all };
	out[n++] = (struct rt_pt_field){ "p99_99", f->p9999_all };
	return n;
}

size_t rt_ptl_fields(struct rt_pt_field *out, uint64_t size, uint64_t iters,
		     const struct rt_pt_lat_figures *f)
{
	size_t n = 0;

	out[n++] = (struct rt_pt_field){ "MsgSize", (double)size };
	out[n++] = (struct rt_pt_field){ "n_iterations", (double)iters };
	if (!f)
		return n;
	out[n++] = (struct rt_pt_field){ "t_min", f->t_min };
	out[n++] = (struct rt_pt_field){ "t_max", f->t_max };
	out[n++] = (struct rt_pt_field){ "t_typical", f->t_typical };
	out[n++] = (struct rt_pt_field){ "t_avg", f->t_avg };
	out[n++] = (struct rt_pt_field){ "t_stdev", f->t_stdev };
	out[n++] = (struct rt_pt_field){ "percentile_99", f->p99 };
	out[n++] = (struct rt_pt_field){ "percentile_99.9", f->p999 };
	return extra_fields(out, n, f);
}

size_t rt_ptl_dur_fields(struct rt_pt_field *out, const struct rt_ptl_dur *d,
			 const struct rt_pt_lat_figures *f)
{
	size_t n = 0;

	out[n++] = (struct rt_pt_field){ "MsgSize", (double)d->size };
	out[n++] = (struct rt_pt_field){ "n_iterations", (double)d->iters };
	out[n++] = (struct rt_pt_field){ "t_avg", d->t_avg };
	out[n++] = (struct rt_pt_field){ "tps_average", d->tps };
	return extra_fields(out, n, f);
}

/* ---- waiting for the peer ------------------------------------------------------- */

/* Spins between two looks at the clock and the interrupt flag, both
 * read without a system call. */
#define SPINS_PER_LOOK 1024
/* The write test spins on a byte of memory, far cheaper than a poll of
 * the CQ: the same time between looks is 16 times as many spins. */
#define BYTE_SPINS_PER_LOOK (16 * SPINS_PER_LOOK)
/* Looks between two calls on the kernel: a poll of the peer's connection
 * and a yield of the CPU (on Soft-RoCE the "adapter" is a kernel thread
 * that may need this CPU, cqwait.c has the story). Doing both at every
 * look cost ib_write_lat 7-20% of its typical latency against perftest
 * in the lab; a dead peer is still seen within milliseconds. */
#define LOOKS_PER_SYSCALL 16
/* How long a wait for this side's own completion goes on once the peer
 * closed the connection: the transport normally answers first (an ACK,
 * or retry exhaustion after ACK timeout 14 x 8 tries, about 0.5 s), but
 * when it does not (seen once in CI under emulation: the server waited
 * out its --timeout), the dead peer is named instead. A peer that ended
 * normally closes only after this side's last message landed, and that
 * message's ACK left before it, so 2 s cannot cut a good run short. */
#define GONE_GRACE_NS 2000000000ull

enum { GO_ON = 0, STOP = 1, GONE = 2 };

/* The run of one size as it goes. */
struct lat {
	const struct rt_ptl_path *p;
	const struct rt_ptl_plan *plan;
	struct rt_ptl_meas *m;
	uint64_t scnt, rcnt, ccnt;  /* posted, received, completed (signalled) */
	uint64_t rwant;             /* send: messages waited for so far */
	uint64_t signalled;         /* signalled sends posted */
	uint64_t posted_rx;         /* send: receives posted this size */
	struct rt_watchdog dog;     /* progress: the last post or receive */
	unsigned looks;             /* looks so far, for LOOKS_PER_SYSCALL */
	uint64_t gone_ns;           /* when the peer's close was seen, or 0 */
	struct ibv_wc wc[4];
};

/* The peer closed the out-of-band connection (EOF or reset): a killed
 * peer, since no side closes it before its run ends. Data waiting there
 * is the peer's next message, for later. */
static bool peer_gone(const struct rt_ptl_path *p)
{
	struct pollfd pf = { .fd = p->oob_fd, .events = POLLIN };
	char c;
	ssize_t n;

	if (p->oob_fd < 0 || poll(&pf, 1, 0) <= 0)
		return false;
	n = recv(p->oob_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

static bool in_duration(const struct lat *l)
{
	return l->m->duration;
}

static bool past_window(const struct lat *l, uint64_t now)
{
	return in_duration(l) && rt_ptl_phase_at(&l->m->win, now) >= RT_PTL_COOLDOWN;
}

static int expired(const struct lat *l, const char *what, struct rt_error *err)
{
	return rt_fail(err, RT_EXIT_TIMEOUT, "%s: no %s within %lld ms after %" PRIu64
		       " messages sent and %" PRIu64 " received (is it still running? "
		       "the same test, -s and -n?)", l->p->peer, what,
		       l->p->timeout_ms, l->scnt, l->rcnt);
}

static int gone(const struct lat *l, const char *what, struct rt_error *err)
{
	return rt_fail(err, RT_EXIT_FAIL, "%s closed the connection while this side "
		       "waited for its %s, after %" PRIu64 " messages sent and %" PRIu64
		       " received (was it killed?)", l->p->peer, what, l->scnt, l->rcnt);
}

/* A look while waiting: GO_ON, STOP (the duration run is over), GONE
 * (the peer closed: check what was awaited once more, then fail; at once
 * when that is the peer's message, after GONE_GRACE_NS when it is this
 * side's own completion), or an error. */
static int look(struct lat *l, bool from_peer, const char *what,
		struct rt_error *err)
{
	uint64_t now = rt_now_ns();
	int dog = rt_watchdog_check(&l->dog, now);

	if (dog == RT_WATCHDOG_INTERRUPTED)
		return RT_INTERRUPTED;
	if (in_duration(l) && rt_ptl_phase_at(&l->m->win, now) == RT_PTL_END)
		return STOP;
	if (++l->looks % LOOKS_PER_SYSCALL == 0) {
		if (!l->gone_ns && peer_gone(l->p))
			l->gone_ns = now;
		if (l->gone_ns && (from_peer || now - l->gone_ns >= GONE_GRACE_NS))
			return past_window(l, now) ? STOP : GONE;
		sched_yield();
	}
	if (dog == RT_WATCHDOG_TIMEOUT)
		return past_window(l, now) ? STOP : expired(l, what, err);
	return GO_ON;
}

/* ---- completions --------------------------------------------------------------- */

/* What a completion of the CQ w is: a work completion's opcode is only
 * defined when it succeeded, so a failed one is named by its CQ. */
static const char *cq_kind(const struct lat *l, const struct rt_cqwait *w)
{
	if (w == l->p->rw && w != l->p->sw)
		return "receive";
	return l->p->verb == RT_PTL_WRITE ? "RDMA WRITE" :
	       l->p->verb == RT_PTL_READ ? "RDMA READ" :
	       l->p->verb == RT_PTL_ATOMIC ? "atomic" : "SEND";
}

static int post_recv(struct lat *l, struct rt_error *err)
{
	const struct rt_ptl_path *p = l->p;
	struct ibv_sge sge = { .addr = (uintptr_t)p->target,
			       .length = (uint32_t)l->plan->size + p->grh, .lkey = p->lkey };
	/* a write with immediate places nothing: no buffer (perftest's 0) */
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge,
				  .num_sge = p->imm ? 0 : 1 }, *bad;
	int rc = p->srq ? ibv_post_srq_recv(p->srq, &wr, &bad) :
		 ibv_post_recv(p->qp, &wr, &bad);

	if (rc)
		return rt_fail_errno(err, RT_EXIT_FAIL, rc, "ibv_post_recv after %" PRIu64
				     " received", l->rcnt);
	l->posted_rx++;
	return 0;
}

/* A receive consumed: the next one goes up while more are due, as
 * perftest re-posts (so exactly -n are posted in iteration mode). */
static int on_recv(struct lat *l, uint64_t now, struct rt_error *err)
{
	l->rcnt++;
	if (l->p->verb == RT_PTL_SEND)
		rt_ptl_on_count(l->m, now);
	if (in_duration(l) || l->posted_rx < l->plan->iters)
		return post_recv(l, err);
	return 0;
}

/* A receive that failed as one too long for its buffer does (rxe says
 * local QP operation error, others local length error). */
static bool too_long(const char *kind, const struct ibv_wc *wc)
{
	return !strcmp(kind, "receive") && (wc->status == IBV_WC_LOC_LEN_ERR ||
					    wc->status == IBV_WC_LOC_QP_OP_ERR);
}

/* What a failed completion suggests about the peer. */
static const char *hint(const struct lat *l, const char *kind, const struct ibv_wc *wc)
{
	if (too_long(kind, wc))
		return ": a larger -s than this side's?";
	if (l->p->verb == RT_PTL_ATOMIC && (wc->status == IBV_WC_REM_ACCESS_ERR ||
					     wc->status == IBV_WC_REM_INV_REQ_ERR))
		return ": its buffer takes no atomics, does it run ib_atomic_lat?";
	return "";
}

static int on_failed_wc(const struct lat *l, const struct ibv_wc *wc,
			const char *kind, struct rt_error *err)
{
	if (past_window(l, rt_now_ns()))
		return STOP; /* the peer's run ended first: the window is complete */
	return rt_fail(err, RT_EXIT_FAIL, "%s completion: %s (status %d) after %"
		       PRIu64 " messages sent and %" PRIu64 " received (peer %s%s)",
		       kind, ibv_wc_status_str(wc->status), wc->status, l->scnt,
		       l->rcnt, l->p->peer, hint(l, kind, wc));
}

/* A write with immediate arrived: its completion is checked, then the
 * last byte of this side's area, which holds the sender's count
 * (perftest's sender writes it too). */
static int on_imm(struct lat *l, const struct ibv_wc *wc, struct rt_error *err)
{
	uint8_t want = (uint8_t)(l->rcnt + 1), got;
	uint64_t now;

	if (rt_pt_imm_wc_check(wc, l->plan->size, l->p->peer, err))
		return -1;
	/* GPU memory is not the CPU's to read: its byte is not checked */
	got = l->p->device_mem ? 0 : l->p->target[l->plan->size - 1];
	if (!l->p->device_mem && got != want)
		return rt_fail(err, RT_EXIT_FAIL, "data check: the last byte of %s's "
			       "write %" PRIu64 " is %u, not its count %u (modulo 256)",
			       l->p->peer, l->rcnt + 1, got, want);
	now = rt_now_ns();
	rt_watchdog_progress(&l->dog, now);
	return on_recv(l, now, err);
}

/* The clock is read only where a figure needs it: the completion of this
 * side's own post is no progress of the peer's (the bound already runs
 * from the post), so the write test reads it once per message. */
static int on_wc(struct lat *l, const struct ibv_wc *wc, const char *kind,
		 struct rt_error *err)
{
	if (wc->status != IBV_WC_SUCCESS)
		return on_failed_wc(l, wc, kind, err);
	if (l->p->imm && !strcmp(kind, "receive"))
		return on_imm(l, wc, err);
	if (wc->opcode == IBV_WC_RECV) {
		uint64_t now = rt_now_ns();

		rt_watchdog_progress(&l->dog, now);
		return on_recv(l, now, err);
	}
	l->ccnt++;
	if (l->p->verb != RT_PTL_SEND && in_duration(l))
		rt_ptl_on_count(l->m, rt_now_ns());
	return 0;
}

/* Takes what the CQ has; GO_ON when nothing. */
static int drain(struct lat *l, int n, const char *kind, struct rt_error *err)
{
	for (int i = 0; i < n; i++) {
		int rc = on_wc(l, &l->wc[i], kind, err);

		if (rc)
			return rc;
	}
	return 0;
}

/* Waits until *count reaches want. from_peer: the awaited completion is
 * the peer's message, so its close is a dead peer. Spins on the CQ first;
 * a quiet CQ goes to the bounded wait of cqwait.h (which sleeps with -e). */
static int await(struct lat *l, struct rt_cqwait *w, const uint64_t *count,
		 uint64_t want, bool from_peer, const char *what, struct rt_error *err)
{
	for (unsigned spins = 1; *count < want; spins++) {
		int n = ibv_poll_cq(w->cq, (int)ARRAY_SIZE(l->wc), l->wc), rc;

		if (n < 0)
			return rt_fail(err, RT_EXIT_FAIL, "ibv_poll_cq failed");
		if (n == 0 && w->ch && spins % SPINS_PER_LOOK == 0)
			n = rt_cqwait_poll(w, l->wc, (int)ARRAY_SIZE(l->wc), err);
		if (n < 0)
			return n;
		rc = n ? drain(l, n, cq_kind(l, w), err) : spins % SPINS_PER_LOOK ? GO_ON :
		     look(l, from_peer, what, err);
		if (rc == GONE)
			rc = ibv_poll_cq(w->cq, 1, l->wc) > 0 ?
			     drain(l, 1, cq_kind(l, w), err) : gone(l, what, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- posting --------------------------------------------------------------------- */

static int post(struct lat *l, bool signalled, struct rt_error *err)
{
	const struct rt_ptl_path *p = l->p;
	uint32_t size = (uint32_t)l->plan->size;
	struct ibv_sge sge = { .addr = (uintptr_t)p->local, .length = size, .lkey = p->lkey };
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 }, *bad;
	uint64_t now, d;
	int rc;

	wr.opcode = p->verb == RT_PTL_WRITE ? IBV_WR_RDMA_WRITE :
		    p->verb == RT_PTL_READ ? IBV_WR_RDMA_READ : IBV_WR_SEND;
	if (p->imm) {
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(RT_PT_IMM_DATA);
	}
	wr.send_flags = signalled ? IBV_SEND_SIGNALED : 0;
	if (p->verb != RT_PTL_READ && p->verb != RT_PTL_ATOMIC && size <= p->max_inline)
		wr.send_flags |= IBV_SEND_INLINE;
	wr.wr.rdma.remote_addr = p->raddr;
	wr.wr.rdma.rkey = p->rkey;
	if (p->verb == RT_PTL_ATOMIC) {
		bool cas = p->atomic == RT_PT_CMP_SWAP;

		/* perftest's: add 1, or compare with 0 and swap in 0 */
		wr.opcode = cas ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = p->raddr;
		wr.wr.atomic.rkey = p->rkey;
		wr.wr.atomic.compare_add = cas ? 0 : 1;
		wr.wr.atomic.swap = 0;
	}
	if (p->ah) {
		wr.wr.ud.ah = p->ah;
		wr.wr.ud.remote_qpn = p->remote_qpn;
		wr.wr.ud.remote_qkey = RT_PT_QKEY;
	}
	now = rt_now_ns();
	/* --latency_gap: perftest spins before each post (the sample has it) */
	for (uint64_t end = now + p->gap_us * 1000ull; p->gap_us && now < end;)
		now = rt_now_ns();
	rt_watchdog_progress(&l->dog, now);
	if (p->cpu && l->m->duration)
		rt_pt_cpu_mark(p->cpu, now, l->m->win.start_ns + l->m->win.margin_ns,
			       l->m->win.start_ns + l->m->win.duration_ns - l->m->win.margin_ns);
	d = rt_ptl_on_post(l->m, now);
	if (d && p->samples)
		rt_pt_samples_add(p->samples, d);
	rc = ibv_post_send(p->qp, &wr, &bad);
	if (rc)
		return rt_fail_errno(err, RT_EXIT_FAIL, rc, "ibv_post_send after %" PRIu64
				     " messages sent", l->scnt);
	l->scnt++;
	l->signalled += signalled;
	return 0;
}

/* In duration mode the run goes on until the end of the cool-down. */
static bool more(const struct lat *l, uint64_t done)
{
	if (in_duration(l))
		return rt_ptl_phase_at(&l->m->win, rt_now_ns()) != RT_PTL_END;
	return done < l->plan->iters;
}

/* ---- write: the last byte -------------------------------------------------------- */

/* Spins until the last byte of this side's area holds want (the peer's
 * count modulo 256, as perftest compares chars). */
static int await_byte(struct lat *l, uint8_t want, struct rt_error *err)
{
	volatile const uint8_t *b = l->p->target + l->plan->size - 1;

	for (unsigned spins = 1;; spins++) {
		int rc;

		if (*b == want)
			break;
		if (spins % BYTE_SPINS_PER_LOOK)
			continue;
		rc = look(l, true, "RDMA WRITE", err);
		if (rc == GONE)
			rc = *b == want ? GO_ON : gone(l, "RDMA WRITE", err);
		if (rc)
			return rc;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	l->rcnt++;
	return 0;
}

/* The peer's next write: its last byte, or with --write_with_imm its
 * receive completion (perftest's run_iter_lat_write_imm). */
static int await_write(struct lat *l, struct rt_error *err)
{
	if (!l->p->imm)
		return await_byte(l, (uint8_t)(l->rcnt + 1), err);
	return await(l, l->p->rw, &l->rcnt, l->rcnt + 1, true,
		     "RDMA WRITE with immediate", err);
}

/* perftest's run_iter_lat_write: wait for the peer's write (the server
 * skips this once, so it writes first), write this side's count, wait for
 * that write's completion. */
static int run_write(struct lat *l, struct rt_error *err)
{
	volatile uint8_t *mark = l->p->local + l->plan->size - 1;
	int rc = 0;

	while (!rc && (more(l, l->scnt) || more(l, l->rcnt))) {
		if ((l->scnt || l->p->client) && more(l, l->rcnt) &&
		    (rc = await_write(l, err)))
			break;
		if (!more(l, l->scnt))
			continue;
		if (!l->p->device_mem)
			*mark = (uint8_t)(l->scnt + 1);
		rc = post(l, true, err) ? -1 :
		     await(l, l->p->sw, &l->ccnt, l->scnt, false, "RDMA WRITE completion", err);
	}
	return rc;
}

/* ---- read: one READ at a time ------------------------------------------------------ */

/* An atomic's result: the counter's value before it (perftest_atomic.h),
 * checked before the next post, so it costs the measurement a compare. */
static int fetched(struct lat *l, struct rt_error *err)
{
	uint64_t v;

	if (l->p->verb != RT_PTL_ATOMIC || l->p->device_mem)
		return 0;
	memcpy(&v, l->p->local, sizeof(v));
	return rt_pt_atomic_seq_check(&l->m->seq, l->p->atomic, v, err);
}

static int run_read(struct lat *l, struct rt_error *err)
{
	const char *what = l->p->verb == RT_PTL_ATOMIC ? "atomic completion" :
			   "RDMA READ completion";
	int rc = 0;

	while (!rc && more(l, l->scnt)) {
		rc = post(l, true, err) ? -1 :
		     await(l, l->p->sw, &l->ccnt, l->scnt, true, what, err);
		if (!rc)
			rc = fetched(l, err);
	}
	return rc;
}

/* ---- send: ping-pong of SENDs ------------------------------------------------------- */

/* perftest's run_iter_lat_send: receive (the client skips this once, so
 * it sends first), then send; every cq_mod-th send and the last are
 * signalled and waited for. */
static int run_send(struct lat *l, struct rt_error *err)
{
	unsigned cq_mod = l->p->cq_mod ? l->p->cq_mod : 1;
	int rc = 0;

	while (!rc && (more(l, l->scnt) || more(l, l->rcnt))) {
		bool sig;

		/* a message may have come while the last send completed:
		 * wait for the count due, not for one more */
		if ((l->scnt || !l->p->client) && more(l, l->rwant) &&
		    (rc = await(l, l->p->rw, &l->rcnt, ++l->rwant, true, "SEND", err)))
			break;
		if (!more(l, l->scnt))
			continue;
		sig = (l->scnt + 1) % cq_mod == 0 ||
		      (!in_duration(l) && l->scnt + 1 == l->plan->iters);
		rc = post(l, sig, err) ? -1 : !sig ? 0 :
		     await(l, l->p->sw, &l->ccnt, l->signalled, false, "SEND completion", err);
	}
	return rc;
}

/* ---- one size ------------------------------------------------------------------- */

int rt_ptl_post_receives(const struct rt_ptl_path *p, const struct rt_ptl_plan *plan,
			 struct rt_error *err)
{
	struct lat l = { .p = p, .plan = plan };
	uint64_t n = plan->duration_ns ? p->rx_depth : RT_MIN(p->rx_depth, plan->iters);

	for (uint64_t i = 0; i < n; i++)
		if (post_recv(&l, err))
			return -1;
	return 0;
}

int rt_ptl_run(const struct rt_ptl_path *p, const struct rt_ptl_plan *plan,
	       struct rt_ptl_meas *m, struct rt_error *err)
{
	struct lat l = { .p = p, .plan = plan, .m = m };
	int rc;

	rt_error_phase(err, "transfer");
	rt_ptl_meas_start(m, plan->duration_ns, plan->margin_ns, rt_now_ns());
	/* the looks are counted by the waits themselves, at their own rates */
	rt_watchdog_start(&l.dog, p->timeout_ms, 1, m->win.start_ns);
	/* the receives went up before the barrier: count them */
	l.posted_rx = plan->duration_ns ? 0 : RT_MIN(p->rx_depth, plan->iters);
	if (p->verb == RT_PTL_WRITE)
		rc = run_write(&l, err);
	else if (p->verb == RT_PTL_READ || p->verb == RT_PTL_ATOMIC)
		rc = p->client ? run_read(&l, err) : 0;
	else
		rc = run_send(&l, err);
	return rc == STOP ? 0 : rc;
}
