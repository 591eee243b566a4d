/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh run's results as text: the one JSON document of the run, and
 * the per-rank JSON lines from which `mesh report` builds it when each
 * rank prints its own results and the launcher collects them (srun
 * --output, pdsh, kubectl logs).
 *   {"mesh":"hello","rank":R,"size":N,"host":"H"}
 *   {"mesh":"rail","rank":R,"rail":0,"dev":"mlx5_0","port":1,
 *    "gid_index":3,"addr":"10.0.0.7","link_layer":"Ethernet",
 *    "state":"ACTIVE","lanes":4,"mtu":4096,"speed_mbps":400000,
 *    "payload_mbps":392149}   (one a rail, after its rank's hello)
 *   {"mesh":"result","a":A,"b":B,"rail":0,"status":"ok","connect_ns":C,
 *    "rtt_p50_ns":P,"rtt_p99_ns":Q,"mbps":M,"mbps_rev":R,"round":N}
 *   (figures only when measured; mbps a to b and mbps_rev b to a, both
 *   or neither; "rail" optional, 0 without it; "rail_b" only where b's
 *   rail is not a's; round only above 0: a pair's result of the latest
 *   round wins, so a re-test replaces the first pass's in any order)
 *   rank 0's blame pass's evidence (meshblame.h):
 *   {"mesh":"flaky","a":A,"b":B,"status":...,"why":W} a link bad in the
 *    first pass (its figures as a result's, W its RT_LINK_* reasons)
 *    and good on re-test
 *   {"mesh":"blame","rank":R,"p1":X,"p2":Y} host R was paired with the
 *    good hosts X and Y (p2, p1 absent with fewer good hosts)
 * The reader is strict about lines that hold a '{' (every key known and
 * given once, integers only, values checked as meshwire.h checks the
 * binary messages) and skips any text before the '{' (srun --label's
 * "3: ", pdsh's "host: ") and lines without one. Bounds: a line is at
 * most RT_MESH_LINE_MAX bytes, an input at most RT_MESH_LINES_MAX lines;
 * memory is the aggregator's (meshagg.h). */
#ifndef RDMATEST_MESHJSON_H
#define RDMATEST_MESHJSON_H

#include <stdio.h>

#include "rdmatest/error.h"
#include "rdmatest/json.h"
#include "mesh/meshagg.h"

#define RT_MESH_LINE_MAX 512u
#define RT_MESH_LINES_MAX (8u << 20)

/* Above this many ranks the document leaves out the dense matrix (n^2
 * cells, each looked up as it is written); "pairs" holds every figure
 * either way. */
#define RT_MESH_MATRIX_MAX 1024u

/* One line (no newline) for a hello, one of its rails or a result. */
void rt_mesh_line_hello(struct rt_json *j, const struct rt_mesh_hello *h);
void rt_mesh_line_rail(struct rt_json *j, uint32_t rank, const struct rt_mesh_rail *r);
/* A rail's keys, into an open object. */
void rt_mesh_rail_fields(struct rt_json *j, const struct rt_mesh_rail *r);
void rt_mesh_line_result(struct rt_json *j, const struct rt_mesh_result *r);
/* Rank 0's evidence lines of the blame pass. */
void rt_mesh_line_flaky(struct rt_json *j, const struct rt_mesh_link *first);
void rt_mesh_line_blame(struct rt_json *j, const struct rt_mesh_blame_end *e);
/* Parses one line into m (a hello or a result; a rail line is a
 * RT_MESH_LINE_RAIL: its rank in u.hello.rank, the rail in
 * u.hello.rails[0]). 1: parsed, 0: no '{' on the line (skipped), -1:
 * malformed (exit 1, message in err). */
#define RT_MESH_LINE_RAIL 0x80
int rt_mesh_line_parse(const char *line, size_t len, struct rt_meshmsg *m,
		       struct rt_error *err);
/* Every line of f into g; errors name the line number. */
int rt_mesh_report_read(FILE *f, struct rt_mesh_agg *g, struct rt_error *err);

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
