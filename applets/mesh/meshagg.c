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
	g->nodes[h->rank].payload_mbps = h->payload_mbps;
	g->nodes[h->rank].nrails = h->nrails;
	if (h->nrails) {
		g->nodes[h->rank].rails = rt_xcalloc(h->nrails, sizeof(h->rails[0]));
		memcpy(g->nodes[h->rank].rails, h->rails, h->nrails * sizeof(h->rails[0]));
	}
	rt_strlcpy(g->nodes[h->rank].host, h->host, RT_MESH_HOST_LEN);
	return 0;
}

int rt_mesh_agg_rail(struct rt_mesh_agg *g, uint32_t rank, const struct rt_mesh_rail *r,
		     struct rt_error *err)
{
	struct rt_mesh_node *nd = rank < g->n ? &g->nodes[rank] : NULL;

	if (!nd || !nd->present)
		return rt_fail(err, RT_EXIT_FAIL, "mesh: a rail of rank %u before its hello", rank);
	if (nd->nrails >= RT_MESH_RAILS_MAX ||
	    (nd->nrails && nd->rails[nd->nrails - 1].rail >= r->rail))
		return rt_fail(err, RT_EXIT_FAIL, "mesh: rank %u: rail %u after its rail %u "
			       "(increasing, at most %u)", rank, r->rail,
			       nd->nrails ? nd->rails[nd->nrails - 1].rail : 0, RT_MESH_RAILS_MAX);
	nd->rails = rt_xrealloc(nd->rails, (nd->nrails + 1u) * sizeof(*nd->rails));
	nd->rails[nd->nrails++] = *r;
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

/* ---- the stored form (meshagg.h, Storage) ---- */

struct rt_mesh_cell {
	uint32_t connect, rtt_p50, rtt_p99; /* ns32() */
	uint32_t mbps, mbps_rev;            /* a to b, b to a (a < b) */
	/* 0: not tested, else (status + 1) | RT_MESH_HAS_* << 4 */
	uint8_t sf;
	uint8_t why;                        /* RT_LINK_*, after judging */
	uint8_t rail, rail_b;               /* the rails tested: a's and b's */
};

/* A cell's status + 1 (0: not tested) and its RT_MESH_HAS_* flags. */
static unsigned cstate(const struct rt_mesh_cell *c)
{
	return c->sf & 0xfu;
}

static unsigned cflags(const struct rt_mesh_cell *c)
{
	return c->sf >> 4;
}

struct rt_mesh_sparse {
	uint32_t pair; /* a << 16 | b, a < b: sorted, it is the (a, b) order */
	uint32_t seq;  /* its round, so that a re-test wins whatever the order
			* the lines came in (mesh report) */
	struct rt_mesh_cell c;
};

_Static_assert(sizeof(struct rt_mesh_cell) == 24, "a stored result is 24 B");
_Static_assert(RT_MESH_STATUS_MAX + 1 < 16 && (RT_MESH_HAS_RTT | RT_MESH_HAS_BW) < 16,
	       "status + 1 and the flags share a byte");
_Static_assert(sizeof(struct rt_mesh_sparse) == 32, "a sparse entry is 32 B");
/* the sparse key holds a rank in 16 bits */
_Static_assert(RT_HOSTLIST_MAX <= 65536u, "ranks fit 16 bits");

/* Below this, nanoseconds are stored as they are; it is a whole number
 * of microseconds just under 2^31, so that above it the stored value
 * counts whole microseconds on from it. */
#define NS_EXACT 2147483000u
#define US_EXACT (NS_EXACT / 1000u)

/* Nanoseconds in 32 bits: exact below NS_EXACT (2.1 s), which every RTT
 * and connect time is in practice, rounded down to the microsecond above
 * (to about 35 minutes, past any --timeout), saturating. Monotonic, so
 * that medians and thresholds can work on the stored value. */
static uint32_t ns32(uint64_t ns)
{
	uint64_t us;

	if (ns < NS_EXACT)
		return (uint32_t)ns;
	us = ns / 1000 - US_EXACT;
	return us > UINT32_MAX - NS_EXACT ? UINT32_MAX : NS_EXACT + (uint32_t)us;
}

static uint64_t ns64(uint32_t v)
{
	return v < NS_EXACT ? v : ((uint64_t)(v - NS_EXACT) + US_EXACT) * 1000;
}

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint64_t npairs(uint32_t n)
{
	return (uint64_t)n * (n ? n - 1 : 0) / 2;
}

/* The dense cell of a < b < n: row a, after the rows above it. */
static uint64_t pair_index(uint32_t n, uint32_t a, uint32_t b)
{
	return (uint64_t)a * (2ull * n - a - 1) / 2 + (b - a - 1);
}

/* r with its ends as a < b: the directions turn with them. */
static struct rt_mesh_cell encode(const struct rt_mesh_result *r, bool swap)
{
	return (struct rt_mesh_cell){
		.connect = ns32(r->connect_ns), .rtt_p50 = ns32(r->rtt_p50_ns),
		.rtt_p99 = ns32(r->rtt_p99_ns),
		.mbps = sat32(swap ? r->mbps_rev : r->mbps),
		.mbps_rev = sat32(swap ? r->mbps : r->mbps_rev),
		.sf = (uint8_t)((r->status + 1) | (r->flags & 0xfu) << 4),
		.rail = swap ? r->rail_b : r->rail, .rail_b = swap ? r->rail : r->rail_b};
}

static void decode(const struct rt_mesh_cell *c, uint32_t a, uint32_t b,
		   struct rt_mesh_link *l)
{
	*l = (struct rt_mesh_link){.why = c->why, .r = {.a = a, .b = b,
		.status = (uint8_t)(cstate(c) - 1), .flags = (uint8_t)cflags(c),
		.rail = c->rail, .rail_b = c->rail_b, .connect_ns = ns64(c->connect), .rtt_p50_ns = ns64(c->rtt_p50),
		.rtt_p99_ns = ns64(c->rtt_p99), .mbps = c->mbps, .mbps_rev = c->mbps_rev}};
}

/* Every stored cell, tested or not, in storage order. */
static uint64_t ncells(const struct rt_mesh_agg *g)
{
	return g->dense ? npairs(g->n) : g->nsparse;
}

static struct rt_mesh_cell *cell(const struct rt_mesh_agg *g, uint64_t i)
{
	return g->dense ? &g->dense[i] : &g->sparse[i].c;
}

void rt_mesh_agg_plan(struct rt_mesh_agg *g, uint64_t results)
{
	uint64_t pairs = npairs(g->n);

	if (g->dense || g->nsparse || !pairs || pairs * 24 > results * 32 || g->rails > 1)
		return;
	g->dense = rt_xcalloc(pairs, sizeof(*g->dense));
}

static void sparse_add(struct rt_mesh_agg *g, uint32_t a, uint32_t b, uint32_t round,
		       struct rt_mesh_cell c)
{
	if (g->nsparse == g->cap) {
		g->cap = (uint32_t)RT_MIN(g->cap ? 2ull * g->cap : 1024u, g->max_results);
		g->sparse = rt_xrealloc(g->sparse, (size_t)g->cap * sizeof(*g->sparse));
	}
	g->sparse[g->nsparse] = (struct rt_mesh_sparse){a << 16 | b, round, c};
	g->nsparse++;
}

int rt_mesh_agg_add(struct rt_mesh_agg *g, const struct rt_mesh_result *r,
		    struct rt_error *err)
{
	uint32_t a = RT_MIN(r->a, r->b), b = RT_MAX(r->a, r->b);

	if (!g->dense && g->nres >= g->max_results) /* dense: a cell per pair */
		return rt_fail(err, RT_EXIT_FAIL, "mesh: more than %u results", g->max_results);
	if (a == b || (g->n && b >= g->n))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result for ranks %u and %u in a mesh of %u",
			       r->a, r->b, g->n);
	if (b >= RT_HOSTLIST_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "mesh result for ranks %u and %u: a mesh "
			       "has at most %u", r->a, r->b, RT_HOSTLIST_MAX);
	g->nres++;
	if (g->dense)
		g->dense[pair_index(g->n, a, b)] = encode(r, a != r->a);
	else
		sparse_add(g, a, b, r->round, encode(r, a != r->a));
	return 0;
}

/* By pair, then round (a pair twice in one round comes only from a
 * report's duplicated lines: either is kept). */
static int cmp_sparse(const void *x, const void *y)
{
	const struct rt_mesh_sparse *p = x, *q = y;

	if (p->pair != q->pair)
		return p->pair < q->pair ? -1 : 1;
	if (p->c.rail != q->c.rail)
		return p->c.rail < q->c.rail ? -1 : 1;
	if (p->c.rail_b != q->c.rail_b)
		return p->c.rail_b < q->c.rail_b ? -1 : 1;
	return (p->seq > q->seq) - (p->seq < q->seq);
}

/* The sparse entries by pair and rails, the result of the latest round of
 * each alone (a re-test after the first pass wins). */
static void settle(struct rt_mesh_agg *g)
{
	uint32_t k = 0;

	if (g->dense || !g->nsparse)
		return;
	qsort(g->sparse, g->nsparse, sizeof(*g->sparse), cmp_sparse);
	for (uint32_t i = 0; i < g->nsparse; i++) {
		if (i + 1 < g->nsparse && g->sparse[i + 1].pair == g->sparse[i].pair &&
		    g->sparse[i + 1].c.rail == g->sparse[i].c.rail &&
		    g->sparse[i + 1].c.rail_b == g->sparse[i].c.rail_b)
			continue;
		g->sparse[k++] = g->sparse[i];
	}
	g->nsparse = k;
}

/* The next tested cell of the walk and its pair. */
static struct rt_mesh_cell *step(struct rt_mesh_iter *it, uint32_t *a, uint32_t *b)
{
	const struct rt_mesh_agg *g = it->g;

	if (!g->dense) {
		const struct rt_mesh_sparse *e;

		if (it->at >= g->nsparse)
			return NULL;
		e = &g->sparse[it->at++];
		*a = e->pair >> 16;
		*b = e->pair & 0xffffu;
		return &g->sparse[it->at - 1].c;
	}
	while (it->at < npairs(g->n)) {
		struct rt_mesh_cell *c = &g->dense[it->at++];

		*a = it->a;
		*b = it->b;
		if (++it->b == g->n) {
			it->a++;
			it->b = it->a + 1;
		}
		if (cstate(c))
			return c;
	}
	return NULL;
}

void rt_mesh_links(const struct rt_mesh_agg *g, struct rt_mesh_iter *it)
{
	*it = (struct rt_mesh_iter){.g = g, .a = 0, .b = 1};
}

bool rt_mesh_link_next(struct rt_mesh_iter *it, struct rt_mesh_link *l)
{
	uint32_t a, b;
	const struct rt_mesh_cell *c = step(it, &a, &b);

	if (c)
		decode(c, a, b, l);
	return c != NULL;
}

/* The first sparse entry of pair a < b (its lowest rails), or nsparse. */
static uint32_t first_of(const struct rt_mesh_agg *g, uint32_t a, uint32_t b)
{
	uint32_t lo = 0, hi = g->nsparse, key = a << 16 | b;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (g->sparse[mid].pair < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nsparse && g->sparse[lo].pair == key ? lo : g->nsparse;
}

/* Whether c is of rail a rail_b b (-1: any). */
static bool on_rails(const struct rt_mesh_cell *c, int rail, int rail_b)
{
	return (rail < 0 || c->rail == rail) && (rail_b < 0 || c->rail_b == rail_b);
}

static const struct rt_mesh_cell *find(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
				       int rail, int rail_b)
{
	if (g->dense) {
		const struct rt_mesh_cell *c = &g->dense[pair_index(g->n, a, b)];

		return cstate(c) && on_rails(c, rail, rail_b) ? c : NULL;
	}
	/* its entries: at most RT_MESH_RAILS_MAX^2 (crossed rails) */
	for (uint32_t i = first_of(g, a, b); i < g->nsparse && g->sparse[i].pair == (a << 16 | b);
	     i++)
		if (on_rails(&g->sparse[i].c, rail, rail_b))
			return &g->sparse[i].c;
	return NULL;
}

bool rt_mesh_link_of_rails(const struct rt_mesh_agg *g, uint32_t a, uint32_t b, int rail,
			   int rail_b, struct rt_mesh_link *l)
{
	uint32_t lo = RT_MIN(a, b), hi = RT_MAX(a, b);
	bool turn = a > b; /* the rails turn with the ends */
	const struct rt_mesh_cell *c;

	if (lo == hi || hi >= g->n ||
	    !(c = find(g, lo, hi, turn ? rail_b : rail, turn ? rail : rail_b)))
		return false;
	decode(c, lo, hi, l);
	return true;
}

bool rt_mesh_link_of_rail(const struct rt_mesh_agg *g, uint32_t a, uint32_t b, int rail,
			  struct rt_mesh_link *l)
{
	return rt_mesh_link_of_rails(g, a, b, rail, rail, l);
}

bool rt_mesh_link_of(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
		     struct rt_mesh_link *l)
{
	return rt_mesh_link_of_rail(g, a, b, -1, l);
}

/* ---- medians ---- */

/* A link's class: its two rails, the smaller first (which end is a is
 * only the ranks' order); rail r against itself is r x 33. */
static int class_of(unsigned rail, unsigned rail_b)
{
	return (int)(RT_MIN(rail, rail_b) * RT_MESH_RAILS_MAX + RT_MAX(rail, rail_b));
}

static int cell_class(const struct rt_mesh_cell *c)
{
	return class_of(c->rail, c->rail_b);
}

/* The figure a median is taken of (its stored, monotonic value), when
 * the link measured it and is of class cls (-1: any). */
static bool figure(const struct rt_mesh_cell *c, uint8_t flag, int cls, uint32_t *v)
{
	if (cstate(c) != RT_MESH_OK + 1 || !(cflags(c) & flag) || (cls >= 0 && cell_class(c) != cls))
		return false;
	*v = flag == RT_MESH_HAS_RTT ? c->rtt_p50 : RT_MIN(c->mbps, c->mbps_rev);
	return true;
}

#define HIST 65536u

/* One pass of the radix selection: the 16-bit digit (top, or bottom
 * among the figures whose top is hi) that holds the k-th figure; k
 * becomes its rank within that digit. */
static uint32_t digit(const struct rt_mesh_agg *g, uint8_t flag, int cls, bool low,
		      uint32_t hi, uint32_t *k, uint32_t *hist)
{
	uint64_t n = ncells(g);
	uint32_t v, d = 0;

	memset(hist, 0, HIST * sizeof(*hist));
	for (uint64_t i = 0; i < n; i++)
		if (figure(cell(g, i), flag, cls, &v) && (!low || v >> 16 == hi))
			hist[low ? v & 0xffffu : v >> 16]++;
	while (*k >= hist[d])
		*k -= hist[d++];
	return d;
}

/* The k-th smallest figure (from 0; k below their count): two passes
 * over the stored cells, no copy of the figures. */
static uint32_t nth_figure(const struct rt_mesh_agg *g, uint8_t flag, int cls, uint32_t k,
			   uint32_t *hist)
{
	uint32_t hi = digit(g, flag, cls, false, 0, &k, hist);

	return hi << 16 | digit(g, flag, cls, true, hi, &k, hist);
}

static double figure_value(uint8_t flag, uint32_t v)
{
	return flag == RT_MESH_HAS_RTT ? (double)ns64(v) / 1e3 : (double)v / 1e3;
}

/* The median of the measured links' figure of class `cls` (-1: every class),
 * the mean of the two middle ones for an even count (RTT in us,
 * bandwidth in Gbit/s). */
static double median_of(const struct rt_mesh_agg *g, uint8_t flag, int cls)
{
	uint64_t n = ncells(g);
	uint32_t k = 0, v, *hist;
	double m;

	for (uint64_t i = 0; i < n; i++)
		k += figure(cell(g, i), flag, cls, &v);
	if (!k)
		return 0;
	hist = rt_xmalloc(HIST * sizeof(*hist));
	m = figure_value(flag, nth_figure(g, flag, cls, k / 2, hist));
	if (k % 2 == 0)
		m = (figure_value(flag, nth_figure(g, flag, cls, k / 2 - 1, hist)) + m) / 2;
	free(hist);
	return m;
}

/* ---- judging ---- */

/* A relative criterion is made only over enough measured links (of one
 * class: each rail, and each pair of crossed rails, is judged against its
 * own medians); with fewer it is
 * named not judged rather than passed. */
static uint32_t unjudged(const struct rt_mesh_agg *g, const struct rt_mesh_limits *lim,
			 int cls)
{
	uint32_t rtt = 0, bw = 0, min = RT_MAX(lim->min_links, 1u), out = 0, v;
	uint64_t n = ncells(g);

	for (uint64_t i = 0; i < n; i++) {
		rtt += figure(cell(g, i), RT_MESH_HAS_RTT, cls, &v);
		bw += figure(cell(g, i), RT_MESH_HAS_BW, cls, &v);
	}
	if (lim->rtt_factor > 0 && rtt && rtt < min)
		out |= RT_LINK_RTT_REL;
	if (lim->bw_fraction > 0 && bw && bw < min)
		out |= RT_LINK_BW_REL;
	return out;
}

/* The line rate a link is judged by: the smaller of its ends' payload
 * rates, Gbit/s; 0 when either end did not know its own. */
double rt_mesh_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b)
{
	uint32_t x = g->nodes[a].payload_mbps, y = g->nodes[b].payload_mbps;

	return x && y ? RT_MIN(x, y) / 1000.0 : 0;
}

const struct rt_mesh_rail *rt_mesh_rail_of(const struct rt_mesh_agg *g, uint32_t rank,
					   unsigned rail)
{
	const struct rt_mesh_node *nd = &g->nodes[rank];

	for (unsigned i = 0; i < nd->nrails; i++)
		if (nd->rails[i].rail == rail)
			return &nd->rails[i];
	return NULL;
}

double rt_mesh_rail_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			      unsigned rail)
{
	return rt_mesh_rails_line_gbps(g, a, b, rail, rail);
}

double rt_mesh_rails_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			       unsigned rail, unsigned rail_b)
{
	const struct rt_mesh_rail *x = rt_mesh_rail_of(g, a, rail), *y = rt_mesh_rail_of(g, b, rail_b);

	if (!x || !y)
		return rt_mesh_line_gbps(g, a, b);
	return x->payload_mbps && y->payload_mbps ? RT_MIN(x->payload_mbps, y->payload_mbps) / 1000.0
						  : 0;
}

/* The statistics of the class of rails `rail` against `rail_b`: the
 * rail's own, or the crossed pair's (either order). */
static struct rt_mesh_rail_stat *stat_of(const struct rt_mesh_agg *g, unsigned rail,
					 unsigned rail_b)
{
	if (rail == rail_b)
		return (struct rt_mesh_rail_stat *)&g->rail_stat[rail];
	return &g->cross_stat[class_of(rail, rail_b)];
}

const struct rt_mesh_rail_stat *rt_mesh_class_stat(const struct rt_mesh_agg *g, unsigned rail,
						   unsigned rail_b)
{
	static const struct rt_mesh_rail_stat none;

	return rail == rail_b || g->cross_stat ? stat_of(g, rail, rail_b) : &none;
}

static uint8_t judge_link(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			  const struct rt_mesh_cell *c, const struct rt_mesh_limits *lim)
{
	const struct rt_mesh_rail_stat *st = stat_of(g, c->rail, c->rail_b);
	double rtt = figure_value(RT_MESH_HAS_RTT, c->rtt_p50);
	double gbps = figure_value(RT_MESH_HAS_BW, RT_MIN(c->mbps, c->mbps_rev));
	uint8_t why = 0;

	if (!g->nodes[a].present || !g->nodes[b].present ||
	    cstate(c) == RT_MESH_ABSENT + 1)
		return RT_LINK_ABSENT;
	if (cstate(c) != RT_MESH_OK + 1)
		return RT_LINK_FAILED;
	if (cflags(c) & RT_MESH_HAS_RTT) {
		if (lim->max_rtt_us > 0 && rtt > lim->max_rtt_us)
			why |= RT_LINK_RTT_ABS;
		if (lim->rtt_factor > 0 && st->median_rtt_us > 0 &&
		    !(st->not_judged & RT_LINK_RTT_REL) &&
		    rtt > lim->rtt_factor * st->median_rtt_us)
			why |= RT_LINK_RTT_REL;
	}
	if (cflags(c) & RT_MESH_HAS_BW) {
		if (lim->min_gbps > 0 && gbps < lim->min_gbps)
			why |= RT_LINK_BW_ABS;
		if (lim->bw_fraction > 0 && !(st->not_judged & RT_LINK_BW_REL) &&
		    gbps < lim->bw_fraction * st->median_gbps)
			why |= RT_LINK_BW_REL;
		if (lim->min_line_rate > 0 &&
		    gbps < lim->min_line_rate * rt_mesh_rails_line_gbps(g, a, b, c->rail, c->rail_b))
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
	return (lost && bad >= 1) || (bad >= 2 && bad * 2 > tested);
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
	while ((c = step(&it, &a, &b)))
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
	while ((c = step(&it, &a, &b)))
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
	while ((c = step(&it, &a, &b))) {
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

/* The rail count most hosts have (the smaller on a tie), and the hosts
 * that differ; a rail a hello lists not ACTIVE, or its links blame. */
static void count_rails(struct rt_mesh_agg *g)
{
	uint32_t hist[RT_MESH_RAILS_MAX + 1] = {0}, best = 0;

	g->bad_rails = g->rail_mismatch = 0;
	for (uint32_t i = 0; i < g->n; i++)
		if (g->nodes[i].present)
			hist[g->nodes[i].nrails]++;
	for (uint32_t k = 1; k <= RT_MESH_RAILS_MAX; k++)
		if (hist[k] > hist[best])
			best = k;
	g->rails_expected = best;
	for (uint32_t i = 0; i < g->n; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];

		if (!nd->present)
			continue;
		g->rail_mismatch += nd->nrails != best;
		for (unsigned r = 0; r < nd->nrails; r++)
			g->bad_rails += nd->rails[r].state != RT_RAIL_ACTIVE ||
					(nd->rail_bad >> nd->rails[r].rail & 1u);
	}
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
	while ((c = step(&it, &a, &b))) {
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
	g->ready = g->nlinks > 0 && !g->bad_nodes && !g->suspect_nodes &&
		   !g->absent_nodes && !g->untested_nodes && !g->bad_links &&
		   !g->refused && !g->not_judged && !g->interrupted && !g->bad_rails &&
		   !g->rail_mismatch;
}

/* Results taken before the size was known (report): a rank outside it. */
static uint32_t rank_outside(const struct rt_mesh_agg *g)
{
	for (uint32_t i = 0; !g->dense && i < g->nsparse; i++)
		if ((g->sparse[i].pair & 0xffffu) >= g->n)
			return g->sparse[i].pair & 0xffffu;
	return 0;
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
	while ((c = step(&it, &a, &b))) {
		if (c->rail == c->rail_b) {
			g->rail_mask |= 1u << c->rail;
		} else {
			if (!g->cross_stat)
				g->cross_stat = rt_xcalloc(RT_MESH_CLASSES, sizeof(*g->cross_stat));
			g->ncross++;
		}
		stat_of(g, c->rail, c->rail_b)->links++;
	}
	g->median_rtt_us = median_of(g, RT_MESH_HAS_RTT, -1);
	g->median_gbps = median_of(g, RT_MESH_HAS_BW, -1);
	g->not_judged = 0;
	for (int k = 0; k < (int)RT_MESH_CLASSES; k++) {
		unsigned r = (unsigned)k / RT_MESH_RAILS_MAX, rb = (unsigned)k % RT_MESH_RAILS_MAX;
		struct rt_mesh_rail_stat *st;

		if (rb < r || (r != rb && !g->cross_stat) || !(st = stat_of(g, r, rb))->links)
			continue;
		/* one class: its medians are the run's, taken once */
		st->median_rtt_us = st->links == g->nlinks ? g->median_rtt_us
							   : median_of(g, RT_MESH_HAS_RTT, k);
		st->median_gbps = st->links == g->nlinks ? g->median_gbps
							 : median_of(g, RT_MESH_HAS_BW, k);
		st->not_judged = unjudged(g, lim, k);
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
	if ((out = rank_outside(g)))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result for rank %u in a mesh of %u",
			       out, g->n);
	settle(g);
	g->nlinks = 0;
	rt_mesh_links(g, &it);
	while (step(&it, &a, &b))
		g->nlinks++;
	judge_rails(g, lim);
	for (uint32_t i = 0; i < g->n; i++)
		g->nodes[i].tested = g->nodes[i].bad = 0;
	rt_mesh_links(g, &it);
	while ((c = step(&it, &a, &b))) {
		c->why = judge_link(g, a, b, c, lim);
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

bool rt_mesh_pair_worst(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			struct rt_mesh_link *l)
{
	uint32_t lo = RT_MIN(a, b), hi = RT_MAX(a, b), i, end;
	bool found = false;

	if (lo == hi || hi >= g->n)
		return false;
	if (g->dense) {
		i = (uint32_t)pair_index(g->n, lo, hi);
		end = i + 1;
	} else {
		i = first_of(g, lo, hi);
		for (end = i; end < g->nsparse && g->sparse[end].pair == (lo << 16 | hi); end++)
			;
	}
	/* its rails in (rail, rail_b) order: the first bad one, else the first */
	for (; i < end; i++) {
		const struct rt_mesh_cell *c = g->dense ? &g->dense[i] : &g->sparse[i].c;

		if (!cstate(c) || c->why == RT_LINK_ABSENT || (found && !c->why))
			continue;
		decode(c, lo, hi, l);
		found = true;
		if (c->why)
			break;
	}
	return found;
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

void rt_mesh_agg_name(struct rt_mesh_agg *g, uint32_t rank)
{
	if (rank < g->n)
		g->nodes[rank].named = true;
}

void rt_mesh_agg_free(struct rt_mesh_agg *g)
{
	free(g->blame.re);
	free(g->blame.ends);
	for (uint32_t i = 0; g->nodes && i < g->n; i++)
		free(g->nodes[i].rails);
	free(g->nodes);
	free(g->dense);
	free(g->sparse);
	free(g->cross_stat);
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
