/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A judged mesh run as one JSON document (meshdoc.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/meshtally.h"
#include "mesh/meshblame.h"
#include "mesh/meshdoc.h"
#include "mesh/meshinv.h"
#include "mesh/meshline.h"
#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

/* An inventory value, null when unknown (""). */
static void doc_known(struct rt_json *j, const char *key, const char *v)
{
	rt_json_key(j, key);
	if (v[0])
		rt_json_string(j, v);
	else
		rt_json_null(j);
}

static void doc_thresholds(struct rt_json *j, const struct rt_mesh_limits *lim)
{
	rt_json_key(j, "thresholds");
	rt_json_object_begin(j);
	rt_json_kv_double(j, "min_gbps", lim->min_gbps > 0 ? lim->min_gbps : NAN);
	rt_json_kv_double(j, "max_rtt_us", lim->max_rtt_us > 0 ? lim->max_rtt_us : NAN);
	rt_json_kv_double(j, "rtt_factor", lim->rtt_factor > 0 ? lim->rtt_factor : NAN);
	rt_json_kv_double(j, "bw_fraction", lim->bw_fraction > 0 ? lim->bw_fraction : NAN);
	rt_json_kv_double(j, "min_line_rate", lim->min_line_rate > 0 ? lim->min_line_rate : NAN);
	rt_json_kv_uint(j, "min_links", RT_MAX(lim->min_links, 1u));
	rt_json_kv_uint(j, "max_errors", lim->max_errors);
	rt_json_kv_uint(j, "max_retrans_ppm", lim->max_retrans_ppm);
	rt_json_object_end(j);
}

static void doc_nodes(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_key(j, "nodes");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < g->n; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];

		rt_json_object_begin(j);
		rt_json_kv_uint(j, "rank", i);
		doc_known(j, "host", nd->host);
		rt_json_kv_string(j, "verdict", rt_node_verdict_name(nd->verdict));
		rt_json_kv_bool(j, "lost", nd->lost);
		rt_json_kv_uint(j, "tested", nd->tested);
		rt_json_kv_uint(j, "bad", nd->bad);
		rt_json_kv_double(j, "payload_gbps",
				  nd->payload_mbps ? nd->payload_mbps / 1000.0 : NAN);
		doc_known(j, "kernel", nd->inv.kernel);
		doc_known(j, "rdma_core", nd->inv.rdma_core);
		rt_json_key(j, "expect"); /* mesh --expect: how it compared */
		if (nd->inv.expect) {
			rt_json_object_begin(j);
			rt_json_kv_uint(j, "differences", nd->inv.expect_diffs);
			rt_json_kv_string(j, "first", nd->inv.expect_first);
			rt_json_object_end(j);
		} else {
			rt_json_null(j);
		}
		rt_json_key(j, "rails"); /* its hello's */
		rt_json_array_begin(j);
		for (unsigned k = 0; k < nd->nrails; k++) {
			rt_json_object_begin(j);
			rt_mesh_rail_fields(j, &nd->rails[k]);
			rt_json_kv_double(j, "speed_gbps", nd->rails[k].speed_mbps / 1e3);
			rt_json_object_end(j);
		}
		rt_json_array_end(j);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
}

static const char *const why_names[] = {"failed", "rtt-absolute", "rtt-relative",
					"bw-absolute", "bw-relative", "absent", "line-rate",
					"counters"};

static void doc_why(struct rt_json *j, uint32_t why)
{
	rt_json_key(j, "why");
	rt_json_array_begin(j);
	for (size_t b = 0; b < ARRAY_SIZE(why_names); b++)
		if (why & (1u << b))
			rt_json_string(j, why_names[b]);
	rt_json_array_end(j);
}

/* A document too large to hold goes out as it is built: past this many
 * bytes the writer's text is written to the output and emptied. */
#define DOC_CHUNK (64u << 10)

static void drain(struct rt_json *j, FILE *out)
{
	if (out && j->len >= DOC_CHUNK)
		rt_json_flush(j, out);
}

/* The rises of a link's ports, by end: {"a":{"rcvd_seq_err":52},"b":{}},
 * and the packets each port sent (null: its port has no such counter). */
static void doc_counters(struct rt_json *j, const struct rt_mesh_ctrs *c)
{
	static const char *const ends[] = {"a", "b"};

	rt_json_key(j, "counters");
	rt_json_object_begin(j);
	for (unsigned e = 0; e < 2; e++) {
		rt_json_key(j, ends[e]);
		rt_json_object_begin(j);
		for (unsigned i = 0; i < c->n; i++)
			if (c->e[i].end == e)
				rt_json_kv_uint(j, rt_portctr_id_name(c->e[i].id), c->e[i].delta);
		rt_json_object_end(j);
	}
	rt_json_object_end(j);
	rt_json_key(j, "packets_sent");
	rt_json_object_begin(j);
	for (unsigned e = 0; e < 2; e++) {
		rt_json_key(j, ends[e]);
		if (c->sent_known & (1u << e))
			rt_json_uint(j, c->sent[e]);
		else
			rt_json_null(j);
	}
	rt_json_object_end(j);
	if (c->more)
		rt_json_kv_uint(j, "counters_more", c->more);
}

static void doc_pair(struct rt_json *j, const struct rt_mesh_agg *g,
		     const struct rt_mesh_link *l)
{
	const struct rt_mesh_rail *x = rt_mesh_rail_of(g, l->r.a, l->r.rail);
	const struct rt_mesh_rail *y = rt_mesh_rail_of(g, l->r.b, l->r.rail_b);
	bool ok = l->r.status == RT_MESH_OK;

	rt_json_object_begin(j);
	rt_json_kv_uint(j, "a", l->r.a);
	rt_json_kv_uint(j, "b", l->r.b);
	rt_json_kv_string(j, "status", rt_mesh_status_name(l->r.status));
	rt_json_kv_double(j, "connect_us", ok ? (double)l->r.connect_ns / 1e3 : NAN);
	rt_json_kv_double(j, "rtt_p50_us", l->r.flags & RT_MESH_HAS_RTT ?
			  (double)l->r.rtt_p50_ns / 1e3 : NAN);
	rt_json_kv_double(j, "rtt_p99_us", l->r.flags & RT_MESH_HAS_RTT ?
			  (double)l->r.rtt_p99_ns / 1e3 : NAN);
	rt_json_kv_double(j, "gbps", l->r.flags & RT_MESH_HAS_BW ?
			  (double)l->r.mbps / 1e3 : NAN);
	rt_json_kv_double(j, "gbps_rev", l->r.flags & RT_MESH_HAS_BW ?
			  (double)l->r.mbps_rev / 1e3 : NAN);
	rt_json_kv_string(j, "verdict", l->why == RT_LINK_ABSENT ? "absent" :
			  l->why ? "bad" : "ok");
	doc_why(j, l->why);
	/* last, so that the keys before rails keep their places */
	rt_json_kv_uint(j, "rail", l->r.rail);
	if (l->r.rail_b != l->r.rail)
		rt_json_kv_uint(j, "rail_b", l->r.rail_b);
	if (x && y) {
		rt_json_kv_string(j, "dev_a", x->dev);
		rt_json_kv_string(j, "dev_b", y->dev);
	}
	/* mesh --gpu: where each end's buffers were (a rank without it: none) */
	if (x && y && (x->gpu_rel || y->gpu_rel)) {
		rt_json_kv_string(j, "gpu_a", x->gpu_rel ? x->gpu : "host");
		rt_json_kv_string(j, "gpu_b", y->gpu_rel ? y->gpu : "host");
	}
	if (l->r.flags & RT_MESH_HAS_CTR)
		doc_counters(j, &l->r.ctr);
	rt_json_object_end(j);
}

static void doc_pairs(struct rt_json *j, const struct rt_mesh_agg *g, FILE *out)
{
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	rt_json_key(j, "pairs");
	rt_json_array_begin(j);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		doc_pair(j, g, &l);
		drain(j, out);
	}
	rt_json_array_end(j);
}

/* One cell of an n x n matrix, null where no figure. RTT is symmetric;
 * bandwidth is not: row a, column b holds a to b. */
static double matrix_cell(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			  uint8_t flag)
{
	struct rt_mesh_link l;

	if (!rt_mesh_link_of(g, a, b, &l) || l.r.status != RT_MESH_OK || !(l.r.flags & flag))
		return NAN;
	if (flag == RT_MESH_HAS_RTT)
		return (float)((double)l.r.rtt_p50_ns / 1e3);
	return (float)((double)(a < b ? l.r.mbps : l.r.mbps_rev) / 1e3);
}

/* One n x n matrix of a metric, row by row, each cell looked up where it
 * is written (rt_mesh_link_of): no scratch matrix. */
static void doc_matrix(struct rt_json *j, const struct rt_mesh_agg *g,
		       uint8_t flag, FILE *out)
{
	rt_json_array_begin(j);
	for (uint32_t a = 0; a < g->n; a++) {
		rt_json_array_begin(j);
		for (uint32_t b = 0; b < g->n; b++)
			rt_json_double(j, matrix_cell(g, a, b, flag));
		rt_json_array_end(j);
		drain(j, out);
	}
	rt_json_array_end(j);
}

static void doc_lists(struct rt_json *j, const struct rt_mesh_agg *g, FILE *out)
{
	struct rt_mesh_iter it;
	struct rt_mesh_link l;
	static const struct { const char *key; uint8_t v; } lists[] = {
		{"bad_nodes", RT_NODE_BAD}, {"suspect_nodes", RT_NODE_SUSPECT},
		{"absent", RT_NODE_ABSENT}, {"untested", RT_NODE_UNTESTED},
	};

	for (size_t k = 0; k < ARRAY_SIZE(lists); k++) {
		rt_json_key(j, lists[k].key);
		rt_json_array_begin(j);
		for (uint32_t i = 0; i < g->n; i++)
			if (g->nodes[i].verdict == lists[k].v)
				rt_json_uint(j, i);
		rt_json_array_end(j);
	}
	/* a bad link whose end is a bad node is that node's fault */
	rt_json_key(j, "bad_links");
	rt_json_array_begin(j);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		if (!rt_mesh_link_blamed(g, &l))
			continue;
		rt_json_array_begin(j);
		rt_json_uint(j, l.r.a);
		rt_json_uint(j, l.r.b);
		rt_json_array_end(j);
		drain(j, out);
	}
	rt_json_array_end(j);
}

static void doc_refused(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_kv_uint(j, "refused_peers", g->refused);
	rt_json_key(j, "refused");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < RT_MIN(g->refused, RT_MESH_REFUSED_LIST); i++) {
		const struct rt_mesh_refusal *r = &g->refusals[i];

		rt_json_object_begin(j);
		rt_json_kv_string(j, "addr", r->addr);
		rt_json_key(j, "rank");
		if (r->rank == RT_MESH_NO_PEER)
			rt_json_null(j);
		else
			rt_json_uint(j, r->rank);
		rt_json_kv_string(j, "reason", r->reason);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
}

/* Connections that could not show the job's token: never in the verdict. */
static void doc_strangers(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_key(j, "strangers");
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "count", g->nstrangers);
	rt_json_key(j, "list");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < RT_MIN(g->nstrangers, RT_MESH_STRANGER_LIST); i++) {
		rt_json_object_begin(j);
		rt_json_kv_string(j, "addr", g->strangers[i].addr);
		rt_json_kv_string(j, "reason", g->strangers[i].reason);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
	rt_json_object_end(j);
}

static void doc_outliers(struct rt_json *j, const struct rt_mesh_agg *g, FILE *out)
{
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	rt_json_key(j, "outliers");
	rt_json_array_begin(j);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		bool rtt = l.why & RT_LINK_RTT_REL, bw = l.why & RT_LINK_BW_REL;

		for (int k = 0; k < 2; k++) {
			if (!(k ? bw : rtt))
				continue;
			rt_json_object_begin(j);
			rt_json_kv_uint(j, "a", l.r.a);
			rt_json_kv_uint(j, "b", l.r.b);
			rt_json_kv_string(j, "metric", k ? "gbps" : "rtt_us");
			rt_json_kv_double(j, "value", k ? rt_mesh_gbps(&l.r) :
					  (double)l.r.rtt_p50_ns / 1e3);
			const struct rt_mesh_rail_stat *st =
				rt_mesh_class_stat(g, l.r.rail, l.r.rail_b);

			rt_json_kv_uint(j, "rail", l.r.rail);
			if (l.r.rail_b != l.r.rail)
				rt_json_kv_uint(j, "rail_b", l.r.rail_b);
			rt_json_kv_double(j, "median", k ? st->median_gbps : st->median_rtt_us);
			rt_json_object_end(j);
		}
		drain(j, out);
	}
	rt_json_array_end(j);
}

static void doc_pairing(struct rt_json *j, const struct rt_mesh_agg *g, uint32_t end,
			uint32_t partner)
{
	struct rt_mesh_link l;
	bool tested = rt_mesh_pair_worst(g, end, partner, &l);

	rt_json_object_begin(j);
	rt_json_kv_uint(j, "partner", partner);
	rt_json_kv_string(j, "verdict", !tested || l.why == RT_LINK_ABSENT ? "untested" :
			  l.why ? "bad" : "ok");
	rt_json_kv_double(j, "rtt_p50_us", tested && (l.r.flags & RT_MESH_HAS_RTT) ?
			  (double)l.r.rtt_p50_ns / 1e3 : NAN);
	rt_json_kv_double(j, "gbps", tested && (l.r.flags & RT_MESH_HAS_BW) ?
			  rt_mesh_gbps(&l.r) : NAN);
	doc_why(j, tested ? l.why : 0);
	rt_json_object_end(j);
}

/* The blame pass's evidence: flaky links with their first figures, the
 * ends paired with good hosts, and what the pairings say of each bad
 * link left. */
static void doc_blame(struct rt_json *j, const struct rt_mesh_agg *g, FILE *out)
{
	const struct rt_mesh_blame *b = &g->blame;
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	rt_json_key(j, "blame");
	if (!b->ran) {
		rt_json_null(j);
		return;
	}
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "rounds", b->rounds);
	rt_json_kv_uint(j, "pairs", b->pairs);
	rt_json_kv_bool(j, "cut_by_budget", b->cut);
	rt_json_kv_uint(j, "retested", b->nre);
	rt_json_key(j, "flaky");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < b->nre; i++)
		if (b->re[i].state == RT_RETEST_FLAKY)
			doc_pair(j, g, &b->re[i].first);
	rt_json_array_end(j);
	rt_json_key(j, "hosts");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < b->nends; i++) {
		const struct rt_mesh_blame_end *e = &b->ends[i];

		rt_json_object_begin(j);
		rt_json_kv_uint(j, "rank", e->rank);
		rt_json_kv_string(j, "verdict", e->tested && e->bad == e->tested ? "bad" :
				  !e->tested ? "untested" : e->bad ? "unsure" : "ok");
		rt_json_key(j, "pairings");
		rt_json_array_begin(j);
		for (uint8_t p = 0; p < e->np; p++)
			doc_pairing(j, g, e->rank, e->partner[p]);
		rt_json_array_end(j);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
	rt_json_key(j, "links");
	rt_json_array_begin(j);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		enum rt_blame_verdict v;

		if (!l.why || l.why == RT_LINK_ABSENT ||
		    (v = rt_mesh_blame_of(g, &l)) == RT_BLAME_NONE)
			continue;
		rt_json_object_begin(j);
		rt_json_kv_uint(j, "a", l.r.a);
		rt_json_kv_uint(j, "b", l.r.b);
		rt_json_kv_string(j, "verdict", rt_blame_verdict_name(v));
		rt_json_key(j, "host");
		if (rt_mesh_blame_rank(v, &l) >= 0)
			rt_json_uint(j, (uint64_t)rt_mesh_blame_rank(v, &l));
		else
			rt_json_null(j);
		rt_json_object_end(j);
		drain(j, out);
	}
	rt_json_array_end(j);
	rt_json_object_end(j);
}

/* A --budget run's coverage, or null. */
/* "congestion": each congestion counter that rose (meshcong.h), by the
 * port that counted the most in one test; [] when none did. */
static void doc_congestion(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_key(j, "congestion");
	rt_json_array_begin(j);
	for (unsigned i = 0; i < g->cong.n; i++) {
		const struct rt_mesh_cong_ctr *c = &g->cong.c[i];
		double ppm = rt_mesh_cong_ppm(c);

		rt_json_object_begin(j);
		rt_json_kv_string(j, "counter", rt_portctr_id_name(c->id));
		rt_json_kv_uint(j, "rank", c->rank);
		doc_known(j, "host", rt_mesh_host(g, c->rank));
		rt_json_kv_uint(j, "rail", c->rail);
		rt_json_kv_uint(j, "round", c->round);
		rt_json_kv_uint(j, "rise", c->delta);
		rt_json_key(j, "per_million_sent");
		if (ppm >= 0)
			rt_json_double(j, ppm);
		else
			rt_json_null(j);
		rt_json_kv_uint(j, "ends", c->ends);
		rt_json_kv_uint(j, "total", c->total);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
}

static void doc_budget(struct rt_json *j, const struct rt_mesh_agg *g)
{
	const struct rt_mesh_cover *cv = &g->cover;

	rt_json_key(j, "budget");
	if (cv->minutes <= 0) {
		rt_json_null(j);
		return;
	}
	rt_json_object_begin(j);
	rt_json_kv_double(j, "minutes", cv->minutes);
	rt_json_kv_double(j, "elapsed_s", cv->elapsed_s);
	rt_json_kv_uint(j, "rounds", cv->rounds);
	rt_json_kv_uint(j, "matchings", cv->matchings);
	rt_json_key(j, "all_rounds");
	if (cv->all_rounds)
		rt_json_uint(j, cv->all_rounds);
	else
		rt_json_null(j);
	rt_json_key(j, "distinct_pairs");
	if (cv->counted)
		rt_json_uint(j, cv->distinct);
	else
		rt_json_null(j);
	rt_json_kv_uint(j, "all_pairs", (uint64_t)g->n * (g->n ? g->n - 1 : 0) / 2);
	rt_json_object_end(j);
}

/* One class's links and medians: a rail's, or a crossed pair's. */
static void class_stat(struct rt_json *j, const struct rt_mesh_rail_stat *st, unsigned r,
		       unsigned rb)
{
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "rail", r);
	if (rb != r)
		rt_json_kv_uint(j, "rail_b", rb);
	rt_json_kv_uint(j, "links", st->links);
	rt_json_kv_uint(j, "bad_links", st->bad_links);
	rt_json_kv_double(j, "median_rtt_us", st->median_rtt_us > 0 ? st->median_rtt_us : NAN);
	rt_json_kv_double(j, "median_gbps", st->median_gbps > 0 ? st->median_gbps : NAN);
	rt_json_object_end(j);
}

/* Each tested rail's links and medians; with crossed links, each
 * crossed class {rail, rail_b} (rail < rail_b) in "cross_rails". */
static void doc_rails(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_key(j, "rails");
	rt_json_array_begin(j);
	for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
		if (g->rail_mask >> r & 1u)
			class_stat(j, &g->rail_stat[r], r, r);
	rt_json_array_end(j);
	if (!g->ncross)
		return;
	rt_json_key(j, "cross_rails");
	rt_json_array_begin(j);
	for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
		for (unsigned rb = r + 1; rb < RT_MESH_RAILS_MAX; rb++)
			if (rt_mesh_class_stat(g, r, rb)->links)
				class_stat(j, rt_mesh_class_stat(g, r, rb), r, rb);
	rt_json_array_end(j);
}

/* The hosts' bad rails (meshagg.h) and the hosts of another rail count. */
static void doc_bad_rails(struct rt_json *j, const struct rt_mesh_agg *g)
{
	char why[112];

	rt_json_key(j, "bad_rails");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < g->n; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];

		for (unsigned k = 0; nd->present && k < nd->nrails; k++) {
			const struct rt_mesh_rail *r = &nd->rails[k];
			enum rt_rail_fault f = rt_mesh_rail_fault(g, nd, r);

			if (f == RT_RAIL_OK || f == RT_RAIL_UNUSED)
				continue;
			if (f == RT_RAIL_LINKS_BAD)
				snprintf(why, sizeof(why), "its links are bad");
			else
				rt_mesh_rail_fault_text(f, r, why, sizeof(why));
			rt_json_object_begin(j);
			rt_json_kv_uint(j, "rank", i);
			rt_json_kv_string(j, "host", nd->host);
			rt_json_kv_uint(j, "rail", r->rail);
			rt_json_kv_string(j, "dev", r->dev);
			rt_json_kv_string(j, "reason", why);
			rt_json_object_end(j);
		}
	}
	rt_json_array_end(j);
	rt_json_key(j, "rails_without_address");
	rt_json_array_begin(j);
	for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
		if (g->rails_unaddressed >> r & 1u)
			rt_json_uint(j, r);
	rt_json_array_end(j);
	rt_json_kv_uint(j, "rails_expected", g->rails_expected);
	rt_json_key(j, "rail_count_mismatch");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < g->n && g->rail_mismatch; i++)
		if (g->nodes[i].present && g->nodes[i].rails_in_use != g->rails_expected) {
			rt_json_object_begin(j);
			rt_json_kv_uint(j, "rank", i);
			rt_json_kv_string(j, "host", g->nodes[i].host);
			rt_json_kv_uint(j, "rails", g->nodes[i].rails_in_use);
			rt_json_object_end(j);
		}
	rt_json_array_end(j);
}

void rt_mesh_document(struct rt_json *j, const struct rt_mesh_agg *g,
		      const struct rt_mesh_limits *lim, FILE *out)
{
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "ranks", g->n);
	doc_thresholds(j, lim);
	rt_json_kv_double(j, "median_rtt_us", g->median_rtt_us > 0 ? g->median_rtt_us : NAN);
	rt_json_kv_double(j, "median_gbps", g->median_gbps > 0 ? g->median_gbps : NAN);
	doc_nodes(j, g);
	doc_pairs(j, g, out);
	rt_json_key(j, "matrix");
	if (g->n > RT_MESH_MATRIX_MAX) {
		rt_json_null(j);
	} else {
		rt_json_object_begin(j);
		rt_json_key(j, "rtt_us");
		doc_matrix(j, g, RT_MESH_HAS_RTT, out);
		if (g->median_gbps > 0) {
			rt_json_key(j, "gbps");
			doc_matrix(j, g, RT_MESH_HAS_BW, out);
		}
		rt_json_object_end(j);
	}
	doc_rails(j, g);
	doc_lists(j, g, out);
	doc_bad_rails(j, g);
	rt_mesh_inv_json(j, g);
	doc_refused(j, g);
	doc_strangers(j, g);
	doc_outliers(j, g, out);
	doc_blame(j, g, out);
	doc_budget(j, g);
	if (g->tally)
		rt_mesh_tally_json(g->tally, j);
	doc_congestion(j, g);
	rt_json_kv_bool(j, "interrupted", g->interrupted);
	rt_json_kv_uint(j, "untested_hosts", g->untested_nodes);
	rt_json_kv_uint(j, "counters_dropped", g->ctr_dropped);
	rt_json_key(j, "not_judged");
	rt_json_array_begin(j);
	if (g->not_judged & RT_LINK_RTT_REL)
		rt_json_string(j, "rtt-relative");
	if (g->not_judged & RT_LINK_BW_REL)
		rt_json_string(j, "bw-relative");
	rt_json_array_end(j);
	if (g->auth)
		rt_json_kv_string(j, "auth", g->auth);
	if (g->qps) /* each rail's figures are this many connections' */
		rt_json_kv_uint(j, "qps", g->qps);
	rt_json_kv_string(j, "verdict", rt_mesh_verdict_word(g->ready, g->interrupted));
	rt_json_object_end(j);
}
