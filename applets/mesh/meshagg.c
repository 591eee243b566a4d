/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Collecting and judging mesh results (meshagg.h). */
#include <stdlib.h>
#include <string.h>

#include "mesh/meshagg.h"
#include "mesh/hostlist.h"
#include "rdmatest/util.h"

static void set_size(struct rt_mesh_agg *g, uint32_t n)
{
	g->n = n;
	g->nodes = rt_xcalloc(n, sizeof(*g->nodes));
}

int rt_mesh_agg_init(struct rt_mesh_agg *g, uint32_t n, uint32_t max_results,
		     struct rt_error *err)
{
	memset(g, 0, sizeof(*g));
	if (n > RT_HOSTLIST_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "mesh of %u ranks: at most %u", n,
			       RT_HOSTLIST_MAX);
	g->max_results = max_results ? max_results : RT_MESH_RESULTS_MAX;
	if (n)
		set_size(g, n);
	return 0;
}

int rt_mesh_agg_hello(struct rt_mesh_agg *g, const struct rt_mesh_hello *h,
		      struct rt_error *err)
{
	if (!g->n && h->size && h->size <= RT_HOSTLIST_MAX)
		set_size(g, h->size);
	if (h->size != g->n || h->rank >= g->n)
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello from rank %u of %u in a mesh of %u",
			       h->rank, h->size, g->n);
	if (g->nodes[h->rank].present)
		return rt_fail(err, RT_EXIT_FAIL, "mesh: rank %u said hello twice (%.63s, then %.63s)",
			       h->rank, g->nodes[h->rank].host, h->host);
	g->nodes[h->rank].present = true;
	g->nodes[h->rank].port = h->port;
	rt_strlcpy(g->nodes[h->rank].host, h->host, RT_MESH_HOST_LEN);
	return 0;
}

void rt_mesh_agg_lost(struct rt_mesh_agg *g, uint32_t rank)
{
	if (rank < g->n && g->nodes[rank].present)
		g->nodes[rank].lost = true;
}

void rt_mesh_agg_refuse(struct rt_mesh_agg *g, const char *addr, uint32_t rank,
			const char *reason)
{
	struct rt_mesh_refusal *r;

	if (g->refused++ >= RT_MESH_REFUSED_LIST)
		return;
	r = &g->refusals[g->refused - 1];
	rt_strlcpy(r->addr, addr, sizeof(r->addr));
	r->rank = rank;
	rt_strlcpy(r->reason, reason, sizeof(r->reason));
}

int rt_mesh_agg_add(struct rt_mesh_agg *g, const struct rt_mesh_result *r,
		    struct rt_error *err)
{
	if (g->nres == g->max_results)
		return rt_fail(err, RT_EXIT_FAIL, "mesh: more than %u results", g->max_results);
	if (r->a == r->b || (g->n && (r->a >= g->n || r->b >= g->n)))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result for ranks %u and %u in a mesh of %u",
			       r->a, r->b, g->n);
	if (g->nres == g->cap) {
		g->cap = g->cap ? RT_MIN(g->cap * 2, g->max_results) : 1024;
		g->res = rt_xrealloc(g->res, (size_t)g->cap * sizeof(*g->res));
	}
	g->res[g->nres++] = *r;
	return 0;
}

/* Orders links by (a, b), equal pairs by arrival (via the round field,
 * which judge overwrites with the arrival index first). */
static int cmp_link(const void *x, const void *y)
{
	const struct rt_mesh_result *p = &((const struct rt_mesh_link *)x)->r;
	const struct rt_mesh_result *q = &((const struct rt_mesh_link *)y)->r;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (p->round > q->round) - (p->round < q->round);
}

static int cmp_double(const void *x, const void *y)
{
	double p = *(const double *)x, q = *(const double *)y;

	return (p > q) - (p < q);
}

/* The last result of every pair, ends swapped so that a < b. */
static void collect_links(struct rt_mesh_agg *g)
{
	uint32_t k = 0;

	free(g->links);
	g->links = rt_xmalloc(RT_MAX(g->nres, 1u) * sizeof(*g->links));
	for (uint32_t i = 0; i < g->nres; i++) {
		struct rt_mesh_result r = g->res[i];

		if (r.a > r.b) {
			uint32_t t = r.a;

			uint64_t m = r.mbps;

			r.a = r.b;
			r.b = t;
			r.mbps = r.mbps_rev; /* the directions turn with the ends */
			r.mbps_rev = m;
		}
		r.round = i; /* arrival order; the real round is dropped */
		g->links[i] = (struct rt_mesh_link){.r = r};
	}
	qsort(g->links, g->nres, sizeof(*g->links), cmp_link);
	for (uint32_t i = 0; i < g->nres; i++) {
		if (i + 1 < g->nres && g->links[i + 1].r.a == g->links[i].r.a &&
		    g->links[i + 1].r.b == g->links[i].r.b)
			continue;
		g->links[k++] = g->links[i];
	}
	g->nlinks = k;
}

static double median_of(const struct rt_mesh_agg *g, uint8_t flag)
{
	double *v = rt_xmalloc(RT_MAX(g->nlinks, 1u) * sizeof(*v)), m = 0;
	uint32_t k = 0;

	for (uint32_t i = 0; i < g->nlinks; i++) {
		const struct rt_mesh_result *r = &g->links[i].r;

		if (r->status != RT_MESH_OK || !(r->flags & flag))
			continue;
		v[k++] = flag == RT_MESH_HAS_RTT ? (double)r->rtt_p50_ns / 1e3 :
			 rt_mesh_gbps(r);
	}
	if (k) {
		qsort(v, k, sizeof(*v), cmp_double);
		m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return m;
}

/* A relative criterion is made only over enough measured links; with
 * fewer it is named not judged rather than passed. */
static uint32_t unjudged(const struct rt_mesh_agg *g, const struct rt_mesh_limits *lim)
{
	uint32_t rtt = 0, bw = 0, min = RT_MAX(lim->min_links, 1u), out = 0;

	for (uint32_t i = 0; i < g->nlinks; i++) {
		const struct rt_mesh_result *r = &g->links[i].r;

		rtt += r->status == RT_MESH_OK && (r->flags & RT_MESH_HAS_RTT);
		bw += r->status == RT_MESH_OK && (r->flags & RT_MESH_HAS_BW);
	}
	if (lim->rtt_factor > 0 && rtt && rtt < min)
		out |= RT_LINK_RTT_REL;
	if (lim->bw_fraction > 0 && bw && bw < min)
		out |= RT_LINK_BW_REL;
	return out;
}

static uint32_t judge_link(const struct rt_mesh_agg *g, const struct rt_mesh_result *r,
			   const struct rt_mesh_limits *lim)
{
	double rtt = (double)r->rtt_p50_ns / 1e3, gbps = rt_mesh_gbps(r);
	uint32_t why = 0;

	if (!g->nodes[r->a].present || !g->nodes[r->b].present ||
	    r->status == RT_MESH_ABSENT)
		return RT_LINK_ABSENT;
	if (r->status != RT_MESH_OK)
		return RT_LINK_FAILED;
	if (r->flags & RT_MESH_HAS_RTT) {
		if (lim->max_rtt_us > 0 && rtt > lim->max_rtt_us)
			why |= RT_LINK_RTT_ABS;
		if (lim->rtt_factor > 0 && g->median_rtt_us > 0 &&
		    !(g->not_judged & RT_LINK_RTT_REL) &&
		    rtt > lim->rtt_factor * g->median_rtt_us)
			why |= RT_LINK_RTT_REL;
	}
	if (r->flags & RT_MESH_HAS_BW) {
		if (lim->min_gbps > 0 && gbps < lim->min_gbps)
			why |= RT_LINK_BW_ABS;
		if (lim->bw_fraction > 0 && !(g->not_judged & RT_LINK_BW_REL) &&
		    gbps < lim->bw_fraction * g->median_gbps)
			why |= RT_LINK_BW_REL;
	}
	return why;
}

/* A node is blamed by its own counts (bad, tested) less the bad links to
 * nodes already blamed, which they explain: a broken node must not make
 * its partners look broken too. Nodes are taken worst first (share of bad
 * links, then their number), each looked at once: O(n log n + links). */
struct blame {
	uint32_t rank, bad, tested;
	bool lost;
};

static int cmp_blame(const void *x, const void *y)
{
	const struct blame *p = x, *q = y;
	uint64_t l = (uint64_t)p->bad * q->tested, r = (uint64_t)q->bad * p->tested;

	if (p->lost != q->lost)
		return p->lost ? -1 : 1;
	if (l != r)
		return l > r ? -1 : 1;
	if (p->bad != q->bad)
		return p->bad > q->bad ? -1 : 1;
	return (p->rank > q->rank) - (p->rank < q->rank);
}

static bool blamed(bool lost, uint32_t bad, uint32_t tested)
{
	return (lost && bad >= 1) || (bad >= 2 && bad * 2 > tested);
}

/* The bad links of every node, as offsets into one array (CSR): 4 B per
 * rank and 8 B per bad link while judging. */
static uint32_t *bad_adjacency(const struct rt_mesh_agg *g, uint32_t **off)
{
	uint32_t *o = rt_xcalloc((size_t)g->n + 1, sizeof(*o)), *adj, *fill;

	for (uint32_t i = 0; i < g->nlinks; i++)
		if (g->links[i].why && g->links[i].why != RT_LINK_ABSENT) {
			o[g->links[i].r.a + 1]++;
			o[g->links[i].r.b + 1]++;
		}
	for (uint32_t i = 0; i < g->n; i++)
		o[i + 1] += o[i];
	adj = rt_xmalloc(RT_MAX(o[g->n], 1u) * sizeof(*adj));
	fill = rt_xmalloc(((size_t)g->n + 1) * sizeof(*fill));
	memcpy(fill, o, ((size_t)g->n + 1) * sizeof(*fill));
	for (uint32_t i = 0; i < g->nlinks; i++)
		if (g->links[i].why && g->links[i].why != RT_LINK_ABSENT) {
			adj[fill[g->links[i].r.a]++] = g->links[i].r.b;
			adj[fill[g->links[i].r.b]++] = g->links[i].r.a;
		}
	free(fill);
	*off = o;
	return adj;
}

static void blame_nodes(struct rt_mesh_agg *g)
{
	struct blame *order = rt_xmalloc(RT_MAX(g->n, 1u) * sizeof(*order));
	uint32_t *bad = rt_xmalloc(RT_MAX(g->n, 1u) * sizeof(*bad) * 2);
	uint32_t *tested = bad + RT_MAX(g->n, 1u), *off, *adj = bad_adjacency(g, &off);

	for (uint32_t i = 0; i < g->n; i++) {
		order[i] = (struct blame){i, g->nodes[i].bad, g->nodes[i].tested,
					 g->nodes[i].lost};
		bad[i] = g->nodes[i].bad;
		tested[i] = g->nodes[i].tested;
		g->nodes[i].verdict = RT_NODE_OK;
	}
	qsort(order, g->n, sizeof(*order), cmp_blame);
	for (uint32_t k = 0; k < g->n; k++) {
		uint32_t x = order[k].rank;

		if (!blamed(order[k].lost, bad[x], tested[x]))
			continue;
		g->nodes[x].verdict = RT_NODE_BAD;
		for (uint32_t e = off[x]; e < off[x + 1]; e++)
			if (g->nodes[adj[e]].verdict != RT_NODE_BAD) {
				bad[adj[e]]--;
				tested[adj[e]]--;
			}
	}
	for (uint32_t i = 0; i < g->n; i++) {
		struct rt_mesh_node *nd = &g->nodes[i];

		if (!nd->present)
			nd->verdict = RT_NODE_ABSENT;
		else if (nd->tested == 0)
			nd->verdict = RT_NODE_UNTESTED;
		else if (nd->verdict != RT_NODE_BAD && bad[i] == tested[i])
			nd->verdict = RT_NODE_SUSPECT; /* nothing passed with a good partner */
	}
	free(order);
	free(bad);
	free(off);
	free(adj);
}

static void count(struct rt_mesh_agg *g)
{
	g->bad_nodes = g->suspect_nodes = g->absent_nodes = g->bad_links = 0;
	g->untested_nodes = 0;
	blame_nodes(g);
	for (uint32_t i = 0; i < g->nlinks; i++)
		g->bad_links += rt_mesh_link_blamed(g, &g->links[i]);
	for (uint32_t i = 0; i < g->n; i++) {
		g->bad_nodes += g->nodes[i].verdict == RT_NODE_BAD;
		g->suspect_nodes += g->nodes[i].verdict == RT_NODE_SUSPECT;
		g->absent_nodes += g->nodes[i].verdict == RT_NODE_ABSENT;
		g->untested_nodes += g->nodes[i].verdict == RT_NODE_UNTESTED;
	}
	g->ready = g->nlinks > 0 && !g->bad_nodes && !g->suspect_nodes &&
		   !g->absent_nodes && !g->untested_nodes && !g->bad_links &&
		   !g->refused && !g->not_judged && !g->interrupted;
}

int rt_mesh_judge(struct rt_mesh_agg *g, const struct rt_mesh_limits *lim,
		  struct rt_error *err)
{
	if (!g->n)
		return rt_fail(err, RT_EXIT_FAIL, "mesh: no rank said hello");
	for (uint32_t i = 0; i < g->nres; i++)
		if (g->res[i].a >= g->n || g->res[i].b >= g->n)
			return rt_fail(err, RT_EXIT_FAIL, "mesh result for rank %u in a mesh of %u",
				       RT_MAX(g->res[i].a, g->res[i].b), g->n);
	collect_links(g);
	g->median_rtt_us = median_of(g, RT_MESH_HAS_RTT);
	g->median_gbps = median_of(g, RT_MESH_HAS_BW);
	g->not_judged = unjudged(g, lim);
	for (uint32_t i = 0; i < g->n; i++)
		g->nodes[i].tested = g->nodes[i].bad = 0;
	for (uint32_t i = 0; i < g->nlinks; i++) {
		struct rt_mesh_link *l = &g->links[i];

		l->why = judge_link(g, &l->r, lim);
		if (l->why == RT_LINK_ABSENT)
			continue;
		g->nodes[l->r.a].tested++;
		g->nodes[l->r.b].tested++;
		g->nodes[l->r.a].bad += l->why != 0;
		g->nodes[l->r.b].bad += l->why != 0;
	}
	count(g);
	return 0;
}

double rt_mesh_gbps(const struct rt_mesh_result *r)
{
	return (double)RT_MIN(r->mbps, r->mbps_rev) / 1e3;
}

bool rt_mesh_link_blamed(const struct rt_mesh_agg *g, const struct rt_mesh_link *l)
{
	return l->why && l->why != RT_LINK_ABSENT &&
	       g->nodes[l->r.a].verdict != RT_NODE_BAD &&
	       g->nodes[l->r.b].verdict != RT_NODE_BAD;
}

void rt_mesh_recheck_state(const struct rt_mesh_agg *g, char *state)
{
	for (uint32_t i = 0; i < g->n; i++)
		state[i] = g->nodes[i].verdict == RT_NODE_SUSPECT ? 'S' :
			   g->nodes[i].verdict == RT_NODE_OK ? 'P' : '-';
}

void rt_mesh_agg_free(struct rt_mesh_agg *g)
{
	free(g->nodes);
	free(g->res);
	free(g->links);
	memset(g, 0, sizeof(*g));
}

const char *rt_mesh_verdict_word(bool ready, bool interrupted)
{
	return ready ? "READY" : interrupted ? "interrupted" : "NOT READY";
}

const char *rt_node_verdict_name(unsigned v)
{
	static const char *const names[] = {"ok", "suspect", "bad", "absent",
					    "untested"};

	return v < ARRAY_SIZE(names) ? names[v] : "?";
}
