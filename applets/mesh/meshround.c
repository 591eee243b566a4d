/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One round's state at rank 0 (meshround.h): which connections each
 * pair makes in a wave, each rank's ASSIGNs, the ranks lost, and the
 * results rank 0 gives itself for a pair with an end absent or lost. */
#include <stdlib.h>

#include "mesh/meshround.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

void rt_mesh_round_lose(struct rt_mesh_coord *c, uint32_t rank)
{
	if (!alive(c, rank))
		return;
	rt_oob_close(&c->gt->conn[rank]);
	if (auth_of(c, rank))
		rt_mesh_auth_wipe(auth_of(c, rank));
	rt_mesh_agg_lost(c->g, rank);
	c->lost++;
}

/* The ACTIVE rails a hello lists (with an address or without: those
 * without are tested over verbs, meshvtest.h) into out (rail numbers,
 * increasing); -1 when it lists none. */
static int active_rails(const struct rt_mesh_node *x, uint8_t *out)
{
	int k = 0;

	if (!x->nrails)
		return -1;
	for (unsigned i = 0; i < x->nrails; i++)
		if (x->rails[i].state == RT_RAIL_ACTIVE)
			out[k++] = x->rails[i].rail;
	return k;
}

/* The connections pair (a listens, b connects) makes, in b's order
 * ((rb, ra) increasing): every rail both hellos list ACTIVE against
 * itself, or with crossed rails every ACTIVE rail of b against every
 * ACTIVE rail of a (at most RT_MESH_CLASSES). -1 when either lists
 * none: their hosts are tested, as before rails. */
static int pair_duos(const struct rt_mesh_coord *c, uint32_t a, uint32_t b, struct duo *out)
{
	uint8_t x[RT_MESH_RAILS_MAX], y[RT_MESH_RAILS_MAX];
	int nx = active_rails(&c->g->nodes[a], x), ny = active_rails(&c->g->nodes[b], y), k = 0;

	if (nx < 0 || ny < 0)
		return -1;
	for (int j = 0; j < ny; j++)
		for (int i = 0; i < nx; i++)
			if (c->g->cross || x[i] == y[j])
				out[k++] = (struct duo){x[i], y[j]};
	return k;
}

/* The connections of pair i in this round's wave: *first of them into
 * d (from pair_duos), their count returned (-1: the hosts, in wave 0;
 * 0: none in this wave). A wave is at most RT_MESH_RAILS_MAX of them,
 * what one ASSIGN carries. */
int rt_mesh_wave_duos(const struct rt_mesh_coord *c, const struct round *rd, uint32_t i,
		      struct duo *d, int *first)
{
	int k = pair_duos(c, rd->pairs[i].a, rd->pairs[i].b, d);

	*first = (int)(rd->wave * RT_MESH_RAILS_MAX);
	if (k < 0)
		return rd->wave ? 0 : -1;
	return RT_MAX(RT_MIN(k - *first, (int)RT_MESH_RAILS_MAX), 0);
}

/* The waves pair i needs: its connections, RT_MESH_RAILS_MAX a wave. */
uint32_t rt_mesh_waves_of(const struct rt_mesh_coord *c, const struct round *rd, uint32_t i)
{
	struct duo d[RT_MESH_CLASSES];
	int k = pair_duos(c, rd->pairs[i].a, rd->pairs[i].b, d);

	return k <= 0 ? 1u : ((uint32_t)k + RT_MESH_RAILS_MAX - 1) / RT_MESH_RAILS_MAX;
}

/* The address of rank's rail `rail` (which its hello lists). */
static const char *rail_addr(const struct rt_mesh_agg *g, uint32_t rank, uint8_t rail)
{
	const struct rt_mesh_node *nd = &g->nodes[rank];

	for (unsigned i = 0; i < nd->nrails; i++)
		if (nd->rails[i].rail == rail)
			return nd->rails[i].addr;
	return "";
}

/* Results that rank 0 gives itself, one a connection of the wave still
 * to come: the pair was not (fully) tried. */
int rt_mesh_round_settle(struct rt_mesh_coord *c, struct round *rd, uint32_t i,
			 uint8_t status, struct rt_error *err)
{
	const struct rt_pair *p = &rd->pairs[i];
	struct duo d[RT_MESH_CLASSES];
	int first, k = rt_mesh_wave_duos(c, rd, i, d, &first);

	rd->done[i] = 1;
	rd->left--;
	for (int r = k < 0 ? 0 : rd->got[i]; r < (k < 0 ? 1 : k); r++) {
		struct rt_mesh_result res = {.round = rd->r, .a = p->a, .b = p->b,
					     .status = status};

		if (k > 0) {
			res.rail = d[first + r].ra;
			res.rail_b = d[first + r].rb;
		}
		if (rt_mesh_agg_add(c->g, &res, err))
			return -1;
	}
	return 0;
}

static int cmp_arail(const void *x, const void *y)
{
	const struct rt_mesh_arail *p = x, *q = y;

	return (p->rail * 64 + p->rail_b) - (q->rail * 64 + q->rail_b);
}

/* The rails of rank's assignment in this wave: its own rail and the
 * partner's, and the partner's address on it, in (own, partner) order. */
static void assign_rails(const struct rt_mesh_coord *c, const struct round *rd,
			 struct rt_mesh_assign *a, uint32_t rank, uint32_t i)
{
	struct duo d[RT_MESH_CLASSES];
	int first, k = rt_mesh_wave_duos(c, rd, i, d, &first);
	bool listens = rd->pairs[i].a == rank;

	a->nrails = (uint8_t)(k < 0 ? 0 : k);
	for (int r = 0; r < k; r++) {
		const struct duo *x = &d[first + r];

		a->rails[r].rail = listens ? x->ra : x->rb;
		a->rails[r].rail_b = listens ? x->rb : x->ra;
		/* no address at either end: both test it over verbs alone */
		if (rail_addr(c->g, rank, a->rails[r].rail)[0])
			rt_strlcpy(a->rails[r].addr, rail_addr(c->g, a->peer, a->rails[r].rail_b),
				   sizeof(a->rails[r].addr));
		else
			a->rails[r].addr[0] = '\0';
	}
	if (listens) /* b's order is the wave's; a's own comes first for a */
		qsort(a->rails, a->nrails, sizeof(a->rails[0]), cmp_arail);
}

/* The connections of pair i's test in this wave: a rail's qps each, or
 * qps for the hosts; 0 when it is done. */
static unsigned pair_conns(const struct rt_mesh_coord *c, const struct round *rd, uint32_t i)
{
	struct duo d[RT_MESH_CLASSES];
	int first, k = rd->done[i] ? 0 : rt_mesh_wave_duos(c, rd, i, d, &first);

	return (unsigned)(k < 0 ? 1 : k) * RT_MAX(c->qps, 1u);
}

/* The connections each listener takes: those of every pending pair it
 * is a in (an incast or alltoall receiver's from every sender). */
static void count_conns(const struct rt_mesh_coord *c, struct round *rd)
{
	for (uint32_t i = 0; i < rd->k; i++)
		rd->conns[rd->pairs[i].a] = 0;
	for (uint32_t i = 0; i < rd->k; i++)
		rd->conns[rd->pairs[i].a] = (uint16_t)(rd->conns[rd->pairs[i].a] +
						       pair_conns(c, rd, i));
}

/* Whether rank listens this wave: it is a in a pending pair. */
static bool listens_now(const struct round *rd, uint32_t rank)
{
	return rd->in_of[rank] != RT_MESH_NO_PAIR && rd->conns[rank];
}

/* Rank's tests this wave: a listen, and a connect for each pending pair
 * it is b in (nout is 0 for a rank that is b in none). */
static unsigned tests_of(const struct round *rd, uint32_t rank)
{
	unsigned n = listens_now(rd, rank);

	for (uint32_t j = 0; j < rd->nout[rank]; j++)
		n += !rd->done[rd->out_of[rank] + j];
	return n;
}

/* Every pending pair that rank connects in fails (it is gone). */
int rt_mesh_round_settle_out(struct rt_mesh_coord *c, struct round *rd, uint32_t rank,
			     uint8_t status, struct rt_error *err)
{
	for (uint32_t j = 0; j < rd->nout[rank]; j++)
		if (!rd->done[rd->out_of[rank] + j] &&
		    rt_mesh_round_settle(c, rd, rd->out_of[rank] + j, status, err))
			return -1;
	return 0;
}

/* One of rank's ASSIGNs of this wave: for pair i, listening (the
 * connections of all its pairs as a) or connecting; `tests` of them. */
static int send_test(struct rt_mesh_coord *c, const struct round *rd, uint32_t rank,
		     uint32_t i, unsigned tests, struct rt_error *err)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_ASSIGN};
	struct rt_mesh_assign *a = &m.u.assign;
	bool listens = rd->pairs[i].a == rank;

	a->round = rd->r;
	a->rounds = rd->rounds;
	a->role = listens ? RT_MESH_LISTEN : RT_MESH_CONNECT;
	a->peer = listens ? rd->pairs[i].b : rd->pairs[i].a;
	a->flags = c->both_ways ? RT_MESH_ASSIGN_BOTH_WAYS : 0;
	a->qps = (uint8_t)RT_MAX(c->qps, 1u);
	a->conns = listens ? rd->conns[rank] : (uint16_t)pair_conns(c, rd, i);
	a->tests = (uint8_t)tests;
	a->port = c->g->nodes[a->peer].port;
	rt_strlcpy(a->host, c->g->nodes[a->peer].host, sizeof(a->host));
	assign_rails(c, rd, a, rank, i);
	return rt_mesh_send(&c->gt->conn[rank], auth_of(c, rank), &m, err);
}

/* Rank's ASSIGNs of this wave, its listen first, or a rest. */
static int send_tests(struct rt_mesh_coord *c, const struct round *rd, uint32_t rank,
		      struct rt_error *err)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_ASSIGN,
			       .u.assign = {.round = rd->r, .rounds = rd->rounds,
					    .role = RT_MESH_REST, .peer = RT_MESH_NO_PEER}};
	unsigned tests = tests_of(rd, rank);

	if (!tests)
		return rt_mesh_send(&c->gt->conn[rank], auth_of(c, rank), &m, err);
	if (listens_now(rd, rank) && send_test(c, rd, rank, rd->in_of[rank], tests, err))
		return -1;
	for (uint32_t j = 0; j < rd->nout[rank]; j++)
		if (!rd->done[rd->out_of[rank] + j] &&
		    send_test(c, rd, rank, rd->out_of[rank] + j, tests, err))
			return -1;
	return 0;
}

/* Pairs with an end that is absent or lost fail without a try; the rest
 * are assigned. A rank whose ASSIGN cannot be written is lost: its pair
 * fails now if it was to connect, else when its partner reports. */
int rt_mesh_round_assign(struct rt_mesh_coord *c, struct round *rd, struct rt_error *err)
{
	for (uint32_t i = 0; i < rd->k; i++) {
		const struct rt_pair *p = &rd->pairs[i];
		bool gone = !c->g->nodes[p->a].present || !c->g->nodes[p->b].present;
		struct duo d[RT_MESH_CLASSES];
		int first, k = rt_mesh_wave_duos(c, rd, i, d, &first); /* gone: no rails, -1 */

		rd->want[i] = (uint8_t)(k < 0 ? 1 : k);
		/* no rail of theirs to test: bad rails, judged from the hellos;
		 * or none left for this wave */
		if (!k) {
			rd->done[i] = 1;
			rd->left--;
			continue;
		}
		if ((gone || !alive(c, p->a) || !alive(c, p->b)) &&
		    rt_mesh_round_settle(c, rd, i, gone ? RT_MESH_ABSENT : RT_MESH_FAILED, err))
			return -1;
	}
	count_conns(c, rd);
	for (uint32_t rank = 0; rank < c->s->n; rank++) {
		struct rt_error e = {0};

		if (!alive(c, rank) || !send_tests(c, rd, rank, &e))
			continue;
		rt_mesh_round_lose(c, rank);
		if (rt_mesh_round_settle_out(c, rd, rank, RT_MESH_FAILED, err))
			return -1;
	}
	return 0;
}
