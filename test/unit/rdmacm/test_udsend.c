/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The paced round-robin UD sender: the QPs are fakes whose post_send
 * records each work request, so pacing, the round robin, the send depth
 * and the completion accounting are checked without a device. */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rdmacm/udsend.h"
#include "rdmatest/verify.h"
#include "rdmatest/xfer.h"

#define LANES 3
#define SIZE 64
#define DEPTH 4
#define SLOTS 32 /* buffer room: the depth a test may raise it to */
#define MS 1000000ull

struct posted {
	struct ibv_qp *qp;
	uint64_t wr_id;
	uint32_t imm, qpn, qkey, len;
	struct ibv_ah *ah;
	struct rt_msg_hdr hdr;
	enum rt_msg_status st;
};

static struct posted log_[1024];
static size_t nlog;
static size_t chain_len[64]; /* work requests per ibv_post_send call */
static size_t ncalls;
static int fail_at = -1; /* the work request refused with EINVAL; -1: none */

static void log_one(struct ibv_qp *qp, const struct ibv_send_wr *wr)
{
	struct posted *p = &log_[nlog];
	size_t bad_off = 0;

	assert_true(nlog < sizeof(log_) / sizeof(log_[0]));
	assert_int_equal(wr->num_sge, 1);
	assert_int_equal(wr->opcode, IBV_WR_SEND_WITH_IMM);
	assert_true(wr->send_flags & IBV_SEND_SIGNALED);
	*p = (struct posted){ .qp = qp, .wr_id = wr->wr_id, .imm = wr->imm_data,
			      .qpn = wr->wr.ud.remote_qpn, .qkey = wr->wr.ud.remote_qkey,
			      .ah = wr->wr.ud.ah, .len = wr->sg_list[0].length };
	p->st = rt_msg_check((const uint8_t *)(uintptr_t)wr->sg_list[0].addr,
			     wr->sg_list[0].length, &p->hdr, &bad_off);
	nlog++;
}

/* As a provider does: each work request of the chain in turn, stopping
 * at the refused one, which *bad names. */
static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	assert_true(ncalls < sizeof(chain_len) / sizeof(chain_len[0]));
	chain_len[ncalls] = 0;
	for (; wr; wr = wr->next) {
		if ((int)nlog == fail_at) {
			fail_at = -1;
			*bad = wr;
			ncalls++;
			return EINVAL;
		}
		log_one(qp, wr);
		chain_len[ncalls]++;
	}
	ncalls++;
	return 0;
}

struct rig {
	struct ibv_context ctx;
	struct ibv_qp qp[LANES];
	struct ibv_mr mr[LANES];
	struct rt_res res[LANES];
	struct rt_buf buf[LANES];
	uint8_t mem[LANES][SLOTS * SIZE];
	struct rt_error err[LANES];
	struct ibv_ah *ah;
	struct rt_ud_tx tx;
};

/* Lanes as rt_ud_lane_setup leaves them, on buffers of our own (no
 * registration without a device), then made ready. */
static struct rig *rig_new(uint64_t count, long long rate)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	nlog = ncalls = 0;
	fail_at = -1;
	r->ctx.ops.post_send = fake_post_send;
	r->ah = (struct ibv_ah *)&r->ctx; /* only compared */
	rt_ud_tx_init(&r->tx, LANES, count, SIZE, rate);
	for (size_t i = 0; i < LANES; i++) {
		struct rt_ud_lane *l = &r->tx.lanes[i];

		r->qp[i] = (struct ibv_qp){ .context = &r->ctx, .qp_num = 0x100 + (uint32_t)i };
		r->res[i].qp = &r->qp[i];
		r->buf[i] = (struct rt_buf){ .addr = r->mem[i], .len = sizeof(r->mem[i]),
					     .mr = &r->mr[i] };
		*l = (struct rt_ud_lane){ .res = &r->res[i], .err = &r->err[i], .buf = &r->buf[i],
					  .depth = DEPTH, .sender_id = l->sender_id };
		rt_ud_lane_ready(l, r->ah, 0xFFFFFF, 0x1234);
	}
	rt_ud_tx_start(&r->tx, 1000 * MS);
	return r;
}

static void rig_free(struct rig *r)
{
	rt_ud_tx_free(&r->tx);
	free(r);
}

static size_t lane_of(const struct rig *r, const struct posted *p)
{
	return (size_t)(p->qp - r->qp);
}

static void the_rate_allows_one_at_once_then_rate_per_second(void **state)
{
	(void)state;
	assert_int_equal(rt_ud_tx_allowed(0, 0), UINT64_MAX);
	assert_int_equal(rt_ud_tx_allowed(0, 5000 * MS), UINT64_MAX);
	assert_int_equal(rt_ud_tx_allowed(1000, 0), 1);
	assert_int_equal(rt_ud_tx_allowed(1000, 999999), 1);
	assert_int_equal(rt_ud_tx_allowed(1000, 1 * MS), 2);
	assert_int_equal(rt_ud_tx_allowed(1000, 250 * MS), 251);
	assert_int_equal(rt_ud_tx_allowed(10, 1000 * MS), 11);
	/* the highest rate for an hour does not wrap */
	assert_int_equal(rt_ud_tx_allowed(10000000, 3600000 * MS), 36000000001ull);
	assert_int_equal(rt_ud_tx_tick_ms(0), 0);
	assert_int_equal(rt_ud_tx_tick_ms(1), 100);
	assert_int_equal(rt_ud_tx_tick_ms(50), 20);
	assert_int_equal(rt_ud_tx_tick_ms(1000000), 1);
	assert_int_equal(rt_ud_tx_depth(0, 128), 1);
	assert_int_equal(rt_ud_tx_depth(10, 128), 10);
	assert_int_equal(rt_ud_tx_depth(1000, 128), 128);
}

/* Unpaced, each lane's turn fills its depth in one post (a chain: one
 * doorbell), lane after lane; then nothing more goes out until
 * completions free slots, and only on the lane that got them. */
static void unpaced_turns_fill_each_lane_in_one_post(void **state)
{
	struct rig *r = rig_new(10, 0);
	uint64_t now = r->tx.t0;

	(void)state;
	assert_null(rt_ud_tx_post_due(&r->tx, now));
	assert_int_equal(nlog, LANES * DEPTH);
	assert_int_equal(ncalls, LANES);
	for (size_t i = 0; i < nlog; i++) {
		assert_int_equal(lane_of(r, &log_[i]), i / DEPTH);
		assert_int_equal(log_[i].hdr.seq, i % DEPTH);
	}
	assert_null(rt_ud_tx_post_due(&r->tx, now + 10 * MS));
	assert_int_equal(nlog, LANES * DEPTH);
	rt_ud_tx_completed(&r->tx, &r->tx.lanes[1], now);
	rt_ud_tx_completed(&r->tx, &r->tx.lanes[1], now);
	assert_null(rt_ud_tx_post_due(&r->tx, now));
	assert_int_equal(nlog, LANES * DEPTH + 2);
	assert_int_equal(ncalls, LANES + 1);
	assert_int_equal(lane_of(r, &log_[nlog - 1]), 1);
	assert_int_equal(lane_of(r, &log_[nlog - 2]), 1);
	for (size_t i = 0; i < LANES; i++)
		assert_true(r->tx.lanes[i].posted - r->tx.lanes[i].completed <= DEPTH);
	assert_int_equal(r->tx.posted, nlog);
	rig_free(r);
}

/* A turn's chain holds at most RT_POST_LIST_MAX; a deeper lane gets more
 * turns, still in the round robin. */
static void a_chain_is_at_most_the_list_max(void **state)
{
	struct rig *r = rig_new(40, 0);

	(void)state;
	for (size_t i = 0; i < LANES; i++)
		r->tx.lanes[i].depth = SLOTS;
	assert_null(rt_ud_tx_post_due(&r->tx, r->tx.t0));
	assert_int_equal(nlog, LANES * SLOTS);
	assert_int_equal(ncalls, LANES * SLOTS / RT_POST_LIST_MAX);
	for (size_t k = 0; k < ncalls; k++) {
		assert_int_equal(chain_len[k], RT_POST_LIST_MAX);
		assert_int_equal(lane_of(r, &log_[k * RT_POST_LIST_MAX]), k % LANES);
	}
	rig_free(r);
}

/* Paced at 1000/s: one datagram at the start, then one per elapsed
 * millisecond in all, lane after lane, whatever the depth would allow. */
static void paced_sends_follow_the_clock(void **state)
{
	struct rig *r = rig_new(100, 1000);
	uint64_t t0 = r->tx.t0;

	(void)state;
	for (size_t i = 0; i < LANES; i++)
		r->tx.lanes[i].depth = SLOTS;
	assert_null(rt_ud_tx_post_due(&r->tx, t0));
	assert_int_equal(nlog, 1);
	assert_null(rt_ud_tx_post_due(&r->tx, t0 + MS / 2));
	assert_int_equal(nlog, 1);
	assert_null(rt_ud_tx_post_due(&r->tx, t0 + 10 * MS));
	assert_int_equal(nlog, 11);
	assert_null(rt_ud_tx_post_due(&r->tx, t0 + 10 * MS));
	assert_int_equal(nlog, 11);
	assert_null(rt_ud_tx_post_due(&r->tx, t0 + 40 * MS));
	assert_int_equal(nlog, 41);
	for (size_t i = 0; i < nlog; i++)
		assert_int_equal(lane_of(r, &log_[i]), i % LANES);
	/* a lane with its depth in flight is passed over, not waited for */
	r->tx.lanes[0].depth = (uint32_t)(r->tx.lanes[0].posted - r->tx.lanes[0].completed);
	assert_null(rt_ud_tx_post_due(&r->tx, t0 + 46 * MS));
	assert_int_equal(nlog, 47);
	for (size_t i = 41; i < nlog; i++)
		assert_int_not_equal(lane_of(r, &log_[i]), 0);
	rig_free(r);
}

/* Every datagram: the lane's destination, the QPN as immediate data, a
 * verify.h message of the lane's sender id and the next sequence number;
 * no lane sends more than the count; lanes not ready send nothing. */
static void datagrams_carry_sender_and_sequence(void **state)
{
	struct rig *r = rig_new(3, 0);
	uint64_t seq[LANES] = { 0 };

	(void)state;
	r->tx.lanes[2].ready = false;
	assert_null(rt_ud_tx_post_due(&r->tx, r->tx.t0));
	assert_int_equal(nlog, 6);
	for (size_t i = 0; i < nlog; i++) {
		size_t l = lane_of(r, &log_[i]);

		assert_true(l < 2);
		assert_int_equal(log_[i].st, RT_MSG_OK);
		assert_int_equal(log_[i].len, SIZE);
		assert_int_equal(log_[i].hdr.sender, r->tx.id_base + l);
		assert_int_equal(log_[i].hdr.seq, seq[l]);
		assert_int_equal(RT_WR_KIND(log_[i].wr_id), RT_WR_UD_SEND);
		assert_int_equal(RT_WR_N(log_[i].wr_id), seq[l]++);
		assert_int_equal(log_[i].imm, htobe32(0x100 + (uint32_t)l));
		assert_ptr_equal(log_[i].ah, r->ah);
		assert_int_equal(log_[i].qpn, 0xFFFFFF);
		assert_int_equal(log_[i].qkey, 0x1234);
	}
	assert_true(rt_ud_tx_own(&r->tx, r->tx.id_base));
	assert_true(rt_ud_tx_own(&r->tx, r->tx.id_base + LANES - 1));
	assert_false(rt_ud_tx_own(&r->tx, r->tx.id_base + LANES));
	assert_false(rt_ud_tx_own(&r->tx, r->tx.id_base - 1));
	rig_free(r);
}

/* A refused post is recorded in the lane's error, stops that lane, and
 * is handed back so the caller can fail its owner; what went out before
 * the refused work request is counted; the other lanes go on. */
static void a_failed_post_stops_its_lane(void **state)
{
	struct rig *r = rig_new(2, 0);
	struct rt_ud_lane *failed;

	(void)state;
	fail_at = 3; /* lane 1's second */
	failed = rt_ud_tx_post_due(&r->tx, r->tx.t0);
	assert_ptr_equal(failed, &r->tx.lanes[1]);
	assert_true(r->err[1].set);
	assert_non_null(strstr(r->err[1].reason, "ibv_post_send (UD SEND)"));
	assert_false(r->tx.lanes[1].ready);
	assert_int_equal(r->tx.lanes[1].posted, 1);
	assert_null(rt_ud_tx_post_due(&r->tx, r->tx.t0));
	assert_int_equal(r->tx.lanes[0].posted, 2);
	assert_int_equal(r->tx.lanes[1].posted, 1);
	assert_int_equal(r->tx.lanes[2].posted, 2);
	assert_int_equal(r->tx.posted, 5);
	rig_free(r);
}

/* Done when every lane has its count of completions; the time of each
 * lane's last one makes the transfer time. */
static void completions_are_counted_per_lane(void **state)
{
	struct rig *r = rig_new(2, 0);
	uint64_t t0 = r->tx.t0;
	char line[64];

	(void)state;
	assert_null(rt_ud_tx_post_due(&r->tx, t0));
	assert_false(rt_ud_tx_done(&r->tx));
	rt_ud_tx_completed(&r->tx, &r->tx.lanes[0], t0 + 1 * MS);
	rt_ud_tx_completed(&r->tx, &r->tx.lanes[0], t0 + 2 * MS);
	rt_ud_tx_completed(&r->tx, &r->tx.lanes[1], t0 + 3 * MS);
	rt_ud_tx_completed(&r->tx, &r->tx.lanes[2], t0 + 3 * MS);
	assert_int_equal(r->tx.lanes[0].t_done, t0 + 2 * MS);
	assert_int_equal(r->tx.lanes[1].t_done, 0);
	assert_false(rt_ud_tx_done(&r->tx));
	assert_true(rt_ud_tx_seconds(&r->tx) > 0.0019 && rt_ud_tx_seconds(&r->tx) < 0.0021);
	rt_ud_tx_progress(&r->tx, line, sizeof(line));
	assert_string_equal(line, "4 of 6 send completions");
	rt_ud_tx_completed(&r->tx, &r->tx.lanes[1], t0 + 4 * MS);
	rt_ud_tx_completed(&r->tx, &r->tx.lanes[2], t0 + 5 * MS);
	assert_true(rt_ud_tx_done(&r->tx));
	assert_int_equal(rt_ud_tx_completions(&r->tx), 6);
	assert_true(rt_ud_tx_seconds(&r->tx) > 0.0049 && rt_ud_tx_seconds(&r->tx) < 0.0051);
	rig_free(r);
}

/* Nothing to send is done at once, and posts nothing. */
static void a_zero_count_is_done_at_once(void **state)
{
	struct rig *r = rig_new(0, 0);

	(void)state;
	assert_true(rt_ud_tx_done(&r->tx));
	assert_null(rt_ud_tx_post_due(&r->tx, r->tx.t0));
	assert_int_equal(nlog, 0);
	assert_true(rt_ud_tx_seconds(&r->tx) == 0);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_rate_allows_one_at_once_then_rate_per_second),
		cmocka_unit_test(unpaced_turns_fill_each_lane_in_one_post),
		cmocka_unit_test(a_chain_is_at_most_the_list_max),
		cmocka_unit_test(paced_sends_follow_the_clock),
		cmocka_unit_test(datagrams_carry_sender_and_sequence),
		cmocka_unit_test(a_failed_post_stops_its_lane),
		cmocka_unit_test(completions_are_counted_per_lane),
		cmocka_unit_test(a_zero_count_is_done_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
