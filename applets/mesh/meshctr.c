/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A pair test's port counters: readings to rises, and their rates
 * (meshctr.h). */
#include <stdlib.h>
#include <string.h>

#include "mesh/meshctr.h"
#include "rdmatest/ethctr.h"
#include "rdmatest/util.h"

enum rt_mesh_ctr_kind rt_mesh_ctr_kind(const char *name)
{
	if (!name)
		return RT_MESH_CTR_NONE;
	if (rt_portctr_class(name) == RT_PORTCTR_LINK)
		return RT_MESH_CTR_LINK;
	if (rt_portctr_retransmit(name))
		return RT_MESH_CTR_RETRANSMIT;
	return rt_portctr_congestion(name) ? RT_MESH_CTR_CONGESTION : RT_MESH_CTR_NONE;
}

enum rt_mesh_ctr_kind rt_mesh_ctr_id_kind(unsigned id)
{
	return rt_mesh_ctr_kind(rt_portctr_id_name(id));
}

bool rt_mesh_ctr_read(const char *sysfs, const char *dev, unsigned port,
		      struct rt_portctrs *out)
{
	rt_portctr_read(sysfs, dev, port, out);
	rt_ethctr_add(sysfs, dev, port, out);
	return out->n > 0;
}

/* Whether a rise is judged: a link counter's or a retransmit counter's. */
static bool judged(const struct rt_mesh_ctr *e)
{
	return rt_mesh_ctr_id_kind(e->id) <= RT_MESH_CTR_RETRANSMIT;
}

/* Link counters first, then retransmit ones, then congestion ones; in
 * each the larger rise, then (end, id). */
static int cmp_keep(const void *x, const void *y)
{
	const struct rt_mesh_ctr *p = x, *q = y;
	enum rt_mesh_ctr_kind kp = rt_mesh_ctr_id_kind(p->id), kq = rt_mesh_ctr_id_kind(q->id);

	if (kp != kq)
		return (int)kp - (int)kq;
	if (p->delta != q->delta)
		return p->delta > q->delta ? -1 : 1;
	return (p->end * 256 + p->id) - (q->end * 256 + q->id);
}

static int cmp_wire(const void *x, const void *y)
{
	const struct rt_mesh_ctr *p = x, *q = y;

	return (p->end * 256 + p->id) - (q->end * 256 + q->id);
}

/* The first RT_MESH_CTRS_MAX of all[0..n) by cmp_keep into out, the
 * judged ones of the rest counted (a congestion rise left out costs no
 * judgement), out's entries then in wire order. */
static void keep_best(struct rt_mesh_ctr *all, unsigned n, unsigned more,
		      struct rt_mesh_ctrs *out)
{
	qsort(all, n, sizeof(all[0]), cmp_keep);
	out->n = (uint8_t)RT_MIN(n, RT_MESH_CTRS_MAX);
	for (unsigned i = out->n; i < n; i++)
		more += judged(&all[i]);
	out->more = (uint8_t)RT_MIN(more, UINT8_MAX);
	memcpy(out->e, all, out->n * sizeof(all[0]));
	qsort(out->e, out->n, sizeof(out->e[0]), cmp_wire);
}

void rt_mesh_ctr_rises(const struct rt_portctrs *before, const struct rt_portctrs *after,
		       enum rt_mesh_end end, struct rt_mesh_ctrs *out)
{
	struct rt_mesh_ctr all[RT_PORTCTR_MAX] = {0};
	unsigned n = 0;
	uint64_t sent;

	memset(out, 0, sizeof(*out));
	if (rt_portctr_sent(before, after, &sent)) {
		out->sent_known = (uint8_t)(1u << end);
		out->sent[end] = sent;
	}
	for (int i = 0; i < after->n && i < RT_PORTCTR_MAX; i++) {
		const struct rt_portctr *c = &after->c[i];
		int id = rt_portctr_id(c->name);
		uint64_t d;

		if (id < 0 || id > UINT8_MAX || rt_mesh_ctr_kind(c->name) == RT_MESH_CTR_NONE)
			continue;
		d = rt_portctr_delta(before, after, c->name, c->hw);
		if (d)
			all[n++] = (struct rt_mesh_ctr){(uint8_t)id, (uint8_t)end, d};
	}
	keep_best(all, n, 0, out);
}

void rt_mesh_ctr_join(const struct rt_mesh_ctrs *a, const struct rt_mesh_ctrs *b,
		      struct rt_mesh_ctrs *out)
{
	struct rt_mesh_ctr all[2 * RT_MESH_CTRS_MAX] = {0};
	unsigned n = 0, more = a->more + b->more;

	for (unsigned i = 0; i < a->n && i < RT_MESH_CTRS_MAX; i++)
		all[n++] = a->e[i];
	for (unsigned i = 0; i < b->n && i < RT_MESH_CTRS_MAX; i++)
		all[n++] = b->e[i];
	memset(out, 0, sizeof(*out));
	out->sent_known = (uint8_t)((a->sent_known & 1u) | (b->sent_known & 2u));
	out->sent[0] = out->sent_known & 1u ? a->sent[0] : 0;
	out->sent[1] = out->sent_known & 2u ? b->sent[1] : 0;
	keep_best(all, n, more, out);
}

void rt_mesh_ctr_judged(const struct rt_mesh_ctrs *in, struct rt_mesh_ctrs *out)
{
	const struct rt_mesh_ctrs c = *in; /* in may be out */
	unsigned k = 0;

	*out = c;
	for (unsigned i = 0; i < c.n && i < RT_MESH_CTRS_MAX; i++)
		if (judged(&c.e[i]))
			out->e[k++] = c.e[i];
	for (unsigned i = k; i < RT_MESH_CTRS_MAX; i++)
		out->e[i] = (struct rt_mesh_ctr){ 0 };
	out->n = (uint8_t)k;
}

uint64_t rt_mesh_ctr_sent(const struct rt_mesh_ctrs *c)
{
	uint64_t a = c->sent_known & 1u ? c->sent[0] : 0, b = c->sent_known & 2u ? c->sent[1] : 0;

	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* x * y as a 128-bit number in two halves. */
static void mul128(uint64_t x, uint64_t y, uint64_t *hi, uint64_t *lo)
{
	uint64_t xl = x & 0xffffffffu, xh = x >> 32, yl = y & 0xffffffffu, yh = y >> 32;
	uint64_t ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);

	*lo = (mid << 32) | (ll & 0xffffffffu);
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

bool rt_mesh_ctr_above_ppm(uint64_t rise, uint64_t sent, uint64_t ppm)
{
	uint64_t ah, al, bh, bl;

	if (!sent)
		return false;
	/* rise / sent > ppm / 10^6  <=>  rise x 10^6 > ppm x sent */
	mul128(rise, 1000000u, &ah, &al);
	mul128(ppm, sent, &bh, &bl);
	return ah > bh || (ah == bh && al > bl);
}

double rt_mesh_ctr_ppm(uint64_t rise, uint64_t sent)
{
	return sent ? (double)rise * 1e6 / (double)sent : 0;
}
