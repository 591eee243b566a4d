/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The blame pass's choices and conclusions (meshblame.h), over an
 * aggregate filled by hand: which links are re-tested, which hosts are
 * paired with which good ones, and the verdict the pairings give. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshblame.h"
#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

static const struct rt_mesh_limits lim = {.max_rtt_us = 100};

static void setup(struct rt_mesh_agg *g, uint32_t n)
{
	struct rt_error err = {0};

	assert_int_equal(rt_mesh_agg_init(g, n, 0, &err), 0);
	for (uint32_t i = 0; i < n; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = n};

		snprintf(h.host, sizeof(h.host), "n%u", i);
		assert_int_equal(rt_mesh_agg_hello(g, &h, &err), 0);
	}
}

/* A result of round r: RTT 10 us, or 500 us (bad by lim) when slow. */
static void put(struct rt_mesh_agg *g, uint32_t a, uint32_t b, uint32_t r, bool slow)
{
	struct rt_error err = {0};
	uint64_t rtt = slow ? 500000 : 10000;
	struct rt_mesh_result res = {.round = r, .a = a, .b = b, .status = RT_MESH_OK,
		.flags = RT_MESH_HAS_RTT, .connect_ns = 1000, .rtt_p50_ns = rtt,
		.rtt_p99_ns = rtt};

	assert_int_equal(rt_mesh_agg_add(g, &res, &err), 0);
}

static void judge(struct rt_mesh_agg *g)
{
	struct rt_error err = {0};

	assert_int_equal(rt_mesh_judge(g, &lim, &err), 0);
}

/* Rank 0's order: re-tests, judged, pairings, judged, concluded, judged.
 * bad(a, b) says whether the pair is bad from then on. */
static void blame_pass(struct rt_mesh_agg *g, bool (*bad)(uint32_t, uint32_t))
{
	struct rt_pair p[RT_MESH_RETEST_MAX + 2 * RT_MESH_BLAME_ENDS];
	uint32_t k;

	judge(g);
	k = rt_mesh_blame_retests(g, p);
	for (uint32_t i = 0; i < k; i++)
		put(g, p[i].a, p[i].b, 100, bad(p[i].a, p[i].b));
	judge(g);
	rt_mesh_blame_retested(g, k);
	k = rt_mesh_blame_pairings(g, 7, p);
	for (uint32_t i = 0; i < k; i++)
		put(g, p[i].a, p[i].b, 200, bad(p[i].a, p[i].b));
	judge(g);
	rt_mesh_blame_conclude(g);
	judge(g);
}

/* Two random rounds of 8 hosts: every link passes but host 5's. */
static void rounds_of_8(struct rt_mesh_agg *g, bool (*bad)(uint32_t, uint32_t))
{
	static const uint32_t pairs[][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7},
					    {1, 2}, {3, 4}, {5, 6}, {7, 0}};

	setup(g, 8);
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		put(g, pairs[i][0], pairs[i][1], (uint32_t)i / 4, bad(pairs[i][0], pairs[i][1]));
}

static bool host5(uint32_t a, uint32_t b)
{
	return a == 5 || b == 5;
}

static bool link45(uint32_t a, uint32_t b)
{
	return RT_MIN(a, b) == 4 && RT_MAX(a, b) == 5;
}

static bool never(uint32_t a, uint32_t b)
{
	(void)a;
	(void)b;
	return false;
}

/* Host 5 is slow with everyone: its two links are re-tested, still bad;
 * it and its partners 4 and 6 are paired with good hosts: 5's pairings
 * all bad, theirs good, so host 5 is the bad host, each link is its. */
static void bad_host_from_pairings(void **state)
{
	struct rt_mesh_agg g;
	const struct rt_mesh_blame_end *e;

	(void)state;
	rounds_of_8(&g, host5);
	blame_pass(&g, host5);
	assert_int_equal(g.blame.nre, 2);
	assert_int_equal(g.blame.flaky, 0);
	e = rt_mesh_blame_end_of(&g, 5);
	assert_non_null(e);
	assert_int_equal(e->np, 2);
	assert_int_equal(e->tested, 2);
	assert_int_equal(e->bad, 2);
	assert_int_equal(g.nodes[5].verdict, RT_NODE_BAD);
	assert_true(g.nodes[5].named);
	assert_int_equal(g.bad_nodes, 1);
	assert_int_equal(g.bad_links, 0);
	assert_int_equal(rt_mesh_blame_link(&g, 4, 5), RT_BLAME_HOST_B);
	assert_int_equal(rt_mesh_blame_link(&g, 5, 6), RT_BLAME_HOST_A);
	assert_int_equal(g.nodes[4].verdict, RT_NODE_OK);
	assert_int_equal(g.nodes[6].verdict, RT_NODE_OK);
	assert_false(g.ready);
	rt_mesh_agg_free(&g);
}

/* Only the link 4-5 is slow: both ends pass with good hosts, so the link
 * is named, not a host. */
static void bad_link_from_pairings(void **state)
{
	struct rt_mesh_agg g;

	(void)state;
	rounds_of_8(&g, link45);
	blame_pass(&g, link45);
	assert_int_equal(g.blame.nre, 1);
	assert_int_equal(g.blame.nends, 2);
	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(g.blame.ends[i].tested, 2);
		assert_int_equal(g.blame.ends[i].bad, 0);
	}
	assert_int_equal(rt_mesh_blame_link(&g, 4, 5), RT_BLAME_LINK);
	assert_int_equal(g.bad_nodes, 0);
	assert_int_equal(g.suspect_nodes, 0);
	assert_int_equal(g.bad_links, 1);
	assert_int_equal(rt_mesh_pair_bad(&g, 4, 5), RT_LINK_RTT_ABS);
	assert_false(g.ready);
	rt_mesh_agg_free(&g);
}

/* Slow once, good on re-test: flaky, with its first figures kept, and
 * READY; no host is paired. */
static void flaky_link_is_not_a_verdict(void **state)
{
	struct rt_mesh_agg g;

	(void)state;
	rounds_of_8(&g, link45);
	blame_pass(&g, never);
	assert_int_equal(g.blame.nre, 1);
	assert_int_equal(g.blame.flaky, 1);
	assert_int_equal(g.blame.re[0].state, RT_RETEST_FLAKY);
	assert_int_equal(g.blame.re[0].first.why, RT_LINK_RTT_ABS);
	assert_int_equal(g.blame.re[0].first.r.rtt_p50_ns, 500000);
	assert_int_equal(g.blame.nends, 0);
	assert_true(g.ready);
	rt_mesh_agg_free(&g);
}

/* A tournament of 12 where host 0 is bad with all 11: at most 4 of its
 * links are re-tested; the ends of those still bad are paired with hosts
 * whose one bad link is to host 0 (found bad: it does not count). */
static void retests_are_bounded(void **state)
{
	struct rt_mesh_agg g;
	struct rt_pair p[RT_MESH_RETEST_MAX];
	uint32_t per[12] = {0}, k;

	(void)state;
	setup(&g, 12);
	for (uint32_t a = 0; a < 12; a++)
		for (uint32_t b = a + 1; b < 12; b++)
			put(&g, a, b, 0, a == 0);
	judge(&g);
	k = rt_mesh_blame_retests(&g, p);
	assert_int_equal(k, RT_MESH_RETEST_PER_HOST);
	for (uint32_t i = 0; i < k; i++) {
		per[p[i].a]++;
		per[p[i].b]++;
	}
	assert_int_equal(per[0], RT_MESH_RETEST_PER_HOST);
	assert_int_equal(g.nodes[0].verdict, RT_NODE_BAD);
	rt_mesh_blame_retested(&g, k);
	k = rt_mesh_blame_pairings(&g, 1, p);
	/* 5 ends, 2 partners each; two ends that are each other's partner run once */
	assert_true(k >= 6 && k <= 2 * (1 + RT_MESH_RETEST_PER_HOST));
	assert_int_equal(g.blame.nends, 1 + RT_MESH_RETEST_PER_HOST);
	for (uint32_t i = 0; i < g.blame.nends; i++)
		assert_int_equal(g.blame.ends[i].np, 2);
	for (uint32_t i = 0; i < k; i++) /* never 0 with the other end of its link */
		assert_false((p[i].a == 0 && per[p[i].b]) || (p[i].b == 0 && per[p[i].a]));
	rt_mesh_agg_free(&g);
}

/* The pairing rules: two distinct partners whose links all passed, never
 * an end (so never the other end), and rounds of disjoint pairs. */
static void pairing_rules(void **state)
{
	struct rt_mesh_agg g;
	struct rt_pair p[2 * RT_MESH_BLAME_ENDS];
	uint32_t k, round_of[2 * RT_MESH_BLAME_ENDS], rounds;

	(void)state;
	rounds_of_8(&g, link45);
	judge(&g);
	assert_int_equal(rt_mesh_blame_retests(&g, p), 1);
	put(&g, 4, 5, 100, true);
	judge(&g);
	rt_mesh_blame_retested(&g, 1);
	k = rt_mesh_blame_pairings(&g, 3, p);
	assert_int_equal(k, 4);
	for (uint32_t i = 0; i < k; i++) {
		assert_true(p[i].b == 4 || p[i].b == 5);
		assert_true(p[i].a != 4 && p[i].a != 5);
		assert_true(rt_mesh_node_clean(&g, p[i].a));
		if (i % 2)
			assert_int_not_equal(p[i].a, p[i - 1].a);
	}
	rounds = rt_sched_disjoint(p, k, 8, 0, round_of);
	assert_int_equal(rounds, 2);
	for (uint32_t i = 0; i < k; i++)
		for (uint32_t j = i + 1; j < k; j++)
			if (round_of[i] == round_of[j])
				assert_true(p[i].a != p[j].a && p[i].a != p[j].b &&
					    p[i].b != p[j].a && p[i].b != p[j].b);
	rt_mesh_agg_free(&g);
}

/* The lab's four hosts, a tournament, host 3 slow with all: its three
 * links are re-tested, still bad; 3 has no good host left that is not
 * the other end of one of them, so it keeps its verdict (bad by its
 * counts); 0, 1 and 2 pair with each other (each pair once), pass, and
 * every link of 3 is 3's. */
static void host_bad_with_all(void **state)
{
	struct rt_mesh_agg g;
	struct rt_pair p[RT_MESH_RETEST_MAX];
	const struct rt_mesh_blame_end *e;
	uint32_t k;

	(void)state;
	setup(&g, 4);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = a + 1; b < 4; b++)
			put(&g, a, b, a + b, b == 3);
	judge(&g);
	assert_int_equal(rt_mesh_blame_retests(&g, p), 3);
	for (uint32_t i = 0; i < 3; i++)
		put(&g, p[i].a, p[i].b, 10, true);
	judge(&g);
	rt_mesh_blame_retested(&g, 3);
	k = rt_mesh_blame_pairings(&g, 5, p);
	assert_int_equal(k, 3); /* 0-1, 0-2, 1-2 */
	for (uint32_t i = 0; i < k; i++) {
		assert_true(p[i].a != 3 && p[i].b != 3);
		put(&g, p[i].a, p[i].b, 20, false);
	}
	assert_int_equal(g.blame.nends, 4);
	e = rt_mesh_blame_end_of(&g, 3);
	assert_non_null(e);
	assert_int_equal(e->np, 0);
	judge(&g);
	rt_mesh_blame_conclude(&g);
	judge(&g);
	for (uint32_t i = 0; i < 3; i++) {
		e = rt_mesh_blame_end_of(&g, i);
		assert_int_equal(e->np, 2);
		assert_int_equal(e->tested, 2);
		assert_int_equal(e->bad, 0);
		assert_int_equal(rt_mesh_blame_link(&g, i, 3), RT_BLAME_HOST_B);
	}
	assert_int_equal(g.nodes[3].verdict, RT_NODE_BAD);
	assert_int_equal(g.bad_nodes, 1);
	assert_int_equal(g.bad_links, 0);
	rt_mesh_agg_free(&g);
}

/* mesh report's way: rank 0's blame lines rebuild the ends, the results
 * of the latest rounds win whatever their order, the same verdict. */
static void report_rebuilds_the_verdict(void **state)
{
	struct rt_mesh_agg g;
	uint32_t p5[2] = {0, 2}, p4[2] = {1, 3};

	(void)state;
	setup(&g, 8);
	put(&g, 0, 5, 200, true); /* pairings first: lines come in any order */
	put(&g, 2, 5, 200, true);
	put(&g, 1, 4, 200, false);
	put(&g, 3, 4, 200, false);
	put(&g, 4, 5, 100, true);
	put(&g, 4, 5, 0, false); /* the first pass's, older */
	put(&g, 0, 1, 0, false);
	put(&g, 2, 3, 0, false);
	put(&g, 6, 7, 0, false);
	rt_mesh_blame_end_add(&g, 5, p5, 2);
	rt_mesh_blame_end_add(&g, 4, p4, 2);
	rt_mesh_blame_end_add(&g, 4, p4, 2); /* once per host */
	assert_int_equal(g.blame.nends, 2);
	judge(&g);
	rt_mesh_blame_conclude(&g);
	judge(&g);
	assert_int_equal(rt_mesh_blame_link(&g, 4, 5), RT_BLAME_HOST_B);
	assert_int_equal(g.nodes[5].verdict, RT_NODE_BAD);
	assert_int_equal(g.bad_links, 0);
	rt_mesh_agg_free(&g);
}

/* A pair of 2 rails crossed (4 results), two of them bad: re-tested once
 * as a pair, its worst (rail, rail_b) kept as the first result. */
static void crossed_pair_retested_once(void **state)
{
	struct rt_pair p[RT_MESH_RETEST_MAX];
	struct rt_mesh_agg g;
	struct rt_error err = {0};

	(void)state;
	setup(&g, 3);
	for (unsigned k = 0; k < 4; k++) {
		uint64_t rtt = k == 1 || k == 2 ? 500000 : 10000; /* rails 0-1, 1-0 slow */
		struct rt_mesh_result res = {.a = 0, .b = 1, .status = RT_MESH_OK,
			.flags = RT_MESH_HAS_RTT, .rtt_p50_ns = rtt, .rtt_p99_ns = rtt,
			.rail = (uint8_t)(k >> 1), .rail_b = (uint8_t)(k & 1u)};

		assert_int_equal(rt_mesh_agg_add(&g, &res, &err), 0);
	}
	put(&g, 0, 2, 0, false);
	put(&g, 1, 2, 0, false);
	judge(&g);
	assert_int_equal(g.bad_links, 2);
	assert_int_equal(rt_mesh_blame_retests(&g, p), 1);
	assert_true(p[0].a == 0 && p[0].b == 1);
	assert_true(g.blame.re[0].first.r.rail == 0 && g.blame.re[0].first.r.rail_b == 1);
	rt_mesh_agg_free(&g);
}

/* The link 4-5 bad by its counters as well: the pairings name no host,
 * so the end whose port alone counted link errors is named (its link);
 * both ends counting, or a retransmit counter alone, names none. */
static void port_that_counted(void **state)
{
	struct rt_mesh_agg g;
	struct rt_mesh_link l = {.r = {.a = 4, .b = 5, .status = RT_MESH_OK,
				       .flags = RT_MESH_HAS_CTR},
				 .why = RT_LINK_COUNTERS | RT_LINK_RTT_ABS};
	int symbol = rt_portctr_id("symbol_error"), retry = rt_portctr_id("local_ack_timeout_err");

	(void)state;
	assert_true(symbol >= 0 && retry >= 0);
	rounds_of_8(&g, link45);
	blame_pass(&g, link45);
	assert_int_equal(rt_mesh_blame_link(&g, 4, 5), RT_BLAME_LINK);
	l.r.ctr.n = 1;
	l.r.ctr.e[0] = (struct rt_mesh_ctr){.id = (uint8_t)symbol, .end = RT_MESH_END_B,
					    .delta = 12};
	assert_int_equal(rt_mesh_blame_of(&g, &l), RT_BLAME_PORT_B);
	assert_int_equal(rt_mesh_blame_rank(RT_BLAME_PORT_B, &l), 5);
	assert_string_equal(rt_blame_verdict_name(RT_BLAME_PORT_B), "bad-port");
	l.r.ctr.e[0].end = RT_MESH_END_A;
	assert_int_equal(rt_mesh_blame_of(&g, &l), RT_BLAME_PORT_A);
	assert_int_equal(rt_mesh_blame_rank(RT_BLAME_PORT_A, &l), 4);
	/* both ends counted: the pairings' word stands */
	l.r.ctr.n = 2;
	l.r.ctr.e[1] = (struct rt_mesh_ctr){.id = (uint8_t)symbol, .end = RT_MESH_END_B,
					    .delta = 3};
	assert_int_equal(rt_mesh_blame_of(&g, &l), RT_BLAME_LINK);
	/* retransmits name no end */
	l.r.ctr.n = 1;
	l.r.ctr.e[0] = (struct rt_mesh_ctr){.id = (uint8_t)retry, .end = RT_MESH_END_B,
					    .delta = 900};
	assert_int_equal(rt_mesh_blame_of(&g, &l), RT_BLAME_LINK);
	/* not bad by its counters: they are not evidence */
	l.r.ctr.e[0] = (struct rt_mesh_ctr){.id = (uint8_t)symbol, .end = RT_MESH_END_B,
					    .delta = 1};
	l.why = RT_LINK_RTT_ABS;
	assert_int_equal(rt_mesh_blame_of(&g, &l), RT_BLAME_LINK);
	assert_int_equal(rt_mesh_blame_rank(RT_BLAME_LINK, &l), -1);
	rt_mesh_agg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_host_from_pairings),
		cmocka_unit_test(bad_link_from_pairings),
		cmocka_unit_test(port_that_counted),
		cmocka_unit_test(flaky_link_is_not_a_verdict),
		cmocka_unit_test(retests_are_bounded),
		cmocka_unit_test(pairing_rules),
		cmocka_unit_test(host_bad_with_all),
		cmocka_unit_test(report_rebuilds_the_verdict),
		cmocka_unit_test(crossed_pair_retested_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
