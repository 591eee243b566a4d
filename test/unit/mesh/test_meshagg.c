/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshagg.h"
#include "rdmatest/portctr.h"
#include "mesh/sched.h"
#include "rdmatest/util.h"

static const struct rt_mesh_limits relative = {.rtt_factor = 2.1, .bw_fraction = 0.93};

static void say_hello(struct rt_mesh_agg *g, uint32_t n, uint32_t skip)
{
	for (uint32_t i = 0; i < n; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = n};
		struct rt_error err = {0};

		if (i == skip)
			continue;
		snprintf(h.host, sizeof(h.host), "n%u", i);
		assert_int_equal(rt_mesh_agg_hello(g, &h, &err), 0);
	}
}

static struct rt_mesh_result ok(uint32_t a, uint32_t b, double rtt_us, double gbps)
{
	return (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_OK,
		.flags = RT_MESH_HAS_RTT | RT_MESH_HAS_BW, .connect_ns = 500000,
		.rtt_p50_ns = (uint64_t)(rtt_us * 1e3),
		.rtt_p99_ns = (uint64_t)(rtt_us * 2e3), .mbps = (uint64_t)(gbps * 1e3),
		.mbps_rev = (uint64_t)(gbps * 1e3)};
}

static struct rt_mesh_result failed(uint32_t a, uint32_t b)
{
	return (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_FAILED};
}

/* Every test runs on both storages (meshagg.h): the state says which. */
static const bool dense = true, sparse = false;

static void init(struct rt_mesh_agg *g, uint32_t n, void **state)
{
	struct rt_error err = {0};

	assert_int_equal(rt_mesh_agg_init(g, n, 0, &err), 0);
	if (*(const bool *)*state)
		rt_mesh_agg_plan(g, (uint64_t)n * (n - 1) / 2);
	assert_int_equal(g->dense != NULL, *(const bool *)*state);
}

static void add(struct rt_mesh_agg *g, struct rt_mesh_result r)
{
	struct rt_error err = {0};

	assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
}

static void judge(struct rt_mesh_agg *g, const struct rt_mesh_limits *lim)
{
	struct rt_error err = {0};

	assert_int_equal(rt_mesh_judge(g, lim, &err), 0);
}

/* A full tournament of healthy nodes: READY, medians from every pair. */
static void all_healthy(void **state)
{
	struct rt_mesh_agg g;

	init(&g, 6, state);
	say_hello(&g, 6, UINT32_MAX);
	for (uint32_t a = 0; a < 6; a++)
		for (uint32_t b = a + 1; b < 6; b++)
			add(&g, ok(b, a, 10 + a, 95 + b)); /* either order */
	judge(&g, &relative);
	assert_true(g.ready);
	assert_int_equal(g.nlinks, 15);
	assert_true(g.median_rtt_us > 10 && g.median_rtt_us < 15);
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(g.nodes[i].verdict, RT_NODE_OK);
		assert_int_equal(g.nodes[i].tested, 5);
	}
	rt_mesh_agg_free(&g);
}

/* One node whose every test fails is the bad node; its partners stay
 * ok; no link is blamed on its own. */
static void one_bad_node(void **state)
{
	struct rt_mesh_agg g;

	init(&g, 5, state);
	say_hello(&g, 5, UINT32_MAX);
	for (uint32_t a = 0; a < 5; a++)
		for (uint32_t b = a + 1; b < 5; b++)
			add(&g, a == 2 || b == 2 ? failed(a, b) : ok(a, b, 10, 100));
	judge(&g, &relative);
	assert_false(g.ready);
	assert_int_equal(g.nodes[2].verdict, RT_NODE_BAD);
	assert_int_equal(g.bad_nodes, 1);
	for (uint32_t i = 0; i < 5; i++)
		if (i != 2)
			assert_int_equal(g.nodes[i].verdict, RT_NODE_OK);
	rt_mesh_agg_free(&g);
}

/* A broken node and one bad link in a small mesh: the node's failures
 * explain its partners' bad links, so only it is bad, and the one other
 * bad link is named (counted alone, 2 of 3 bad made node 0 bad too). */
static void bad_node_does_not_blame_partners(void **state)
{
	struct rt_mesh_agg g;

	init(&g, 4, state);
	say_hello(&g, 4, UINT32_MAX);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = a + 1; b < 4; b++)
			add(&g, b == 2 || a == 2 || (a == 0 && b == 1) ? failed(a, b) :
				ok(a, b, 10, 100));
	judge(&g, &relative);
	assert_int_equal(g.nodes[0].bad, 2); /* its own counts are kept */
	assert_int_equal(g.nodes[2].verdict, RT_NODE_BAD);
	assert_int_equal(g.nodes[0].verdict, RT_NODE_OK);
	assert_int_equal(g.nodes[1].verdict, RT_NODE_OK);
	assert_int_equal(g.nodes[3].verdict, RT_NODE_OK);
	assert_int_equal(g.bad_nodes, 1);
	assert_int_equal(g.bad_links, 1); /* 0-1; 2's three are 2's */
	rt_mesh_agg_free(&g);
}

/* A slow link between two otherwise healthy nodes: a bad link, an RTT
 * outlier against the median, and no bad node. An absolute ceiling
 * catches it too; a bandwidth floor catches a slow pair. */
static void degraded_link_and_thresholds(void **state)
{
	struct rt_mesh_agg g;
	struct rt_mesh_iter it;
	struct rt_mesh_link l;
	struct rt_mesh_limits abs = {.max_rtt_us = 20, .min_gbps = 90};

	init(&g, 4, state);
	say_hello(&g, 4, UINT32_MAX);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = a + 1; b < 4; b++)
			add(&g, ok(a, b, a == 1 && b == 3 ? 50 : 10, a == 0 && b == 2 ? 40 : 100));
	judge(&g, &relative);
	assert_false(g.ready);
	assert_int_equal(g.bad_nodes, 0);
	assert_int_equal(g.bad_links, 2);
	rt_mesh_links(&g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		uint32_t want = l.r.a == 1 && l.r.b == 3 ? RT_LINK_RTT_REL :
				l.r.a == 0 && l.r.b == 2 ? RT_LINK_BW_REL : 0;

		assert_int_equal(l.why, want);
	}
	judge(&g, &abs);
	rt_mesh_links(&g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		uint32_t want = l.r.a == 1 && l.r.b == 3 ? RT_LINK_RTT_ABS :
				l.r.a == 0 && l.r.b == 2 ? RT_LINK_BW_ABS : 0;

		assert_int_equal(l.why, want);
	}
	rt_mesh_agg_free(&g);
}

/* Bandwidth has two directions: a link slow one way only is bad, judged
 * by its slower direction against the median of the links' slower
 * directions, and the figures keep their direction when the ends are
 * swapped to a < b. */
static void one_direction_slow(void **state)
{
	struct rt_mesh_agg g;
	struct rt_mesh_iter it;
	struct rt_mesh_link l;
	struct rt_mesh_limits abs = {.min_gbps = 90};
	struct rt_mesh_result slow = ok(2, 0, 10, 100);

	slow.mbps_rev = 30000; /* 0 to 2 (b to a as tested) */
	init(&g, 4, state);
	say_hello(&g, 4, UINT32_MAX);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = a + 1; b < 4; b++)
			add(&g, a == 0 && b == 2 ? slow : ok(a, b, 10, 100 + a + b));
	judge(&g, &relative);
	assert_true(g.median_gbps > 100 && g.median_gbps < 110);
	assert_int_equal(g.bad_links, 1);
	rt_mesh_links(&g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		bool slow_one = l.r.a == 0 && l.r.b == 2;

		assert_int_equal(l.why, slow_one ? RT_LINK_BW_REL : 0);
		if (slow_one) {
			assert_int_equal(l.r.mbps, 30000);     /* 0 to 2 */
			assert_int_equal(l.r.mbps_rev, 100000); /* 2 to 0 */
			assert_true(rt_mesh_gbps(&l.r) == 30.0);
		}
	}
	judge(&g, &abs);
	assert_int_equal(g.bad_links, 1);
	rt_mesh_agg_free(&g);
}

/* --min-line-rate: a link below F x the smaller of its ends' payload
 * rates is bad, however the cluster's median fares (all are slow here);
 * a link with an end that knew no rate is not judged by it. Ranks 0-2 are
 * 400G RoCE at MTU 4096 (392.149 Gb/s), 3 a 200G port (196), 4 unknown. */
static void line_rate(void **state)
{
	static const uint32_t pay[] = {392149, 392149, 392149, 196000, 0};
	struct rt_mesh_limits lim = {.min_line_rate = 0.9};
	struct rt_mesh_agg g;
	struct rt_mesh_iter it;
	struct rt_mesh_link l;
	struct rt_error err = {0};

	init(&g, 5, state);
	for (uint32_t i = 0; i < 5; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 5, .payload_mbps = pay[i]};

		snprintf(h.host, sizeof(h.host), "n%u", i);
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	add(&g, ok(0, 1, 10, 340));   /* < 0.9 x 392.149 = 352.93 */
	add(&g, ok(0, 2, 10, 353));   /* above it */
	add(&g, ok(1, 2, 10, 352.9)); /* 352.900 < 352.934 */
	add(&g, ok(0, 3, 10, 180));   /* 0.9 x 196 = 176.4 */
	add(&g, ok(1, 3, 10, 176));
	add(&g, ok(2, 4, 10, 1));     /* rank 4's rate unknown */
	judge(&g, &lim);
	assert_true(rt_mesh_line_gbps(&g, 0, 3) == 196.0);
	assert_true(rt_mesh_line_gbps(&g, 4, 2) == 0);
	rt_mesh_links(&g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		bool slow = (l.r.a == 0 && l.r.b == 1) || (l.r.a == 1 && l.r.b == 2) ||
			    (l.r.a == 1 && l.r.b == 3);

		assert_int_equal(l.why, slow ? RT_LINK_LINE_RATE : 0);
	}
	assert_false(g.ready);
	/* off: the same links pass */
	judge(&g, &(struct rt_mesh_limits){0});
	assert_int_equal(g.bad_links, 0);
	rt_mesh_agg_free(&g);
}

/* A node that never said hello is absent; its failed pairs are not held
 * against its partners; a re-test replaces the earlier result. */
static void absent_and_retest(void **state)
{
	struct rt_mesh_agg g;

	init(&g, 4, state);
	say_hello(&g, 4, 3);
	add(&g, ok(0, 1, 10, 100));
	add(&g, ok(1, 2, 10, 100));
	add(&g, failed(0, 2));
	add(&g, ok(2, 0, 10, 100)); /* the re-test passed */
	add(&g, (struct rt_mesh_result){.a = 0, .b = 3, .status = RT_MESH_ABSENT});
	add(&g, failed(1, 3));
	judge(&g, &relative);
	assert_false(g.ready);
	assert_int_equal(g.absent_nodes, 1);
	assert_int_equal(g.nodes[3].verdict, RT_NODE_ABSENT);
	assert_int_equal(g.bad_links, 0);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(g.nodes[i].verdict, RT_NODE_OK);
		assert_int_equal(g.nodes[i].tested, 2);
	}
	rt_mesh_agg_free(&g);
}

/* A node lost in the last round has one failed pair among passed ones:
 * the failure alone would be a bad link; lost, the node is bad and its
 * partner and their link are not blamed. A lost node without a failed
 * pair, or one that never said hello, is judged as before. */
static void lost_node_is_named(void **state)
{
	struct rt_mesh_agg g;

	init(&g, 5, state);
	say_hello(&g, 5, 4);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = a + 1; b < 4; b++)
			add(&g, a == 0 && b == 3 ? failed(a, b) : ok(a, b, 10, 95));
	judge(&g, &relative);
	assert_int_equal(g.bad_nodes, 0);
	assert_int_equal(g.bad_links, 1); /* before: the link's fault */
	rt_mesh_agg_lost(&g, 3);
	rt_mesh_agg_lost(&g, 1); /* lost at the end, nothing failed */
	rt_mesh_agg_lost(&g, 4); /* absent: stays absent */
	rt_mesh_agg_lost(&g, 9); /* outside the mesh: ignored */
	judge(&g, &relative);
	assert_int_equal(g.nodes[3].verdict, RT_NODE_BAD);
	assert_int_equal(g.nodes[0].verdict, RT_NODE_OK);
	assert_int_equal(g.nodes[1].verdict, RT_NODE_OK);
	assert_int_equal(g.nodes[4].verdict, RT_NODE_ABSENT);
	assert_false(g.nodes[4].lost);
	assert_int_equal(g.bad_nodes, 1);
	assert_int_equal(g.bad_links, 0);
	rt_mesh_agg_free(&g);
}

/* A small xorshift: the same pseudo-random mesh for both storages. */
static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* n ranks, every pair in a scrambled order and either direction, some
 * failed, timed out or re-tested, rank 4 absent, figures spread. */
static void random_mesh(struct rt_mesh_agg *g, uint32_t n, bool dense_storage, uint64_t seed)
{
	struct rt_error err = {0};
	uint64_t x = seed;

	assert_int_equal(rt_mesh_agg_init(g, n, 0, &err), 0);
	if (dense_storage)
		rt_mesh_agg_plan(g, (uint64_t)n * (n - 1) / 2 + n);
	say_hello(g, n, 4);
	for (uint32_t k = 0; k < n * (n - 1) / 2 + n; k++) {
		uint32_t a = (uint32_t)(next(&x) % n), b = (uint32_t)(next(&x) % n);
		uint64_t v = next(&x);
		struct rt_mesh_result r = ok(a, b, 5 + (double)(v % 4000) / 100,
					     60 + (double)(v >> 12 & 0xffff) / 1000);

		if (a == b)
			continue;
		r.mbps_rev = 40000 + (v >> 30) % 60000;
		if (v % 17 == 0)
			r = failed(a, b);
		else if (v % 19 == 0)
			r = (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_TIMEOUT};
		else if (v % 23 == 0)
			r.flags = RT_MESH_HAS_RTT; /* no bandwidth test */
		if (a == 4 || b == 4)
			r = (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_ABSENT};
		add(g, r);
	}
}

/* The two storages of one set of results: the same links in the same
 * order, the same reasons, medians, node verdicts and run verdict. */
static void dense_and_sparse_agree(void **state)
{
	const struct rt_mesh_limits lims[] = {
		relative, {.max_rtt_us = 30, .min_gbps = 70, .min_links = 3},
		{.rtt_factor = 1.5, .bw_fraction = 0.98},
	};

	(void)state;
	for (size_t t = 0; t < ARRAY_SIZE(lims); t++) {
		struct rt_mesh_agg d, sp;
		struct rt_mesh_iter id, is;
		struct rt_mesh_link ld, ls;

		random_mesh(&d, 23, true, 7 + t);
		random_mesh(&sp, 23, false, 7 + t);
		assert_non_null(d.dense);
		assert_null(sp.dense);
		judge(&d, &lims[t]);
		judge(&sp, &lims[t]);
		assert_true(d.nlinks > 100);
		assert_int_equal(d.nlinks, sp.nlinks);
		assert_true(d.median_rtt_us == sp.median_rtt_us);
		assert_true(d.median_gbps == sp.median_gbps);
		assert_int_equal(d.bad_links, sp.bad_links);
		assert_int_equal(d.ready, sp.ready);
		for (uint32_t i = 0; i < d.n; i++) {
			assert_int_equal(d.nodes[i].verdict, sp.nodes[i].verdict);
			assert_int_equal(d.nodes[i].bad, sp.nodes[i].bad);
			assert_int_equal(d.nodes[i].tested, sp.nodes[i].tested);
		}
		rt_mesh_links(&d, &id);
		rt_mesh_links(&sp, &is);
		while (rt_mesh_link_next(&id, &ld)) {
			assert_true(rt_mesh_link_next(&is, &ls));
			assert_memory_equal(&ld, &ls, sizeof(ld));
			assert_true(ld.r.a < ld.r.b);
			assert_true(rt_mesh_link_of(&sp, ld.r.b, ld.r.a, &ls));
			assert_memory_equal(&ld, &ls, sizeof(ld));
		}
		assert_false(rt_mesh_link_next(&is, &ls));
		rt_mesh_agg_free(&d);
		rt_mesh_agg_free(&sp);
	}
}

/* A re-test (a later round) replaces the earlier result of its pair,
 * whichever way round it came, also after a judgement (the blame pass
 * adds results to a judged aggregate). */
static void retest_replaces_the_earlier_result(void **state)
{
	struct rt_mesh_agg g;
	struct rt_mesh_link l;
	struct rt_mesh_result later = ok(2, 1, 12, 90), again = ok(1, 0, 11, 100);

	later.mbps_rev = 50000; /* 1 to 2 */
	later.round = again.round = 1;
	init(&g, 3, state);
	say_hello(&g, 3, UINT32_MAX);
	add(&g, ok(0, 1, 10, 100));
	add(&g, ok(0, 2, 10, 100));
	add(&g, failed(1, 2));
	judge(&g, &relative);
	assert_true(rt_mesh_link_of(&g, 1, 2, &l));
	assert_int_equal(l.r.status, RT_MESH_FAILED);
	assert_int_equal(g.nodes[1].bad, 1);
	add(&g, later);
	add(&g, again);
	judge(&g, &(struct rt_mesh_limits){0});
	assert_int_equal(g.nres, 5);
	assert_int_equal(g.nlinks, 3);
	assert_true(rt_mesh_link_of(&g, 1, 2, &l));
	assert_int_equal(l.r.status, RT_MESH_OK);
	assert_int_equal(l.r.rtt_p50_ns, 12000);
	assert_int_equal(l.r.mbps, 50000);     /* 1 to 2 */
	assert_int_equal(l.r.mbps_rev, 90000); /* 2 to 1 */
	assert_true(rt_mesh_link_of(&g, 0, 1, &l));
	assert_int_equal(l.r.rtt_p50_ns, 11000);
	assert_int_equal(g.nodes[1].bad, 0);
	assert_true(g.ready);
	assert_false(rt_mesh_link_of(&g, 1, 1, &l));
	assert_false(rt_mesh_link_of(&g, 1, 3, &l));
	rt_mesh_agg_free(&g);
}

/* The stored figures are 32-bit: nanoseconds exact below 2,147,483,000,
 * whole microseconds above, saturating at 2,149,631,778 us; Mbit/s
 * saturating at 2^32 - 1. The order holds throughout, so a saturated RTT
 * still misses a ceiling. */
static void figures_saturate_in_32_bits(void **state)
{
	struct rt_mesh_agg g;
	struct rt_mesh_link l;
	struct rt_mesh_result r = ok(0, 1, 10, 100);

	r.connect_ns = 2147482999;
	r.rtt_p50_ns = 2147483000ull + 1999;
	r.rtt_p99_ns = UINT64_MAX;
	r.mbps = 1ull << 32;
	r.mbps_rev = UINT32_MAX - 1ull;
	init(&g, 3, state);
	say_hello(&g, 3, UINT32_MAX);
	add(&g, r);
	r = ok(1, 2, 10, 100);
	r.connect_ns = 5000000000123ull; /* past the microseconds too */
	r.rtt_p50_ns = 2149631778000ull - 1;
	r.rtt_p99_ns = 2149631778000ull + 5000;
	r.mbps = UINT64_MAX;
	add(&g, r);
	judge(&g, &(struct rt_mesh_limits){.max_rtt_us = 2e9});
	assert_true(rt_mesh_link_of(&g, 0, 1, &l));
	assert_int_equal(l.r.connect_ns, 2147482999);
	assert_int_equal(l.r.rtt_p50_ns, 2147483000ull + 1000);
	assert_int_equal(l.r.rtt_p99_ns, 2149631778000ull);
	assert_int_equal(l.r.mbps, UINT32_MAX);
	assert_int_equal(l.r.mbps_rev, UINT32_MAX - 1ull);
	assert_int_equal(l.why, 0);
	assert_true(rt_mesh_link_of(&g, 1, 2, &l));
	assert_int_equal(l.r.connect_ns, 2149631778000ull);
	assert_int_equal(l.r.rtt_p50_ns, 2149631777000ull);
	assert_int_equal(l.r.rtt_p99_ns, 2149631778000ull);
	assert_int_equal(l.r.mbps, UINT32_MAX);
	assert_int_equal(l.why, RT_LINK_RTT_ABS);
	rt_mesh_agg_free(&g);
}

static int cmp_double(const void *x, const void *y)
{
	double p = *(const double *)x, q = *(const double *)y;

	return (p > q) - (p < q);
}

/* The median as the judging took it before the selection: sorted, the
 * middle one, or the mean of the two middle ones. */
static double sorted_median(double *v, uint32_t k)
{
	qsort(v, k, sizeof(*v), cmp_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* The medians by radix selection equal a sort's, odd and even counts,
 * figures spread over many 16-bit digits, packed in one, or repeated. */
static void median_by_selection_matches_a_sort(void **state)
{
	const uint64_t spread[] = {2147482000u, 1u << 16, 3, 1ull << 40};
	uint64_t x = 42;

	for (size_t s = 0; s < ARRAY_SIZE(spread); s++) {
		for (uint32_t k = 1; k <= 60; k += (k < 8 ? 1 : 13)) {
			struct rt_mesh_agg g;
			double *rtt = rt_xmalloc(k * sizeof(*rtt)), *bw = rt_xmalloc(k * sizeof(*bw));
			uint32_t n = 12, got = 0;

			init(&g, n, state);
			say_hello(&g, n, UINT32_MAX);
			for (uint32_t a = 0; a < n && got < k; a++)
				for (uint32_t b = a + 1; b < n && got < k; b++, got++) {
					struct rt_mesh_result r = ok(a, b, 1, 1);

					r.rtt_p50_ns = r.rtt_p99_ns = 1000 + next(&x) % spread[s];
					r.mbps = 1 + next(&x) % spread[s];
					r.mbps_rev = 1 + next(&x) % spread[s];
					add(&g, r);
					rtt[got] = (double)RT_MIN(r.rtt_p50_ns, 2147482999u) / 1e3;
					bw[got] = (double)RT_MIN(RT_MIN(r.mbps, r.mbps_rev), UINT32_MAX) / 1e3;
				}
			judge(&g, &relative);
			if (spread[s] < 2147482000u) /* else rtt[] is not what is stored */
				assert_true(g.median_rtt_us == sorted_median(rtt, k));
			assert_true(g.median_gbps == sorted_median(bw, k));
			free(rtt);
			free(bw);
			rt_mesh_agg_free(&g);
		}
	}
}

static void bad_input(void **state)
{
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	struct rt_mesh_hello h = {.rank = 1, .size = 3, .host = "x"};
	struct rt_mesh_result r = ok(0, 1, 1, 1);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 0, 2, &err), 0);
	assert_int_equal(rt_mesh_judge(&g, &relative, &err), -1);
	assert_non_null(strstr(err.reason, "no rank said hello"));
	memset(&err, 0, sizeof(err));
	add(&g, ok(0, 5, 1, 1)); /* size unknown yet: kept, judged later */
	assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), -1);
	assert_non_null(strstr(err.reason, "hello twice"));
	memset(&err, 0, sizeof(err));
	h.size = 4;
	assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), -1);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_judge(&g, &relative, &err), -1);
	assert_non_null(strstr(err.reason, "rank 5 in a mesh of 3"));
	memset(&err, 0, sizeof(err));
	add(&g, r);
	assert_int_equal(rt_mesh_agg_add(&g, &r, &err), -1);
	assert_non_null(strstr(err.reason, "more than 2 results"));
	rt_mesh_agg_free(&g);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_agg_init(&g, 70000, 0, &err), -1);
}

/* ---- rails ---- */

/* n hosts of `rails` rails (rxe0, rxe1, ...), all ACTIVE at 100 Gb/s
 * (payload 95) but rail `down_rail` of host `down`, which is DOWN, and
 * host `fewer`, which lists one rail less. */
static void hello_rails(struct rt_mesh_agg *g, uint32_t n, unsigned rails, uint32_t down,
			unsigned down_rail, uint32_t fewer)
{
	for (uint32_t i = 0; i < n; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = n};
		struct rt_error err = {0};

		snprintf(h.host, sizeof(h.host), "n%u", i);
		h.nrails = (uint8_t)(i == fewer ? rails - 1 : rails);
		for (unsigned r = 0; r < h.nrails; r++) {
			struct rt_mesh_rail *x = &h.rails[r];

			*x = (struct rt_mesh_rail){.rail = (uint8_t)r, .port = 1, .state = RT_RAIL_ACTIVE,
				.link = RT_RAIL_ETHERNET, .lanes = 4, .mtu = 4096,
				.speed_mbps = 100000, .payload_mbps = 95000};
			snprintf(x->dev, sizeof(x->dev), "rxe%u", r);
			snprintf(x->addr, sizeof(x->addr), "10.%u.0.%u", r, i + 1);
			if (i == down && r == down_rail)
				x->state = RT_RAIL_DOWN;
		}
		assert_int_equal(rt_mesh_agg_hello(g, &h, &err), 0);
	}
}

static struct rt_mesh_result on_rail(struct rt_mesh_result r, unsigned rail)
{
	r.rail = r.rail_b = (uint8_t)rail;
	return r;
}

/* A tournament on every rail; fn(a, b, rail) gives each RTT (0: failed). */
static void rails_tournament(struct rt_mesh_agg *g, uint32_t n, unsigned rails,
			     double (*fn)(uint32_t a, uint32_t b, unsigned rail))
{
	for (unsigned r = 0; r < rails; r++)
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = a + 1; b < n; b++) {
				double rtt = fn(a, b, r);

				add(g, on_rail(rtt > 0 ? ok(b, a, rtt, 90) : failed(a, b), r));
			}
}

static double rails_healthy(uint32_t a, uint32_t b, unsigned rail)
{
	(void)a, (void)b;
	return rail ? 40 : 10; /* each rail its own median */
}

static double rail1_of_host2_bad(uint32_t a, uint32_t b, unsigned rail)
{
	return rail == 1 && (a == 2 || b == 2) ? 0 : 10;
}

static double host3_bad(uint32_t a, uint32_t b, unsigned rail)
{
	(void)rail;
	return a == 3 || b == 3 ? 0 : 10;
}

static double link01_rail0_slow(uint32_t a, uint32_t b, unsigned rail)
{
	return rail == 0 && a == 0 && b == 1 ? 30 : 10;
}

/* Per (pair, rail): each rail judged against its own medians; the
 * storage stays sparse for more than one rail. */
static void rails_judged_per_rail(void **state)
{
	struct rt_mesh_agg g;
	struct rt_mesh_link l;

	(void)state;
	init(&g, 6, &(void *){(void *)&sparse});
	hello_rails(&g, 6, 2, UINT32_MAX, 0, UINT32_MAX);
	g.rails = 2;
	rt_mesh_agg_plan(&g, 30);
	assert_null(g.dense); /* one cell a pair cannot hold two rails */
	rails_tournament(&g, 6, 2, rails_healthy);
	judge(&g, &relative);
	assert_true(g.ready);
	assert_int_equal(g.nlinks, 30);
	assert_int_equal(g.rail_mask, 3);
	assert_int_equal(g.rail_stat[0].links, 15);
	assert_int_equal(g.rail_stat[1].links, 15);
	assert_true(g.rail_stat[0].median_rtt_us == 10 && g.rail_stat[1].median_rtt_us == 40);
	assert_int_equal(g.rails_expected, 2);
	/* both rails of a pair, each found by its rail */
	assert_true(rt_mesh_link_of_rail(&g, 4, 1, 1, &l));
	assert_int_equal(l.r.rail, 1);
	assert_int_equal(l.r.rtt_p50_ns, 40000);
	assert_true(rt_mesh_link_of(&g, 1, 4, &l));
	assert_int_equal(l.r.rail, 0);
	assert_false(rt_mesh_link_of_rail(&g, 1, 4, 2, &l));
	rt_mesh_agg_free(&g);

	/* 30 us is an outlier on rail 0 (median 10), whatever rail 1 runs at */
	init(&g, 6, &(void *){(void *)&sparse});
	hello_rails(&g, 6, 2, UINT32_MAX, 0, UINT32_MAX);
	rails_tournament(&g, 6, 2, link01_rail0_slow);
	judge(&g, &relative);
	assert_false(g.ready);
	assert_int_equal(g.bad_links, 1);
	assert_int_equal(g.rail_stat[0].bad_links, 1);
	assert_int_equal(g.rail_stat[1].bad_links, 0);
	assert_int_equal(g.bad_nodes + g.bad_rails, 0);
	assert_true(rt_mesh_link_of_rail(&g, 0, 1, 0, &l));
	assert_true(rt_mesh_link_blamed(&g, &l));
	assert_int_equal(l.why, RT_LINK_RTT_REL);
	rt_mesh_agg_free(&g);
}

/* A host whose one rail fails everywhere: that rail is bad, the host is
 * not, and its links on that rail are the rail's fault, not bad links.
 * A host that fails on every rail is a bad host. */
static void bad_rail_bad_host(void **state)
{
	struct rt_mesh_agg g;

	(void)state;
	init(&g, 6, &(void *){(void *)&sparse});
	hello_rails(&g, 6, 2, UINT32_MAX, 0, UINT32_MAX);
	rails_tournament(&g, 6, 2, rail1_of_host2_bad);
	judge(&g, &relative);
	assert_false(g.ready);
	assert_int_equal(g.nodes[2].verdict, RT_NODE_OK);
	assert_int_equal(g.nodes[2].rail_bad, 1u << 1);
	assert_int_equal(g.bad_nodes, 0);
	assert_int_equal(g.bad_rails, 1);
	assert_int_equal(g.bad_links, 0);
	for (uint32_t i = 0; i < 6; i++)
		if (i != 2)
			assert_int_equal(g.nodes[i].rail_bad, 0);
	rt_mesh_agg_free(&g);

	init(&g, 6, &(void *){(void *)&sparse});
	hello_rails(&g, 6, 2, UINT32_MAX, 0, UINT32_MAX);
	rails_tournament(&g, 6, 2, host3_bad);
	judge(&g, &relative);
	assert_int_equal(g.nodes[3].verdict, RT_NODE_BAD);
	assert_int_equal(g.nodes[3].rail_bad, 0); /* the host, not its rails */
	assert_int_equal(g.bad_nodes, 1);
	assert_int_equal(g.bad_rails, 0);
	assert_int_equal(g.bad_links, 0);
	rt_mesh_agg_free(&g);
}

/* A rail its hello lists DOWN and a host of fewer rails: named, never
 * READY, the rest judged as usual. */
static void rail_down_and_count(void **state)
{
	struct rt_mesh_agg g;

	(void)state;
	init(&g, 4, &(void *){(void *)&sparse});
	hello_rails(&g, 4, 2, 1, 1, 3);
	rails_tournament(&g, 4, 1, rails_healthy);
	judge(&g, &relative);
	assert_false(g.ready);
	assert_int_equal(g.bad_nodes + g.bad_links, 0);
	assert_int_equal(g.bad_rails, 1);
	assert_int_equal(g.rails_expected, 2);
	assert_int_equal(g.rail_mismatch, 1);
	assert_int_equal(g.nodes[3].nrails, 1);
	rt_mesh_agg_free(&g);
}

/* --min-line-rate per rail: against the smaller payload rate of the two
 * ends' rails, not the hosts'. */
static void line_rate_per_rail(void **state)
{
	const struct rt_mesh_limits lim = {.min_line_rate = 0.9};
	struct rt_mesh_agg g;
	struct rt_mesh_link l;

	(void)state;
	init(&g, 3, &(void *){(void *)&sparse});
	hello_rails(&g, 3, 2, UINT32_MAX, 0, UINT32_MAX);
	g.nodes[1].rails[1].payload_mbps = 50000; /* a slow port on rail 1 */
	g.nodes[1].payload_mbps = 95000;
	assert_true(rt_mesh_rail_line_gbps(&g, 0, 1, 1) == 50.0);
	assert_true(rt_mesh_rail_line_gbps(&g, 0, 2, 1) == 95.0);
	for (unsigned r = 0; r < 2; r++) {
		add(&g, on_rail(ok(0, 1, 10, 80), r)); /* 80 < 0.9 x 95, not < 0.9 x 50 */
		add(&g, on_rail(ok(0, 2, 10, 90), r));
		add(&g, on_rail(ok(1, 2, 10, 90), r));
	}
	judge(&g, &lim);
	assert_true(rt_mesh_link_of_rail(&g, 0, 1, 0, &l));
	assert_int_equal(l.why, RT_LINK_LINE_RATE);
	assert_true(rt_mesh_link_of_rail(&g, 0, 1, 1, &l));
	assert_int_equal(l.why, 0);
	rt_mesh_agg_free(&g);
}

static struct rt_mesh_result crossed(struct rt_mesh_result r, unsigned rail, unsigned rail_b)
{
	r.rail = (uint8_t)rail;
	r.rail_b = (uint8_t)rail_b;
	return r;
}

/* Every pair of 6 hosts on every (rail of a, rail of b) of 2 rails; the
 * crossed RTT from fn (0: failed), rail i against itself 10 / 40 us.
 * Each result is added from b's side (b listed first) for odd pairs, so
 * that the rails turn with the ends. */
static void crossed_tournament(struct rt_mesh_agg *g,
			       double (*fn)(uint32_t a, uint32_t b, unsigned ra))
{
	for (uint32_t a = 0; a < 6; a++)
		for (uint32_t b = a + 1; b < 6; b++)
			for (unsigned r = 0; r < 2; r++)
				for (unsigned rb = 0; rb < 2; rb++) {
					double rtt = r == rb ? (r ? 40 : 10) : fn(a, b, r);
					struct rt_mesh_result x = rtt > 0 ? ok(a, b, rtt, 90)
									  : failed(a, b);

					if ((a + b) % 2) { /* the same link, b's view */
						x.a = b;
						x.b = a;
						add(g, crossed(x, rb, r));
					} else {
						add(g, crossed(x, r, rb));
					}
				}
}

static double crossed_100(uint32_t a, uint32_t b, unsigned ra)
{
	return a == 1 && b == 4 && ra == 0 ? 300 : 100; /* rail 0 of 1 to rail 1 of 4 */
}

static double crossed_unreachable(uint32_t a, uint32_t b, unsigned ra)
{
	(void)a, (void)b, (void)ra;
	return 0;
}

/* --cross-rails: a result keeps both rails (turned with its ends), each
 * class {i, j} of crossed links is judged against its own medians, and
 * crossed links that all fail (rails without a route between them) are
 * bad links that blame no host or rail. */
static void crossed_rails_judged_per_class(void **state)
{
	struct rt_mesh_agg g;
	struct rt_mesh_link l;

	(void)state;
	init(&g, 6, &(void *){(void *)&sparse});
	hello_rails(&g, 6, 2, UINT32_MAX, 0, UINT32_MAX);
	g.nodes[4].rails[1].payload_mbps = 50000;
	crossed_tournament(&g, crossed_100);
	assert_int_equal(g.nres, 60);
	judge(&g, &relative);
	assert_int_equal(g.nlinks, 60);
	assert_int_equal(g.ncross, 30);
	assert_int_equal(g.rail_mask, 3);
	assert_int_equal(g.rail_stat[0].links, 15);
	assert_int_equal(g.rail_stat[1].links, 15);
	assert_int_equal(rt_mesh_class_stat(&g, 0, 1)->links, 30);
	assert_ptr_equal(rt_mesh_class_stat(&g, 1, 0), rt_mesh_class_stat(&g, 0, 1));
	assert_true(rt_mesh_class_stat(&g, 0, 1)->median_rtt_us == 100);
	assert_true(g.rail_stat[0].median_rtt_us == 10 && g.rail_stat[1].median_rtt_us == 40);
	/* 300 us: 3 x its class's median, though far from rail 0's or 1's */
	assert_false(g.ready);
	assert_int_equal(g.bad_links, 1);
	assert_int_equal(rt_mesh_class_stat(&g, 0, 1)->bad_links, 1);
	assert_int_equal(g.rail_stat[0].bad_links + g.rail_stat[1].bad_links, 0);
	assert_int_equal(g.bad_nodes + g.suspect_nodes + g.bad_rails, 0);
	/* (1, 4) came from 4's side for rails 0-1 of 1 and 4: found either way */
	assert_true(rt_mesh_link_of_rails(&g, 1, 4, 0, 1, &l));
	assert_true(l.r.a == 1 && l.r.rail == 0 && l.r.rail_b == 1);
	assert_int_equal(l.why, RT_LINK_RTT_REL);
	assert_true(rt_mesh_link_blamed(&g, &l));
	assert_true(rt_mesh_link_of_rails(&g, 4, 1, 1, 0, &l));
	assert_true(l.r.a == 1 && l.r.rail == 0 && l.r.rail_b == 1 && l.r.rtt_p50_ns == 300000);
	assert_true(rt_mesh_link_of_rails(&g, 1, 4, 1, 0, &l) && l.r.rtt_p50_ns == 100000);
	assert_true(rt_mesh_link_of_rail(&g, 1, 4, 1, &l) && l.r.rtt_p50_ns == 40000);
	/* the pair is as bad as its worst (i, j) */
	assert_int_equal(rt_mesh_pair_bad(&g, 4, 1), RT_LINK_RTT_REL);
	assert_true(rt_mesh_pair_worst(&g, 1, 4, &l) && l.r.rail == 0 && l.r.rail_b == 1);
	assert_int_equal(rt_mesh_pair_bad(&g, 0, 2), 0);
	/* line rate: a's rail against b's, the slower port */
	assert_true(rt_mesh_rails_line_gbps(&g, 1, 4, 0, 1) == 50.0);
	assert_true(rt_mesh_rails_line_gbps(&g, 4, 1, 0, 1) == 95.0);
	/* a re-test replaces its own (pair, rails) alone */
	add(&g, crossed((struct rt_mesh_result){.round = 9, .a = 4, .b = 1, .status = RT_MESH_OK,
						 .flags = RT_MESH_HAS_RTT, .rtt_p50_ns = 100000},
			1, 0));
	judge(&g, &relative);
	assert_true(g.ready);
	assert_int_equal(g.nlinks, 60);
	rt_mesh_agg_free(&g);

	/* no route between the rails: every crossed link fails; the hosts and
	 * their rails are good (rail i against itself passed everywhere) */
	init(&g, 6, &(void *){(void *)&sparse});
	hello_rails(&g, 6, 2, UINT32_MAX, 0, UINT32_MAX);
	crossed_tournament(&g, crossed_unreachable);
	judge(&g, &relative);
	assert_false(g.ready);
	assert_int_equal(g.bad_links, 30);
	assert_int_equal(rt_mesh_class_stat(&g, 0, 1)->bad_links, 30);
	assert_int_equal(g.bad_nodes + g.suspect_nodes + g.bad_rails, 0);
	assert_true(rt_mesh_pair_worst(&g, 2, 3, &l) && l.r.rail == 0 && l.r.rail_b == 1);
	assert_int_equal(l.why, RT_LINK_FAILED);
	rt_mesh_agg_free(&g);
}

/* A rail that is bad (every link of host 2 on rail 1 failed) explains
 * the crossed links that end on it, not the others. */
static void crossed_links_explained_by_a_bad_rail(void **state)
{
	struct rt_mesh_agg g;
	struct rt_mesh_link l;

	(void)state;
	init(&g, 6, &(void *){(void *)&sparse});
	hello_rails(&g, 6, 2, UINT32_MAX, 0, UINT32_MAX);
	for (uint32_t a = 0; a < 6; a++)
		for (uint32_t b = a + 1; b < 6; b++)
			for (unsigned r = 0; r < 4; r++) {
				unsigned ra = r >> 1, rb = r & 1u;
				bool down = (a == 2 && ra == 1) || (b == 2 && rb == 1);

				add(&g, crossed(down ? failed(a, b) : ok(a, b, 10, 90), ra, rb));
			}
	judge(&g, &relative);
	assert_int_equal(g.nodes[2].rail_bad, 1u << 1);
	assert_int_equal(g.bad_nodes, 0);
	assert_int_equal(g.bad_rails, 1);
	assert_int_equal(g.bad_links, 0); /* rail 1 of host 2 explains them all */
	assert_true(rt_mesh_link_of_rails(&g, 2, 3, 1, 0, &l));
	assert_int_equal(l.why, RT_LINK_FAILED);
	assert_false(rt_mesh_link_blamed(&g, &l));
	rt_mesh_agg_free(&g);
}

/* A result whose ports' counters rose: `name` by `rise` at `end` of a
 * test whose two ports sent `sent` packets (0: not known). */
static struct rt_mesh_result counted(struct rt_mesh_result r, const char *name, uint64_t rise,
				     enum rt_mesh_end end, uint64_t sent)
{
	r.flags |= RT_MESH_HAS_CTR;
	r.ctr.n = 1;
	r.ctr.e[0] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id(name), (uint8_t)end, rise};
	if (sent) {
		r.ctr.sent_known = 3;
		r.ctr.sent[0] = sent / 2;
		r.ctr.sent[1] = sent - sent / 2;
	}
	return r;
}

/* Link counters against --max-errors, retransmit counters against
 * --max-retrans per million packets: each side of each threshold, the
 * rises turned with the ends, a failed test's counters judged too. */
static void counters_judged(void **state)
{
	struct rt_mesh_limits lim = {.max_errors = 0, .max_retrans_ppm = 1000};
	struct rt_mesh_agg g;
	struct rt_mesh_link l;

	init(&g, 6, state);
	say_hello(&g, 6, UINT32_MAX);
	/* 0-1: symbol_error +1 at b's port (rank 0 there: the ends turn) */
	add(&g, counted(ok(1, 0, 10, 100), "symbol_error", 1, RT_MESH_END_B, 0));
	/* 2-3: 1000 per million: not above */
	add(&g, counted(ok(2, 3, 10, 100), "rcvd_seq_err", 10, RT_MESH_END_A, 10000));
	/* 4-5: 1001 per million: above */
	add(&g, counted(ok(4, 5, 10, 100), "out_of_seq_request", 1001, RT_MESH_END_B, 1000000));
	/* 0-2: retransmits without a packet count: no rate, not judged */
	add(&g, counted(ok(0, 2, 10, 100), "duplicate_request", 500, RT_MESH_END_A, 0));
	/* 1-3: failed, and its ports counted retransmits */
	add(&g, counted(failed(1, 3), "retry_exceeded_err", 5, RT_MESH_END_A, 100));
	judge(&g, &lim);
	assert_true(rt_mesh_link_of(&g, 0, 1, &l));
	assert_int_equal(l.why, RT_LINK_COUNTERS);
	assert_int_equal(l.r.ctr.n, 1);
	assert_int_equal(l.r.ctr.e[0].end, RT_MESH_END_A); /* rank 0's port: a */
	assert_true(rt_mesh_ctr_bad(&l.r.ctr, 0, &lim));
	assert_true(rt_mesh_link_of(&g, 2, 3, &l));
	assert_int_equal(l.why, 0);
	assert_int_equal(l.r.ctr.e[0].delta, 10);
	assert_true(rt_mesh_link_of(&g, 4, 5, &l));
	assert_int_equal(l.why, RT_LINK_COUNTERS);
	assert_true(rt_mesh_link_of(&g, 0, 2, &l));
	assert_int_equal(l.why, 0);
	assert_true(rt_mesh_link_of(&g, 1, 3, &l));
	assert_int_equal(l.why, RT_LINK_FAILED | RT_LINK_COUNTERS);
	assert_false(g.ready);
	/* a looser bound: the symbol error is allowed, the rate is not */
	lim.max_errors = 1;
	judge(&g, &lim);
	assert_true(rt_mesh_link_of(&g, 0, 1, &l));
	assert_int_equal(l.why, 0);
	assert_true(rt_mesh_link_of(&g, 4, 5, &l));
	assert_int_equal(l.why, RT_LINK_COUNTERS);
	lim.max_retrans_ppm = 1001;
	judge(&g, &lim);
	assert_true(rt_mesh_link_of(&g, 4, 5, &l));
	assert_int_equal(l.why, 0);
	rt_mesh_agg_free(&g);
}

/* Congestion counters ride with the judged ones but are never judged,
 * however high their rate; the links keep the judged rises alone; the
 * run's congestion names the end (rank, rail, round) that counted the
 * most of each counter and counts the ends that counted any. */
static void congestion_reported_not_judged(void **state)
{
	const struct rt_mesh_limits lim = {.max_retrans_ppm = 1000};
	struct rt_mesh_result r;
	struct rt_mesh_agg g;
	struct rt_mesh_link l;

	init(&g, 4, state);
	say_hello(&g, 4, UINT32_MAX);
	/* 0-1: CNPs at a half of the packets: not bad */
	add(&g, counted(ok(0, 1, 10, 100), "np_cnp_sent", 500000, RT_MESH_END_B, 1000000));
	/* 2-3: a retransmit below the bound and more CNPs at b (rank 3) */
	r = counted(ok(2, 3, 10, 100), "out_of_sequence", 10, RT_MESH_END_A, 1000000);
	r.round = 2;
	r.ctr.n = 3;
	r.ctr.e[1] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("np_cnp_sent"),
					  RT_MESH_END_B, 900000};
	r.ctr.e[2] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("port_xmit_wait"),
					  RT_MESH_END_B, 7};
	add(&g, r);
	judge(&g, &lim);
	assert_true(g.ready);
	assert_true(rt_mesh_link_of(&g, 0, 1, &l));
	assert_int_equal(l.why, 0);
	assert_int_equal(l.r.ctr.n, 0);
	assert_true(rt_mesh_link_of(&g, 2, 3, &l));
	assert_int_equal(l.why, 0);
	assert_int_equal(l.r.ctr.n, 1);
	assert_int_equal(l.r.ctr.e[0].id, rt_portctr_id("out_of_sequence"));
	assert_int_equal(g.cong.n, 2);
	assert_int_equal(g.cong.c[0].id, rt_portctr_id("np_cnp_sent"));
	assert_int_equal(g.cong.c[0].rank, 3);
	assert_int_equal(g.cong.c[0].round, 2);
	assert_int_equal(g.cong.c[0].delta, 900000);
	assert_int_equal(g.cong.c[0].sent, 500000); /* b's half of the packets */
	assert_int_equal(g.cong.c[0].ends, 2);
	assert_int_equal(g.cong.c[0].total, 1400000);
	assert_true(rt_mesh_cong_ppm(&g.cong.c[0]) > 1799999.0);
	assert_int_equal(g.cong.c[1].id, rt_portctr_id("port_xmit_wait"));
	assert_int_equal(g.cong.c[1].ends, 1);
	rt_mesh_agg_free(&g);
}

/* A re-test replaces the first result's counters: one without rises
 * clears them, one with rises brings its own. */
static void retest_replaces_counters(void **state)
{
	const struct rt_mesh_limits lim = {.max_retrans_ppm = 1000};
	struct rt_mesh_result again = ok(0, 1, 10, 100), worse;
	struct rt_mesh_agg g;
	struct rt_mesh_link l;

	init(&g, 3, state);
	say_hello(&g, 3, UINT32_MAX);
	add(&g, counted(ok(0, 1, 10, 100), "link_downed", 2, RT_MESH_END_A, 0));
	add(&g, counted(ok(1, 2, 10, 100), "link_downed", 2, RT_MESH_END_A, 0));
	judge(&g, &lim);
	assert_true(rt_mesh_link_of(&g, 0, 1, &l));
	assert_int_equal(l.why, RT_LINK_COUNTERS);
	again.round = 1;
	add(&g, again);
	worse = counted(ok(2, 1, 10, 100), "symbol_error", 9, RT_MESH_END_A, 0);
	worse.round = 1;
	add(&g, worse);
	judge(&g, &lim);
	assert_true(rt_mesh_link_of(&g, 0, 1, &l));
	assert_int_equal(l.why, 0);
	assert_false(l.r.flags & RT_MESH_HAS_CTR);
	assert_true(rt_mesh_link_of(&g, 1, 2, &l));
	assert_int_equal(l.why, RT_LINK_COUNTERS);
	assert_string_equal(rt_portctr_id_name(l.r.ctr.e[0].id), "symbol_error");
	assert_int_equal(l.r.ctr.e[0].end, RT_MESH_END_B); /* rank 2's port: b */
	rt_mesh_agg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(all_healthy, (void *)&sparse),
		cmocka_unit_test_prestate(all_healthy, (void *)&dense),
		cmocka_unit_test_prestate(one_bad_node, (void *)&sparse),
		cmocka_unit_test_prestate(one_bad_node, (void *)&dense),
		cmocka_unit_test_prestate(bad_node_does_not_blame_partners, (void *)&sparse),
		cmocka_unit_test_prestate(bad_node_does_not_blame_partners, (void *)&dense),
		cmocka_unit_test_prestate(degraded_link_and_thresholds, (void *)&sparse),
		cmocka_unit_test_prestate(degraded_link_and_thresholds, (void *)&dense),
		cmocka_unit_test_prestate(one_direction_slow, (void *)&sparse),
		cmocka_unit_test_prestate(one_direction_slow, (void *)&dense),
		cmocka_unit_test_prestate(line_rate, (void *)&sparse),
		cmocka_unit_test_prestate(line_rate, (void *)&dense),
		cmocka_unit_test_prestate(absent_and_retest, (void *)&sparse),
		cmocka_unit_test_prestate(absent_and_retest, (void *)&dense),
		cmocka_unit_test_prestate(lost_node_is_named, (void *)&sparse),
		cmocka_unit_test_prestate(lost_node_is_named, (void *)&dense),
		cmocka_unit_test(dense_and_sparse_agree),
		cmocka_unit_test(rails_judged_per_rail),
		cmocka_unit_test(bad_rail_bad_host),
		cmocka_unit_test(rail_down_and_count),
		cmocka_unit_test(line_rate_per_rail),
		cmocka_unit_test(crossed_rails_judged_per_class),
		cmocka_unit_test(crossed_links_explained_by_a_bad_rail),
		cmocka_unit_test_prestate(retest_replaces_the_earlier_result, (void *)&sparse),
		cmocka_unit_test_prestate(retest_replaces_the_earlier_result, (void *)&dense),
		cmocka_unit_test_prestate(figures_saturate_in_32_bits, (void *)&sparse),
		cmocka_unit_test_prestate(figures_saturate_in_32_bits, (void *)&dense),
		cmocka_unit_test_prestate(median_by_selection_matches_a_sort, (void *)&sparse),
		cmocka_unit_test_prestate(median_by_selection_matches_a_sort, (void *)&dense),
		cmocka_unit_test(bad_input),
		cmocka_unit_test_prestate(counters_judged, (void *)&sparse),
		cmocka_unit_test_prestate(counters_judged, (void *)&dense),
		cmocka_unit_test_prestate(retest_replaces_counters, (void *)&sparse),
		cmocka_unit_test_prestate(retest_replaces_counters, (void *)&dense),
		cmocka_unit_test_prestate(congestion_reported_not_judged, (void *)&sparse),
		cmocka_unit_test_prestate(congestion_reported_not_judged, (void *)&dense),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
