/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The judged run's outputs, for a run and for `mesh report` alike: the
 * heatmap, the Prometheus file, the summary, the JSON document and the
 * verdict as the run's outcome (exit 0 READY, 1 NOT READY with the counts
 * that made it so). */
#ifndef RDMATEST_MESHVERDICT_H
#define RDMATEST_MESHVERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "mesh/meshagg.h"
#include "rdmatest/run.h"

/* The aggregate outlives the applet's main: the document is written by
 * rt_run_finish, after the outcome that it starts with, straight to its
 * output (run.h's stream), and only then is the aggregate freed. */
struct rt_mesh_doc {
	struct rt_mesh_agg g;
	struct rt_mesh_limits lim;
	bool judged; /* concluded: the document has a "mesh" member */
};

/* A new aggregate judged by lim, the run's to release (run->stream). */
struct rt_mesh_doc *rt_mesh_doc_new(struct rt_run *run, const struct rt_mesh_limits *lim);

/* Writes the heatmap (heat) and the Prometheus file (prom_path) when
 * named, the summary unless --quiet, marks the document judged; returns 0
 * when READY, else -1 with run->err saying NOT READY and why. */
int rt_mesh_conclude(struct rt_run *run, struct rt_mesh_doc *d, const char *heat,
		     const char *prom_path);

/* `mesh report`: judges the --lines output of every rank, read from
 * files[0..nfiles) (none, or "-": standard input) as a run's, then
 * concludes as above; a file that cannot be read is exit 2, one that is
 * no run's output exit 1, each naming the file. */
int rt_mesh_report(struct rt_run *run, const char *const *files, size_t nfiles,
		   const struct rt_mesh_limits *lim, const char *heat, const char *prom_path);

struct rt_mesh_plan;
/* A rank other than 0: rank 0's verdict as its outcome, in its JSON and
 * its exit status (0 READY, else 1 with the verdict's counts). */
int rt_mesh_follower_verdict(struct rt_run *run, const struct rt_mesh_plan *p,
			     const struct rt_mesh_verdict *v);

#endif
