/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The medians links are judged against (meshmedian.h): taken in place
 * over the stored figures, which are monotonic in the measured ones
 * (meshstore.c), so no copy of them is made. */
#include <stdlib.h>
#include <string.h>

#include "mesh/meshcell.h"
#include "mesh/meshmedian.h"
#include "rdmatest/util.h"

static int cell_class(const struct rt_mesh_cell *c)
{
	return rt_mesh_class_of(c->rail, c->rail_b);
}

/* The figure a median is taken of (its stored, monotonic value), when
 * the link measured it and is of class cls (-1: any). */
static bool figure(const struct rt_mesh_cell *c, uint8_t flag, int cls, uint32_t *v)
{
	if (rt_mesh_cell_state(c) != RT_MESH_OK + 1 || !(rt_mesh_cell_flags(c) & flag) ||
	    (cls >= 0 && cell_class(c) != cls))
		return false;
	*v = flag == RT_MESH_HAS_RTT ? c->rtt_p50 : RT_MIN(c->mbps, c->mbps_rev);
	return true;
}

#define HIST 65536u

/* One pass of the radix selection: the 16-bit digit (top, or bottom
 * among the figures whose top is hi) that holds the k-th figure; k
 * becomes its rank within that digit. */
static uint32_t digit(const struct rt_mesh_agg *g, uint8_t flag, int cls, bool low,
		      uint32_t hi, uint32_t *k, uint32_t *hist)
{
	uint64_t n = rt_mesh_cells(g);
	uint32_t v, d = 0;

	memset(hist, 0, HIST * sizeof(*hist));
	for (uint64_t i = 0; i < n; i++)
		if (figure(rt_mesh_cell_at(g, i), flag, cls, &v) && (!low || v >> 16 == hi))
			hist[low ? v & 0xffffu : v >> 16]++;
	while (*k >= hist[d])
		*k -= hist[d++];
	return d;
}

/* The k-th smallest figure (from 0; k below their count): two passes
 * over the stored cells, no copy of the figures. */
static uint32_t nth_figure(const struct rt_mesh_agg *g, uint8_t flag, int cls, uint32_t k,
			   uint32_t *hist)
{
	uint32_t hi = digit(g, flag, cls, false, 0, &k, hist);

	return hi << 16 | digit(g, flag, cls, true, hi, &k, hist);
}

double rt_mesh_figure(uint8_t flag, uint32_t v)
{
	return flag == RT_MESH_HAS_RTT ? (double)rt_mesh_cell_ns(v) / 1e3 : (double)v / 1e3;
}

double rt_mesh_median(const struct rt_mesh_agg *g, uint8_t flag, int cls)
{
	uint64_t n = rt_mesh_cells(g);
	uint32_t k = 0, v, *hist;
	double m;

	for (uint64_t i = 0; i < n; i++)
		k += figure(rt_mesh_cell_at(g, i), flag, cls, &v);
	if (!k)
		return 0;
	hist = rt_xmalloc(HIST * sizeof(*hist));
	m = rt_mesh_figure(flag, nth_figure(g, flag, cls, k / 2, hist));
	if (k % 2 == 0)
		m = (rt_mesh_figure(flag, nth_figure(g, flag, cls, k / 2 - 1, hist)) + m) / 2;
	free(hist);
	return m;
}

uint32_t rt_mesh_unjudged(const struct rt_mesh_agg *g, const struct rt_mesh_limits *lim,
			  int cls)
{
	uint32_t rtt = 0, bw = 0, min = RT_MAX(lim->min_links, 1u), out = 0, v;
	uint64_t n = rt_mesh_cells(g);

	for (uint64_t i = 0; i < n; i++) {
		rtt += figure(rt_mesh_cell_at(g, i), RT_MESH_HAS_RTT, cls, &v);
		bw += figure(rt_mesh_cell_at(g, i), RT_MESH_HAS_BW, cls, &v);
	}
	if (lim->rtt_factor > 0 && rtt && rtt < min)
		out |= RT_LINK_RTT_REL;
	if (lim->bw_fraction > 0 && bw && bw < min)
		out |= RT_LINK_BW_REL;
	return out;
}
