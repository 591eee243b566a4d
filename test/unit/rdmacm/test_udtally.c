/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device-free parts of udtally: the accounting of received
 * datagrams and the receive ring's bookkeeping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cm_priv.h"
#include "rdmacm/udtally.h"
#include "rdmatest/verify.h"

#define SIZE 100

static enum rt_mc_class feed(struct rt_mc_tally *t, uint32_t sender, uint64_t seq)
{
	uint8_t buf[SIZE];
	uint32_t who;
	enum rt_mc_class c;

	rt_msg_fill(buf, sizeof(buf), sender, seq);
	c = rt_mc_tally_add(t, buf, sizeof(buf), 0x42, &who);
	assert_int_equal(who, sender);
	return c;
}

static void in_order_stream_completes(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 10, 1, SIZE);
	assert_int_equal(rt_mc_tally_missing(&t), 10); /* nobody heard yet */
	for (uint64_t i = 0; i < 10; i++) {
		assert_int_equal(feed(&t, 7, i), RT_MC_NEW);
		assert_int_equal(rt_mc_tally_missing(&t), 9 - i);
	}
	assert_int_equal(t.received, 10);
	assert_int_equal(t.distinct, 10);
	assert_int_equal(t.duplicates + t.out_of_order + t.foreign + t.corrupt, 0);
	assert_int_equal(t.nsnd, 1);
	rt_mc_tally_free(&t);
}

static void loss_duplicates_and_reordering(void **state)
{
	struct rt_mc_tally t;
	static const uint64_t order[] = { 0, 1, 3, 2, 3, 5, 9, 4 };

	(void)state;
	rt_mc_tally_init(&t, 10, 1, SIZE);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		feed(&t, 1, order[i]);
	/* 2 came after 3, 4 after 9; the second 3 is a duplicate;
	 * 6, 7 and 8 never came */
	assert_int_equal(t.received, 8);
	assert_int_equal(t.distinct, 7);
	assert_int_equal(t.out_of_order, 2);
	assert_int_equal(t.duplicates, 1);
	assert_int_equal(rt_mc_tally_missing(&t), 3);
	assert_int_equal(feed(&t, 1, 8), RT_MC_OUT_OF_ORDER);
	assert_int_equal(feed(&t, 1, 8), RT_MC_DUPLICATE);
	assert_int_equal(rt_mc_tally_missing(&t), 2);
	rt_mc_tally_free(&t);
}

static void each_sender_counts_on_its_own(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 4, 2, SIZE);
	for (uint64_t i = 0; i < 4; i++)
		feed(&t, 0xaaaa, i);
	/* a second sender is expected: four datagrams missing */
	assert_int_equal(rt_mc_tally_missing(&t), 4);
	/* interleaving of two senders is not reordering */
	feed(&t, 0xbbbb, 0);
	feed(&t, 0xbbbb, 1);
	feed(&t, 0xbbbb, 3);
	assert_int_equal(t.out_of_order, 0);
	assert_int_equal(rt_mc_tally_missing(&t), 1);
	/* a third, unexpected sender is a stranger: what it lacks is not
	 * missing */
	assert_int_equal(feed(&t, 0xcccc, 0), RT_MC_FOREIGN);
	assert_int_equal(rt_mc_tally_missing(&t), 1);
	assert_int_equal(t.nsnd, 3);
	rt_mc_tally_free(&t);
}

static void beyond_the_count(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 2, 1, SIZE);
	assert_int_equal(feed(&t, 3, 0), RT_MC_NEW);
	assert_int_equal(feed(&t, 3, 2), RT_MC_BEYOND);
	/* 2 was not counted, so 1 is simply next */
	assert_int_equal(feed(&t, 3, 1), RT_MC_NEW);
	assert_int_equal(t.beyond, 1);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	rt_mc_tally_free(&t);
}

/* A shortfall shaped like a -C or --senders mismatch is named as such;
 * one with gaps is loss, and gets no hint. */
static void mismatch_hints(void **state)
{
	struct rt_mc_tally t;
	char buf[160];

	(void)state;
	rt_mc_tally_init(&t, 20, 2, SIZE);
	assert_null(rt_mc_tally_hint(&t, buf, sizeof(buf))); /* nothing heard */
	for (uint64_t i = 0; i < 10; i++) {
		feed(&t, 1, i);
		feed(&t, 2, i);
	}
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "after datagram 10 of 20"));
	feed(&t, 2, 12); /* a gap: loss, not a count mismatch */
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "2 datagrams missing from gaps"));
	rt_mc_tally_free(&t);

	rt_mc_tally_init(&t, 3, 2, SIZE);
	for (uint64_t i = 0; i < 3; i++)
		feed(&t, 7, i);
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "heard 1 of 2 senders"));
	rt_mc_tally_free(&t);
}

/* With --senders 2 the first two senders heard are the
 * expected ones. A third is a stranger: its datagrams are foreign, its
 * shortfall is none of ours, and when an expected sender falls short the
 * hint names the stranger rather than letting it make up the count. */
static void a_sender_beyond_senders_is_a_stranger(void **state)
{
	struct rt_mc_tally t;
	char buf[224];

	(void)state;
	rt_mc_tally_init(&t, 5, 2, SIZE);
	for (uint64_t i = 0; i < 5; i++)
		feed(&t, 1, i);
	for (uint64_t i = 0; i < 3; i++)
		feed(&t, 2, i);
	for (uint64_t i = 0; i < 5; i++)
		assert_int_equal(feed(&t, 0xbad, i), RT_MC_FOREIGN);
	assert_int_equal(rt_mc_tally_strangers(&t), 1);
	assert_int_equal(t.foreign, 5);
	assert_int_equal(t.distinct, 8);
	assert_int_equal(rt_mc_tally_missing(&t), 2);
	assert_int_equal(rt_mc_tally_expected(&t), 10);
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "1 sender beyond --senders 2 (first: sender "
				    "id 0x00000bad) not counted; 1 of 2 senders "
				    "stopped short"));
	rt_mc_tally_free(&t);
}

/* A stranger that stops short does not fail a run whose expected
 * senders are complete. */
static void a_short_stranger_misses_nothing(void **state)
{
	struct rt_mc_tally t;
	char buf[224];

	(void)state;
	rt_mc_tally_init(&t, 5, 2, SIZE);
	for (uint64_t i = 0; i < 5; i++) {
		feed(&t, 1, i);
		feed(&t, 2, i);
	}
	feed(&t, 3, 0);
	assert_int_equal(rt_mc_tally_strangers(&t), 1);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	assert_int_equal(rt_mc_tally_expected(&t), 10);
	assert_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	rt_mc_tally_free(&t);
}

/* Upstream senders send uninitialised memory: counted, never checked. */
static void foreign_datagrams_count_towards_the_total(void **state)
{
	struct rt_mc_tally t;
	uint8_t junk[SIZE] = { 0 };
	uint32_t who = 99;

	(void)state;
	rt_mc_tally_init(&t, 3, 0, SIZE);
	assert_int_equal(rt_mc_tally_add(&t, junk, sizeof(junk), 0x11, &who), RT_MC_FOREIGN);
	assert_int_equal(who, 0);
	memset(junk, 0xa5, sizeof(junk));
	assert_int_equal(rt_mc_tally_add(&t, junk, sizeof(junk), 0x11, &who), RT_MC_FOREIGN);
	assert_int_equal(rt_mc_tally_missing(&t), 1);
	assert_int_equal(rt_mc_tally_add(&t, junk, sizeof(junk), 0x11, &who), RT_MC_FOREIGN);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	assert_int_equal(t.foreign, 3);
	assert_int_equal(t.corrupt, 0);
	/* another source QPN is another sender, judged against the count */
	rt_mc_tally_add(&t, junk, sizeof(junk), 0x12, &who);
	assert_int_equal(t.nsnd, 2);
	assert_int_equal(rt_mc_tally_missing(&t), 2);
	assert_int_equal(rt_mc_tally_expected(&t), 6);
	rt_mc_tally_free(&t);
}

/* Below the header size a datagram cannot name its sender. */
static void short_datagrams_are_unverified(void **state)
{
	struct rt_mc_tally t;
	uint8_t buf[10];
	uint32_t who;

	(void)state;
	rt_mc_tally_init(&t, 1, 1, sizeof(buf));
	rt_msg_fill(buf, sizeof(buf), 5, 0);
	assert_int_equal(rt_mc_tally_add(&t, buf, sizeof(buf), 1, &who), RT_MC_FOREIGN);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	assert_int_equal(t.wrong_size, 0);
	rt_mc_tally_free(&t);
}

static void corruption_is_caught_and_described(void **state)
{
	struct rt_mc_tally t;
	uint8_t buf[SIZE];
	uint32_t who;

	(void)state;
	rt_mc_tally_init(&t, 5, 1, SIZE);
	rt_msg_fill(buf, sizeof(buf), 0x1234, 2);
	buf[60] ^= 0x10;
	assert_int_equal(rt_mc_tally_add(&t, buf, sizeof(buf), 1, &who), RT_MC_CORRUPT);
	assert_int_equal(who, 0x1234);
	assert_int_equal(t.corrupt, 1);
	assert_int_equal(t.distinct, 0);
	assert_non_null(strstr(t.problem, "seq 2: corrupt at byte 60"));
	/* a truncated rdmatest datagram: its length field disagrees */
	rt_msg_fill(buf, sizeof(buf), 0x1234, 3);
	assert_int_equal(rt_mc_tally_add(&t, buf, 50, 1, &who), RT_MC_CORRUPT);
	assert_int_equal(t.wrong_size, 1);
	rt_mc_tally_free(&t);
}

static void wrong_size_is_noted(void **state)
{
	struct rt_mc_tally t;
	uint8_t buf[200];
	uint32_t who;

	(void)state;
	rt_mc_tally_init(&t, 1, 1, SIZE);
	rt_msg_fill(buf, sizeof(buf), 9, 0);
	assert_int_equal(rt_mc_tally_add(&t, buf, sizeof(buf), 1, &who), RT_MC_NEW);
	assert_int_equal(t.wrong_size, 1);
	assert_non_null(strstr(t.problem, "a datagram of 200 bytes, expected 100"));
	rt_mc_tally_free(&t);
}

static void zero_count_is_complete_at_once(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 0, 4, SIZE);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	assert_int_equal(feed(&t, 1, 0), RT_MC_BEYOND);
	rt_mc_tally_free(&t);
}

static void large_counts_do_not_overflow(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, UINT64_MAX / 2, 65536, SIZE);
	assert_true(rt_mc_tally_missing(&t) == UINT64_MAX);
	rt_mc_tally_free(&t);
	rt_mc_tally_init(&t, 1 << 20, 1, SIZE);
	assert_int_equal(feed(&t, 1, (1 << 20) - 1), RT_MC_NEW);
	/* far behind the newest: outside the window, neither counted nor
	 * mistaken for a duplicate */
	assert_int_equal(feed(&t, 1, 0), RT_MC_LATE);
	assert_int_equal(feed(&t, 1, (1 << 20) - RT_MC_WINDOW), RT_MC_OUT_OF_ORDER);
	assert_int_equal(feed(&t, 1, (1 << 20) - RT_MC_WINDOW), RT_MC_DUPLICATE);
	assert_int_equal(rt_mc_tally_missing(&t), (1 << 20) - 2);
	assert_int_equal(t.late, 1);
	rt_mc_tally_free(&t);
}

/* The three causes of a shortfall are told apart: a receive
 * ring that ran dry, loss on the way, a sender that stopped. */
static void overrun_is_named(void **state)
{
	struct rt_mc_tally t;
	char buf[224];

	(void)state;
	/* --senders 1 -C 20: a ring of 20; four senders interleave, the
	 * 20th datagram takes the last receive, the rest are dropped */
	rt_mc_tally_init(&t, 20, 1, SIZE);
	t.ring = 20;
	t.ring_max = 4096;
	for (uint64_t i = 0; i < 5; i++)
		for (uint32_t s = 1; s <= 4; s++)
			feed(&t, s, i);
	rt_mc_tally_dry(&t);
	/* senders 2 to 4 are beyond --senders 1: only sender 1's loss counts */
	assert_int_equal(rt_mc_tally_missing(&t), 15);
	assert_int_equal(rt_mc_tally_overrun(&t), 15);
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_string_equal(buf, "3 senders beyond --senders 1 (first: sender id "
			    "0x00000002) not counted; receive ring of 20 per QP "
			    "overflowed: 15 datagrams arrived while none were posted; "
			    "give --senders 4 or --rate");
	rt_mc_tally_free(&t);

	/* a gap across a dry spell, the ring already at its ceiling */
	rt_mc_tally_init(&t, 20, 0, SIZE);
	t.ring = t.ring_max = 8;
	for (uint64_t i = 0; i < 10; i++)
		feed(&t, 9, i);
	rt_mc_tally_dry(&t);
	for (uint64_t i = 15; i < 20; i++)
		feed(&t, 9, i);
	assert_int_equal(rt_mc_tally_missing(&t), 5);
	assert_int_equal(rt_mc_tally_overrun(&t), 5);
	rt_mc_tally_hint(&t, buf, sizeof(buf));
	assert_non_null(strstr(buf, "ring of 8 per QP overflowed: 5 datagrams"));
	assert_non_null(strstr(buf, "; pace the senders with --rate"));
	rt_mc_tally_free(&t);
}

static void loss_on_the_way_is_not_an_overrun(void **state)
{
	struct rt_mc_tally t;
	char buf[200];

	(void)state;
	rt_mc_tally_init(&t, 20, 0, SIZE);
	t.ring = t.ring_max = 64;
	for (uint64_t i = 0; i < 5; i++)
		feed(&t, 3, i);
	feed(&t, 3, 7); /* 5 and 6 lost while receives were posted */
	rt_mc_tally_dry(&t); /* a dry spell later, with no gap across it */
	for (uint64_t i = 8; i < 20; i++)
		feed(&t, 3, i);
	assert_int_equal(rt_mc_tally_missing(&t), 2);
	assert_int_equal(rt_mc_tally_overrun(&t), 0);
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_string_equal(buf, "2 datagrams missing from gaps in the senders' "
			    "sequences while receives were posted: dropped on the way");
	rt_mc_tally_free(&t);
}

static void a_stopped_sender_is_not_an_overrun(void **state)
{
	struct rt_mc_tally t;
	char buf[200];

	(void)state;
	rt_mc_tally_init(&t, 20, 0, SIZE);
	t.ring = t.ring_max = 64;
	rt_mc_tally_dry(&t); /* ran dry before the sender's last datagram */
	for (uint64_t i = 0; i < 10; i++) {
		feed(&t, 5, i);
		feed(&t, 6, i);
	}
	assert_int_equal(rt_mc_tally_overrun(&t), 0);
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "nothing came after datagram 10 of 20 of every "
				    "sender, none missing before: a sender stopped"));
	/* one sender complete, the other stopped: still no gap */
	for (uint64_t i = 10; i < 20; i++)
		feed(&t, 5, i);
	rt_mc_tally_hint(&t, buf, sizeof(buf));
	assert_non_null(strstr(buf, "1 of 2 senders stopped short with none missing "
				    "before (one after datagram 10 of 20)"));
	rt_mc_tally_free(&t);
}

/* Without --senders every sender heard is judged; nothing heard is one
 * sender's count short. */
static void senders_are_learned(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 20, 0, SIZE);
	assert_int_equal(rt_mc_tally_missing(&t), 20);
	for (uint64_t i = 0; i < 20; i++) {
		feed(&t, 1, i);
		feed(&t, 2, i);
	}
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	assert_int_equal(rt_mc_tally_expected(&t), 40);
	rt_mc_tally_free(&t);
}

/* A hostile group cannot make the tally grow: past
 * RT_MC_SENDERS_MAX senders the datagrams count as foreign, and the
 * senders already tracked are still found. */
static void tracked_senders_are_bounded(void **state)
{
	struct rt_mc_tally t;
	uint8_t junk[SIZE] = { 0 };
	uint32_t who;

	(void)state;
	rt_mc_tally_init(&t, 1 << 20, 0, SIZE);
	for (uint32_t id = 1; id <= RT_MC_SENDERS_MAX + 50; id++)
		assert_int_equal(feed(&t, id * 0x10001u, 0),
				 id <= RT_MC_SENDERS_MAX ? RT_MC_NEW : RT_MC_FOREIGN);
	assert_int_equal(t.nsnd, RT_MC_SENDERS_MAX);
	assert_true(t.cap <= RT_MC_SENDERS_MAX);
	assert_int_equal(t.foreign, 50);
	assert_int_equal(t.untracked, 50);
	/* upstream datagrams from a new QPN: untracked too */
	assert_int_equal(rt_mc_tally_add(&t, junk, sizeof(junk), 77, &who), RT_MC_FOREIGN);
	assert_int_equal(t.untracked, 51);
	for (uint32_t id = 1; id <= RT_MC_SENDERS_MAX; id++) {
		assert_int_equal(feed(&t, id * 0x10001u, 0), RT_MC_DUPLICATE);
		assert_int_equal(feed(&t, id * 0x10001u, 1), RT_MC_NEW);
	}
	assert_int_equal(t.distinct, 2 * RT_MC_SENDERS_MAX);
	rt_mc_tally_free(&t);
}

static void the_window_slides(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 5000, 1, SIZE);
	assert_int_equal(feed(&t, 4, 0), RT_MC_NEW);
	assert_int_equal(feed(&t, 4, 2000), RT_MC_NEW);
	assert_int_equal(feed(&t, 4, 1500), RT_MC_OUT_OF_ORDER);
	assert_int_equal(feed(&t, 4, 1500), RT_MC_DUPLICATE);
	assert_int_equal(feed(&t, 4, 500), RT_MC_LATE);
	assert_int_equal(feed(&t, 4, 2001), RT_MC_NEW);
	/* the bits of seqs the window passed over were cleared */
	assert_int_equal(feed(&t, 4, 2001 - RT_MC_WINDOW + 1), RT_MC_OUT_OF_ORDER);
	assert_int_equal(t.distinct, 5);
	assert_int_equal(t.received, t.distinct + t.duplicates + t.late);
	rt_mc_tally_free(&t);
}

static void ring_slots_stay_under_the_ceiling(void **state)
{
	(void)state;
	assert_int_equal(rt_mc_ring_slots(UINT64_MAX, 1, 140, 0), RT_MC_RING_MAX);
	assert_int_equal(rt_mc_ring_slots(40, 1, 140, 0), 40);
	assert_int_equal(rt_mc_ring_slots(0, 1, 140, 0), 1);
	assert_int_equal(rt_mc_ring_slots(UINT64_MAX, 1, 4136, 0), RT_MC_RING_QP_BYTES / 4136);
	assert_int_equal(rt_mc_ring_slots(UINT64_MAX, 1024, 140, 0),
			 RT_MC_RING_BYTES / 1024 / 140);
	assert_int_equal(rt_mc_ring_slots(UINT64_MAX, 1024, 4136, 0), 15);
	assert_int_equal(rt_mc_ring_slots(UINT64_MAX, 1, 140, 100), 100);
}

/* A completion that takes the last posted receive is the ring running
 * dry; one with receives still posted is not. */
static void ring_knows_when_it_ran_dry(void **state)
{
	struct rt_mc_ring r = { .slots = 4, .posted = 4 };
	uint32_t pending[4];

	(void)state;
	r.pending = pending;
	assert_false(rt_mc_ring_take(&r, 0));
	assert_false(rt_mc_ring_take(&r, 1));
	assert_false(rt_mc_ring_take(&r, 2));
	assert_true(rt_mc_ring_take(&r, 3));
	assert_int_equal(r.dry, 1);
	assert_int_equal(r.npending, 4);
	assert_int_equal(pending[3], 3);
	assert_null(rt_mc_ring_payload(&r, 0)); /* no buffer */
}

/* The reactor reads a bounded number of completions per round. While a
 * CQ still holds more, a refill would raise `posted` past completions the
 * device queued while the ring was empty, and the dry spell would never
 * be seen: no repost until the CQ has been read to its end. */
static void ring_waits_for_the_cq_backlog_before_refilling(void **state)
{
	struct rt_buf none = { 0 };
	struct rt_mc_ring r = { .buf = &none, .slots = 4, .slot_len = 64, .posted = 4 };
	struct rt_conn c = { .cq_backlog = true };
	uint32_t pending[4];

	(void)state;
	r.pending = pending;
	assert_false(rt_mc_ring_take(&r, 0));
	assert_false(rt_mc_ring_take(&r, 1));
	assert_int_equal(rt_mc_ring_refill(&r, &c), 0);
	assert_int_equal(r.posted, 4);
	assert_int_equal(r.npending, 2);
	assert_false(rt_mc_ring_take(&r, 2));
	assert_true(rt_mc_ring_take(&r, 3)); /* the dry spell is seen */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_order_stream_completes),
		cmocka_unit_test(loss_duplicates_and_reordering),
		cmocka_unit_test(each_sender_counts_on_its_own),
		cmocka_unit_test(beyond_the_count),
		cmocka_unit_test(mismatch_hints),
		cmocka_unit_test(a_sender_beyond_senders_is_a_stranger),
		cmocka_unit_test(a_short_stranger_misses_nothing),
		cmocka_unit_test(foreign_datagrams_count_towards_the_total),
		cmocka_unit_test(short_datagrams_are_unverified),
		cmocka_unit_test(corruption_is_caught_and_described),
		cmocka_unit_test(wrong_size_is_noted),
		cmocka_unit_test(zero_count_is_complete_at_once),
		cmocka_unit_test(large_counts_do_not_overflow),
		cmocka_unit_test(overrun_is_named),
		cmocka_unit_test(loss_on_the_way_is_not_an_overrun),
		cmocka_unit_test(a_stopped_sender_is_not_an_overrun),
		cmocka_unit_test(senders_are_learned),
		cmocka_unit_test(tracked_senders_are_bounded),
		cmocka_unit_test(the_window_slides),
		cmocka_unit_test(ring_slots_stay_under_the_ceiling),
		cmocka_unit_test(ring_knows_when_it_ran_dry),
		cmocka_unit_test(ring_waits_for_the_cq_backlog_before_refilling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
