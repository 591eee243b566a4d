/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A judged mesh run (meshagg.h) as the one JSON document of the run:
 * what rank 0 and `mesh report` print. */
#ifndef RDMATEST_MESHDOC_H
#define RDMATEST_MESHDOC_H

#include <stdio.h>

#include "rdmatest/json.h"
#include "mesh/meshagg.h"

/* Above this many ranks the document leaves out the dense matrix (n^2
 * cells, each looked up as it is written); "pairs" holds every figure
 * either way. */
#define RT_MESH_MATRIX_MAX 1024u

/* The document of a judged run (meshagg.h): thresholds, medians, nodes,
 * pairs, the matrix, bad nodes and links, outliers, absent nodes and the
 * verdict, as a value in j. With out, j's text is written to out and
 * emptied as it grows (rt_json_flush, every 64 KiB, its open containers
 * kept), so that the pairs, the matrix and the lists go out as they are
 * walked and the document costs O(1) memory whatever the pairs (the
 * caller writes what is left once j is finished); without, it is held
 * whole in j (about 150 to 190 B a pair). */
void rt_mesh_document(struct rt_json *j, const struct rt_mesh_agg *g,
		      const struct rt_mesh_limits *lim, FILE *out);

#endif
