/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Judging a mesh run's results: links, then nodes and rails, then the
 * run (meshagg.h says what each verdict means). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/meshcell.h"
#include "mesh/meshctr.h"
#include "mesh/meshinv.h"
#include "mesh/meshmedian.h"
#include "rdmatest/util.h"


/* The line rate a link is judged by: the smaller of its ends' payload
 * rates, Gbit/s; 0 when either end did not know its own. */
double rt_mesh_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b)
{
	uint32_t x = g->nodes[a].payload_mbps, y = g->nodes[b].payload_mbps;

	return x && y ? RT_MIN(x, y) / 1000.0 : 0;
}

double rt_mesh_rail_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			      unsigned rail)
{
	return rt_mesh_rails_line_gbps(g, a, b, rail, rail);
}

uint32_t rt_mesh_rail_payload_mbps(const struct rt_mesh_rail *r)
{
	if (!r->want_gbps || !r->speed_mbps)
		return r->payload_mbps;
	return (uint32_t)((double)r->payload_mbps / r->speed_mbps * r->want_gbps * 1000.0);
}

double rt_mesh_rails_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			       unsigned rail, unsigned rail_b)
{
	const struct rt_mesh_rail *x = rt_mesh_rail_of(g, a, rail), *y = rt_mesh_rail_of(g, b, rail_b);
	uint32_t px, py;

	if (!x || !y)
		return rt_mesh_line_gbps(g, a, b);
	px = rt_mesh_rail_payload_mbps(x);
	py = rt_mesh_rail_payload_mbps(y);
	return px && py ? RT_MIN(px, py) / 1000.0 : 0;
}

/* The statistics of the class of rails `rail` against `rail_b`: the
 * rail's own, or the crossed pair's (either order). */
static struct rt_mesh_rail_stat *stat_of(const struct rt_mesh_agg *g, unsigned rail,
					 unsigned rail_b)
{
	if (rail == rail_b)
		return (struct rt_mesh_rail_stat *)&g->rail_stat[rail];
	return &g->cross_stat[rt_mesh_class_of(rail, rail_b)];
}

const struct rt_mesh_rail_stat *rt_mesh_class_stat(const struct rt_mesh_agg *g, unsigned rail,
						   unsigned rail_b)
{
	static const struct rt_mesh_rail_stat none;

	return rail == rail_b || g->cross_stat ? stat_of(g, rail, rail_b) : &none;
}

bool rt_mesh_ctr_bad(const struct rt_mesh_ctrs *c, unsigned i, const struct rt_mesh_limits *lim)
{
	const struct rt_mesh_ctr *e = &c->e[i];

	if (i >= c->n)
		return false;
	switch (rt_mesh_ctr_id_kind(e->id)) {
	case RT_MESH_CTR_LINK:
		return e->delta > lim->max_errors;
	case RT_MESH_CTR_RETRANSMIT:
		return rt_mesh_ctr_above_ppm(e->delta, rt_mesh_ctr_sent(c), lim->max_retrans_ppm);
	default: /* congestion: reported (meshcong.h), never judged */
		return false;
	}
}

/* RT_LINK_COUNTERS when any rise of the link's ports is too much. */
static uint8_t judge_counters(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			      const struct rt_mesh_cell *c, const struct rt_mesh_limits *lim)
{
	const struct rt_mesh_ctrs *ctr = rt_mesh_cell_ctrs(g, a, b, c);

	for (unsigned i = 0; ctr && i < ctr->n; i++)
		if (rt_mesh_ctr_bad(ctr, i, lim))
			return RT_LINK_COUNTERS;
	return 0;
}

static uint8_t judge_link(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			  const struct rt_mesh_cell *c, const struct rt_mesh_limits *lim)
{
	const struct rt_mesh_rail_stat *st = stat_of(g, c->rail, c->rail_b);
	double rtt = rt_mesh_figure(RT_MESH_HAS_RTT, c->rtt_p50);
	double gbps = rt_mesh_figure(RT_MESH_HAS_BW, RT_MIN(c->mbps, c->mbps_rev));
	uint8_t why = 0;

	if (!g->nodes[a].present || !g->nodes[b].present ||
	    rt_mesh_cell_state(c) == RT_MESH_ABSENT + 1)
		return RT_LINK_ABSENT;
	why = judge_counters(g, a, b, c, lim);
	if (rt_mesh_cell_state(c) != RT_MESH_OK + 1)
		return why | RT_LINK_FAILED;
	if (rt_mesh_cell_flags(c) & RT_MESH_HAS_RTT) {
		if (lim->max_rtt_us > 0 && rtt > lim->max_rtt_us)
			why |= RT_LINK_RTT_ABS;
		if (lim->rtt_factor > 0 && st->median_rtt_us > 0 &&
		    !(st->not_judged & RT_LINK_RTT_REL) &&
		    rtt > lim->rtt_factor * st->median_rtt_us)
			why |= RT_LINK_RTT_REL;
	}
	if (rt_mesh_cell_flags(c) & RT_MESH_HAS_BW) {
		/* incast: a sender's fair share of the receiver's link, as if
		 * it had the link alone, meets the absolute floors */
		double alone = gbps * RT_MAX(lim->shared_by, 1u);

		if (lim->min_gbps > 0 && alone < lim->min_gbps)
			why |= RT_LINK_BW_ABS;
		if (lim->bw_fraction > 0 && !(st->not_judged & RT_LINK_BW_REL) &&
		    gbps < lim->bw_fraction * st->median_gbps)
			why |= RT_LINK_BW_REL;
		if (lim->min_line_rate > 0 &&
		    alone < lim->min_line_rate * rt_mesh_rails_line_gbps(g, a, b, c->rail, c->rail_b))
			why |= RT_LINK_LINE_RATE;
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
	return (lost && bad >= RT_MESH_LOST_BAD_LINKS) ||
	       (bad >= RT_MESH_NODE_BAD_LINKS && bad * RT_MESH_NODE_BAD_ONE_IN > tested);
}

/* Named by the blame pass: bad whatever its counts, blamed first. */
static bool named_bad(const struct rt_mesh_node *nd)
{
	return nd->named && nd->present;
}

static bool bad_link(uint8_t why)
{
	return why && why != RT_LINK_ABSENT;
}

/* The bad links of every node on `rail`, as offsets into one array
 * (CSR): 4 B per rank and 8 B per bad link while judging. */
static uint32_t *bad_adjacency(const struct rt_mesh_agg *g, unsigned rail, uint32_t **off)
{
	uint32_t *o = rt_xcalloc((size_t)g->n + 1, sizeof(*o)), *adj, *fill, a, b;
	const struct rt_mesh_cell *c;
	struct rt_mesh_iter it;

	rt_mesh_links(g, &it);
	while ((c = rt_mesh_cell_next(&it, &a, &b)))
		if (c->rail == rail && c->rail_b == rail && bad_link(c->why)) {
			o[a + 1]++;
			o[b + 1]++;
		}
	for (uint32_t i = 0; i < g->n; i++)
		o[i + 1] += o[i];
	adj = rt_xmalloc(RT_MAX(o[g->n], 1u) * sizeof(*adj));
	fill = rt_xmalloc(((size_t)g->n + 1) * sizeof(*fill));
	memcpy(fill, o, ((size_t)g->n + 1) * sizeof(*fill));
	rt_mesh_links(g, &it);
	while ((c = rt_mesh_cell_next(&it, &a, &b)))
		if (c->rail == rail && c->rail_b == rail && bad_link(c->why)) {
			adj[fill[a]++] = b;
			adj[fill[b]++] = a;
		}
	free(fill);
	*off = o;
	return adj;
}

/* Each node's tested and bad links on `rail` into tested[] and bad[]. */
static void rail_counts(const struct rt_mesh_agg *g, unsigned rail, uint32_t *tested,
			uint32_t *bad)
{
	const struct rt_mesh_cell *c;
	struct rt_mesh_iter it;
	uint32_t a, b;

	memset(tested, 0, g->n * sizeof(*tested));
	memset(bad, 0, g->n * sizeof(*bad));
	rt_mesh_links(g, &it);
	while ((c = rt_mesh_cell_next(&it, &a, &b))) {
		if (c->rail != rail || c->rail_b != rail || c->why == RT_LINK_ABSENT)
			continue;
		tested[a]++, tested[b]++;
		bad[a] += c->why != 0;
		bad[b] += c->why != 0;
	}
}

/* The nodes that `rail`'s links blame (rail_bad) and those with nothing
 * passed there with a good partner (rail_suspect), worst first. */
static void blame_rail(struct rt_mesh_agg *g, unsigned rail, struct blame *order,
		       uint32_t *bad, uint32_t *tested)
{
	uint32_t *off, *adj = bad_adjacency(g, rail, &off), bit = 1u << rail;

	rail_counts(g, rail, tested, bad);
	for (uint32_t i = 0; i < g->n; i++) {
		order[i] = (struct blame){i, bad[i], tested[i],
					 g->nodes[i].lost || named_bad(&g->nodes[i])};
		g->nodes[i].rail_tested |= tested[i] ? bit : 0;
	}
	qsort(order, g->n, sizeof(*order), cmp_blame);
	for (uint32_t k = 0; k < g->n; k++) {
		uint32_t x = order[k].rank;

		if (!named_bad(&g->nodes[x]) && !blamed(order[k].lost, bad[x], tested[x]))
			continue;
		g->nodes[x].rail_bad |= bit;
		for (uint32_t e = off[x]; e < off[x + 1]; e++)
			if (!(g->nodes[adj[e]].rail_bad & bit)) {
				bad[adj[e]]--;
				tested[adj[e]]--;
			}
	}
	/* all its links there to nodes bad there count as nothing passed */
	for (uint32_t i = 0; i < g->n; i++)
		if ((g->nodes[i].rail_tested & ~g->nodes[i].rail_bad & bit) && bad[i] == tested[i])
			g->nodes[i].rail_suspect |= bit;
	free(off);
	free(adj);
}

/* Per rail, then per node: a node is bad when every rail it was tested
 * on blames it (one rail: as before rails); a rail that blames a node
 * whose other rails passed is that node's bad rail, not the node. */
static void blame_nodes(struct rt_mesh_agg *g)
{
	struct blame *order = rt_xmalloc(RT_MAX(g->n, 1u) * sizeof(*order));
	uint32_t *bad = rt_xmalloc(RT_MAX(g->n, 1u) * sizeof(*bad) * 2);
	uint32_t *tested = bad + RT_MAX(g->n, 1u);

	for (uint32_t i = 0; i < g->n; i++)
		g->nodes[i].rail_bad = g->nodes[i].rail_tested = g->nodes[i].rail_suspect = 0;
	for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
		if (g->rail_mask >> r & 1u)
			blame_rail(g, r, order, bad, tested);
	for (uint32_t i = 0; i < g->n; i++) {
		struct rt_mesh_node *nd = &g->nodes[i];

		nd->verdict = RT_NODE_OK;
		if (!nd->present)
			nd->verdict = RT_NODE_ABSENT;
		else if (nd->tested == 0)
			nd->verdict = RT_NODE_UNTESTED;
		else if (nd->rail_tested && (nd->rail_bad & nd->rail_tested) == nd->rail_tested)
			nd->verdict = RT_NODE_BAD;
		else if (nd->rail_tested && ((nd->rail_suspect | nd->rail_bad) & nd->rail_tested) ==
						    nd->rail_tested && (nd->rail_suspect & ~nd->rail_bad))
			/* nothing passed with a good partner on any rail: a host that
			 * passed on one rail is not suspect for another's link */
			nd->verdict = RT_NODE_SUSPECT;
		if (nd->verdict == RT_NODE_BAD)
			nd->rail_bad = 0; /* the host, not its rails */
	}
	free(order);
	free(bad);
}

/* A bad link that no bad node or bad rail at either end explains (a's
 * rail `rail`, b's `rail_b`). */
static bool link_blamed(const struct rt_mesh_agg *g, uint32_t a, uint32_t b, unsigned rail,
			unsigned rail_b, uint32_t why)
{
	return why && why != RT_LINK_ABSENT && g->nodes[a].verdict != RT_NODE_BAD &&
	       g->nodes[b].verdict != RT_NODE_BAD && !(g->nodes[a].rail_bad >> rail & 1u) &&
	       !(g->nodes[b].rail_bad >> rail_b & 1u);
}

enum rt_rail_fault rt_mesh_rail_fault(const struct rt_mesh_agg *g, const struct rt_mesh_node *nd,
				      const struct rt_mesh_rail *r)
{
	if (!r->addr[0] && g->rails_addressed >> r->rail & 1u)
		return RT_RAIL_NO_ADDR;
	if (!r->addr[0] && r->state != RT_RAIL_ACTIVE)
		return RT_RAIL_UNUSED;
	if (r->state != RT_RAIL_ACTIVE)
		return RT_RAIL_NOT_ACTIVE;
	return nd->rail_bad >> r->rail & 1u ? RT_RAIL_LINKS_BAD : RT_RAIL_OK;
}

void rt_mesh_rail_fault_text(enum rt_rail_fault f, const struct rt_mesh_rail *r, char *buf,
			     size_t len)
{
	if (f == RT_RAIL_NO_ADDR)
		snprintf(buf, len, "port %u carries no IP address (another host's rail %u does)",
			 r->port, r->rail);
	else
		snprintf(buf, len, "port %u %s", r->port, rt_rail_state_name(r->state));
}

/* Which rail numbers carry an address on some host, and which are ACTIVE
 * on some host without an address on any. */
static void rail_addresses(struct rt_mesh_agg *g)
{
	uint32_t active = 0;

	g->rails_addressed = 0;
	for (uint32_t i = 0; i < g->n; i++)
		for (unsigned r = 0; g->nodes[i].present && r < g->nodes[i].nrails; r++) {
			const struct rt_mesh_rail *x = &g->nodes[i].rails[r];

			if (x->addr[0])
				g->rails_addressed |= 1u << x->rail;
			else if (x->state == RT_RAIL_ACTIVE)
				active |= 1u << x->rail;
		}
	g->rails_unaddressed = active & ~g->rails_addressed;
}

/* The count of rails in use most hosts have (the smaller on a tie), and
 * the hosts that differ; a rail that lost its address, is not ACTIVE, or
 * its links blame. */
static void count_rails(struct rt_mesh_agg *g)
{
	uint32_t hist[RT_MESH_RAILS_MAX + 1] = {0}, best = 0;

	g->bad_rails = g->rail_mismatch = 0;
	rail_addresses(g);
	for (uint32_t i = 0; i < g->n; i++) {
		struct rt_mesh_node *nd = &g->nodes[i];

		nd->rails_in_use = 0;
		for (unsigned r = 0; nd->present && r < nd->nrails; r++) {
			enum rt_rail_fault f = rt_mesh_rail_fault(g, nd, &nd->rails[r]);

			nd->rails_in_use += f != RT_RAIL_UNUSED;
			g->bad_rails += f != RT_RAIL_UNUSED && f != RT_RAIL_OK;
		}
		if (nd->present)
			hist[nd->rails_in_use]++;
	}
	for (uint32_t k = 1; k <= RT_MESH_RAILS_MAX; k++)
		if (hist[k] > hist[best])
			best = k;
	g->rails_expected = best;
	for (uint32_t i = 0; i < g->n; i++)
		g->rail_mismatch += g->nodes[i].present && g->nodes[i].rails_in_use != best;
}

static void count(struct rt_mesh_agg *g)
{
	const struct rt_mesh_cell *c;
	struct rt_mesh_iter it;
	uint32_t a, b;

	g->bad_nodes = g->suspect_nodes = g->absent_nodes = g->bad_links = 0;
	g->untested_nodes = 0;
	blame_nodes(g);
	rt_mesh_links(g, &it);
	while ((c = rt_mesh_cell_next(&it, &a, &b))) {
		bool bl = link_blamed(g, a, b, c->rail, c->rail_b, c->why);

		g->bad_links += bl;
		stat_of(g, c->rail, c->rail_b)->bad_links += bl;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		g->bad_nodes += g->nodes[i].verdict == RT_NODE_BAD;
		g->suspect_nodes += g->nodes[i].verdict == RT_NODE_SUSPECT;
		g->absent_nodes += g->nodes[i].verdict == RT_NODE_ABSENT;
		g->untested_nodes += g->nodes[i].verdict == RT_NODE_UNTESTED;
	}
	count_rails(g);
	rt_mesh_inv_judge(g);
	g->ready = g->nlinks > 0 && !g->bad_nodes && !g->suspect_nodes &&
		   !g->absent_nodes && !g->untested_nodes && !g->bad_links &&
		   !g->refused && !g->not_judged && !g->interrupted && !g->bad_rails &&
		   !g->rail_mismatch && !g->ctr_dropped && !rt_mesh_inv_failed(g);
}

/* The rails with links, and each one's medians: each rail is judged
 * against its own. The run's medians are over every rail. */
static void judge_rails(struct rt_mesh_agg *g, const struct rt_mesh_limits *lim)
{
	const struct rt_mesh_cell *c;
	struct rt_mesh_iter it;
	uint32_t a, b;

	g->rail_mask = 0;
	g->ncross = 0;
	memset(g->rail_stat, 0, sizeof(g->rail_stat));
	if (g->cross_stat)
		memset(g->cross_stat, 0, RT_MESH_CLASSES * sizeof(*g->cross_stat));
	rt_mesh_links(g, &it);
	while ((c = rt_mesh_cell_next(&it, &a, &b))) {
		if (c->rail == c->rail_b) {
			g->rail_mask |= 1u << c->rail;
		} else {
			if (!g->cross_stat)
				g->cross_stat = rt_xcalloc(RT_MESH_CLASSES, sizeof(*g->cross_stat));
			g->ncross++;
		}
		stat_of(g, c->rail, c->rail_b)->links++;
	}
	g->median_rtt_us = rt_mesh_median(g, RT_MESH_HAS_RTT, -1);
	g->median_gbps = rt_mesh_median(g, RT_MESH_HAS_BW, -1);
	g->not_judged = 0;
	for (int k = 0; k < (int)RT_MESH_CLASSES; k++) {
		unsigned r = (unsigned)k / RT_MESH_RAILS_MAX, rb = (unsigned)k % RT_MESH_RAILS_MAX;
		struct rt_mesh_rail_stat *st;

		if (rb < r || (r != rb && !g->cross_stat) || !(st = stat_of(g, r, rb))->links)
			continue;
		/* one class: its medians are the run's, taken once */
		st->median_rtt_us = st->links == g->nlinks ? g->median_rtt_us
							   : rt_mesh_median(g, RT_MESH_HAS_RTT, k);
		st->median_gbps = st->links == g->nlinks ? g->median_gbps
							 : rt_mesh_median(g, RT_MESH_HAS_BW, k);
		st->not_judged = rt_mesh_unjudged(g, lim, k);
		g->not_judged |= st->not_judged;
	}
}

int rt_mesh_judge(struct rt_mesh_agg *g, const struct rt_mesh_limits *lim,
		  struct rt_error *err)
{
	struct rt_mesh_cell *c;
	struct rt_mesh_iter it;
	uint32_t a, b, out;

	if (!g->n)
		return rt_fail(err, RT_EXIT_FAIL, "mesh: no rank said hello");
	if ((out = rt_mesh_rank_outside(g)))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result for rank %u in a mesh of %u",
			       out, g->n);
	rt_mesh_settle(g);
	g->nlinks = g->absent_links = 0;
	rt_mesh_links(g, &it);
	while (rt_mesh_cell_next(&it, &a, &b))
		g->nlinks++;
	judge_rails(g, lim);
	for (uint32_t i = 0; i < g->n; i++)
		g->nodes[i].tested = g->nodes[i].bad = 0;
	rt_mesh_links(g, &it);
	while ((c = rt_mesh_cell_next(&it, &a, &b))) {
		c->why = judge_link(g, a, b, c, lim);
		g->absent_links += c->why == RT_LINK_ABSENT;
		if (c->why == RT_LINK_ABSENT)
			continue;
		g->nodes[a].tested++;
		g->nodes[b].tested++;
		g->nodes[a].bad += c->why != 0;
		g->nodes[b].bad += c->why != 0;
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
	return link_blamed(g, l->r.a, l->r.b, l->r.rail, l->r.rail_b, l->why);
}


int rt_mesh_pair_bad(const struct rt_mesh_agg *g, uint32_t a, uint32_t b)
{
	struct rt_mesh_link l;

	return rt_mesh_pair_worst(g, a, b, &l) ? (int)l.why : -1;
}

bool rt_mesh_node_clean(const struct rt_mesh_agg *g, uint32_t rank)
{
	const struct rt_mesh_node *nd = &g->nodes[rank];

	return nd->present && !nd->lost && !nd->named && nd->verdict == RT_NODE_OK;
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
