/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A RESULT's counter block (meshwire.h), which a pair's listener also
 * hands its partner alone (meshtest.c). */
#include "mesh/meshctr.h"
#include "mesh/meshcur.h"
#include "mesh/meshwire.h"

void rt_mesh_ctrs_encode(const struct rt_mesh_ctrs *ctr, uint8_t *buf)
{
	struct cur c = {.w = buf};
	unsigned n = RT_MIN(ctr->n, RT_MESH_CTRS_MAX);

	put8(&c, ctr->sent_known);
	put8(&c, (uint8_t)n);
	put8(&c, ctr->more);
	put_zero(&c, 1);
	put64(&c, ctr->sent[0]);
	put64(&c, ctr->sent[1]);
	for (unsigned i = 0; i < n; i++) {
		put8(&c, ctr->e[i].id);
		put8(&c, ctr->e[i].end);
		put_zero(&c, 2);
		put64(&c, ctr->e[i].delta);
	}
	/* the unused entries: all zero, as the decoder requires */
	put_zero(&c, (size_t)(RT_MESH_CTRS_MAX - n) * RT_MESH_CTR_ENTRY_WIRE);
}

static int ctr_entry(struct cur *c, unsigned i, unsigned n, struct rt_mesh_ctr *e,
		     struct rt_error *err)
{
	uint8_t pad0, pad1;

	e->id = get8(c);
	e->end = get8(c);
	pad0 = get8(c);
	pad1 = get8(c);
	e->delta = get64(c);
	if (pad0 || pad1 || (i >= n && (e->id || e->end || e->delta)))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: counter entry %u is not zero "
			       "where it must be", i);
	if (i >= n)
		return 0;
	/* a counter a RESULT may carry (meshctr.h): judged, or congestion */
	if (e->end > RT_MESH_END_B || rt_mesh_ctr_id_kind(e->id) == RT_MESH_CTR_NONE || !e->delta)
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: counter entry %u: end %u, "
			       "counter %u, rise %llu (want a or b, a link or retransmit "
			       "counter or a congestion one, a rise)", i, e->end, e->id,
			       (unsigned long long)e->delta);
	return 0;
}

int rt_mesh_ctrs_decode(const uint8_t *buf, bool has_ctr, struct rt_mesh_ctrs *ctr,
			struct rt_error *err)
{
	struct cur c = {.r = buf};

	ctr->sent_known = get8(&c);
	ctr->n = get8(&c);
	ctr->more = get8(&c);
	if (zeros(&c, 1, "counters", err))
		return -1;
	ctr->sent[0] = get64(&c);
	ctr->sent[1] = get64(&c);
	if (ctr->n > RT_MESH_CTRS_MAX || has_ctr != (ctr->n > 0) || (ctr->more && !ctr->n))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: %u counters%s, at most %u and "
			       "some only with the flag", ctr->n, ctr->more ? " and more" : "",
			       RT_MESH_CTRS_MAX);
	if (ctr->sent_known & ~3u || (!(ctr->sent_known & 1u) && ctr->sent[0]) ||
	    (!(ctr->sent_known & 2u) && ctr->sent[1]))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: packets sent without their bit "
			       "(0x%02x)", ctr->sent_known);
	for (unsigned i = 0; i < RT_MESH_CTRS_MAX; i++) {
		const struct rt_mesh_ctr *e = &ctr->e[i], *p = &ctr->e[i - (i > 0)];

		if (ctr_entry(&c, i, ctr->n, &ctr->e[i], err))
			return -1;
		if (i && i < ctr->n && (e->end * 256u + e->id) <= (p->end * 256u + p->id))
			return rt_fail(err, RT_EXIT_FAIL, "mesh result: counter entries out of "
				       "(end, counter) order");
	}
	return 0;
}
