/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A run's congestion evidence (meshcong.h). */
#include "mesh/meshcong.h"
#include "mesh/meshctr.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The counter's entry, a new one at the end, or NULL when all are taken. */
static struct rt_mesh_cong_ctr *entry(struct rt_mesh_cong *k, uint8_t id)
{
	for (unsigned i = 0; i < k->n; i++)
		if (k->c[i].id == id)
			return &k->c[i];
	if (k->n == RT_MESH_CONG_MAX)
		return NULL;
	k->c[k->n] = (struct rt_mesh_cong_ctr){ .id = id };
	return &k->c[k->n++];
}

void rt_mesh_cong_add(struct rt_mesh_cong *k, const struct rt_mesh_result *r)
{
	const struct rt_mesh_ctrs *c = &r->ctr;

	if (!(r->flags & RT_MESH_HAS_CTR))
		return;
	for (unsigned i = 0; i < c->n && i < RT_MESH_CTRS_MAX; i++) {
		const struct rt_mesh_ctr *e = &c->e[i];
		struct rt_mesh_cong_ctr *x;
		bool a = e->end == RT_MESH_END_A;

		if (rt_mesh_ctr_id_kind(e->id) != RT_MESH_CTR_CONGESTION || !(x = entry(k, e->id)))
			continue;
		x->ends += x->ends < UINT32_MAX;
		x->total = sat_add(x->total, e->delta);
		if (e->delta <= x->delta)
			continue;
		x->delta = e->delta;
		x->rank = a ? r->a : r->b;
		x->rail = a ? r->rail : r->rail_b;
		x->round = r->round;
		x->sent_known = (c->sent_known >> e->end) & 1u;
		x->sent = x->sent_known ? c->sent[e->end] : 0;
	}
}

double rt_mesh_cong_ppm(const struct rt_mesh_cong_ctr *c)
{
	return c->sent_known && c->sent ? rt_mesh_ctr_ppm(c->delta, c->sent) : -1.0;
}
