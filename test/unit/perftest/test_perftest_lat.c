/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* perftest_lat: the duration windows and rows, and the three ping-pongs
 * against a scripted peer behind a fake verbs context (ibv_post_send,
 * ibv_post_recv and ibv_poll_cq are calls through the context's ops). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "perftest/perftest_lat.h"

/* ---- pure parts --------------------------------------------------------- */

static void phases(void **state)
{
	struct rt_ptl_window w = { 1000, 250, 1000 };

	(void)state;
	assert_int_equal(rt_ptl_phase_at(&w, 0), RT_PTL_WARMUP);
	assert_int_equal(rt_ptl_phase_at(&w, 1249), RT_PTL_WARMUP);
	assert_int_equal(rt_ptl_phase_at(&w, 1250), RT_PTL_SAMPLE);
	assert_int_equal(rt_ptl_phase_at(&w, 1749), RT_PTL_SAMPLE);
	assert_int_equal(rt_ptl_phase_at(&w, 1750), RT_PTL_COOLDOWN);
	assert_int_equal(rt_ptl_phase_at(&w, 2000), RT_PTL_END);
	/* no margin: sampling from the start to the end */
	w.margin_ns = 0;
	assert_int_equal(rt_ptl_phase_at(&w, 1000), RT_PTL_SAMPLE);
	assert_int_equal(rt_ptl_phase_at(&w, 1999), RT_PTL_SAMPLE);
}

static void duration_row(void **state)
{
	struct rt_ptl_dur d;
	char row[128];

	(void)state;
	/* 200000 round trips in a 2 s window: 10 µs each, 5 µs one way,
	 * 100000 per second */
	rt_ptl_dur_figures(&d, 2, 200000, 2000000000ull, 2);
	assert_true(d.t_avg > 4.9999 && d.t_avg < 5.0001);
	assert_true(d.tps > 99999.9 && d.tps < 100000.1);
	rt_ptl_dur_row(row, sizeof(row), &d);
	assert_string_equal(row, " 2             200000            5.00           100000.00");
	/* read: factor 1 */
	rt_ptl_dur_figures(&d, 2, 200000, 2000000000ull, 1);
	assert_true(d.t_avg > 9.9999 && d.t_avg < 10.0001);
	rt_ptl_dur_figures(&d, 2, 0, 2000000000ull, 2);
	assert_true(d.t_avg == 0);
	assert_non_null(strstr(rt_ptl_dur_header(), "tps average"));
}

static void measurement(void **state)
{
	struct rt_ptl_meas *m = calloc(1, sizeof(*m));

	(void)state;
	/* iteration mode: one sample per post after the first */
	rt_ptl_meas_start(m, 0, 0, 100);
	rt_ptl_on_post(m, 1000);
	rt_ptl_on_post(m, 3000);
	rt_ptl_on_post(m, 7000);
	rt_ptl_on_count(m, 7000);
	assert_int_equal(m->lat.hist.count, 2);
	assert_int_equal(m->lat.top[0], 4000);
	assert_int_equal(m->lat.top[1], 2000);
	assert_int_equal(m->window_iters, 0);
	/* duration mode: only completions and posts inside the window count */
	rt_ptl_meas_start(m, 1000, 250, 0);
	rt_ptl_on_post(m, 10);
	rt_ptl_on_post(m, 260);
	rt_ptl_on_post(m, 300);
	rt_ptl_on_post(m, 700);
	rt_ptl_on_post(m, 900);
	rt_ptl_on_count(m, 100);
	rt_ptl_on_count(m, 300);
	rt_ptl_on_count(m, 700);
	rt_ptl_on_count(m, 800);
	assert_int_equal(m->window_iters, 2);
	assert_int_equal(m->lat.hist.count, 2); /* 40 and 400 */
	assert_int_equal(m->lat.top[0], 400);
	free(m);
}

static void extra_rows(void **state)
{
	struct rt_pt_lat_figures f = { .samples = 999, .max = 9.61, .p50 = 5.02,
				       .p90 = 5.4, .p99_all = 6.9, .p999_all = 9,
				       .p9999_all = 9.61, .t_min = 4.5, .p999 = 8 };
	struct rt_ptl_dur d = { 2, 10, 1.5, 2.5 };
	struct rt_pt_field x[RT_PTL_FIELDS];
	char line[200];

	(void)state;
	rt_ptl_extra_line(line, sizeof(line), 2, &f);
	assert_string_equal(line, " rdmatest: 2 B, 999 samples: max 9.61 p50 5.02 p90 5.40 "
			    "p99 6.90 p99.9 9.00 p99.99 9.61 usec");
	/* perftest's --out_json names first, then rdmatest's */
	assert_int_equal(rt_ptl_fields(x, 2, 1000, &f), RT_PTL_FIELDS);
	assert_string_equal(x[0].key, "MsgSize");
	assert_true(x[1].v == 1000);
	assert_string_equal(x[2].key, "t_min");
	assert_true(x[2].v == 4.5);
	assert_string_equal(x[8].key, "percentile_99.9");
	assert_true(x[8].v == 8);
	assert_string_equal(x[9].key, "samples");
	assert_string_equal(x[11].key, "max");
	assert_true(x[11].v == 9.61);
	assert_string_equal(x[16].key, "p99_99");
	assert_int_equal(rt_ptl_fields(x, 2, 3, NULL), 2);
	assert_int_equal(rt_ptl_dur_fields(x, &d, NULL), 4);
	assert_string_equal(x[3].key, "tps_average");
	assert_true(x[3].v == 2.5);
	assert_int_equal(rt_ptl_dur_fields(x, &d, &f), 12);
	assert_int_equal(rt_ptl_rtt_factor(RT_PTL_READ), 1);
	assert_int_equal(rt_ptl_rtt_factor(RT_PTL_ATOMIC), 1);
	assert_int_equal(rt_ptl_rtt_factor(RT_PTL_WRITE), 2);
	assert_int_equal(rt_ptl_rtt_factor(RT_PTL_SEND), 2);
}

/* --limit_lat on t_avg, --limit_lat_max on the true maximum: exit 1
 * naming the size, the figure and the threshold; at the threshold passes. */
static void lat_thresholds(void **state)
{
	struct rt_pt_params p = { .limit_lat = 5, .limit_lat_max = 20 };
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_pt_check_lat_limits(&p, 2, 5.0, 20.0, &err), 0);
	assert_int_equal(rt_pt_check_lat_limits(&p, 2, 5.01, 6.0, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "2 bytes: average latency 5.01 usec is above "
				"the --limit_lat threshold 5.00 usec"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_pt_check_lat_limits(&p, 4096, 3.0, 25.5, &err), -1);
	assert_non_null(strstr(err.reason, "4096 bytes: maximum latency 25.50 usec is "
				"above the --limit_lat_max threshold 20.00 usec"));
	p = (struct rt_pt_params){ 0 };
	assert_int_equal(rt_pt_check_lat_limits(&p, 2, 1e9, 1e9, &err), 0);
}

/* ib_send_lat's table: perftest's latency defaults, and the receive depth
 * clipped to -n and made even as perftest does. */
#define RT_CFG struct rt_pt_cfg
static const struct rt_opt send_lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PTL_OPT_QP, RT_PT_OPT_SIZE("2"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_LAT, { 0 },
};

static int parse_send_lat(struct rt_pt_params *p, struct rt_error *err,
			  int argc, char **argv)
{
	static struct rt_pt_cfg cfg;
	struct rt_opt_table tab = { send_lat_opts, &cfg, { 0 }, rt_pt_refused, true };

	memset(&cfg, 0, sizeof(cfg));
	if (rt_opt_parse(&tab, 1, argc, argv, err))
		return -1;
	return rt_pt_params_init(p, &cfg, (struct rt_pt_test){ RT_PT_SEND, RT_PT_LAT },
				 &tab, err);
}

static void send_lat_params(void **state)
{
	char *dflt[] = { "ib_send_lat" }, *n200[] = { "ib_send_lat", "-n", "200" };
	char *n5[] = { "ib_send_lat", "-n", "5" }, *dur[] = { "ib_send_lat", "-D", "4" };
	struct rt_pt_params p;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_opt_table_check(send_lat_opts, &err), 0);
	assert_int_equal(parse_send_lat(&p, &err, 1, dflt), 0);
	assert_int_equal(p.opt.size, 2);
	assert_int_equal(p.opt.iters, 1000);
	assert_int_equal(p.opt.tx_depth, 1);
	assert_int_equal(p.opt.rx_depth, 512);
	assert_int_equal(p.opt.inline_size, 0);
	assert_int_equal(parse_send_lat(&p, &err, 3, n200), 0);
	assert_int_equal(p.opt.rx_depth, 200);
	assert_int_equal(parse_send_lat(&p, &err, 3, n5), 0);
	assert_int_equal(p.opt.rx_depth, 6); /* 5, made even */
	assert_int_equal(parse_send_lat(&p, &err, 3, dur), 0);
	assert_int_equal(p.opt.rx_depth, 512);
	assert_int_equal(p.opt.margin, 1);
}

/* ---- a scripted peer ------------------------------------------------------ */

#define MAXQ 64

/* The peer and the wire: what this side posts is seen here, and the peer
 * answers as perftest's loop does. */
struct fake {
	struct ibv_context ctx;
	struct ibv_qp qp;
	struct ibv_cq cq;
	struct rt_cqwait cqw;
	uint8_t local[64], target[64];
	bool peer_first;      /* the peer went first (write: server, send: client) */
	bool mute;            /* the peer stops answering */
	uint64_t iters, size;
	uint64_t seen;        /* this side's messages the peer got */
	uint8_t marks[2048];  /* write: this side's last byte, per message */
	uint64_t rx_posted, rx_ready, signalled;
	struct ibv_wc q[MAXQ];
	unsigned qn;
};

static struct fake *F;

static void push(struct fake *f, enum ibv_wc_opcode op)
{
	assert_true(f->qn < MAXQ);
	f->q[f->qn++] = (struct ibv_wc){ .status = IBV_WC_SUCCESS, .opcode = op };
}

/* The peer's answer to this side's message number n (1-based). */
static void peer_answers(struct fake *f, uint64_t n, enum ibv_wr_opcode op)
{
	/* the peer that went first answers message n with its n + 1st */
	uint64_t next = f->peer_first ? n + 1 : n;

	if (f->mute || next > f->iters)
		return;
	if (op == IBV_WR_RDMA_WRITE) {
		f->target[f->size - 1] = (uint8_t)next;
	} else if (op == IBV_WR_SEND) {
		assert_true(f->rx_ready > 0); /* RNR otherwise */
		f->rx_ready--;
		push(f, IBV_WC_RECV);
	}
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	struct fake *f = F;

	(void)qp;
	(void)bad;
	assert_int_equal(wr->sg_list->length, f->size);
	f->seen++;
	if (wr->opcode == IBV_WR_RDMA_WRITE) {
		assert_true(f->seen < sizeof(f->marks));
		f->marks[f->seen] = f->local[f->size - 1];
	}
	if (wr->send_flags & IBV_SEND_SIGNALED) {
		f->signalled++;
		push(f, wr->opcode == IBV_WR_RDMA_WRITE ? IBV_WC_RDMA_WRITE :
			wr->opcode == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ : IBV_WC_SEND);
	}
	peer_answers(f, f->seen, wr->opcode);
	return 0;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)bad;
	assert_int_equal(wr->sg_list->length, F->size);
	F->rx_posted++;
	F->rx_ready++;
	return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fake *f = F;
	int k = 0;

	(void)cq;
	while (k < n && f->qn) {
		wc[k++] = f->q[0];
		memmove(f->q, f->q + 1, --f->qn * sizeof(f->q[0]));
	}
	return k;
}

static struct fake *fake_new(uint64_t size, uint64_t iters, bool peer_first)
{
	struct fake *f = calloc(1, sizeof(*f));

	f->ctx.ops.post_send = fake_post_send;
	f->ctx.ops.post_recv = fake_post_recv;
	f->ctx.ops.poll_cq = fake_poll_cq;
	f->qp.context = &f->ctx;
	f->cq.context = &f->ctx;
	f->cqw.cq = &f->cq;
	f->cqw.timeout_ms = 50;
	f->size = size;
	f->iters = iters;
	f->peer_first = peer_first;
	F = f;
	return f;
}

static struct rt_ptl_path path_of(struct fake *f, enum rt_ptl_verb v, bool client)
{
	return (struct rt_ptl_path){
		.verb = v, .client = client, .qp = &f->qp, .sw = &f->cqw, .rw = &f->cqw,
		.local = f->local, .target = f->target, .rx_depth = 4, .cq_mod = 1,
		.oob_fd = -1, .timeout_ms = 100, .peer = "peer",
	};
}

/* write: this side marks its messages 1, 2, ... in its last byte, waits
 * for the peer's count in the last byte of its own area, and ends after
 * -n each way; the server writes first. */
static void write_counts(void **state)
{
	struct rt_ptl_meas *m = calloc(1, sizeof(*m));
	struct rt_error err = { 0 };

	(void)state;
	for (int role = 0; role < 2; role++) {
		/* role 0: this side is the client (the peer, a server, wrote 1) */
		struct fake *f = fake_new(role ? 2 : 16, 300, role == 0);
		struct rt_ptl_path p = path_of(f, RT_PTL_WRITE, role == 0);
		struct rt_ptl_plan plan = { .size = f->size, .iters = f->iters };

		if (!role)
			f->target[f->size - 1] = 1;
		assert_int_equal(rt_ptl_run(&p, &plan, m, &err), 0);
		assert_int_equal(f->seen, 300);
		for (unsigned i = 1; i <= 300; i++)
			assert_int_equal(f->marks[i], (uint8_t)i); /* 256 is 0 again */
		assert_int_equal(m->lat.hist.count, 299);
		assert_int_equal(f->signalled, 300);
		free(f);
	}
	free(m);
}

/* A peer that stops answering: the wait ends after --timeout, exit 124,
 * naming how far the run got. */
static void write_peer_silent(void **state)
{
	struct rt_ptl_meas *m = calloc(1, sizeof(*m));
	struct rt_error err = { 0 };
	struct fake *f = fake_new(8, 1000, false);
	struct rt_ptl_path p = path_of(f, RT_PTL_WRITE, false);
	struct rt_ptl_plan plan = { .size = 8, .iters = 1000 };

	(void)state;
	f->mute = true;
	assert_int_equal(rt_ptl_run(&p, &plan, m, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_TIMEOUT);
	assert_non_null(strstr(err.reason, "no RDMA WRITE within 100 ms after 1 messages sent and 0 received"));
	free(f);
	free(m);
}

/* A peer whose out-of-band connection closes mid-run is named at once. */
static void peer_killed(void **state)
{
	struct rt_ptl_meas *m = calloc(1, sizeof(*m));
	struct rt_error err = { 0 };
	struct fake *f = fake_new(8, 1000, false);
	struct rt_ptl_path p = path_of(f, RT_PTL_SEND, true);
	struct rt_ptl_plan plan = { .size = 8, .iters = 1000 };
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	p.oob_fd = sv[0];
	p.timeout_ms = 60000;
	f->mute = true;
	assert_int_equal(rt_ptl_post_receives(&p, &plan, &err), 0);
	assert_int_equal(rt_ptl_run(&p, &plan, m, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "peer closed the connection while this side "
				"waited for its SEND, after 1 messages sent and 0 received"));
	close(sv[0]);
	free(f);
	free(m);
}

/* send: the client sends first; exactly -n receives are posted (4 ahead,
 * then one per message while more are due), every send signalled with
 * cq_mod 1. */
static void send_counts(void **state)
{
	struct rt_ptl_meas *m = calloc(1, sizeof(*m));
	struct rt_error err = { 0 };

	(void)state;
	for (int role = 0; role < 2; role++) {
		/* role 1: this side is the server, the peer sent first */
		struct fake *f = fake_new(32, 50, role == 1);
		struct rt_ptl_path p = path_of(f, RT_PTL_SEND, role == 0);
		struct rt_ptl_plan plan = { .size = 32, .iters = 50 };

		assert_int_equal(rt_ptl_post_receives(&p, &plan, &err), 0);
		assert_int_equal(f->rx_posted, 4);
		if (role) /* the peer is the client: its first message is there */
			peer_answers(f, 0, IBV_WR_SEND);
		if (rt_ptl_run(&p, &plan, m, &err))
			fail_msg("role %d: %s", role, err.reason);
		assert_int_equal(f->seen, 50);
		assert_int_equal(f->rx_posted, 50);
		assert_int_equal(m->lat.hist.count, 49);
		free(f);
	}
	free(m);
}

/* read: one signalled READ at a time, -n of them, samples between posts;
 * the rtt factor is 1. */
static void read_counts(void **state)
{
	struct rt_ptl_meas *m = calloc(1, sizeof(*m));
	struct rt_error err = { 0 };
	struct fake *f = fake_new(4, 20, false);
	struct rt_ptl_path p = path_of(f, RT_PTL_READ, true);
	struct rt_ptl_plan plan = { .size = 4, .iters = 20 };

	(void)state;
	f->mute = true; /* a READ needs nothing of the peer's software */
	assert_int_equal(rt_ptl_run(&p, &plan, m, &err), 0);
	assert_int_equal(f->seen, 20);
	assert_int_equal(f->signalled, 20);
	assert_int_equal(m->lat.hist.count, 19);
	free(f);
	free(m);
}

/* duration: the run ends at the end of the cool-down whatever -n is,
 * counting only the window's completions. */
static void duration_run(void **state)
{
	struct rt_ptl_meas *m = calloc(1, sizeof(*m));
	struct rt_error err = { 0 };
	struct fake *f = fake_new(4, UINT32_MAX, false);
	struct rt_ptl_path p = path_of(f, RT_PTL_READ, true);
	struct rt_ptl_plan plan = { .size = 4, .iters = 5, .duration_ns = 40000000,
				    .margin_ns = 10000000 };

	(void)state;
	assert_int_equal(rt_ptl_run(&p, &plan, m, &err), 0);
	assert_true(m->window_iters > 5);
	assert_true(m->window_iters < f->seen);
	free(f);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(phases),
		cmocka_unit_test(duration_row),
		cmocka_unit_test(measurement),
		cmocka_unit_test(extra_rows),
		cmocka_unit_test(lat_thresholds),
		cmocka_unit_test(send_lat_params),
		cmocka_unit_test(write_counts),
		cmocka_unit_test(write_peer_silent),
		cmocka_unit_test(peer_killed),
		cmocka_unit_test(send_counts),
		cmocka_unit_test(read_counts),
		cmocka_unit_test(duration_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
