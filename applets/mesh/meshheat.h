/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The heatmap of a judged mesh run (meshagg.h) as a PNG (png.h): one
 * square per pair of ranks, rank i's row and rank j's column:
 *   green to yellow  measured, RTT median from at most the cluster's
 *                    median (green) to twice it or more (yellow)
 *   red              bad by a threshold (absolute or relative)
 *   black            the test failed or timed out
 *   grey             not tested (an absent end, or not in the schedule)
 *   white            the diagonal
 * Squares of 512/n pixels (at least 1), so up to RT_MESH_MATRIX_MAX ranks;
 * above that exit 2 (the document's pairs have every figure).
 * Rails, rail-major: one matrix per tested rail, side by side in rail
 * order with RT_HEAT_GAP white columns between them, each shaded against
 * its own rail's median (one rail, or none: one matrix, as before rails).
 * Crossed links (--cross-rails, rail i against rail j != i) are not
 * drawn: each matrix is one rail against itself (the document and the
 * summary have the crossed ones).
 * Memory: one row (png.h), whatever the rails. */
#ifndef RDMATEST_MESHHEAT_H
#define RDMATEST_MESHHEAT_H

#include <stdio.h>

#include "mesh/meshagg.h"

#define RT_HEAT_SIDE 512u
#define RT_HEAT_GAP 8u

int rt_mesh_heatmap(FILE *f, const struct rt_mesh_agg *g, struct rt_error *err);
/* The colour of the pair (i, j), 0xRRGGBB, as drawn: on its lowest rail
 * tested, or on `rail` (-1: the lowest). */
uint32_t rt_mesh_heat_colour(const struct rt_mesh_agg *g, uint32_t i, uint32_t j);
uint32_t rt_mesh_heat_colour_rail(const struct rt_mesh_agg *g, uint32_t i, uint32_t j,
				  int rail);

#endif
