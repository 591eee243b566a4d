/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The human summary of a judged mesh run (meshagg.h): the medians, then
 * the bad, suspect and absent nodes and the bad links not explained by a
 * bad node, each with its hosts and reasons, and last one line that
 * starts with READY or NOT READY. At most RT_MESH_TEXT_LIST lines per
 * kind, then how many more: the summary of 65536 broken hosts still fits
 * a terminal (the JSON document has them all). */
#ifndef RDMATEST_MESHTEXT_H
#define RDMATEST_MESHTEXT_H

#include <stdio.h>

#include "mesh/meshagg.h"

#define RT_MESH_TEXT_LIST 20u
/* strangers named (meshagg.h), the rest counted: anyone can send them,
 * and a flood must not bury the verdict */
#define RT_MESH_TEXT_STRANGERS 4u

void rt_mesh_summary(FILE *out, const struct rt_mesh_agg *g,
		     const struct rt_mesh_limits *lim);

#endif
