/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The blame pass's choices and conclusions (meshblame.h). */
#include <stdlib.h>
#include <string.h>

#include "mesh/meshblame.h"
#include "mesh/meshctr.h"
#include "mesh/meshinv.h"
#include "rdmatest/util.h"

uint64_t rt_mesh_blame_max_pairs(uint32_t n)
{
	return RT_MIN(RT_MESH_RETEST_MAX, 2ull * n) +
	       (uint64_t)RT_MESH_BLAME_PARTNERS * RT_MESH_BLAME_ENDS;
}

/* An end that can still be tested: said hello, never lost. */
static bool there(const struct rt_mesh_agg *g, uint32_t rank)
{
	return g->nodes[rank].present && !g->nodes[rank].lost;
}

uint32_t rt_mesh_blame_retests(struct rt_mesh_agg *g, struct rt_pair *out)
{
	struct rt_mesh_blame *b = &g->blame;
	uint8_t *per = rt_xcalloc(RT_MAX(g->n, 1u), 1);
	struct rt_mesh_iter it;
	struct rt_mesh_link l, w;

	b->nre = 0;
	rt_mesh_links(g, &it);
	while (b->nre < RT_MESH_RETEST_MAX && rt_mesh_link_next(&it, &l)) {
		uint32_t x = l.r.a, y = l.r.b;

		/* a pair once, by its worst (rail, rail_b): it is re-tested whole */
		if (!rt_mesh_pair_worst(g, x, y, &w) || !w.why ||
		    w.r.rail != l.r.rail || w.r.rail_b != l.r.rail_b || !there(g, x) || !there(g, y) ||
		    per[x] >= RT_MESH_RETEST_PER_HOST || per[y] >= RT_MESH_RETEST_PER_HOST)
			continue;
		per[x]++;
		per[y]++;
		if (!b->re)
			b->re = rt_xmalloc(RT_MESH_RETEST_MAX * sizeof(*b->re));
		b->re[b->nre] = (struct rt_mesh_retest){.first = l};
		out[b->nre++] = (struct rt_pair){x, y};
	}
	free(per);
	return b->nre;
}

void rt_mesh_blame_retested(struct rt_mesh_agg *g, uint32_t ran)
{
	struct rt_mesh_blame *b = &g->blame;

	b->nre = RT_MIN(ran, b->nre); /* those not run are no evidence */
	b->flaky = 0;
	for (uint32_t i = 0; i < b->nre; i++) {
		struct rt_mesh_retest *r = &b->re[i];
		int now = rt_mesh_pair_bad(g, r->first.r.a, r->first.r.b);

		r->state = now == 0 ? RT_RETEST_FLAKY : RT_RETEST_BAD;
		b->flaky += now == 0;
	}
}

void rt_mesh_blame_end_add(struct rt_mesh_agg *g, uint32_t rank, const uint32_t *partner,
			   uint8_t np)
{
	struct rt_mesh_blame *b = &g->blame;
	struct rt_mesh_blame_end *e;

	if (b->nends >= RT_MESH_BLAME_ENDS || (g->n && rank >= g->n) ||
	    rt_mesh_blame_end_of(g, rank))
		return;
	if (!b->ends)
		b->ends = rt_xcalloc(RT_MESH_BLAME_ENDS, sizeof(*b->ends));
	e = &b->ends[b->nends++];
	*e = (struct rt_mesh_blame_end){.rank = rank,
					.np = (uint8_t)RT_MIN(np, RT_MESH_BLAME_PARTNERS)};
	for (uint8_t i = 0; i < e->np; i++)
		e->partner[i] = partner[i];
}

void rt_mesh_blame_flaky_add(struct rt_mesh_agg *g, const struct rt_mesh_link *first)
{
	struct rt_mesh_blame *b = &g->blame;

	if (b->nre >= RT_MESH_RETEST_MAX)
		return;
	if (!b->re)
		b->re = rt_xmalloc(RT_MESH_RETEST_MAX * sizeof(*b->re));
	b->re[b->nre++] = (struct rt_mesh_retest){.first = *first, .state = RT_RETEST_FLAKY};
	b->flaky++;
}

/* The ends to pair: both ends of every re-tested link still bad (a
 * bounded few of each host's), then every suspect host, once each, while
 * there and within the bound. */
static uint32_t ends_of(const struct rt_mesh_agg *g, uint32_t *ends, uint8_t *is_end)
{
	const struct rt_mesh_blame *b = &g->blame;
	uint32_t ne = 0;

	for (uint32_t i = 0; i < b->nre && ne < RT_MESH_BLAME_ENDS; i++) {
		uint32_t x[2] = {b->re[i].first.r.a, b->re[i].first.r.b};

		if (b->re[i].state != RT_RETEST_BAD)
			continue;
		for (int k = 0; k < 2 && ne < RT_MESH_BLAME_ENDS; k++)
			if (there(g, x[k]) && !is_end[x[k]]) {
				is_end[x[k]] = 1;
				ends[ne++] = x[k];
			}
	}
	for (uint32_t i = 0; i < g->n && ne < RT_MESH_BLAME_ENDS; i++)
		if (g->nodes[i].verdict == RT_NODE_SUSPECT && there(g, i) && !is_end[i]) {
			is_end[i] = 1;
			ends[ne++] = i;
		}
	return ne;
}

/* Good partners: ok hosts, still there, with no bad link that a bad
 * host does not explain (a link to a host found bad does not count
 * against them). An end may be one for another end. */
static void good_hosts(const struct rt_mesh_agg *g, uint8_t *good)
{
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	for (uint32_t i = 0; i < g->n; i++)
		good[i] = rt_mesh_node_clean(g, i);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l))
		if (rt_mesh_link_blamed(g, &l))
			good[l.r.a] = good[l.r.b] = 0;
}

/* Never the other end of an end's re-tested link still bad: that pairing
 * is the one in question (at most RT_MESH_RETEST_PER_HOST of them). */
static bool other_end(const void *ctx, uint32_t end, uint32_t rank)
{
	const struct rt_mesh_blame *b = ctx;

	for (uint32_t i = 0; i < b->nre; i++) {
		const struct rt_pair p = {b->re[i].first.r.a, b->re[i].first.r.b};

		if (b->re[i].state == RT_RETEST_BAD &&
		    ((p.a == end && p.b == rank) || (p.b == end && p.a == rank)))
			return true;
	}
	return false;
}

/* The pairs to run: each unordered pair once (two ends may be each
 * other's partner). */
static uint32_t unique_pairs(const struct rt_pair *in, uint32_t k, struct rt_pair *out)
{
	uint32_t m = 0;

	for (uint32_t i = 0; i < k; i++) {
		bool dup = false;

		for (uint32_t j = 0; j < m && !dup; j++)
			dup = (out[j].a == in[i].a && out[j].b == in[i].b) ||
			      (out[j].a == in[i].b && out[j].b == in[i].a);
		if (!dup)
			out[m++] = in[i];
	}
	return m;
}

uint32_t rt_mesh_blame_pairings(struct rt_mesh_agg *g, uint64_t seed, struct rt_pair *out)
{
	uint32_t n = RT_MAX(g->n, 1u), ends[RT_MESH_BLAME_ENDS], ne, k;
	struct rt_pair all[RT_MESH_BLAME_PARTNERS * RT_MESH_BLAME_ENDS];
	uint8_t *is_end = rt_xcalloc(n, 1), *good = rt_xcalloc(n, 1);

	ne = ends_of(g, ends, is_end);
	good_hosts(g, good);
	k = rt_sched_blame(ends, ne, good, g->n, seed, other_end, &g->blame, all);
	for (uint32_t e = 0, i = 0; e < ne; e++) {
		uint32_t p[RT_MESH_BLAME_PARTNERS], np = 0;

		while (i < k && all[i].b == ends[e] && np < RT_MESH_BLAME_PARTNERS)
			p[np++] = all[i++].a;
		rt_mesh_blame_end_add(g, ends[e], p, (uint8_t)np);
	}
	free(is_end);
	free(good);
	return unique_pairs(all, k, out);
}

void rt_mesh_blame_conclude(struct rt_mesh_agg *g)
{
	struct rt_mesh_blame *b = &g->blame;

	for (uint32_t i = 0; i < b->nends; i++) {
		struct rt_mesh_blame_end *e = &b->ends[i];

		e->tested = e->bad = 0;
		for (uint8_t p = 0; p < e->np; p++) {
			int why = rt_mesh_pair_bad(g, e->rank, e->partner[p]);

			e->tested += why >= 0;
			e->bad += why > 0;
		}
		if (e->tested && e->bad == e->tested)
			rt_mesh_agg_name(g, e->rank);
	}
}

const struct rt_mesh_blame_end *rt_mesh_blame_end_of(const struct rt_mesh_agg *g, uint32_t rank)
{
	for (uint32_t i = 0; i < g->blame.nends; i++)
		if (g->blame.ends[i].rank == rank)
			return &g->blame.ends[i];
	return NULL;
}

/* -1: its pairings all bad, 1: all good, 0: mixed; without pairings (no
 * good host left that it was not tested against) its node's verdict: -1
 * bad, else 0. */
static int end_says(const struct rt_mesh_agg *g, uint32_t rank,
		    const struct rt_mesh_blame_end *e)
{
	if (!e || !e->tested)
		return g->nodes[rank].verdict == RT_NODE_BAD ? -1 : 0;
	return e->bad == e->tested ? -1 : e->bad == 0 ? 1 : 0;
}

enum rt_blame_verdict rt_mesh_blame_link(const struct rt_mesh_agg *g, uint32_t a, uint32_t b)
{
	const struct rt_mesh_blame_end *ea = rt_mesh_blame_end_of(g, a);
	const struct rt_mesh_blame_end *eb = rt_mesh_blame_end_of(g, b);
	int x = end_says(g, a, ea), y = end_says(g, b, eb);

	/* neither end paired, or no pairing ran and neither is bad: no evidence */
	if ((!ea && !eb) ||
	    ((!ea || !ea->tested) && (!eb || !eb->tested) && x == 0 && y == 0))
		return RT_BLAME_NONE;
	if (x < 0 && y < 0)
		return RT_BLAME_HOSTS;
	if (x < 0)
		return RT_BLAME_HOST_A;
	if (y < 0)
		return RT_BLAME_HOST_B;
	return x > 0 && y > 0 ? RT_BLAME_LINK : RT_BLAME_UNSURE;
}

/* The end whose port alone counted link-level errors on l: 0 a, 1 b,
 * else -1. */
static int counting_end(const struct rt_mesh_link *l)
{
	unsigned ends = 0;

	if (!(l->why & RT_LINK_COUNTERS) || !(l->r.flags & RT_MESH_HAS_CTR))
		return -1;
	for (unsigned i = 0; i < l->r.ctr.n && i < RT_MESH_CTRS_MAX; i++)
		if (rt_mesh_ctr_id_kind(l->r.ctr.e[i].id) == RT_MESH_CTR_LINK)
			ends |= 1u << (l->r.ctr.e[i].end & 1u);
	return ends == 1u ? 0 : ends == 2u ? 1 : -1;
}

enum rt_blame_verdict rt_mesh_blame_of(const struct rt_mesh_agg *g, const struct rt_mesh_link *l)
{
	enum rt_blame_verdict v = rt_mesh_blame_link(g, l->r.a, l->r.b);
	int end = v == RT_BLAME_NONE || v == RT_BLAME_LINK || v == RT_BLAME_UNSURE
			  ? counting_end(l) : -1;

	return end < 0 ? v : end ? RT_BLAME_PORT_B : RT_BLAME_PORT_A;
}

int64_t rt_mesh_blame_rank(enum rt_blame_verdict v, const struct rt_mesh_link *l)
{
	if (v == RT_BLAME_HOST_A || v == RT_BLAME_PORT_A)
		return l->r.a;
	if (v == RT_BLAME_HOST_B || v == RT_BLAME_PORT_B)
		return l->r.b;
	return -1;
}

const char *rt_blame_verdict_name(enum rt_blame_verdict v)
{
	static const char *const names[] = {"none", "bad-host", "bad-host", "bad-hosts",
					    "bad-link", "unsure", "bad-port", "bad-port"};

	return (size_t)v < ARRAY_SIZE(names) ? names[v] : "?";
}

bool rt_mesh_host_blamed(const struct rt_mesh_agg *g, uint32_t rank)
{
	const struct rt_mesh_node *n;

	if (rank >= g->n || !g->nodes)
		return false;
	n = &g->nodes[rank];
	return n->verdict == RT_NODE_BAD || n->rail_bad != 0 || rt_mesh_inv_fails(g, rank);
}
