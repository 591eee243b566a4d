/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The receiving side of UD traffic (udrecv) and the reactor steps and
 * predicates of both sides (udflow). QPs are fakes whose post_recv and
 * post_send count the work requests; connections are plain structs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cm_priv.h"
#include "rdmacm/mcast.h"
#include "rdmacm/udflow.h"
#include "rdmatest/util.h"
#include "rdmatest/verify.h"
#include "rdmatest/xfer.h"

#define SIZE 64
#define SLOTS 4
#define QPS 2
#define MS 1000000ull

static unsigned nrecv, nsend;
static bool refuse_sends;

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)bad;
	assert_int_equal(RT_WR_KIND(wr->wr_id), RT_WR_RECV);
	nrecv++;
	return 0;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	(void)qp;
	*bad = wr;
	if (refuse_sends)
		return ENOMEM;
	for (; wr; wr = wr->next) /* work requests, not calls: turns chain them */
		nsend++;
	return 0;
}

struct rig {
	struct rt_cm cm;
	struct ibv_context ctx;
	struct ibv_qp qp[QPS];
	struct ibv_mr mr;
	struct rt_conn conn[QPS];
	struct rt_buf buf[QPS];
	uint8_t mem[QPS][SLOTS * (SIZE + RT_MC_GRH_LEN)];
	uint32_t pending[QPS][SLOTS];
	struct rt_ud_rx rx[QPS];
};

/* QPs with a full ring of SLOTS receives each, as rt_ud_rx_post leaves
 * them (its buffer comes from our memory: no registration here). */
static struct rig *rig_new(uint64_t per_sender, uint64_t senders)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	nrecv = nsend = 0;
	refuse_sends = false;
	r->ctx.ops.post_recv = fake_post_recv;
	r->ctx.ops.post_send = fake_post_send;
	for (unsigned i = 0; i < QPS; i++) {
		struct rt_conn *c = &r->conn[i];
		struct rt_mc_ring *ring = &r->rx[i].ring;

		r->qp[i] = (struct ibv_qp){ .context = &r->ctx, .qp_num = 0x200 + i };
		*c = (struct rt_conn){ .cm = &r->cm, .state = RT_CONN_ESTABLISHED, .index = i };
		c->res.qp = &r->qp[i];
		r->buf[i] = (struct rt_buf){ .addr = r->mem[i], .len = sizeof(r->mem[i]), .mr = &r->mr };
		rt_ud_rx_init(&r->rx[i], c, per_sender, senders, SIZE);
		*ring = (struct rt_mc_ring){ .buf = &r->buf[i], .slots = SLOTS,
					     .slot_len = SIZE + RT_MC_GRH_LEN,
					     .pending = r->pending[i], .posted = SLOTS };
		r->rx[i].tally.ring = SLOTS;
	}
	return r;
}

static void rig_free(struct rig *r)
{
	for (unsigned i = 0; i < QPS; i++)
		rt_mc_tally_free(&r->rx[i].tally);
	free(r);
}

/* Datagram (sender, seq) of len payload bytes arrives in slot on QP q. */
static int arrive(struct rig *r, unsigned q, uint32_t slot, uint32_t sender,
		  uint64_t seq, size_t len, uint64_t now, enum rt_mc_class *cls)
{
	struct ibv_wc wc = { .wr_id = RT_WR_ID(RT_WR_RECV, slot),
			     .byte_len = (uint32_t)(RT_MC_GRH_LEN + len), .src_qp = 0x77 };
	uint32_t who;

	if (slot < SLOTS)
		rt_msg_fill(r->mem[q] + slot * (SIZE + RT_MC_GRH_LEN) + RT_MC_GRH_LEN, len,
			    sender, seq);
	return rt_ud_rx_take(&r->rx[q], &wc, now, cls, &who);
}

static void completions_are_classified_counted_and_timed(void **state)
{
	struct rig *r = rig_new(3, 1);
	enum rt_mc_class cls;

	(void)state;
	assert_int_equal(arrive(r, 0, 0, 7, 0, SIZE, 10 * MS, &cls), 0);
	assert_int_equal(cls, RT_MC_NEW);
	assert_int_equal(arrive(r, 0, 1, 7, 2, SIZE, 12 * MS, &cls), 0);
	assert_int_equal(cls, RT_MC_NEW);
	assert_false(rt_ud_rx_complete(r->rx, 1));
	assert_int_equal(arrive(r, 0, 2, 7, 1, SIZE, 15 * MS, &cls), 0);
	assert_int_equal(cls, RT_MC_OUT_OF_ORDER);
	assert_true(rt_ud_rx_complete(r->rx, 1));
	assert_int_equal(r->rx[0].t_first, 10 * MS);
	assert_int_equal(r->rx[0].t_last, 15 * MS);
	assert_int_equal(r->rx[0].ring.npending, 3);
	assert_int_equal(rt_ud_rx_received(r->rx, QPS), 3);
	/* QP 1 heard nobody: it still lacks a sender's count */
	assert_false(rt_ud_rx_complete(r->rx, QPS));
	assert_true(rt_ud_rx_seconds(r->rx, QPS) > 0.0049 && rt_ud_rx_seconds(r->rx, QPS) < 0.0051);
	rig_free(r);
}

/* A completion of a slot the ring does not have fails the connection
 * with the reason, once. */
static void an_unknown_slot_fails_the_connection(void **state)
{
	struct rig *r = rig_new(3, 1);
	enum rt_mc_class cls;

	(void)state;
	assert_int_equal(arrive(r, 1, 9, 7, 0, SIZE, MS, &cls), -1);
	assert_int_equal(r->conn[1].state, RT_CONN_FAILED);
	assert_string_equal(r->conn[1].err.reason, "receive completion of unknown slot 9");
	assert_int_equal(r->conn[1].err.exit_code, RT_EXIT_FAIL);
	assert_int_equal(r->cm.failures_pending, 1);
	assert_int_equal(r->rx[1].tally.received, 0);
	rig_free(r);
}

/* The refill reposts consumed slots of live QPs only. */
static void refill_reposts_on_live_connections(void **state)
{
	struct rig *r = rig_new(10, 1);
	enum rt_mc_class cls;

	(void)state;
	arrive(r, 0, 0, 7, 0, SIZE, MS, &cls);
	arrive(r, 0, 1, 7, 1, SIZE, MS, &cls);
	arrive(r, 1, 0, 7, 0, SIZE, MS, &cls);
	r->conn[1].state = RT_CONN_FAILED;
	rt_ud_rx_refill(r->rx, QPS);
	assert_int_equal(nrecv, 2);
	assert_int_equal(r->rx[0].ring.npending, 0);
	assert_int_equal(r->rx[0].ring.posted, SLOTS + 2);
	assert_int_equal(r->rx[1].ring.npending, 1);
	r->rx[0].conn = NULL; /* not created yet */
	rt_ud_rx_refill(r->rx, QPS);
	assert_int_equal(nrecv, 2);
	rig_free(r);
}

/* Over when complete; else the first datagram gets first_ms from the
 * start, each later one quiet_ms from the latest. */
static void receiving_ends_by_completion_or_silence(void **state)
{
	struct rig *r = rig_new(2, 1);
	enum rt_mc_class cls;
	uint64_t t0 = 100 * MS;

	(void)state;
	assert_false(rt_ud_rx_over(r->rx, 1, t0 + 4999 * MS, t0, 5000, 1000));
	assert_true(rt_ud_rx_over(r->rx, 1, t0 + 5000 * MS, t0, 5000, 1000));
	arrive(r, 0, 0, 7, 0, SIZE, t0 + 200 * MS, &cls);
	assert_false(rt_ud_rx_over(r->rx, 1, t0 + 1199 * MS, t0, 5000, 1000));
	assert_true(rt_ud_rx_over(r->rx, 1, t0 + 1200 * MS, t0, 5000, 1000));
	arrive(r, 0, 1, 7, 1, SIZE, t0 + 300 * MS, &cls);
	assert_true(rt_ud_rx_over(r->rx, 1, t0 + 300 * MS, t0, 5000, 1000));
	rig_free(r);
}

static void the_verdict_names_what_went_wrong(void **state)
{
	struct rig *r = rig_new(4, 1);
	struct rt_error e = { 0 };
	enum rt_mc_class cls;
	uint64_t expected;

	(void)state;
	for (uint64_t s = 0; s < 4; s++)
		arrive(r, 0, (uint32_t)s, 7, s, SIZE, MS, &cls);
	arrive(r, 1, 0, 7, 0, SIZE, MS, &cls);
	arrive(r, 1, 1, 7, 3, SIZE, MS, &cls);
	assert_int_equal(rt_ud_rx_missing(r->rx, QPS, &expected), 2);
	assert_int_equal(expected, 8);
	assert_int_equal(rt_ud_rx_judge(r->rx, QPS, 2000, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	assert_string_equal(e.reason, "lost 2 of 8 datagrams: none arrived for 2 s "
			    "after the last one (2 datagrams missing from gaps in the "
			    "senders' sequences while receives were posted: dropped on "
			    "the way)");
	/* all there: no verdict */
	arrive(r, 1, 2, 7, 1, SIZE, MS, &cls);
	arrive(r, 1, 3, 7, 2, SIZE, MS, &cls);
	e = (struct rt_error){ 0 };
	assert_int_equal(rt_ud_rx_judge(r->rx, QPS, 2000, &e), 0);
	assert_false(e.set);
	/* a wrong size and a corrupt byte come before any loss */
	arrive(r, 1, 0, 9, 0, SIZE - 8, MS, &cls);
	assert_int_equal(rt_ud_rx_judge(r->rx, QPS, 2000, &e), -1);
	assert_non_null(strstr(e.reason, "QP 1: a datagram of 56 bytes, expected 64 "
			       "(does the sender's -S match?)"));
	rt_mc_tally_free(&r->rx[1].tally);
	rt_mc_tally_init(&r->rx[1].tally, 4, 1, SIZE);
	r->mem[0][2 * (SIZE + RT_MC_GRH_LEN) + RT_MC_GRH_LEN + 40] ^= 1;
	r->rx[0].ring.npending = 0;
	rt_ud_rx_take(&r->rx[0], &(struct ibv_wc){ .wr_id = RT_WR_ID(RT_WR_RECV, 2),
			.byte_len = RT_MC_GRH_LEN + SIZE }, MS, &cls, &(uint32_t){ 0 });
	assert_int_equal(cls, RT_MC_CORRUPT);
	e = (struct rt_error){ 0 };
	assert_int_equal(rt_ud_rx_judge(r->rx, QPS, 2000, &e), -1);
	assert_non_null(strstr(e.reason, "QP 0: 1 corrupt datagrams, first: sender "
			       "0x00000007 seq 2: corrupt at byte 40"));
	rig_free(r);
}

static void counts_add_up_in_json_and_words(void **state)
{
	struct rig *r = rig_new(3, 1);
	struct rt_ud_rx_sum sum = { 0 };
	struct rt_json j;
	enum rt_mc_class cls;
	char line[160];

	(void)state;
	arrive(r, 0, 0, 7, 0, SIZE, MS, &cls);
	arrive(r, 0, 1, 7, 0, SIZE, MS, &cls);
	arrive(r, 1, 0, 7, 2, SIZE, MS, &cls);
	for (unsigned i = 0; i < QPS; i++)
		rt_ud_rx_sum_add(&sum, &r->rx[i], true);
	assert_int_equal(sum.received, 3);
	assert_int_equal(sum.dup, 1);
	assert_int_equal(sum.lost, 4);
	rt_ud_rx_sum_str(&sum, QPS, line, sizeof(line));
	assert_string_equal(line, "received 3 datagrams on 2 QPs: 4 lost, 1 duplicate, "
			    "0 out of order");
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_ud_rx_sum_json(&j, &sum, false);
	rt_json_object_end(&j);
	assert_string_equal(j.buf, "{\"received\":3,\"lost\":4,\"duplicates\":1,"
			    "\"out_of_order\":0,\"unverified\":0,\"corrupt\":0}");
	rt_json_free(&j);
	/* a sender loses nothing: it expects nothing */
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_ud_rx_json(&j, &r->rx[1], false);
	rt_json_object_end(&j);
	assert_non_null(strstr(j.buf, "\"received\":1,\"distinct\":1,\"lost\":0,"));
	assert_non_null(strstr(j.buf, "\"receive_ring\":4,\"ring_ran_dry\":0,\"overrun\":0,"));
	rt_json_free(&j);
	assert_int_equal(rt_ud_rx_slots(&r->rx[0], 0, 1, 0), 0);
	assert_int_equal(rt_ud_rx_slots(&r->rx[0], 10, 1, 0), 10);
	assert_int_equal(rt_ud_rx_slots(&r->rx[0], UINT64_MAX, 1, 0), RT_MC_RING_MAX);
	assert_int_equal(rt_ud_rx_slots(&r->rx[0], UINT64_MAX, 1, 100), 100);
	rig_free(r);
}

/* udflow: the predicates answer without posting; the send step posts
 * and, when a post is refused, fails the lane's connection with the
 * recorded reason. */
static void flow_steps_work_and_predicates_only_answer(void **state)
{
	struct rig *r = rig_new(10, 1);
	struct rt_ud_tx tx;
	struct rt_ud_flow f = { .tx = &tx, .rx = r->rx, .n = QPS, .t_ready = rt_now_ns(),
				.first_ms = 60000, .quiet_ms = 60000 };
	enum rt_mc_class cls;

	(void)state;
	rt_ud_tx_init(&tx, QPS, 2, SIZE, 0);
	for (unsigned i = 0; i < QPS; i++) {
		tx.lanes[i] = (struct rt_ud_lane){ .res = &r->conn[i].res, .err = &r->conn[i].err,
						   .buf = &r->buf[i], .depth = 2,
						   .owner = &r->conn[i] };
		rt_ud_lane_ready(&tx.lanes[i], NULL, RT_MC_QPN, 1);
	}
	rt_ud_tx_start(&tx, rt_now_ns());
	arrive(r, 0, 0, 7, 0, SIZE, rt_now_ns(), &cls);
	assert_false(rt_ud_sent(&r->cm, &f));
	assert_false(rt_ud_received(&r->cm, &f));
	assert_int_equal(nsend + nrecv, 0);
	rt_ud_refill_step(&r->cm, &f);
	assert_int_equal(nrecv, 1);
	r->conn[1].state = RT_CONN_FAILED;
	rt_ud_send_step(&r->cm, &f);
	assert_int_equal(nsend, 2); /* lane 1's connection failed: it stopped */
	assert_false(tx.lanes[1].ready);
	r->conn[1].state = RT_CONN_ESTABLISHED;
	tx.lanes[1].ready = true;
	rt_ud_send_step(&r->cm, &f);
	assert_int_equal(nsend, 4);
	for (unsigned i = 0; i < QPS; i++) {
		rt_ud_tx_completed(&tx, &tx.lanes[i], 1);
		rt_ud_tx_completed(&tx, &tx.lanes[i], 2);
	}
	assert_true(rt_ud_sent(&r->cm, &f));
	tx.count = 3;
	refuse_sends = true;
	rt_ud_send_step(&r->cm, &f);
	assert_int_equal(r->conn[0].state, RT_CONN_FAILED);
	assert_string_equal(r->conn[0].err.reason, "ibv_post_send (UD SEND): "
			    "Cannot allocate memory");
	assert_int_equal(r->cm.failures_pending, 1);
	rt_ud_tx_free(&tx);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(completions_are_classified_counted_and_timed),
		cmocka_unit_test(an_unknown_slot_fails_the_connection),
		cmocka_unit_test(refill_reposts_on_live_connections),
		cmocka_unit_test(receiving_ends_by_completion_or_silence),
		cmocka_unit_test(the_verdict_names_what_went_wrong),
		cmocka_unit_test(counts_add_up_in_json_and_words),
		cmocka_unit_test(flow_steps_work_and_predicates_only_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
