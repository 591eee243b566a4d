/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Whether a mesh run's plan fits its bounds before any round
 * (meshrun.h): the results it can make against what rank 0 holds, and
 * each test's connections against what one test takes. */
#include <stdlib.h>

#include "mesh/meshblame.h"
#include "mesh/meshrun.h"
#include "rdmatest/util.h"

/* The results a run of s adds at most: its pairs, and unless the table
 * is dense (a tournament: a re-test overwrites its pair's cell) the blame
 * pass's. */
static uint64_t results_of(const struct rt_sched *s)
{
	uint64_t n = s->n, blame = rt_mesh_blame_max_pairs(s->n);

	if (s->kind == RT_SCHED_TOURNAMENT)
		return n * (n - 1) / 2;
	if (s->kind == RT_SCHED_RING)
		return (n == 2 ? 1 : n) + blame;
	if (s->kind == RT_SCHED_BUDGET || s->kind == RT_SCHED_BISECTION)
		return (uint64_t)s->base_rounds * (n / 2) + blame;
	if (s->kind == RT_SCHED_INCAST || s->kind == RT_SCHED_ALLTOALL)
		return (uint64_t)s->rounds * s->max_pairs + blame;
	return n / 2 + blame;
}

/* The most rails a pair tests: g->rails, or more that a hello lists. */
static uint32_t rails_of(struct rt_mesh_agg *g)
{
	for (uint32_t i = 0; i < g->n; i++)
		if (g->nodes[i].present && g->nodes[i].nrails > g->rails)
			g->rails = g->nodes[i].nrails;
	return RT_MAX(g->rails, 1u);
}

int rt_mesh_plan_fits(const struct rt_sched *s, struct rt_mesh_agg *g,
		      struct rt_error *err)
{
	uint32_t rails = rails_of(g);
	/* crossed rails: every rail of one end against every rail of the other */
	uint64_t need = results_of(s) * rails * (g->cross ? rails : 1);

	if (rails > 1 && g->dense && !g->nres) { /* one cell a pair: not for rails */
		free(g->dense);
		g->dense = NULL;
	}
	if (need <= g->max_results) {
		rt_mesh_agg_plan(g, need);
		return 0;
	}
	return rt_fail(err, RT_EXIT_USAGE, "mesh: a %s of %u hosts x %u rails%s makes %llu "
		       "results, more than the %u rank 0 holds: fewer hosts or rails (--rails), or "
		       "--schedule random (--budget)", rt_sched_kind_name(s->kind), s->n, rails,
		       g->cross ? " crossed (x rails)" : "", (unsigned long long)need,
		       g->max_results);
}

/* Whether the ranks' rails suit qps and the pattern: every test within
 * RT_MESH_TEST_CONNS connections at each end (a receiver of fan_in
 * senders takes all of theirs), and with several connections a rail or
 * several senders no rail tested over verbs (one QP, one partner:
 * meshvtest.h). Exit 2 naming the count or the rail, before any round. */
int rt_mesh_conns_fit(const struct rt_mesh_coord *c, struct rt_error *err)
{
	uint32_t rails = 1, fan = RT_MAX(c->fan_in, 1u), qps = RT_MAX(c->qps, 1u), per;

	for (uint32_t i = 0; i < c->g->n; i++) {
		const struct rt_mesh_node *nd = &c->g->nodes[i];

		if (!nd->present)
			continue;
		rails = RT_MAX(rails, (uint32_t)nd->nrails);
		for (unsigned r = 0; (qps > 1 || fan > 1) && r < nd->nrails; r++)
			if (nd->rails[r].state == RT_RAIL_ACTIVE && !nd->rails[r].addr[0])
				return rt_fail(err, RT_EXIT_USAGE, "mesh: %s's rail %u has no "
					       "address: it is tested over verbs, one connection "
					       "to one partner, not with %s", nd->host,
					       nd->rails[r].rail, qps > 1 ? "--qps" : "--fan-in");
	}
	per = RT_MIN(c->g->cross ? rails * rails : rails, RT_MESH_RAILS_MAX);
	if ((uint64_t)per * qps * fan <= RT_MESH_TEST_CONNS)
		return 0;
	return rt_fail(err, RT_EXIT_USAGE, "mesh: %u rails x --qps %u x %u sender%s is %llu "
		       "connections into one host, above %u (a 1 MiB window each): fewer "
		       "--qps%s or rails", per, qps, fan, fan > 1 ? "s" : "",
		       (unsigned long long)per * qps * fan, RT_MESH_TEST_CONNS,
		       fan > 1 ? ", --fan-in" : "");
}
