/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The human summary of a mesh run (meshtext.h). */
#include <inttypes.h>
#include <string.h>

#include "mesh/meshtally.h"
#include "mesh/meshblame.h"
#include "mesh/meshctr.h"
#include "mesh/meshinv.h"
#include "mesh/meshtext.h"
#include "rdmatest/pcitopo.h"
#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

static const char *host_of(const struct rt_mesh_agg *g, uint32_t rank);

/* rt_mesh_tally_name_fn: the tally's receivers and senders by name. */
static const char *tally_host(const void *ctx, uint32_t rank)
{
	return host_of(ctx, rank);
}

static const char *host_of(const struct rt_mesh_agg *g, uint32_t rank)
{
	return g->nodes[rank].host[0] ? g->nodes[rank].host : "?";
}

static void nodes(FILE *out, const struct rt_mesh_agg *g, uint8_t verdict)
{
	uint32_t shown = 0, total = 0;

	for (uint32_t i = 0; i < g->n; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];

		if (nd->verdict != verdict)
			continue;
		if (total++ >= RT_MESH_TEXT_LIST)
			continue;
		shown++;
		if (verdict == RT_NODE_ABSENT && nd->host[0])
			fprintf(out, "absent host %u (%s): never reported\n", i, nd->host);
		else if (verdict == RT_NODE_ABSENT)
			fprintf(out, "absent host %u: never reported\n", i);
		else if (verdict == RT_NODE_UNTESTED)
			fprintf(out, "untested host %u (%s): no pair of it was tested\n",
				i, host_of(g, i));
		else
			fprintf(out, "%s host %u (%s): %u of %u links bad\n",
				rt_node_verdict_name(verdict), i, host_of(g, i),
				nd->bad, nd->tested);
	}
	if (total > shown)
		fprintf(out, "... and %u more %s hosts\n", total - shown,
			rt_node_verdict_name(verdict));
}

/* The likely cause of a rail below its line rate, from the hellos: a
 * small MTU at either end, or one end's port slower than the other's.
 * sysfs gives a port's active speed and width alone, not what it could
 * run at: a port trained down on both ends looks like a slow one. */
static void likely_cause(FILE *out, const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			 unsigned rail, unsigned rail_b)
{
	const struct rt_mesh_rail *x = rt_mesh_rail_of(g, a, rail), *y = rt_mesh_rail_of(g, b, rail_b);

	if (!x || !y)
		return;
	for (int k = 0; k < 2; k++) {
		const struct rt_mesh_rail *r = k ? y : x;

		if (r->mtu && r->mtu < 4096) {
			fprintf(out, "; likely cause: %s's %s at MTU %u", host_of(g, k ? b : a),
				r->dev, r->mtu);
			return;
		}
	}
	if (x->speed_mbps && y->speed_mbps && x->speed_mbps != y->speed_mbps) {
		const struct rt_mesh_rail *slow = x->speed_mbps < y->speed_mbps ? x : y;
		const struct rt_mesh_rail *fast = slow == x ? y : x;

		fprintf(out, "; likely cause: %s's %s runs %.0f Gb/s (%uX) against %.0f Gb/s "
			"(%uX) at the other end (its active rate; sysfs does not say what it "
			"could run at)", host_of(g, slow == x ? a : b), slow->dev,
			slow->speed_mbps / 1e3, slow->lanes, fast->speed_mbps / 1e3, fast->lanes);
	}
}

/* Below --min-line-rate: both figures, and the end whose port sets the
 * line rate, where `rdmatest doctor` names a small MTU or a slow port. */
static void line_rate(FILE *out, const char *sep, const struct rt_mesh_agg *g,
		      const struct rt_mesh_link *l, const struct rt_mesh_limits *lim)
{
	uint32_t from = l->r.mbps <= l->r.mbps_rev ? l->r.a : l->r.b;
	uint32_t to = from == l->r.a ? l->r.b : l->r.a;
	const struct rt_mesh_rail *ra = rt_mesh_rail_of(g, l->r.a, l->r.rail);
	const struct rt_mesh_rail *rb = rt_mesh_rail_of(g, l->r.b, l->r.rail_b);
	bool b_end = ra && rb ? rt_mesh_rail_payload_mbps(rb) < rt_mesh_rail_payload_mbps(ra) :
		     g->nodes[l->r.b].payload_mbps < g->nodes[l->r.a].payload_mbps;
	const struct rt_mesh_rail *re = b_end ? rb : ra;

	fprintf(out, "%s%.2f Gb/s %u->%u < %.2g x line rate %.2f Gb/s (the RDMA payload "
		"rate of %s's port at its MTU%s)", sep, rt_mesh_gbps(&l->r), from, to,
		lim->min_line_rate, rt_mesh_rails_line_gbps(g, l->r.a, l->r.b, l->r.rail, l->r.rail_b),
		host_of(g, b_end ? l->r.b : l->r.a),
		re && re->want_gbps ? " and its expected rate" : "");
	likely_cause(out, g, l->r.a, l->r.b, l->r.rail, l->r.rail_b);
}

/* Each rise past its limit, naming the counter and the end whose port
 * counted it: "rcvd_seq_err +52 at 0 (node01): 5200 per million packets
 * sent > 1000", "symbol_error +3 at 1 (node02) > 0". */
static void counters(FILE *out, const char *sep, const struct rt_mesh_agg *g,
		     const struct rt_mesh_link *l, const struct rt_mesh_limits *lim)
{
	const struct rt_mesh_ctrs *c = &l->r.ctr;

	for (unsigned i = 0; i < c->n; i++) {
		const struct rt_mesh_ctr *e = &c->e[i];
		const char *name = rt_portctr_id_name(e->id);
		uint32_t end = e->end == RT_MESH_END_A ? l->r.a : l->r.b;

		if (!rt_mesh_ctr_bad(c, i, lim))
			continue;
		fprintf(out, "%s%s +%" PRIu64 " at %u (%s)", sep, name, e->delta, end,
			host_of(g, end));
		if (rt_mesh_ctr_id_kind(e->id) == RT_MESH_CTR_LINK)
			fprintf(out, " > %" PRIu64, lim->max_errors);
		else
			fprintf(out, ": %.0f per million packets sent > %" PRIu64,
				rt_mesh_ctr_ppm(e->delta, rt_mesh_ctr_sent(c)), lim->max_retrans_ppm);
		sep = "; ";
	}
}

static void why(FILE *out, const struct rt_mesh_agg *g, const struct rt_mesh_link *l,
		const struct rt_mesh_limits *lim)
{
	double rtt = (double)l->r.rtt_p50_ns / 1e3, gbps = rt_mesh_gbps(&l->r);
	/* the medians of its class: its rail's, or its two crossed rails' */
	const struct rt_mesh_rail_stat *st = rt_mesh_class_stat(g, l->r.rail, l->r.rail_b);
	/* the slower direction, which was judged */
	uint32_t from = l->r.mbps <= l->r.mbps_rev ? l->r.a : l->r.b;
	uint32_t to = from == l->r.a ? l->r.b : l->r.a;

	/* each reason on its own, "; " between them */
	const char *sep = " ";

	if (l->why & RT_LINK_FAILED) {
		fprintf(out, "%s%s", sep, rt_mesh_status_name(l->r.status));
		sep = "; ";
	}
	if (l->why & RT_LINK_RTT_ABS) {
		fprintf(out, "%sRTT %.1f us > %.1f us", sep, rtt, lim->max_rtt_us);
		sep = "; ";
	}
	if (l->why & RT_LINK_RTT_REL) {
		fprintf(out, "%sRTT %.1f us > %.2g x median %.1f us", sep, rtt,
			lim->rtt_factor, st->median_rtt_us);
		sep = "; ";
	}
	if (l->why & RT_LINK_BW_ABS) {
		fprintf(out, "%s%.2f Gb/s %u->%u < %.2f Gb/s", sep, gbps, from, to,
			lim->min_gbps);
		sep = "; ";
	}
	if (l->why & RT_LINK_BW_REL) {
		fprintf(out, "%s%.2f Gb/s %u->%u < %.2g x median %.2f Gb/s", sep, gbps,
			from, to, lim->bw_fraction, st->median_gbps);
		sep = "; ";
	}
	if (l->why & RT_LINK_LINE_RATE) {
		line_rate(out, sep, g, l, lim);
		sep = "; ";
	}
	if (l->why & RT_LINK_COUNTERS)
		counters(out, sep, g, l, lim);
}

/* "bad link 0 (a) rxe1 - 1 (b) rxe1, rail 1:", crossed "bad link 0 (a)
 * rxe0 - 1 (b) rxe1, rails 0-1:" (a's rail, then b's), or without rails
 * as before them: "bad link 0 (a) - 1 (b):". */
static void link_ends(FILE *out, const struct rt_mesh_agg *g, const struct rt_mesh_link *l)
{
	const struct rt_mesh_rail *x = rt_mesh_rail_of(g, l->r.a, l->r.rail);
	const struct rt_mesh_rail *y = rt_mesh_rail_of(g, l->r.b, l->r.rail_b);

	if (!x || !y) {
		fprintf(out, "bad link %u (%s) - %u (%s):", l->r.a, host_of(g, l->r.a), l->r.b,
			host_of(g, l->r.b));
		return;
	}
	fprintf(out, "bad link %u (%s) %s%s%s - %u (%s) %s%s%s, rail%s %u", l->r.a,
		host_of(g, l->r.a), x->dev, x->gpu[0] ? " GPU " : "", x->gpu, l->r.b,
		host_of(g, l->r.b), y->dev, y->gpu[0] ? " GPU " : "", y->gpu,
		l->r.rail_b != l->r.rail ? "s" : "", l->r.rail);
	if (l->r.rail_b != l->r.rail)
		fprintf(out, "-%u", l->r.rail_b);
	fputc(':', out);
}

/* A host's rails that are not usable (not ACTIVE, or without the address
 * another host's rail of their number has) or that their links blame
 * while its other rails passed; the host itself is not bad. */
static void bad_rails(FILE *out, const struct rt_mesh_agg *g)
{
	uint32_t shown = 0, total = 0;
	char reason[112];

	for (uint32_t i = 0; i < g->n; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];

		for (unsigned k = 0; nd->present && k < nd->nrails; k++) {
			const struct rt_mesh_rail *r = &nd->rails[k];
			enum rt_rail_fault f = rt_mesh_rail_fault(g, nd, r);

			if (f == RT_RAIL_OK || f == RT_RAIL_UNUSED || total++ >= RT_MESH_TEXT_LIST)
				continue;
			shown++;
			if (f == RT_RAIL_LINKS_BAD)
				snprintf(reason, sizeof(reason), "its links on rail %u are bad, its other "
					 "rails' are not", r->rail);
			else
				rt_mesh_rail_fault_text(f, r, reason, sizeof(reason));
			fprintf(out, "bad rail %u of host %u (%s) %s: %s\n", r->rail, i,
				host_of(g, i), r->dev, reason);
		}
	}
	if (total > shown)
		fprintf(out, "... and %u more bad rails\n", total - shown);
}

/* Rails ACTIVE somewhere that no host's port carries an address on
 * (InfiniBand without IPoIB): tested over verbs alone, and said so. */
static void unaddressed_rails(FILE *out, const struct rt_mesh_agg *g)
{
	for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
		if (g->rails_unaddressed >> r & 1u)
			fprintf(out, "rail %u: no host's port on it carries an IP address: tested "
				"over verbs alone (LID or GID)\n", r);
}

/* mesh --gpu: how near each rail's GPU is, counted by relation, then
 * the rails whose GPU is not behind the NIC's own switches (PHB, NODE,
 * SYS: GPUDirect crosses the root complex or the sockets, a warning, not
 * a verdict: --min-gbps judges what it costs), unknown, or with no GPU
 * where others have one (a rank started without --gpu). */
static bool gpu_notable(unsigned rel)
{
	return rel != RT_MESH_GPU_REL0 + RT_PCI_PIX && rel != RT_MESH_GPU_REL0 + RT_PCI_PXB;
}

static const char *gpu_far(unsigned rel)
{
	if (rel == RT_MESH_GPU_REL0 + RT_PCI_SYS)
		return " to its NIC: GPUDirect crosses the sockets' interconnect";
	if (rel == RT_MESH_GPU_REL0 + RT_PCI_NODE)
		return " to its NIC: GPUDirect crosses host bridges of one socket";
	return rel == RT_MESH_GPU_REL0 + RT_PCI_PHB ? " to its NIC: through the root complex" : "";
}

static void gpus(FILE *out, const struct rt_mesh_agg *g)
{
	uint32_t count[RT_MESH_GPU_REL_MAX + 1] = { 0 }, shown = 0, notable = 0, with_gpu = 0;

	for (uint32_t i = 0; i < g->n; i++)
		for (unsigned k = 0; g->nodes[i].present && k < g->nodes[i].nrails; k++)
			count[g->nodes[i].rails[k].gpu_rel]++;
	for (unsigned r = RT_MESH_GPU_UNKNOWN; r <= RT_MESH_GPU_REL_MAX; r++)
		with_gpu += count[r];
	if (!with_gpu)
		return; /* no --gpu anywhere */
	fputs("GPU memory (--gpu), rails by their GPU's place:", out);
	for (unsigned r = 0; r <= RT_MESH_GPU_REL_MAX; r++)
		if (count[r])
			fprintf(out, " %u %s", count[r], r ? rt_mesh_gpu_rel_name(r) : "host memory");
	fputc('\n', out);
	for (uint32_t i = 0; i < g->n; i++)
		for (unsigned k = 0; g->nodes[i].present && k < g->nodes[i].nrails; k++) {
			const struct rt_mesh_rail *r = &g->nodes[i].rails[k];

			if (!gpu_notable(r->gpu_rel) || notable++ >= RT_MESH_TEXT_LIST)
				continue;
			shown++;
			if (!r->gpu_rel)
				fprintf(out, "gpu: host %u (%s) rail %u %s: host memory (started "
					"without --gpu?)\n", i, host_of(g, i), r->rail, r->dev);
			else
				fprintf(out, "gpu: host %u (%s) rail %u %s: GPU %s, %s%s\n", i,
					host_of(g, i), r->rail, r->dev, r->gpu,
					r->gpu_rel == RT_MESH_GPU_UNKNOWN ? "nearest unknown (no PCIe "
					"path between them in sysfs)" : rt_mesh_gpu_rel_name(r->gpu_rel),
					gpu_far(r->gpu_rel));
		}
	if (notable > shown)
		fprintf(out, "... and %u more rails whose GPU is not PIX or PXB\n", notable - shown);
}

/* Hosts whose rail count is not the most common one. */
static void rail_counts(FILE *out, const struct rt_mesh_agg *g)
{
	uint32_t shown = 0;

	for (uint32_t i = 0; i < g->n && g->rail_mismatch; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];

		if (!nd->present || nd->rails_in_use == g->rails_expected ||
		    shown++ >= RT_MESH_TEXT_LIST)
			continue;
		fprintf(out, "rail count: host %u (%s) has %u rails, %u expected (most hosts)\n",
			i, host_of(g, i), nd->rails_in_use, g->rails_expected);
	}
	if (shown > RT_MESH_TEXT_LIST)
		fprintf(out, "... and %u more hosts with another rail count\n",
			shown - RT_MESH_TEXT_LIST);
}

static void links(FILE *out, const struct rt_mesh_agg *g,
		  const struct rt_mesh_limits *lim)
{
	uint32_t shown = 0, total = 0;
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		if (!rt_mesh_link_blamed(g, &l))
			continue;
		if (total++ >= RT_MESH_TEXT_LIST)
			continue;
		shown++;
		link_ends(out, g, &l);
		why(out, g, &l, lim);
		fputc('\n', out);
	}
	if (total > shown)
		fprintf(out, "... and %u more bad links\n", total - shown);
}

/* Links bad in the first pass and good on re-test: not a verdict. */
static void flaky(FILE *out, const struct rt_mesh_agg *g, const struct rt_mesh_limits *lim)
{
	const struct rt_mesh_blame *b = &g->blame;
	uint32_t shown = 0;

	for (uint32_t i = 0; i < b->nre; i++) {
		const struct rt_mesh_link *l = &b->re[i].first;

		if (b->re[i].state != RT_RETEST_FLAKY || shown++ >= RT_MESH_TEXT_LIST)
			continue;
		fprintf(out, "flaky link %u (%s) - %u (%s), good on re-test; first:", l->r.a,
			host_of(g, l->r.a), l->r.b, host_of(g, l->r.b));
		why(out, g, l, lim);
		fputc('\n', out);
	}
	if (shown > RT_MESH_TEXT_LIST)
		fprintf(out, "... and %u more flaky links\n", shown - RT_MESH_TEXT_LIST);
}

/* One end's pairings with good hosts, each with its figures or reasons. */
static void pairings(FILE *out, const struct rt_mesh_agg *g, const struct rt_mesh_limits *lim,
		     const struct rt_mesh_blame_end *e)
{
	for (uint8_t p = 0; p < e->np; p++) {
		struct rt_mesh_link l;

		fprintf(out, "%swith %u (%s):", p ? "; " : " (", e->partner[p],
			host_of(g, e->partner[p]));
		if (!rt_mesh_pair_worst(g, e->rank, e->partner[p], &l))
			fputs(" untested", out);
		else if (l.why)
			why(out, g, &l, lim);
		else if (l.r.flags & RT_MESH_HAS_RTT)
			fprintf(out, " ok, RTT %.1f us", (double)l.r.rtt_p50_ns / 1e3);
		else
			fputs(" ok", out);
	}
	fputs(")\n", out);
}

/* The blame pass's pairings: each end's, then what they say of each bad
 * link left (the host, or the link alone). */
static void blame(FILE *out, const struct rt_mesh_agg *g, const struct rt_mesh_limits *lim)
{
	const struct rt_mesh_blame *b = &g->blame;
	uint32_t shown = 0;
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	for (uint32_t i = 0; i < RT_MIN(b->nends, RT_MESH_TEXT_LIST); i++) {
		const struct rt_mesh_blame_end *e = &b->ends[i];

		if (!e->np) {
			fprintf(out, "blame: host %u (%s): no host with every link good to pair "
				"it with\n", e->rank, host_of(g, e->rank));
			continue;
		}
		fprintf(out, "blame: host %u (%s): %u of %u pairings with good hosts bad", e->rank,
			host_of(g, e->rank), e->bad, e->tested);
		pairings(out, g, lim, e);
	}
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		enum rt_blame_verdict v = l.why && l.why != RT_LINK_ABSENT ?
					  rt_mesh_blame_of(g, &l) : RT_BLAME_NONE;
		uint32_t h = (uint32_t)rt_mesh_blame_rank(v, &l);

		if (v == RT_BLAME_NONE || shown++ >= RT_MESH_TEXT_LIST)
			continue;
		fprintf(out, "blame: link %u (%s) - %u (%s): ", l.r.a, host_of(g, l.r.a), l.r.b,
			host_of(g, l.r.b));
		if (v == RT_BLAME_HOST_A || v == RT_BLAME_HOST_B)
			fprintf(out, "bad host %u (%s): all its pairings bad, the other end's not\n",
				h, host_of(g, h));
		else if (v == RT_BLAME_PORT_A || v == RT_BLAME_PORT_B)
			fprintf(out, "bad port of host %u (%s): it alone counted link errors (its "
				"cable, transceiver or switch port)\n", h, host_of(g, h));
		else if (v == RT_BLAME_HOSTS)
			fputs("bad hosts: both ends' pairings all bad\n", out);
		else if (v == RT_BLAME_LINK)
			fputs("bad link: only this pairing is bad, both ends passed with good hosts\n",
			      out);
		else
			fputs("unsure: an end's pairings disagree\n", out);
	}
	if (b->cut)
		fputs("blame: cut short by --budget\n", out);
}

/* A --budget run: its rounds and the pairs they covered. */
static void budget(FILE *out, const struct rt_mesh_agg *g)
{
	const struct rt_mesh_cover *cv = &g->cover;
	uint64_t all = (uint64_t)g->n * (g->n ? g->n - 1 : 0) / 2;

	if (cv->minutes <= 0)
		return;
	if (cv->all_rounds)
		fprintf(out, "budget: %u of the %u alltoall rounds", cv->rounds, cv->all_rounds);
	else
		fprintf(out, "budget: %u rounds (%u random matchings)", cv->rounds,
			cv->matchings);
	fprintf(out, " and the blame pass in %.1f s of %.4g minutes, %.2f s a round",
		cv->elapsed_s, cv->minutes,
		cv->elapsed_s / RT_MAX(cv->rounds + g->blame.rounds, 1u));
	if (cv->counted)
		fprintf(out, ", %llu of %llu distinct pairs (%.2f %%)\n",
			(unsigned long long)cv->distinct, (unsigned long long)all,
			all ? 100.0 * (double)cv->distinct / (double)all : 0.0);
	else
		fprintf(out, ", distinct pairs not counted above %u hosts\n", RT_PAIRSET_MAX_N);
}

/* The congestion counters that rose (meshcong.h), each by the port that
 * counted the most in one test: reported, never judged. */
static void congestion(FILE *out, const struct rt_mesh_agg *g)
{
	for (unsigned i = 0; i < g->cong.n; i++) {
		const struct rt_mesh_cong_ctr *c = &g->cong.c[i];
		double ppm = rt_mesh_cong_ppm(c);

		fprintf(out, "congestion (not judged): %s +%" PRIu64 " at %u (%s) rail %u in round "
			"%u", rt_portctr_id_name(c->id), c->delta, c->rank,
			c->rank < g->n ? host_of(g, c->rank) : "?",
			c->rail, c->round);
		if (ppm >= 0)
			fprintf(out, " (%.0f per million packets its port sent)", ppm);
		fprintf(out, ", the most of any port; %u test ends counted %" PRIu64 " in all\n",
			c->ends, c->total);
	}
}

/* Peers turned away at the gathering: someone else spoke for a rank. */
static void refusals(FILE *out, const struct rt_mesh_agg *g)
{
	uint32_t shown = RT_MIN(RT_MIN(g->refused, RT_MESH_REFUSED_LIST), RT_MESH_TEXT_LIST);

	/* cppcheck follows one caller whose aggregate refused no one */
	// cppcheck-suppress knownConditionTrueFalse
	for (uint32_t i = 0; i < shown; i++) {
		const struct rt_mesh_refusal *r = &g->refusals[i];

		if (r->rank == RT_MESH_NO_PEER)
			fprintf(out, "refused peer %s: %s\n", r->addr, r->reason);
		else
			fprintf(out, "refused peer %s as rank %u: %s\n", r->addr, r->rank,
				r->reason);
	}
	// cppcheck-suppress knownConditionTrueFalse
	if (g->refused > shown)
		fprintf(out, "... and %u more refused peers\n", g->refused - shown);
}

/* Connections that could not show the job's token (meshagg.h): a few
 * named, the rest counted, none of them in the verdict. */
static void strangers(FILE *out, const struct rt_mesh_agg *g)
{
	uint32_t shown = RT_MIN(RT_MIN(g->nstrangers, RT_MESH_STRANGER_LIST),
				RT_MESH_TEXT_STRANGERS);

	/* cppcheck follows one caller whose aggregate met no stranger */
	// cppcheck-suppress knownConditionTrueFalse
	for (uint32_t i = 0; i < shown; i++)
		fprintf(out, "stranger %s turned away (not in the verdict): %s\n",
			g->strangers[i].addr, g->strangers[i].reason);
	// cppcheck-suppress knownConditionTrueFalse
	if (g->nstrangers > shown)
		fprintf(out, "... and %u more strangers turned away\n", g->nstrangers - shown);
}

static void unjudged(FILE *out, const struct rt_mesh_agg *g,
		     const struct rt_mesh_limits *lim)
{
	uint32_t min = RT_MAX(lim->min_links, 1u);

	if (g->not_judged & RT_LINK_RTT_REL)
		fprintf(out, "not judged: RTT against %.2g x the median (fewer than %u "
			"measured links, --min-links)\n", lim->rtt_factor, min);
	if (g->not_judged & RT_LINK_BW_REL)
		fprintf(out, "not judged: bandwidth against %.2g x the median (fewer than "
			"%u measured links, --min-links)\n", lim->bw_fraction, min);
	if (g->ctr_dropped)
		fprintf(out, "not judged: the port counters of %u links (more than %u links' "
			"counters rose)\n", g->ctr_dropped, RT_MESH_CTRLOG_MAX);
}

/* A run whose ranks proved nothing: anyone reaching rank 0's port could
 * have answered as a rank, or posed as rank 0 to the ranks. */
static bool unauthenticated(const struct rt_mesh_agg *g)
{
	return g->auth && !strcmp(g->auth, "none");
}

void rt_mesh_summary(FILE *out, const struct rt_mesh_agg *g,
		     const struct rt_mesh_limits *lim)
{
	fprintf(out, "mesh: %u ranks, %u links tested", g->n, g->nlinks - g->absent_links);
	if (g->absent_links)
		fprintf(out, ", %u not tested (a rank absent)", g->absent_links);
	if (g->ncross)
		fprintf(out, " (%u crossed)", g->ncross);
	if (g->rails_expected)
		fprintf(out, ", %u rails", g->rails_expected);
	if (g->median_rtt_us > 0)
		fprintf(out, ", median RTT %.1f us", g->median_rtt_us);
	if (g->median_gbps > 0)
		fprintf(out, ", median %.2f Gb/s", g->median_gbps);
	if (g->auth)
		fprintf(out, ", auth: %s", g->auth);
	fputc('\n', out);
	budget(out, g);
	if (g->tally)
		rt_mesh_tally_text_named(g->tally, out, tally_host, g);
	congestion(out, g);
	nodes(out, g, RT_NODE_BAD);
	nodes(out, g, RT_NODE_SUSPECT);
	nodes(out, g, RT_NODE_ABSENT);
	nodes(out, g, RT_NODE_UNTESTED);
	refusals(out, g);
	strangers(out, g);
	rail_counts(out, g);
	bad_rails(out, g);
	unaddressed_rails(out, g);
	gpus(out, g);
	rt_mesh_inv_text(out, g, RT_MESH_TEXT_LIST);
	links(out, g, lim);
	flaky(out, g, lim);
	blame(out, g, lim);
	unjudged(out, g, lim);
	if (g->ready && unauthenticated(g))
		fprintf(out, "READY (not authenticated: auth none)\n");
	else if (g->ready)
		fprintf(out, "READY\n");
	else if (g->interrupted)
		fprintf(out, "NOT READY: interrupted\n");
	else if (rt_mesh_inv_failed(g) && !g->bad_nodes && !g->suspect_nodes && !g->absent_nodes &&
		 !g->untested_nodes && !g->bad_links && !g->refused && !g->bad_rails &&
		 !g->rail_mismatch)
		fprintf(out, "NOT READY: %u hosts differ from the expected state, %u hosts' "
			"inventory differs from most hosts' (--expect)\n", g->expect_bad,
			g->drift_hosts);
	else if ((g->not_judged || g->ctr_dropped) && !g->bad_nodes && !g->suspect_nodes && !g->absent_nodes &&
		 !g->untested_nodes && !g->bad_links && !g->refused && g->nlinks &&
		 !g->bad_rails && !g->rail_mismatch)
		fprintf(out, "NOT READY: not judged\n");
	else if (g->nlinks == g->absent_links)
		fprintf(out, "NOT READY: no link tested (%u absent hosts)\n",
			g->absent_nodes);
	else if (!g->bad_rails && !g->rail_mismatch)
		fprintf(out, "NOT READY: %u bad, %u suspect, %u absent, %u untested hosts, "
			"%u bad links, %u refused peers\n", g->bad_nodes, g->suspect_nodes,
			g->absent_nodes, g->untested_nodes, g->bad_links, g->refused);
	else
		fprintf(out, "NOT READY: %u bad, %u suspect, %u absent, %u untested hosts, "
			"%u bad links, %u refused peers, %u bad rails, %u hosts with another "
			"rail count\n", g->bad_nodes, g->suspect_nodes, g->absent_nodes,
			g->untested_nodes, g->bad_links, g->refused, g->bad_rails,
			g->rail_mismatch);
}
