/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a traffic pattern's rounds carried together (meshtally.h). */
#include "mesh/meshtally.h"
#include "rdmatest/json.h"

void rt_mesh_tally_add(struct rt_mesh_tally *t, const struct rt_mesh_result *r)
{
	struct rt_mesh_tally_round *x;

	if (r->round >= t->rounds)
		return;
	x = &t->r[r->round];
	x->pairs++;
	if (r->status != RT_MESH_OK || !(r->flags & RT_MESH_HAS_BW))
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

static double gbps(uint64_t mbps)
{
	return (double)mbps / 1000.0;
}

void rt_mesh_tally_text(const struct rt_mesh_tally *t, FILE *out)
{
	int w = rt_mesh_tally_worst(t);
	uint64_t best = 0;

	if (w < 0) {
		fprintf(out, "%s: no round carried bandwidth\n", t->pattern);
		return;
	}
	for (uint32_t i = 0; i < t->rounds; i++)
		best = t->r[i].mbps > best ? t->r[i].mbps : best;
	fprintf(out, "%s: %u rounds, every pair of a round at once in both directions: "
		"%.4g Gb/s in the worst (round %d, %u pairs, %u failed; %.4g Gb/s a host), "
		"%.4g in the best\n", t->pattern, t->rounds, gbps(t->r[w].mbps), w,
		t->r[w].pairs, t->r[w].failed,
		t->hosts ? gbps(t->r[w].mbps) / t->hosts : 0.0, gbps(best));
	if (t->run > t->rounds)
		fprintf(out, "%s: the first %u of %u rounds counted\n", t->pattern, t->rounds,
			t->run);
}

void rt_mesh_tally_json(const struct rt_mesh_tally *t, struct rt_json *j)
{
	int w = rt_mesh_tally_worst(t);

	rt_json_key(j, "pattern");
	rt_json_object_begin(j);
	rt_json_kv_string(j, "name", t->pattern);
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
	rt_json_object_end(j);
}
