/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mesh's heatmap (meshheat.h). */
#include "mesh/meshheat.h"
#include "mesh/meshdoc.h"
#include "mesh/png.h"

#define WHITE 0xffffffu
#define GREY 0xc8c8c8u
#define BLACK 0x000000u
#define RED 0xd02020u
#define GREEN 0x20a040u
#define YELLOW 0xe8c800u

static uint32_t mix(uint32_t from, uint32_t to, double t)
{
	uint32_t out = 0;

	for (int s = 0; s <= 16; s += 8) {
		double c0 = (double)((from >> s) & 0xffu), c1 = (double)((to >> s) & 0xffu);

		out |= (uint32_t)(c0 + (c1 - c0) * t + 0.5) << s;
	}
	return out;
}

uint32_t rt_mesh_heat_colour(const struct rt_mesh_agg *g, uint32_t i, uint32_t j)
{
	return rt_mesh_heat_colour_rail(g, i, j, -1);
}

uint32_t rt_mesh_heat_colour_rail(const struct rt_mesh_agg *g, uint32_t i, uint32_t j,
				  int rail)
{
	struct rt_mesh_link l;
	double t, median;

	if (i == j)
		return WHITE;
	if (!rt_mesh_link_of_rail(g, i, j, rail, &l) || l.why & RT_LINK_ABSENT)
		return GREY;
	if (l.why & RT_LINK_FAILED)
		return BLACK;
	if (l.why)
		return RED;
	median = rt_mesh_class_stat(g, l.r.rail, l.r.rail_b)->median_rtt_us;
	if (!(l.r.flags & RT_MESH_HAS_RTT) || median <= 0)
		return GREEN;
	t = (double)l.r.rtt_p50_ns / 1e3 / median - 1.0;
	return mix(GREEN, YELLOW, t < 0 ? 0 : t > 1 ? 1 : t);
}

struct heat {
	const struct rt_mesh_agg *g;
	uint32_t cell, side;       /* a square's pixels, a matrix's */
	uint8_t rails[RT_MESH_RAILS_MAX]; /* the tested rails, one matrix each */
	uint32_t nrails;
};

static uint32_t pixel(const void *ctx, uint32_t x, uint32_t y)
{
	const struct heat *h = ctx;
	uint32_t block = x / (h->side + RT_HEAT_GAP), in = x % (h->side + RT_HEAT_GAP);

	if (in >= h->side)
		return WHITE;
	return rt_mesh_heat_colour_rail(h->g, y / h->cell, in / h->cell,
					h->nrails ? h->rails[block] : -1);
}

int rt_mesh_heatmap(FILE *f, const struct rt_mesh_agg *g, struct rt_error *err)
{
	struct heat h = { .g = g, .cell = g->n && g->n < RT_HEAT_SIDE ? RT_HEAT_SIDE / g->n : 1 };
	uint32_t blocks;

	if (!g->n || g->n > RT_MESH_MATRIX_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "heatmap: %u ranks, it draws 1 to %u",
			       g->n, RT_MESH_MATRIX_MAX);
	h.side = g->n * h.cell;
	for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
		if (g->rail_mask >> r & 1u)
			h.rails[h.nrails++] = (uint8_t)r;
	blocks = h.nrails > 1 ? h.nrails : 1;
	return rt_png_write(f, blocks * h.side + (blocks - 1) * RT_HEAT_GAP, h.side, pixel, &h,
			    err);
}
