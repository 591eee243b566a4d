/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The sessions of ib_write_lat, ib_read_lat, ib_send_lat and
 * ib_atomic_lat (which runs read's sequence): each test's
 * perftest 4.5 message sequence (perftest's *_lat.c and
 * perftest_communication.c) on the skeleton's connection
 * (perftest_conn.h), the measurement of perftest_lat.c, the rows, rdmatest's lines after the table and the thresholds.
 *
 * Memory: one measurement (a fixed histogram, ~60 KiB) reused for every
 * size, and the figures of at most RT_PTL_SIZES sizes for the lines after
 * the table. */
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "perftest/perftest_lat.h"
#include "perftest/perftest_runctl.h"
#include "rdmatest/util.h"

/* -a's 2^1 .. 2^23, or one size */
#define RT_PTL_SIZES 23
/* Longest single sleep on a completion channel (-e): the run looks at
 * interrupts, the peer and the clock between two. */
#define SLICE_MS 100

struct ptl {
	struct rt_pt_conn *c;
	struct rt_pt_out *o;
	struct rt_ptl_path path;
	struct rt_ptl_meas *m;
	struct rt_pt_lat_figures fig[RT_PTL_SIZES];
	uint64_t fig_size[RT_PTL_SIZES];
	unsigned nfig;
	struct rt_error limit; /* the first threshold crossed */
	struct rt_pt_samples samples;  /* -H/-U */
	struct rt_pt_cpu_mark cpu;     /* --cpu_util with -D */
};

static enum rt_ptl_verb verb_of(enum rt_pt_verb v)
{
	return v == RT_PT_WRITE ? RT_PTL_WRITE : v == RT_PT_READ ? RT_PTL_READ :
	       v == RT_PT_ATOMIC ? RT_PTL_ATOMIC : RT_PTL_SEND;
}

static void make_path(struct ptl *x)
{
	struct rt_pt_conn *c = x->c;
	const struct rt_pt_params *p = c->p;
	long long timeout = c->run->common.timeout_ms;

	x->path = (struct rt_ptl_path){
		.verb = verb_of(p->t.verb), .atomic = p->opt.atomic_type, .client = c->client,
		.imm = p->opt.imm.write_imm, .device_mem = c->mem.kind == RT_PT_MEM_GPU,
		.qp = c->qp[0], .srq = c->res.srq,
		.sw = &c->sw, .rw = &c->rw, .local = rt_pt_conn_local(c, 0),
		.target = rt_pt_conn_target(c, 0), .lkey = rt_pt_conn_send_lkey(c, 0),
		.raddr = c->theirs[0].vaddr, .rkey = c->theirs[0].rkey,
		.max_inline = RT_MIN(p->opt.inline_size, c->max_inline),
		.cq_mod = RT_MIN(p->opt.cq_mod, p->opt.tx_depth), .rx_depth = p->opt.rx_depth,
		.oob_fd = c->ch.tcp.fd, .timeout_ms = timeout, .peer = rt_pt_peer(&c->ch),
		.ah = c->ah ? c->ah[0] : NULL, .remote_qpn = c->theirs[0].qpn,
		.grh = c->p->opt.ud.conn == RT_PT_UD ? RT_PT_UD_GRH : 0,
		.gap_us = p->opt.ctl.latency_gap,
		.samples = p->opt.ctl.histogram || p->opt.ctl.unsorted ? &x->samples : NULL,
		.cpu = p->opt.ctl.cpu_util && p->opt.duration ? &x->cpu : NULL,
	};
	c->sw.timeout_ms = c->rw.timeout_ms = RT_MIN(timeout, SLICE_MS);
}

static struct rt_ptl_plan plan_of(const struct rt_pt_params *p, uint64_t size)
{
	return (struct rt_ptl_plan){ .size = size, .iters = p->opt.iters,
				     .duration_ns = p->opt.duration * 1000000000ull,
				     .margin_ns = p->opt.margin * 1000000000ull };
}

static uint64_t first_size(const struct rt_pt_params *p)
{
	return p->opt.all ? RT_PT_ALL_MIN : (uint64_t)p->opt.size;
}

static uint64_t last_size(const struct rt_pt_params *p)
{
	return p->opt.size; /* with -a 8 MiB, or UD's MTU */
}

/* ---- rows ------------------------------------------------------------------ */

static void keep(struct ptl *x, uint64_t size, const struct rt_pt_lat_figures *f,
		 double avg)
{
	const struct rt_pt_params *p = x->c->p;

	if (x->nfig < RT_PTL_SIZES) {
		x->fig[x->nfig] = *f;
		x->fig_size[x->nfig++] = size;
	}
	if (!x->limit.set)
		rt_pt_check_lat_limits(p, size, avg, f->max, &x->limit);
}

/* -H/-U: perftest's sample lists, then its table header again. */
static void print_samples(struct ptl *x, unsigned rtt)
{
	const struct rt_pt_params *p = x->c->p;

	if (!x->path.samples || p->opt.output != RT_PT_OUT_ALL)
		return;
	rt_pt_samples_print(&x->samples, p->opt.ctl.unsorted, p->opt.ctl.histogram, rtt,
			    &x->c->run->log);
	rt_say(&x->c->run->log, RT_PT_LINE "\n%s", rt_pt_lat_header());
}

/* --cpu_util in -D: the CPU_Util cell and its JSON figure. */
static void cpu_cell(struct ptl *x, char *row, size_t len, struct rt_pt_field *fl,
		     size_t *n)
{
	char cell[32];
	double u;

	if (!x->path.cpu)
		return;
	u = x->cpu.at == 2 ? rt_pt_cpu_util(&x->cpu.s[0], &x->cpu.s[1]) : 0;
	rt_pt_cpu_cell(cell, sizeof(cell), u);
	strncat(row, cell, len - strlen(row) - 1);
	if (*n < RT_PTL_FIELDS + 1)
		fl[(*n)++] = (struct rt_pt_field){ "CPU_util", u };
}

static int report(struct ptl *x, uint64_t size)
{
	const struct rt_pt_params *p = x->c->p;
	unsigned rtt = rt_ptl_rtt_factor(x->path.verb);
	struct rt_pt_field fl[RT_PTL_FIELDS + 1]; /* and --cpu_util's */
	struct rt_pt_lat_figures f, shown = { 0 }; /* µs; as printed (-C: cycles) */
	bool have = rt_pt_lat_figures(&x->m->lat, rtt, &f);
	char row[256];
	size_t n;
	double avg, k = p->cycles_per_us > 0 ? p->cycles_per_us : 1;

	if (x->m->duration) {
		struct rt_ptl_dur d;

		rt_ptl_dur_figures(&d, size, x->m->window_iters, (p->opt.duration - 2ull *
				   p->opt.margin) * 1000000000ull, rtt);
		avg = d.t_avg;
		d.t_avg *= k;
		shown = f;
		rt_pt_cycles_scale(p->cycles_per_us, &shown);
		rt_ptl_dur_row(row, sizeof(row), &d);
		n = rt_ptl_dur_fields(fl, &d, have ? &shown : NULL);
		cpu_cell(x, row, sizeof(row), fl, &n);
	} else {
		if (!have) /* -n is at least 5: 4 samples */
			return rt_fail(&x->c->run->err, RT_EXIT_FAIL, "%" PRIu64 " bytes: "
				       "fewer than 3 latency samples", size);
		shown = f;
		rt_pt_cycles_scale(p->cycles_per_us, &shown);
		rt_pt_lat_row(row, sizeof(row), size, p->opt.iters, &shown);
		n = rt_ptl_fields(fl, size, p->opt.iters, &shown);
		avg = f.t_avg;
		print_samples(x, rtt);
	}
	if (have)
		keep(x, size, &f, avg);
	else if (!x->limit.set && p->limit_lat > 0)
		rt_pt_check_lat_limits(p, size, avg, 0, &x->limit);
	return rt_pt_out_row(x->o, row, avg * k, fl, n);
}

/* rdmatest's line per size after perftest's table, then the verdict of
 * the thresholds. */
static int finish(struct ptl *x)
{
	char line[256];

	for (unsigned i = 0; x->c->p->opt.output == RT_PT_OUT_ALL && i < x->nfig; i++) {
		rt_ptl_extra_line(line, sizeof(line), x->fig_size[i], &x->fig[i]);
		rt_say(&x->c->run->log, "%s", line);
	}
	if (!x->limit.set)
		return 0;
	x->c->run->err = x->limit;
	return -1;
}

/* ---- the sizes -------------------------------------------------------------- */

/* Every size in turn; send and write with immediate post their receives
 * and pass a barrier before each, as perftest (the others have no
 * per-size step). */
static int run_sizes(struct ptl *x)
{
	const struct rt_pt_params *p = x->c->p;
	struct rt_error *err = &x->c->run->err;

	rt_pt_out_header(x->o, RT_PT_LINE);
	rt_pt_out_header(x->o, !p->opt.duration ? rt_pt_lat_header() :
			 p->opt.ctl.cpu_util ? rt_ptl_dur_header_cpu() : rt_ptl_dur_header());
	for (uint64_t size = first_size(p); size <= last_size(p); size *= 2) {
		struct rt_ptl_plan plan = plan_of(p, size);
		int rc;

		if ((x->path.verb == RT_PTL_SEND || x->path.imm) &&
		    (rt_ptl_post_receives(&x->path, &plan, err) ||
		     rt_pt_conn_barrier(x->c, "size")))
			return -1;
		rt_pt_samples_init(&x->samples, x->path.samples ? p->opt.iters : 0);
		x->samples.cycles_per_us = p->cycles_per_us;
		x->cpu.at = 0;
		rc = rt_ptl_run(&x->path, &plan, x->m, err);
		if (rc)
			return rc;
		if (report(x, size))
			return -1;
	}
	return 0;
}

/* ---- the sessions ------------------------------------------------------------ */

static int with_ptl(struct rt_pt_conn *c, struct rt_pt_out *o,
		    int (*fn)(struct ptl *x))
{
	struct ptl *x = rt_xcalloc(1, sizeof(*x));
	int rc;

	x->c = c;
	x->o = o;
	x->m = rt_xcalloc(1, sizeof(*x->m));
	rc = fn(x);
	free(x->m);
	rt_pt_samples_free(&x->samples);
	free(x);
	return rc;
}

/* write and read: barrier; keys; RTR/RTS; keys; barrier. */
static int rdma_setup(struct ptl *x)
{
	struct rt_pt_conn *c = x->c;

	if (rt_pt_conn_barrier(c, "start") || rt_pt_conn_keys(c, "keys") ||
	    rt_pt_conn_up(c, true) || rt_pt_conn_keys(c, "addresses"))
		return -1;
	rt_pt_print_addrs(c);
	if (rt_pt_conn_barrier(c, "ready"))
		return -1;
	make_path(x);
	return 0;
}

/* How long a write side keeps its QP after a duration run for the peer
 * to end. The peer's last write may still be on its way, and a write to
 * a destroyed QP goes unanswered: perftest 4.5 then polls its send CQ for
 * it without looking at its clock, and on rxe the retries that should
 * fail it never came (seen in the lab: 7 of 60 perftest clients spun for
 * good against a server that had ended first). */
#define LINGER_MS 2000

/* perftest's write_lat has no close exchange: this side half-closes the
 * out-of-band connection to say it is done, and waits for the peer's
 * end of it (its half-close, or its exit) before the QP goes. Past the
 * bound the run ends as before: nothing to report. */
static void linger(struct rt_pt_conn *c)
{
	struct rt_error ignored = { 0 };
	long long bound = c->ch.tcp.timeout_ms;

	if (c->ch.tcp.fd < 0 || shutdown(c->ch.tcp.fd, SHUT_WR))
		return;
	c->ch.tcp.timeout_ms = LINGER_MS;
	(void)rt_oob_await_close(&c->ch.tcp, &ignored);
	c->ch.tcp.timeout_ms = bound;
}

static int write_test(struct ptl *x)
{
	int rc = rdma_setup(x) ? -1 : run_sizes(x);

	if (rc)
		return rc;
	rt_pt_out_end(x->o);
	if (x->c->p->opt.duration)
		linger(x->c);
	return finish(x);
}

/* How long the read server may wait in the close for the client's run:
 * --timeout, plus the duration, or plus per size 5 s (perftest samples
 * the CPU clock per row: seconds under emulation) and per message 1 ms
 * and 1 MB/s, so that only a stuck client runs into it; at most a day.
 * A killed client closes the connection, and a dead host is found by TCP
 * keepalive (below), both long before. */
static long long idle_bound(const struct rt_pt_params *p, long long timeout_ms)
{
	uint64_t ms = 0;

	if (p->opt.duration)
		return timeout_ms + (long long)p->opt.duration * 1000;
	for (uint64_t s = first_size(p); s <= last_size(p) && ms < 86400000ull; s *= 2)
		ms += 5000 + p->opt.iters * (1 + s / 1000);
	return timeout_ms + (long long)RT_MIN(ms, 86400000ull);
}

/* Keepalive probes after 2 s of silence, every 2 s, 3 of them: a client
 * host that died mid-run ends the idle server's wait in about 8 s. */
static void keepalive(int fd)
{
	int on = 1, idle = 2, intvl = 2, cnt = 3;

	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

/* The atomic client's check (perftest_atomic.h): it failed the run at
 * the first wrong value, so here every value was right. */
static void atomic_verdict(struct ptl *x)
{
	char v[96];

	if (x->c->p->t.verb != RT_PT_ATOMIC)
		return;
	snprintf(v, sizeof(v), "every fetched value verified (%" PRIu64 " atomics, "
		 "the first fetched %#" PRIx64 ")", x->m->seq.n, x->m->seq.first);
	rt_pt_out_kv_string(x->o, "data_check", v);
}

static int read_test(struct ptl *x)
{
	struct rt_pt_conn *c = x->c;
	int rc;

	if (rdma_setup(x))
		return -1;
	if (!c->client) {
		c->ch.tcp.timeout_ms = idle_bound(c->p, c->run->common.timeout_ms);
		keepalive(c->ch.tcp.fd);
		rc = rt_pt_conn_close(c);
		c->ch.tcp.timeout_ms = c->run->common.timeout_ms;
		if (!rc)
			rt_pt_out_end(x->o);
		return rc;
	}
	rc = run_sizes(x);
	if (rc || rt_pt_conn_close(c))
		return rc ? rc : -1;
	rt_pt_out_end(x->o);
	atomic_verdict(x);
	return finish(x);
}

/* send: keys; RTR/RTS; barrier; keys; the sizes; close. */
static int send_test(struct ptl *x)
{
	struct rt_pt_conn *c = x->c;
	int rc;

	if (rt_pt_conn_keys(c, "keys") || rt_pt_conn_up(c, true) ||
	    rt_pt_conn_barrier(c, "connected") || rt_pt_conn_keys(c, "addresses"))
		return -1;
	rt_pt_print_addrs(c);
	make_path(x);
	rc = run_sizes(x);
	if (rc)
		return rc;
	rt_pt_out_end(x->o);
	return rt_pt_conn_close(c) ? -1 : finish(x);
}

int rt_ptl_write_session(struct rt_pt_conn *c, struct rt_pt_out *o)
{
	return with_ptl(c, o, write_test);
}

int rt_ptl_read_session(struct rt_pt_conn *c, struct rt_pt_out *o)
{
	return with_ptl(c, o, read_test);
}

int rt_ptl_send_session(struct rt_pt_conn *c, struct rt_pt_out *o)
{
	return with_ptl(c, o, send_test);
}
