/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The judged run's outputs: meshverdict.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh/meshblame.h"
#include "mesh/meshdoc.h"
#include "mesh/meshheat.h"
#include "mesh/meshinv.h"
#include "mesh/meshnode.h"
#include "mesh/meshparse.h"
#include "mesh/meshprom.h"
#include "mesh/meshtext.h"
#include "mesh/meshverdict.h"
#include "rdmatest/prom.h"
#include "rdmatest/util.h"

static int heatmap(struct rt_run *run, const char *path, const struct rt_mesh_agg *g)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return rt_fail_errno(&run->err, RT_EXIT_USAGE, errno, "--heatmap %s", path);
	rc = rt_mesh_heatmap(f, g, &run->err);
	if (fclose(f) && !rc)
		rc = rt_fail_errno(&run->err, RT_EXIT_FAIL, errno, "--heatmap %s", path);
	return rc;
}

/* The verdict for node-exporter (meshprom.h). */
static int prom(struct rt_run *run, const char *path, const struct rt_mesh_agg *g)
{
	struct rt_prom p;
	int rc;

	rt_prom_init(&p);
	rt_mesh_prom(&p, g, time(NULL));
	rc = rt_prom_write(&p, "--prom", path, &run->err);
	rt_prom_free(&p);
	return rc;
}

static void doc_write(void *ctx, struct rt_json *results, FILE *out)
{
	struct rt_mesh_doc *d = ctx;

	if (!d->judged)
		return;
	rt_json_key(results, "mesh");
	rt_mesh_document(results, &d->g, &d->lim, out);
}

static void doc_release(void *ctx)
{
	struct rt_mesh_doc *d = ctx;

	rt_mesh_agg_free(&d->g);
	free(d);
}

struct rt_mesh_doc *rt_mesh_doc_new(struct rt_run *run, const struct rt_mesh_limits *lim)
{
	struct rt_mesh_doc *d = rt_xcalloc(1, sizeof(*d));

	d->lim = *lim;
	run->stream = (struct rt_run_stream){doc_write, doc_release, d};
	return d;
}

int rt_mesh_conclude(struct rt_run *run, struct rt_mesh_doc *d, const char *heat,
		     const char *prom_path)
{
	const struct rt_mesh_agg *g = &d->g;

	if (heat && heatmap(run, heat, g))
		return -1;
	if (prom_path && prom(run, prom_path, g))
		return -1;
	if (!run->common.quiet)
		rt_mesh_summary(run->log.human, g, &d->lim);
	d->judged = true;
	if (g->ready)
		return 0;
	if (g->interrupted)
		return rt_fail(&run->err, RT_EXIT_FAIL, "NOT READY: interrupted");
	if (rt_mesh_inv_failed(g))
		return rt_fail(&run->err, RT_EXIT_FAIL, "NOT READY: %u bad, %u suspect, %u absent, "
			       "%u untested hosts, %u bad links, %u hosts differ from the expected "
			       "state, %u hosts' inventory differs from most hosts'", g->bad_nodes,
			       g->suspect_nodes, g->absent_nodes, g->untested_nodes, g->bad_links,
			       g->expect_bad, g->drift_hosts);
	if (g->bad_rails || g->rail_mismatch)
		return rt_fail(&run->err, RT_EXIT_FAIL, "NOT READY: %u bad, %u suspect, %u absent, "
			       "%u untested hosts, %u bad links, %u refused peers, %u bad rails, "
			       "%u hosts with another rail count", g->bad_nodes, g->suspect_nodes,
			       g->absent_nodes, g->untested_nodes, g->bad_links, g->refused,
			       g->bad_rails, g->rail_mismatch);
	return rt_fail(&run->err, RT_EXIT_FAIL, "NOT READY: %u bad, %u suspect, %u absent, "
		       "%u untested hosts, %u bad links, %u refused peers", g->bad_nodes,
		       g->suspect_nodes, g->absent_nodes, g->untested_nodes, g->bad_links,
		       g->refused);
}

int rt_mesh_follower_verdict(struct rt_run *run, const struct rt_mesh_plan *p,
			     const struct rt_mesh_verdict *v)
{
	struct rt_json *j = &run->results;

	rt_json_kv_uint(j, "rank", p->rank);
	rt_json_kv_uint(j, "size", p->size);
	rt_json_kv_string(j, "auth", rt_mesh_auth_mode_name(p->key->mode));
	rt_json_kv_string(j, "verdict", rt_mesh_verdict_word(v->ready, v->interrupted));
	if (v->ready) {
		rt_say(&run->log, "READY (rank 0's verdict%s)", rt_mesh_key_on(p->key) ? "" :
		       ", not authenticated: auth none");
		return 0;
	}
	if (v->interrupted)
		return rt_fail(&run->err, RT_EXIT_FAIL, "NOT READY (rank 0's verdict): "
			       "interrupted before every pair was tested");
	return rt_fail(&run->err, RT_EXIT_FAIL, "NOT READY (rank 0's verdict): %u bad "
		       "hosts, %u bad links, %u absent, %u untested hosts", v->bad_nodes,
		       v->bad_links, v->absent, v->untested);
}

/* One input of `mesh report`; its errors name it. */
static int report_file(struct rt_run *run, const char *path, struct rt_mesh_agg *g)
{
	bool stdin_ = !path || !strcmp(path, "-");
	FILE *f = stdin_ ? stdin : fopen(path, "r");
	struct rt_error e = { 0 };
	int rc;

	if (!f)
		return rt_fail_errno(&run->err, RT_EXIT_USAGE, errno, "%s", path);
	rc = rt_mesh_report_read(f, g, &e);
	if (!stdin_)
		fclose(f);
	if (rc)
		return rt_fail(&run->err, e.exit_code, "%s: %s", stdin_ ? "standard input" : path,
			       e.reason);
	return 0;
}

int rt_mesh_report(struct rt_run *run, const char *const *files, size_t nfiles,
		   const struct rt_mesh_limits *lim, const char *heat, const char *prom_path)
{
	struct rt_mesh_doc *d;
	int rc;

	rt_error_phase(&run->err, "report");
	d = rt_mesh_doc_new(run, lim);
	rc = rt_mesh_agg_init(&d->g, 0, 0, &run->err);
	for (size_t i = 0; !rc && (i == 0 || i < nfiles); i++)
		rc = report_file(run, nfiles ? files[i] : NULL, &d->g);
	if (!rc && !d->g.n)
		rc = rt_fail(&run->err, RT_EXIT_FAIL, "no hello line in %s",
			     nfiles ? "the input" : "standard input");
	if (!rc)
		rc = rt_mesh_judge(&d->g, lim, &run->err);
	/* rank 0's blame lines: its conclusion again, from the results here */
	d->g.blame.ran = d->g.blame.nre || d->g.blame.nends;
	if (!rc && d->g.blame.nends) {
		rt_mesh_blame_conclude(&d->g);
		rc = rt_mesh_judge(&d->g, lim, &run->err);
	}
	if (!rc)
		rc = rt_mesh_conclude(run, d, heat, prom_path);
	return rc ? -1 : 0;
}
