/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The bandwidth tests' sequences (perftest_bw.h): the exchanges around
 * each size's run, the rows, the data and atomic checks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest/perftest_atomic.h"
#include "perftest/perftest_bw.h"
#include "perftest/perftest_report.h"
#include "perftest/perftest_ud.h"
#include "perftest/perftest_runctl.h"
#include "rdmatest/util.h"
#include "rdmatest/verify.h"

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

/* Through the host's views (perftest_gpu.h): GPU memory is filled by a
 * copy of its mirror. */
static int fill(struct rt_pt_conn *c)
{
	size_t n = (size_t)c->slot;

	for (unsigned i = 0; i < c->p->opt.qps; i++) {
		uint8_t *src = rt_pt_mem_view(c, source(c, i), n, false);
		uint8_t *dst = rt_pt_mem_view(c, dest(c, i), n, false);

		/* verify.h's pattern, QP i's stream: seed i, sequence 0; or
		 * --payload_file_path's */
		if (c->payload)
			rt_pt_payload_fill(src, n, c->payload, c->payload_len);
		else
			rt_pattern_fill(src, n, i, 0);
		memset(dst, 0, n);
		if (rt_pt_mem_push(c, source(c, i), n) || rt_pt_mem_push(c, dest(c, i), n))
			return -1;
	}
	return 0;
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
	*result = "not checked: --use-null-mr moves no data";
	if (c->p->opt.res.null_mr)
		return 0;
	*result = "not checked: the QPs take their receives from one SRQ";
	if (c->res.srq && c->p->opt.qps > 1)
		return 0;
	for (unsigned i = 0; i < c->p->opt.qps; i++) {
		/* UD: each message lands behind its GRH */
		const uint8_t *d = rt_pt_mem_view(c, dest(c, i) + rt_pt_ud_grh(c),
						  (size_t)size, true);
		int64_t bad;

		if (!d)
			return -1;
		rt_pattern_fill(sig, sizeof(sig), i, 0);
		if (zero(d, (size_t)size))
			return rt_fail(&c->run->err, RT_EXIT_FAIL, "data check: QP %u's "
				       "first message of %llu bytes never arrived (all zero)",
				       i, (unsigned long long)size);
		if (memcmp(d, sig, sizeof(sig))) {
			*result = "not checked: the peer's data is not rdmatest's pattern";
			return 0;
		}
		bad = rt_pattern_check(d, (size_t)size, i, 0);
		if (bad >= 0)
			return rt_fail(&c->run->err, RT_EXIT_FAIL, "data check: QP %u, "
				       "byte %lld of the first message is 0x%02x, not "
				       "rdmatest's pattern", i, (long long)bad, d[bad]);
	}
	*result = "first message of every QP verified";
	return 0;
}

static bool receives_data(const struct rt_pt_conn *c)
{
	if (c->p->opt.bidir)
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

/* The column header, with --cpu_util's column in -D runs;
 * --report-per-port's (perftest_dual.h) has the ports' columns. */
static const char *header(const struct rt_pt_params *p, char *buf, size_t len)
{
	bool gbits = p->opt.report_gbits;

	snprintf(buf, len, "%s%s", p->opt.dual.per_port ? rt_pt_dual_header(gbits) :
		 rt_pt_bw_header(gbits),
		 p->opt.ctl.cpu_util && p->opt.duration ? RT_PT_CPU_HEADER : "");
	return buf;
}

/* The dashed line and the header. */
static void print_header(struct rt_pt_out *o, const struct rt_pt_params *p)
{
	char buf[256];

	rt_pt_out_header(o, p->opt.dual.per_port ? RT_PT_DUAL_LINE : RT_PT_LINE);
	rt_pt_out_header(o, header(p, buf, sizeof(buf)));
}

/* The BW report each way; with --report-per-port its four more figures. */
static int report_xchg(struct rt_pt_conn *c, const struct rt_pt_bw_report *mine,
		       struct rt_pt_bw_report *theirs)
{
	if (rt_pt_bw_report_xchg(&c->ch, c->chan_client, c->sys.peer_version, mine,
				 theirs, &c->run->err))
		return -1;
	return c->p->opt.dual.per_port ? rt_pt_dual_report_xchg(&c->ch, c->chan_client, mine,
						       theirs, &c->run->err) : 0;
}

/* A row's text and figures; `more` (may be NULL) adds n figures to the
 * JSON ones. */
static int row_more(struct sess *s, const struct rt_pt_bw_report *r,
		    const struct rt_pt_field *more, size_t n)
{
	const struct rt_pt_params *p = s->c->p;
	bool cpu = p->opt.ctl.cpu_util && p->opt.duration;
	char text[320], cell[32] = "";
	struct rt_pt_field f[RT_PT_ROW_FIELDS + 8] = {
		{ "MsgSize", (double)r->size }, { "n_iterations", (double)r->iters },
		{ "BW_peak", r->bw_peak }, { "BW_average", r->bw_avg },
		{ "MsgRate", r->msg_rate },
	};
	size_t k = 5;

	if (cpu)
		f[k++] = (struct rt_pt_field){ "CPU_util", s->c->cpu_util };
	for (int i = 0; p->opt.dual.per_port && i < 2; i++) {
		f[k++] = (struct rt_pt_field){ i ? "BW_Port2" : "BW_Port1", r->bw_port[i] };
		f[k++] = (struct rt_pt_field){ i ? "MsgRate_Port2" : "MsgRate_Port1",
					       r->rate_port[i] };
	}
	for (size_t i = 0; i < n && k < ARRAY_SIZE(f); i++)
		f[k++] = more[i];
	s->last = *r;
	if (p->opt.dual.per_port)
		rt_pt_dual_row(text, sizeof(text) - sizeof(cell), r);
	else
		rt_pt_bw_row(text, sizeof(text) - sizeof(cell), r, p->opt.report_gbits);
	if (cpu)
		rt_pt_cpu_cell(cell, sizeof(cell), s->c->cpu_util);
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s", cell);
	if (rt_pt_out_row(s->o, text, p->opt.output == RT_PT_OUT_MSGRATE ? r->msg_rate
				      : r->bw_avg, f, k))
		return -1;
	if (!s->limit_rc && rt_pt_check_limits(p, r->bw_avg, r->msg_rate, &s->limit_err))
		s->limit_rc = -1;
	return 0;
}

static int row(struct sess *s, const struct rt_pt_bw_report *r)
{
	return row_more(s, r, NULL, 0);
}

/* --report-both: perftest's two tables after the summed row, this side's
 * figures and then the peer's (text only: the summed row's JSON has
 * them). */
static void both(struct sess *s, const struct rt_pt_bw_report *mine,
		 const struct rt_pt_bw_report *theirs)
{
	const struct rt_pt_params *p = s->c->p;
	const struct rt_pt_bw_report *r[2] = { mine, theirs };
	const char *title[2] = { "Local", "Remote" };
	char text[200];

	if (p->opt.output != RT_PT_OUT_ALL)
		return;
	for (int i = 0; i < 2; i++) {
		rt_pt_bw_row(text, sizeof(text), r[i], p->opt.report_gbits);
		rt_say(&s->c->run->log, RT_PT_LINE "\n\n %s results: \n" RT_PT_LINE "\n%s\n%s",
		       title[i], rt_pt_bw_header(p->opt.report_gbits), text);
	}
}

/* -b: both reports, their sum printed. */
static int duplex_row(struct sess *s, struct rt_pt_bw_report *mine)
{
	struct rt_pt_conn *c = s->c;
	struct rt_pt_bw_report theirs = { 0 }, own;

	if (report_xchg(c, mine, &theirs) ||
	    rt_pt_bw_report_check(&theirs, mine->size, rt_pt_peer(&c->ch), &c->run->err) ||
	    check_size(s, mine->size))
		return -1;
	own = *mine;
	rt_pt_bw_sum(mine, &theirs);
	rt_pt_dual_sum(mine, &theirs);
	if (!c->p->opt.ctl.report_both)
		return row(s, mine);
	if (row_more(s, mine, (struct rt_pt_field[]){
			{ "Local_BW_average", own.bw_avg }, { "Local_MsgRate", own.msg_rate },
			{ "Remote_BW_average", theirs.bw_avg },
			{ "Remote_MsgRate", theirs.msg_rate } }, 4))
		return -1;
	both(s, &own, &theirs);
	return 0;
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
	struct ibv_sge sge = { (uintptr_t)at, RT_PT_ATOMIC_SIZE,
			       rt_pt_conn_mr(c, i)->lkey };
	struct ibv_send_wr w = { .wr_id = UINT64_MAX, .sg_list = &sge, .num_sge = 1,
				 .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	const uint8_t *got;
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
			       rt_pt_peer(&c->ch), i, (unsigned long long)off,
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
	got = rt_pt_mem_view(c, at, sizeof(*v), true);
	if (!got)
		return -1;
	memcpy(v, got, sizeof(*v));
	return 0;
}

/* Before a run of the side that posts atomics: every counter's value. */
static int atomic_before(struct sess *s, uint64_t size)
{
	struct rt_pt_conn *c = s->c;
	const struct rt_pt_params *p = c->p;
	uint64_t inc = rt_pt_slot(size, 1, c->sys.cache_line);

	if (p->t.verb != RT_PT_ATOMIC || !(c->client || p->opt.bidir))
		return 0;
	if (p->opt.qps > RT_PT_ATOMIC_CHECK_QPS) {
		s->check = "not checked: more than 8 QPs";
		return 0;
	}
	s->aq = p->opt.qps;
	s->an = rt_pt_msg_places(size, c->sys.cycle_buffer, c->sys.cache_line,
				 p->opt.post_list);
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
			const uint8_t *last = rt_pt_mem_view(c, rt_pt_conn_local(c, i) +
							     j * inc, sizeof(x->last), true);

			if (!last)
				return -1;
			memcpy(&x->last, last, sizeof(x->last));
			x->hits = rt_pt_atomic_hits(s->sent[i], s->an, j);
			if (read_counter(c, i, j * inc, &x->after) ||
			    rt_pt_atomic_counter_check(x, c->p->opt.atomic_type, i, j, s->an,
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
	if (fill(c) || rt_pt_conn_keys(c, "first exchange") ||
	    rt_pt_conn_up(c, c->client || c->p->opt.bidir) ||
	    rt_pt_conn_keys(c, "second exchange"))
		return -1;
	rt_pt_print_addrs(c);
	if (rt_pt_conn_barrier(c, "after the QPs are connected"))
		return -1;
	print_header(o, c->p);
	return 0;
}

/* perftest's idle server prints the client's report, or with
 * --run_infinitely only that the client closed. */
static int server_row(struct sess *s, const struct rt_pt_bw_report *theirs)
{
	if (!s->c->p->opt.ctl.run_inf)
		return row(s, theirs);
	rt_say(&s->c->run->log, " Client closed connection");
	return 0;
}

/* The idle server of a unidirectional run: the client's report. */
static int rdma_server(struct sess *s)
{
	struct rt_pt_conn *c = s->c;
	struct rt_pt_bw_report mine = { .size = c->p->opt.size }, theirs;
	const struct rt_pt_params *p = c->p;
	/* -D bounds the client's run; -n does not (its length is the link's) */
	long long run_ms = p->opt.duration && !p->opt.ctl.run_inf ?
			   (long long)p->opt.duration * 1000 + c->run->common.timeout_ms : -1;

	if (p->t.verb == RT_PT_ATOMIC)
		s->check = "not checked here: the client checks what its atomics fetch";

	if (rt_pt_conn_await_peer(c, run_ms, "end of the client's run") ||
	    rt_pt_conn_barrier(c, "end of the run") ||
	    report_xchg(c, &mine, &theirs) ||
	    /* perftest's --run_infinitely client sends a report it never filled */
	    (!p->opt.ctl.run_inf &&
	     rt_pt_bw_report_check(&theirs, c->p->opt.all ? theirs.size :
				   (uint64_t)c->p->opt.size, rt_pt_peer(&c->ch),
				   &c->run->err)) ||
	    check_size(s, RT_MIN(theirs.size, c->slot)) || server_row(s, &theirs) ||
	    rt_pt_conn_close(c))
		return -1;
	rt_pt_out_end(s->o);
	return 0;
}

static int inf_row(void *ctx, const struct rt_pt_bw_report *r)
{
	return row(ctx, r);
}

/* --run_infinitely's sender: rows until SIGINT, then the data check and
 * perftest's words; the close exchange follows as after any run. */
static int rdma_infinite(struct sess *s, uint64_t size)
{
	int rc;

	s->last = (struct rt_pt_bw_report){ .size = size };
	rc = rt_pt_bw_infinite(s->c, size, inf_row, s);
	if (rc < 0)
		return -1;
	rt_say(&s->c->run->log, rc == 2 ? " Peer closed connection" :
	       "\n User stopped traffic");
	if (s->c->p->t.verb == RT_PT_ATOMIC)
		s->check = "not checked: --run_infinitely";
	return check_size(s, size);
}

static int rdma_size(struct sess *s, uint64_t size)
{
	struct rt_pt_conn *c = s->c;
	bool bi = c->p->opt.bidir;
	struct rt_pt_bw_report r;

	if (c->p->opt.ctl.run_inf)
		return rdma_infinite(s, size);
	if (rt_pt_bw_warm_up(c, size) || atomic_before(s, size) ||
	    rt_pt_bw_measure(c, size, &r, bi, s->sent) || atomic_after(s, size) ||
	    (bi && c->p->opt.all && rt_pt_conn_barrier(c, "end of a size")))
		return -1;
	return bi ? duplex_row(s, &r) : row(s, &r);
}

static int sizes(struct sess *s, int (*one)(struct sess *, uint64_t))
{
	const struct rt_pt_params *p = s->c->p;

	if (!p->opt.all)
		return one(s, p->opt.size);
	/* p->opt.size is the sweep's last: 8 MiB, or UD's MTU */
	for (uint64_t size = RT_PT_ALL_MIN; size <= (uint64_t)p->opt.size; size *= 2)
		if (one(s, size))
			return -1;
	return 0;
}

static int imm_session(struct sess *s);

int rt_pt_bw_rdma_session(struct rt_pt_conn *c, struct rt_pt_out *o)
{
	struct sess s = { .c = c, .o = o, .check = NOT_RUN };
	struct rt_pt_bw_report theirs;

	if (c->p->opt.imm.write_imm)
		return finish(&s, imm_session(&s));
	if (rdma_setup(c, o))
		return finish(&s, -1);
	if (!c->client && !c->p->opt.bidir)
		return finish(&s, rdma_server(&s));
	if (sizes(&s, rdma_size))
		return finish(&s, -1);
	rt_pt_out_end(o);
	/* -b --run_infinitely: each side ends on its own (perftest's die of
	 * SIGINT), with no exchange after the run */
	if (c->p->opt.bidir && c->p->opt.ctl.run_inf)
		return finish(&s, 0);
	/* the client's last report goes to the idle server, which prints it */
	if (!c->p->opt.bidir &&
	    (rt_pt_conn_barrier(c, "end of the run") ||
	     report_xchg(c, &s.last, &theirs)))
		return finish(&s, -1);
	return finish(&s, rt_pt_conn_close(c));
}

/* ---- send ---------------------------------------------------------------------- */

static int send_size(struct sess *s, uint64_t size)
{
	struct rt_pt_conn *c = s->c;
	struct rt_pt_bw_report r;

	if (rt_pt_bw_measure(c, size, &r, true, NULL) ||
	    (!c->p->opt.bidir && check_size(s, size)))
		return -1;
	if (c->p->opt.bidir ? duplex_row(s, &r) : row(s, &r))
		return -1;
	return c->p->opt.all ? rt_pt_conn_barrier(c, "end of a size") : 0;
}

/* --run_infinitely in the send test, as perftest's: both sides print
 * rows; the sender ends at SIGINT and the receiver at the sender's close
 * of the channel, with no close exchange (perftest's has none: its
 * sender dies of SIGINT and its receiver runs until killed). */
static int send_infinite(struct sess *s)
{
	struct rt_pt_conn *c = s->c;
	uint64_t size = c->p->opt.size;

	s->last = (struct rt_pt_bw_report){ .size = size };
	if (rt_pt_bw_infinite(c, size, inf_row, s) < 0)
		return -1;
	rt_say(&c->run->log, c->client ? "\n User stopped traffic" :
	       " Client closed connection");
	rt_pt_out_end(s->o);
	return c->client ? 0 : check_size(s, size);
}

int rt_pt_bw_send_session(struct rt_pt_conn *c, struct rt_pt_out *o)
{
	struct sess s = { .c = c, .o = o, .check = NOT_RUN };

	if (fill(c) || rt_pt_conn_keys(c, "first exchange") ||
	    rt_pt_conn_up(c, c->client || c->p->opt.bidir) ||
	    rt_pt_conn_barrier(c, "after the QPs are connected") ||
	    rt_pt_conn_keys(c, "second exchange"))
		return finish(&s, -1);
	rt_pt_print_addrs(c);
	print_header(o, c->p);
	if (c->p->opt.ctl.run_inf)
		return finish(&s, send_infinite(&s));
	if (sizes(&s, send_size))
		return finish(&s, -1);
	rt_pt_out_end(o);
	return finish(&s, rt_pt_conn_close(c));
}

/* ---- write with immediate (perftest_imm.h) ---------------------------------------- */

/* perftest's write_bw with WRITE_IMM: the receives and a barrier, the run,
 * with -a a barrier, then this side's row (-b: after the report
 * exchange); the receiver checks the data as the write test's server. */
static int imm_size(struct sess *s, uint64_t size)
{
	struct rt_pt_conn *c = s->c;
	struct rt_pt_bw_report r;

	if (rt_pt_bw_warm_up(c, size) || rt_pt_bw_measure(c, size, &r, true, NULL) ||
	    (c->p->opt.all && rt_pt_conn_barrier(c, "end of a size")))
		return -1;
	if (c->p->opt.bidir)
		return duplex_row(s, &r);
	return check_size(s, size) || row(s, &r) ? -1 : 0;
}

/* The write test's setup, then the send test's sequence (perftest's
 * write_bw.c with WRITE_IMM): both sides print their rows, and
 * --run_infinitely is the send test's. */
static int imm_session(struct sess *s)
{
	struct rt_pt_conn *c = s->c;

	if (rdma_setup(c, s->o))
		return -1;
	if (c->p->opt.ctl.run_inf)
		return send_infinite(s);
	if (sizes(s, imm_size))
		return -1;
	rt_pt_out_end(s->o);
	return rt_pt_conn_close(c);
}
