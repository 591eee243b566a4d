/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The per-rank JSON lines (meshline.h), read for `mesh report`.
 * The reader is strict about lines that hold a '{' (every key known and
 * given once, integers only, values checked as meshwire.h checks the
 * binary messages) and skips any text before the '{' (srun --label's
 * "3: ", pdsh's "host: ") and lines without one. Bounds: a line is at
 * most RT_MESH_LINE_MAX bytes, an input at most RT_MESH_LINES_MAX lines;
 * memory is the aggregator's (meshagg.h). */
#ifndef RDMATEST_MESHPARSE_H
#define RDMATEST_MESHPARSE_H

#include <stdio.h>

#include "rdmatest/error.h"
#include "mesh/meshline.h"

#define RT_MESH_LINES_MAX (8u << 20)

/* Parses one line into m (a hello or a result; a rail line is a
 * RT_MESH_LINE_RAIL: its rank in u.hello.rank, the rail in
 * u.hello.rails[0]). 1: parsed, 0: no '{' on the line (skipped), -1:
 * malformed (exit 1, message in err). */
#define RT_MESH_LINE_RAIL 0x80
int rt_mesh_line_parse(const char *line, size_t len, struct rt_meshmsg *m,
		       struct rt_error *err);
/* Every line of f into g; errors name the line number. */
int rt_mesh_report_read(FILE *f, struct rt_mesh_agg *g, struct rt_error *err);

#endif
