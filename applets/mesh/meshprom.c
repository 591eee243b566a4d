/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The mesh gauges (meshprom.h), read from the aggregate's counts,
 * medians and nodes only: links are left out by design (cardinality). */
#include <stdio.h>

#include "mesh/meshinv.h"
#include "mesh/meshprom.h"
#include "rdmatest/portctr.h"

/* Every host but the ok ones, rank and host (host "" until it said
 * hello) as labels; the verdict is a label because a host's series
 * exists only while it is in trouble. */
static void hosts(struct rt_prom *p, const struct rt_mesh_agg *g)
{
	uint32_t listed = 0, unlisted = 0;

	rt_prom_gauge(p, "rdmatest_mesh_host_not_ok",
		      "1 for each host whose verdict is bad, suspect, absent or untested");
	for (uint32_t i = 0; i < g->n; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];
		char rank[16];

		if (nd->verdict == RT_NODE_OK)
			continue;
		if (listed >= RT_MESH_PROM_HOSTS) {
			unlisted++;
			continue;
		}
		listed++;
		snprintf(rank, sizeof(rank), "%u", i);
		rt_prom_sample(p, (const char *const[]){ "rank", rank, "host", nd->host,
			       "verdict", rt_node_verdict_name(nd->verdict), NULL }, 1);
	}
	rt_prom_gauge_value(p, "rdmatest_mesh_hosts_not_listed",
			    "hosts not ok beyond the ones listed in "
			    "rdmatest_mesh_host_not_ok", unlisted);
}

/* One series a tested rail (at most RT_MESH_RAILS_MAX): its links, its
 * bad links and its RTT median; and the rails of hosts that are bad. */
static void rails(struct rt_prom *p, const struct rt_mesh_agg *g)
{
	static const char *const names[] = { "rdmatest_mesh_rail_links",
		"rdmatest_mesh_rail_bad_links", "rdmatest_mesh_rail_rtt_median_seconds" };
	static const char *const help[] = { "links tested on the rail",
		"bad links on the rail that no bad host or bad rail explains",
		"the median of the rail's links' RTT medians (0: nothing measured)" };

	for (int k = 0; k < 3; k++) {
		rt_prom_gauge(p, names[k], help[k]);
		for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++) {
			const struct rt_mesh_rail_stat *st = &g->rail_stat[r];
			char rail[8];

			if (!(g->rail_mask >> r & 1u))
				continue;
			snprintf(rail, sizeof(rail), "%u", r);
			rt_prom_sample(p, (const char *const[]){ "rail", rail, NULL },
				       k == 0 ? st->links : k == 1 ? st->bad_links :
				       st->median_rtt_us / 1e6);
		}
	}
	if (g->ncross) { /* crossed rails: two gauges over every crossed class */
		uint32_t bad = 0;

		for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
			for (unsigned rb = r + 1; rb < RT_MESH_RAILS_MAX; rb++)
				bad += rt_mesh_class_stat(g, r, rb)->bad_links;
		rt_prom_gauge_value(p, "rdmatest_mesh_crossed_links", "links tested between "
				    "rail i of one host and rail j != i of the other", g->ncross);
		rt_prom_gauge_value(p, "rdmatest_mesh_crossed_bad_links", "bad crossed links "
				    "that no bad host or bad rail explains", bad);
	}
	rt_prom_gauge_value(p, "rdmatest_mesh_bad_rails", "rails of hosts not usable (not "
			    "ACTIVE, or lost the address other hosts' have) or bad while the host's "
			    "other rails passed", g->bad_rails);
	rt_prom_gauge_value(p, "rdmatest_mesh_rail_count_mismatch_hosts",
			    "hosts whose rail count is not the one most hosts have", g->rail_mismatch);
}

/* The congestion counters that rose (meshcong.h), by counter name: the
 * largest rise one test end's port counted, labelled with that end; the
 * rises of every end summed; and the ends that counted any. At most
 * RT_MESH_CONG_MAX counters, three series each; none while nothing rose.
 * Never judged: a lossless class pauses and ECN marks by design, so
 * where to alert is the operator's call. */
static void congestion(struct rt_prom *p, const struct rt_mesh_agg *g)
{
	static const char *const names[] = { "rdmatest_mesh_congestion_max",
		"rdmatest_mesh_congestion_overall", "rdmatest_mesh_congestion_ends" };
	static const char *const help[] = {
		("the largest rise of a congestion counter (pause frames, CNPs, ECN marks, "
		 "discards) one test end's port counted, and that end (not judged)"),
		"a congestion counter's rises over every test end, summed (not judged)",
		"test ends whose port's congestion counter rose (not judged)" };

	for (int k = 0; g->cong.n && k < 3; k++) {
		rt_prom_gauge(p, names[k], help[k]);
		for (unsigned i = 0; i < g->cong.n; i++) {
			const struct rt_mesh_cong_ctr *c = &g->cong.c[i];
			const char *name = rt_portctr_id_name(c->id);
			char rank[16], rail[8];

			if (k) {
				rt_prom_sample(p, (const char *const[]){ "counter", name, NULL },
					       k == 1 ? (double)c->total : c->ends);
				continue;
			}
			snprintf(rank, sizeof(rank), "%u", c->rank);
			snprintf(rail, sizeof(rail), "%u", c->rail);
			rt_prom_sample(p, (const char *const[]){ "counter", name, "rank", rank,
				       "host", rt_mesh_host(g, c->rank),
				       "rail", rail, NULL }, (double)c->delta);
		}
	}
}

void rt_mesh_prom(struct rt_prom *p, const struct rt_mesh_agg *g, time_t now)
{
	rt_prom_gauge_value(p, "rdmatest_mesh_ready", "1 when the mesh run was READY", g->ready);
	rt_prom_gauge_value(p, "rdmatest_mesh_interrupted",
			    "1 when the run was interrupted", g->interrupted);
	rt_prom_gauge_value(p, "rdmatest_mesh_hosts", "ranks in the run", g->n);
	rt_prom_gauge_value(p, "rdmatest_mesh_bad_hosts", "hosts judged bad", g->bad_nodes);
	rt_prom_gauge_value(p, "rdmatest_mesh_suspect_hosts",
			    "hosts judged suspect", g->suspect_nodes);
	rt_prom_gauge_value(p, "rdmatest_mesh_absent_hosts",
			    "hosts that never said hello", g->absent_nodes);
	rt_prom_gauge_value(p, "rdmatest_mesh_untested_hosts",
			    "hosts with no pair tested", g->untested_nodes);
	rt_prom_gauge_value(p, "rdmatest_mesh_bad_links",
			    "bad links that no bad host explains", g->bad_links);
	rt_prom_gauge_value(p, "rdmatest_mesh_refused_peers",
			    "peers turned away at the gathering", g->refused);
	rt_prom_gauge_value(p, "rdmatest_mesh_rtt_median_seconds",
			    "the median of the links' RTT medians "
			    "(0: nothing measured)", g->median_rtt_us / 1e6);
	rt_prom_gauge_value(p, "rdmatest_mesh_bandwidth_median_bytes_per_second",
			    "the median of the links' bandwidth in bytes per second, "
			    "the slower direction (0: not measured)", g->median_gbps * 1e9 / 8);
	hosts(p, g);
	rails(p, g);
	congestion(p, g);
	rt_mesh_inv_prom(p, g, RT_MESH_PROM_HOSTS);
	rt_prom_gauge_value(p, "rdmatest_mesh_last_run_timestamp_seconds",
			    "when the mesh verdict was written (Unix time)", (double)now);
}
