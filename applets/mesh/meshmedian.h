/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The medians a class of links is judged against (meshjudge.c): by a
 * two-pass radix selection over the stored figures, a 256 KiB histogram
 * while it works. A class is a rail against itself, or two crossed rails
 * (meshcell.h's rt_mesh_class_of); -1 takes every class. */
#ifndef RDMATEST_MESHMEDIAN_H
#define RDMATEST_MESHMEDIAN_H

#include <stdint.h>

#include "mesh/meshagg.h"

/* The median of the measured links' figure `flag` (RT_MESH_HAS_RTT or
 * RT_MESH_HAS_BW) of class cls, the mean of the two middle ones for an
 * even count (RTT in us, bandwidth the slower direction in Gbit/s); 0
 * when none measured it. */
double rt_mesh_median(const struct rt_mesh_agg *g, uint8_t flag, int cls);
/* A stored figure of that kind in the median's unit. */
double rt_mesh_figure(uint8_t flag, uint32_t v);
/* The relative criteria (RT_LINK_RTT_REL, RT_LINK_BW_REL) that class cls
 * has too few measured links for (lim->min_links, at least 1): a median
 * of a few says nothing, so they are named not judged rather than
 * passed. */
uint32_t rt_mesh_unjudged(const struct rt_mesh_agg *g, const struct rt_mesh_limits *lim,
			  int cls);

#endif
