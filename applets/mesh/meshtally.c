/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a traffic pattern's rounds carried together (meshtally.h). */
#include <stdlib.h>
#include <string.h>

#include "mesh/meshtally.h"
#include "rdmatest/json.h"
#include "rdmatest/util.h"

/* The header's memory bound is what the table costs. */
_Static_assert(sizeof(struct rt_mesh_tally_recv) <= RT_MESH_TALLY_RECV_BYTES,
	       "meshtally.h's bytes a rank");

struct rt_mesh_tally *rt_mesh_tally_new(const char *pattern, uint32_t hosts, uint32_t run,
					uint32_t fan_in)
{
	struct rt_mesh_tally *t = rt_xcalloc(1, sizeof(*t));

	t->pattern = pattern;
	t->hosts = hosts;
	t->run = run;
	t->rounds = RT_MIN(run, RT_MESH_TALLY_MAX);
	t->fan_in = fan_in;
	if (fan_in && hosts)
		t->recv = rt_xcalloc(hosts, sizeof(*t->recv));
	return t;
}

void rt_mesh_tally_free(struct rt_mesh_tally *t)
{
	if (!t)
		return;
	free(t->recv);
	free(t);
}

void rt_mesh_tally_line(struct rt_mesh_tally *t, uint32_t rank, uint32_t line_mbps)
{
	if (t->recv && rank < t->hosts)
		t->recv[rank].line_mbps = line_mbps;
}

static bool failed(const struct rt_mesh_result *r)
{
	return r->status != RT_MESH_OK || !(r->flags & RT_MESH_HAS_BW);
}

/* The receiver's side: every first-pass round, not only the ones the
 * per-round table keeps, so that each host's turn as receiver counts. */
static void recv_add(struct rt_mesh_tally *t, const struct rt_mesh_result *r)
{
	struct rt_mesh_tally_recv *x;

	if (!t->recv || r->round >= t->run || r->a >= t->hosts)
		return;
	x = &t->recv[r->a];
	x->results++;
	if (failed(r)) {
		x->failed++;
		return;
	}
	/* the first OK one, or a slower one: the slowest so far */
	if (x->results - x->failed == 1 || r->mbps_rev < x->slow_mbps) {
		x->slow_mbps = r->mbps_rev;
		x->slow_rank = r->b;
		x->slow_rail = r->rail;
	}
	x->in_mbps += r->mbps_rev;
	x->out_mbps += r->mbps;
}

void rt_mesh_tally_add(struct rt_mesh_tally *t, const struct rt_mesh_result *r)
{
	struct rt_mesh_tally_round *x;

	recv_add(t, r);
	if (r->round >= t->rounds)
		return;
	x = &t->r[r->round];
	x->pairs++;
	if (failed(r))
		x->failed++;
	else
		x->mbps += r->mbps + r->mbps_rev;
}

int rt_mesh_tally_worst(const struct rt_mesh_tally *t)
{
	int w = -1;

	for (uint32_t i = 0; i < t->rounds; i++)
		if (t->r[i].pairs && (w < 0 || t->r[i].mbps < t->r[w].mbps))
			w = (int)i;
	return w;
}

/* A receiver's link under the pattern: its slower direction, the
 * senders' writes converging on it or their reads fanning out of it. */
static uint64_t slower(const struct rt_mesh_tally_recv *x)
{
	return RT_MIN(x->in_mbps, x->out_mbps);
}

/* Whether receiver x is worse than y: its slower direction less, or on a
 * tie (at Mbit/s, two crawling links both count 0) its faster one. */
static bool worse(const struct rt_mesh_tally_recv *x, const struct rt_mesh_tally_recv *y)
{
	if (slower(x) != slower(y))
		return slower(x) < slower(y);
	return RT_MAX(x->in_mbps, x->out_mbps) < RT_MAX(y->in_mbps, y->out_mbps);
}

int rt_mesh_tally_worst_receiver(const struct rt_mesh_tally *t)
{
	int w = -1;

	for (uint32_t i = 0; t->recv && i < t->hosts; i++)
		if (t->recv[i].results && (w < 0 || worse(&t->recv[i], &t->recv[w])))
			w = (int)i;
	return w;
}

static uint32_t ok_count(const struct rt_mesh_tally_recv *x)
{
	return x->results - x->failed;
}

/* A receiver's slowest sender has its least share: ok and in_mbps are
 * the receiver's, so one sender a receiver is enough to compare. */
bool rt_mesh_tally_unfair(const struct rt_mesh_tally *t, struct rt_mesh_tally_unfair *u)
{
	bool found = false;

	for (uint32_t i = 0; t->recv && i < t->hosts; i++) {
		const struct rt_mesh_tally_recv *x = &t->recv[i];
		double share;

		if (ok_count(x) < 2 || !x->in_mbps)
			continue;
		share = (double)x->slow_mbps * ok_count(x) / (double)x->in_mbps;
		if (found && share >= u->share)
			continue;
		*u = (struct rt_mesh_tally_unfair){ .sender = x->slow_rank, .receiver = i,
						    .rail = x->slow_rail, .share = share };
		found = true;
	}
	return found;
}

static double gbps(uint64_t mbps)
{
	return (double)mbps / 1000.0;
}

/* What every round ran at once, in the pattern's words. */
static const char *at_once(const char *pattern)
{
	if (!strcmp(pattern, "bisection"))
		return "every pair of a round at once in both directions";
	if (!strcmp(pattern, "incast"))
		return "every group of a round at once, its writes then its reads";
	if (!strcmp(pattern, "alltoall"))
		return "every host sending to its partners and receiving from others at once, "
		       "writes then reads";
	return "every pair of a round at once";
}

static void rounds_text(const struct rt_mesh_tally *t, FILE *out)
{
	int w = rt_mesh_tally_worst(t);
	uint64_t best = 0;

	if (w < 0) {
		fprintf(out, "%s: no round carried bandwidth\n", t->pattern);
		return;
	}
	for (uint32_t i = 0; i < t->rounds; i++)
		best = t->r[i].mbps > best ? t->r[i].mbps : best;
	fprintf(out, "%s: %u rounds, %s: "
		"%.4g Gb/s in the worst (round %d, %u pairs, %u failed; %.4g Gb/s a host), "
		"%.4g in the best\n", t->pattern, t->rounds, at_once(t->pattern),
		gbps(t->r[w].mbps), w, t->r[w].pairs, t->r[w].failed,
		t->hosts ? gbps(t->r[w].mbps) / t->hosts : 0.0, gbps(best));
	if (t->run > t->rounds)
		fprintf(out, "%s: the first %u of %u rounds counted\n", t->pattern, t->rounds,
			t->run);
}

static void who(FILE *out, uint32_t rank, rt_mesh_tally_name_fn *name, const void *ctx)
{
	const char *s = name ? name(ctx, rank) : NULL;

	fprintf(out, s ? "rank %u (%s)" : "rank %u", rank, s);
}

static void worst_receiver_text(const struct rt_mesh_tally *t, FILE *out,
				rt_mesh_tally_name_fn *name, const void *ctx)
{
	int w = rt_mesh_tally_worst_receiver(t);
	const struct rt_mesh_tally_recv *x;
	uint32_t n = 0;
	uint64_t best = 0;

	if (w < 0) {
		fprintf(out, "%s: no receiver had a result\n", t->pattern);
		return;
	}
	for (uint32_t i = 0; i < t->hosts; i++) {
		n += t->recv[i].results != 0;
		best = t->recv[i].in_mbps > best ? t->recv[i].in_mbps : best;
	}
	x = &t->recv[w];
	fprintf(out, "%s: %u receivers, %u sender%s each at once: worst receiver ", t->pattern,
		n, t->fan_in, t->fan_in == 1 ? "" : "s");
	who(out, (uint32_t)w, name, ctx);
	fprintf(out, " %.4g Gb/s in", gbps(x->in_mbps));
	if (x->line_mbps)
		fprintf(out, " (of %.4g line)", gbps(x->line_mbps));
	fprintf(out, " from %u senders (%u failed), best %.4g; out %.4g\n", x->results,
		x->failed, gbps(best), gbps(x->out_mbps));
}

static void unfair_text(const struct rt_mesh_tally *t, FILE *out, rt_mesh_tally_name_fn *name,
			const void *ctx)
{
	struct rt_mesh_tally_unfair u;

	if (!rt_mesh_tally_unfair(t, &u)) {
		fprintf(out, "%s: no receiver had figures from two senders: no share to "
			"compare\n", t->pattern);
		return;
	}
	fprintf(out, "%s: least fair sender ", t->pattern);
	who(out, u.sender, name, ctx);
	fputs(" into ", out);
	who(out, u.receiver, name, ctx);
	fprintf(out, " rail %u: %.3g%% of an even share (%.4g of %.4g Gb/s in)\n", u.rail,
		u.share * 100.0, gbps(t->recv[u.receiver].slow_mbps),
		gbps(t->recv[u.receiver].in_mbps));
}

void rt_mesh_tally_text_named(const struct rt_mesh_tally *t, FILE *out,
			      rt_mesh_tally_name_fn *name, const void *ctx)
{
	rounds_text(t, out);
	if (!t->recv)
		return;
	worst_receiver_text(t, out, name, ctx);
	if (rt_mesh_tally_worst_receiver(t) >= 0)
		unfair_text(t, out, name, ctx);
}

void rt_mesh_tally_text(const struct rt_mesh_tally *t, FILE *out)
{
	rt_mesh_tally_text_named(t, out, NULL, NULL);
}

static void rounds_json(const struct rt_mesh_tally *t, struct rt_json *j)
{
	int w = rt_mesh_tally_worst(t);

	rt_json_kv_uint(j, "rounds_run", t->run);
	rt_json_key(j, "rounds");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < t->rounds; i++) {
		rt_json_object_begin(j);
		rt_json_kv_uint(j, "round", i);
		rt_json_kv_uint(j, "pairs", t->r[i].pairs);
		rt_json_kv_uint(j, "failed", t->r[i].failed);
		rt_json_kv_double(j, "gbps", gbps(t->r[i].mbps));
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
	rt_json_key(j, "worst_round");
	if (w < 0) {
		rt_json_null(j);
	} else {
		rt_json_uint(j, (uint64_t)w);
		rt_json_kv_double(j, "worst_gbps", gbps(t->r[w].mbps));
		rt_json_kv_double(j, "worst_gbps_per_host",
				  t->hosts ? gbps(t->r[w].mbps) / t->hosts : 0.0);
	}
}

static void receiver_json(const struct rt_mesh_tally_recv *x, uint32_t rank, struct rt_json *j)
{
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "rank", rank);
	rt_json_kv_uint(j, "senders", x->results);
	rt_json_kv_uint(j, "failed", x->failed);
	rt_json_kv_double(j, "in_gbps", gbps(x->in_mbps));
	rt_json_kv_double(j, "out_gbps", gbps(x->out_mbps));
	rt_json_key(j, "line_gbps");
	if (x->line_mbps)
		rt_json_double(j, gbps(x->line_mbps));
	else
		rt_json_null(j);
	rt_json_key(j, "slowest_sender");
	if (ok_count(x)) {
		rt_json_object_begin(j);
		rt_json_kv_uint(j, "rank", x->slow_rank);
		rt_json_kv_uint(j, "rail", x->slow_rail);
		rt_json_kv_double(j, "gbps", gbps(x->slow_mbps));
		rt_json_object_end(j);
	} else {
		rt_json_null(j);
	}
	rt_json_object_end(j);
}

static void receivers_json(const struct rt_mesh_tally *t, struct rt_json *j)
{
	int w = rt_mesh_tally_worst_receiver(t);
	struct rt_mesh_tally_unfair u;

	rt_json_kv_uint(j, "fan_in", t->fan_in);
	rt_json_key(j, "receivers");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < t->hosts; i++)
		if (t->recv[i].results)
			receiver_json(&t->recv[i], i, j);
	rt_json_array_end(j);
	rt_json_key(j, "worst_receiver");
	if (w < 0)
		rt_json_null(j);
	else
		rt_json_uint(j, (uint64_t)w);
	rt_json_key(j, "unfair_sender");
	if (!rt_mesh_tally_unfair(t, &u)) {
		rt_json_null(j);
		return;
	}
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "rank", u.sender);
	rt_json_kv_uint(j, "receiver", u.receiver);
	rt_json_kv_uint(j, "rail", u.rail);
	rt_json_kv_double(j, "share", u.share);
	rt_json_object_end(j);
}

void rt_mesh_tally_json(const struct rt_mesh_tally *t, struct rt_json *j)
{
	rt_json_key(j, "pattern");
	rt_json_object_begin(j);
	rt_json_kv_string(j, "name", t->pattern);
	rounds_json(t, j);
	if (t->recv)
		receivers_json(t, j);
	rt_json_object_end(j);
}
