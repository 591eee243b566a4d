/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Where a mesh run's hellos and results are kept (meshagg.h), and the
 * walks over them.
 *
 * A result is kept in 24 B, its figures in 32 bits (RTT p50/p99 and
 * connect: ns, exact below 2,147,483,000 ns = 2.1 s, rounded down to the
 * microsecond above, saturating at 2,149,631,778 us, about 35.8 minutes;
 * Mbit/s both ways, saturating at 2^32 - 1), status, flags and the
 * judged reason (RT_LINK_*) a byte each (meshcell.h).
 *   dense   one cell per pair a < b, row-major, n(n-1)/2 of them: 24 B a
 *           pair, a, b and the round implied; chosen by rt_mesh_agg_plan
 *           when the plan's results would take at least as much sparse
 *           (a tournament: 8,386,560 pairs of 4,096 hosts in 192 MiB)
 *   sparse  32 B a result (pair, round, cell), sorted by pair when
 *           judged, the result of a pair's latest round kept (arrival
 *           breaks ties): otherwise (random and ring schedules on many
 *           hosts, `mesh report`, where n is known only from the hellos)
 * Either way at most 32 B x max_results (RT_MESH_RESULTS_MAX by default:
 * 16 Mi results; a full tournament of 5,793 hosts is 384 MiB dense).
 * 328 B per rank (host name, port, payload rate, kernel and rdma-core
 * releases, mesh --expect's outcome and counters; 65536 ranks: 21 MiB), and 196 B per rail its
 * hello lists, its device's inventory with it (at most RT_MESH_RAILS_MAX
 * a rank: 6 KiB; 4,096 hosts of 8 rails: 6 MiB).
 * A result keeps both its rails (a's and b's, a byte each: its status
 * and flags share one), so the cell is 24 B with or without rails; a
 * pair of r rails makes r results, r x r with --cross-rails (rank 0's
 * plan counts them so: meshrun.h), one sparse entry each.
 * Judging works in place: the medians by a two-pass radix selection over
 * the stored figures (a 256 KiB histogram, meshmedian.c), one class at a
 * time (each rail, and each pair of crossed rails {i, j}: r(r+1)/2
 * classes, so 2 x 4 passes over the results a class), and while it works
 * 8 B per bad link and 16 B per rank (blaming nodes, meshjudge.c); with
 * crossed results, 32 KiB of per-class figures (RT_MESH_CLASSES).
 * A result whose ports' counters rose keeps its rises apart (168 B, at
 * most RT_MESH_CTRLOG_MAX of them: 11 MiB), sorted when judged, found by
 * its cell's pair and rails (the latest round's, as the cell's). */
#include <stdlib.h>
#include <string.h>

#include "mesh/meshcell.h"
#include "mesh/meshctr.h"
#include "mesh/meshtally.h"
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
	g->nodes[h->rank].inv = h->inv;
	if (h->nrails) {
		g->nodes[h->rank].rails = rt_xcalloc(h->nrails, sizeof(h->rails[0]));
		memcpy(g->nodes[h->rank].rails, h->rails, h->nrails * sizeof(h->rails[0]));
	}
	rt_strlcpy(g->nodes[h->rank].host, h->host, RT_MESH_HOST_LEN);
	return 0;
}

const char *rt_mesh_host(const struct rt_mesh_agg *g, uint32_t rank)
{
	return rank < g->n ? g->nodes[rank].host : "";
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

const struct rt_mesh_rail *rt_mesh_rail_of(const struct rt_mesh_agg *g, uint32_t rank,
					   unsigned rail)
{
	const struct rt_mesh_node *nd = &g->nodes[rank];

	for (unsigned i = 0; i < nd->nrails; i++)
		if (nd->rails[i].rail == rail)
			return &nd->rails[i];
	return NULL;
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

void rt_mesh_agg_stranger(struct rt_mesh_agg *g, const char *addr, const char *reason)
{
	struct rt_mesh_stranger *r;

	if (g->nstrangers++ >= RT_MESH_STRANGER_LIST)
		return;
	r = &g->strangers[g->nstrangers - 1];
	rt_strlcpy(r->addr, addr, sizeof(r->addr));
	rt_strlcpy(r->reason, reason, sizeof(r->reason));
}

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

uint64_t rt_mesh_cell_ns(uint32_t v)
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

static void decode(const struct rt_mesh_agg *g, const struct rt_mesh_cell *c, uint32_t a,
		   uint32_t b, struct rt_mesh_link *l)
{
	const struct rt_mesh_ctrs *ctr = rt_mesh_cell_ctrs(g, a, b, c);

	*l = (struct rt_mesh_link){.why = c->why, .r = {.a = a, .b = b,
		.status = (uint8_t)(rt_mesh_cell_state(c) - 1), .flags = (uint8_t)rt_mesh_cell_flags(c),
		.rail = c->rail, .rail_b = c->rail_b, .connect_ns = rt_mesh_cell_ns(c->connect), .rtt_p50_ns = rt_mesh_cell_ns(c->rtt_p50),
		.rtt_p99_ns = rt_mesh_cell_ns(c->rtt_p99), .mbps = c->mbps, .mbps_rev = c->mbps_rev}};
	if (ctr)
		l->r.ctr = *ctr;
	else /* rises not kept: the link says none */
		l->r.flags &= (uint8_t)~RT_MESH_HAS_CTR;
}

/* r's rises with its ends as a < b. */
static struct rt_mesh_ctrs turn_ctrs(const struct rt_mesh_ctrs *c, bool swap)
{
	struct rt_mesh_ctrs t = *c;

	if (!swap)
		return t;
	t.sent_known = (uint8_t)((c->sent_known & 1u) << 1 | (c->sent_known & 2u) >> 1);
	t.sent[0] = c->sent[1];
	t.sent[1] = c->sent[0];
	for (unsigned i = 0; i < t.n && i < RT_MESH_CTRS_MAX; i++)
		t.e[i].end ^= 1u;
	return t;
}

/* Keeps a result's rises (RT_MESH_HAS_CTR), or counts them past the bound. */
static void ctrlog_add(struct rt_mesh_agg *g, uint32_t a, uint32_t b,
		       const struct rt_mesh_result *r)
{
	bool swap = a != r->a;
	struct rt_mesh_ctrs judged;

	if (!(r->flags & RT_MESH_HAS_CTR))
		return;
	if (g->nctrlog == RT_MESH_CTRLOG_MAX) {
		g->ctr_dropped++;
		return;
	}
	if (g->nctrlog == g->ctrcap) {
		g->ctrcap = RT_MIN(g->ctrcap ? 2 * g->ctrcap : 64u, RT_MESH_CTRLOG_MAX);
		g->ctrlog = rt_xrealloc(g->ctrlog, (size_t)g->ctrcap * sizeof(*g->ctrlog));
	}
	/* the congestion rises are the run's (g->cong), not the link's */
	rt_mesh_ctr_judged(&r->ctr, &judged);
	g->ctrlog[g->nctrlog++] = (struct rt_mesh_ctrlog){.pair = a << 16 | b, .seq = r->round,
		.rail = swap ? r->rail_b : r->rail, .rail_b = swap ? r->rail : r->rail_b,
		.c = turn_ctrs(&judged, swap)};
}

static int ctrlog_key(uint32_t pair, unsigned rail, unsigned rail_b, const struct rt_mesh_ctrlog *e)
{
	if (pair != e->pair)
		return pair < e->pair ? -1 : 1;
	if (rail != e->rail)
		return rail < e->rail ? -1 : 1;
	return (rail_b > e->rail_b) - (rail_b < e->rail_b);
}

/* By pair and rails, then round: a key's last entry is its latest. */
static int cmp_ctrlog(const void *x, const void *y)
{
	const struct rt_mesh_ctrlog *p = x, *q = y;
	int k = ctrlog_key(p->pair, p->rail, p->rail_b, q);

	return k ? k : (p->seq > q->seq) - (p->seq < q->seq);
}

const struct rt_mesh_ctrs *rt_mesh_cell_ctrs(const struct rt_mesh_agg *g, uint32_t a,
					     uint32_t b, const struct rt_mesh_cell *c)
{
	uint32_t lo = 0, hi = g->nctrlog, pair = a << 16 | b;

	if (!(rt_mesh_cell_flags(c) & RT_MESH_HAS_CTR))
		return NULL;
	/* the first entry past the key; the one before it is its latest */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ctrlog_key(pair, c->rail, c->rail_b, &g->ctrlog[mid]) >= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && !ctrlog_key(pair, c->rail, c->rail_b, &g->ctrlog[lo - 1]) ?
	       &g->ctrlog[lo - 1].c : NULL;
}

uint64_t rt_mesh_cells(const struct rt_mesh_agg *g)
{
	return g->dense ? npairs(g->n) : g->nsparse;
}

struct rt_mesh_cell *rt_mesh_cell_at(const struct rt_mesh_agg *g, uint64_t i)
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
	if (g->tally)
		rt_mesh_tally_add(g->tally, r);
	rt_mesh_cong_add(&g->cong, r);
	ctrlog_add(g, a, b, r);
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

void rt_mesh_settle(struct rt_mesh_agg *g)
{
	uint32_t k = 0;

	if (g->nctrlog)
		qsort(g->ctrlog, g->nctrlog, sizeof(*g->ctrlog), cmp_ctrlog);
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

uint32_t rt_mesh_rank_outside(const struct rt_mesh_agg *g)
{
	for (uint32_t i = 0; !g->dense && i < g->nsparse; i++)
		if ((g->sparse[i].pair & 0xffffu) >= g->n)
			return g->sparse[i].pair & 0xffffu;
	return 0;
}

struct rt_mesh_cell *rt_mesh_cell_next(struct rt_mesh_iter *it, uint32_t *a, uint32_t *b)
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
		if (rt_mesh_cell_state(c))
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
	const struct rt_mesh_cell *c = rt_mesh_cell_next(it, &a, &b);

	if (c)
		decode(it->g, c, a, b, l);
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

		return rt_mesh_cell_state(c) && on_rails(c, rail, rail_b) ? c : NULL;
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
	decode(g, c, lo, hi, l);
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

		if (!rt_mesh_cell_state(c) || c->why == RT_LINK_ABSENT || (found && !c->why))
			continue;
		decode(g, c, lo, hi, l);
		found = true;
		if (c->why)
			break;
	}
	return found;
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
	free(g->ctrlog);
	free(g->cross_stat);
	rt_mesh_tally_free(g->tally);
	memset(g, 0, sizeof(*g));
}

