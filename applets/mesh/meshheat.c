/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mesh's heatmap (meshheat.h). */
#include "mesh/meshheat.h"
#include "mesh/meshjson.h"
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
	struct rt_mesh_link l;
	double t;

	if (i == j)
		return WHITE;
	if (!rt_mesh_link_of(g, i, j, &l) || l.why & RT_LINK_ABSENT)
		return GREY;
	if (l.why & RT_LINK_FAILED)
		return BLACK;
	if (l.why)
		return RED;
	if (!(l.r.flags & RT_MESH_HAS_RTT) || g->median_rtt_us <= 0)
		return GREEN;
	t = (double)l.r.rtt_p50_ns / 1e3 / g->median_rtt_us - 1.0;
	return mix(GREEN, YELLOW, t < 0 ? 0 : t > 1 ? 1 : t);
}

struct heat {
	const struct rt_mesh_agg *g;
	uint32_t cell;
};

static uint32_t pixel(const void *ctx, uint32_t x, uint32_t y)
{
	const struct heat *h = ctx;

	return rt_mesh_heat_colour(h->g, y / h->cell, x / h->cell);
}

int rt_mesh_heatmap(FILE *f, const struct rt_mesh_agg *g, struct rt_error *err)
{
	struct heat h = { .g = g, .cell = g->n && g->n < RT_HEAT_SIDE ? RT_HEAT_SIDE / g->n : 1 };

	if (!g->n || g->n > RT_MESH_MATRIX_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "heatmap: %u ranks, it draws 1 to %u",
			       g->n, RT_MESH_MATRIX_MAX);
	return rt_png_write(f, g->n * h.cell, g->n * h.cell, pixel, &h, err);
}
