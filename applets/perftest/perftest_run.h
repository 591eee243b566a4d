/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An ib_* applet's run around its test's session (perftest_run.c): the
 * printed information block and address lines, the result rows in text,
 * --json and --out_json, the -w/-y and --limit_lat thresholds, and
 * rt_pt_main, which checks the options, opens the connection
 * (perftest_conn.h), runs the session and cleans up.
 *
 * Memory: the JSON rows grow with the number of rows (at most 23 with
 * -a; --run_infinitely keeps the last RT_PT_INF_ROWS in a ring instead,
 * perftest_runctl.h). */
#ifndef RDMATEST_PERFTEST_RUN_H
#define RDMATEST_PERFTEST_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/json.h"
#include "rdmatest/run.h"
#include "perftest/perftest_conn.h"
#include "perftest/perftest_opts.h"
#include "perftest/perftest_runctl.h"

/* The dashed line, test name and information block; then the local and
 * remote address lines of every QP (GID bytes in decimal, as perftest). */
void rt_pt_print_info(const struct rt_pt_conn *c);
void rt_pt_print_addrs(const struct rt_pt_conn *c);
#define RT_PT_LINE "---------------------------------------------------------------------------------------"

/* ---- results -------------------------------------------------------------- */

/* The rows of a run: printed (unless --output picks one figure), added
 * to --json's results.rows, and, with --out_json, the whole document
 * {"tool":"rdmatest","applet":...,"test_info":{...},"results":[rows]} rewritten after every row, so the
 * file is valid JSON with every row so far at any time. */
struct rt_pt_out {
	struct rt_run *run;
	const struct rt_pt_params *p;
	struct rt_json file;
	bool rows_open;     /* results.rows is the open container */
	/* --run_infinitely: the rows go to this ring (the last
	 * RT_PT_INF_ROWS), written out with each document instead */
	struct rt_pt_ring *ring;
	/* -W: the counters read after each row, printed and in its JSON */
	struct rt_pt_ctr *ctr;
};

/* A figure of a row: integer (decimals < 0) or with that many decimals
 * in the text form; JSON has the full value. */
struct rt_pt_field {
	const char *key;
	double v;
};

void rt_pt_out_init(struct rt_pt_out *o, const struct rt_pt_conn *c);
/* The dashed line and the column header (nothing with --output). */
void rt_pt_out_header(struct rt_pt_out *o, const char *header);
/* One row: `text` as perftest prints it, or with --output only `pick`'s
 * value ("%lf"); the fields for the JSON documents. A file that cannot
 * be written is exit 3. */
int rt_pt_out_row(struct rt_pt_out *o, const char *text, double pick,
		  const struct rt_pt_field *f, size_t n);
/* The closing dashed line. */
void rt_pt_out_end(struct rt_pt_out *o);
/* A member of --json's results after the rows (closes the rows array). */
void rt_pt_out_kv_string(struct rt_pt_out *o, const char *key, const char *v);
void rt_pt_out_free(struct rt_pt_out *o);
/* -w/-y: exit 1 naming the measured figure and the threshold. */
int rt_pt_check_limits(const struct rt_pt_params *p, double bw_avg,
		       double msg_rate, struct rt_error *err);
/* --limit_lat/--limit_lat_max: exit 1 naming the size, the measured
 * latency and the threshold (µs). */
int rt_pt_check_lat_limits(const struct rt_pt_params *p, uint64_t size,
			   double t_avg, double max, struct rt_error *err);

/* ---- the applet's main ------------------------------------------------------ */

/* A test's sequence and measurement after rt_pt_conn_open and the info
 * block. */
typedef int rt_pt_session_fn(struct rt_pt_conn *c, struct rt_pt_out *o);

/* -V, the parameters, the connection, the session, the cleanup. */
int rt_pt_main(struct rt_run *run, const struct rt_pt_cfg *cfg,
	       struct rt_pt_test t, rt_pt_session_fn *session);

/* RT_APPLET_REFUSING for an ib_* applet whose option table is n##_opts:
 * its main is rt_pt_main with the test and session (-h prints the
 * applet's help here, where the applet's descriptor is known; it exits
 * 1 after help and version, as perftest does). Optional descriptor
 * members follow, as in RT_APPLET. */
#define RT_PT_APPLET(n, verb, kind, session, summary_, synopsis_, description_, ...) \
	RT_APPLET_REFUSING(n, rt_pt_refused, summary_, synopsis_, description_, \
			   .long_prefixes = true, .info_exit = RT_EXIT_FAIL,   \
			   __VA_ARGS__);                                       \
	static int n##_main(struct rt_run *run, void *cfg)                     \
	{                                                                      \
		if (((const struct rt_pt_cfg *)cfg)->help) {                   \
			rt_applet_help(&applet_##n);                           \
			return rt_exit_silently(&run->err, applet_##n.info_exit); \
		}                                                              \
		return rt_pt_main(run, cfg, (struct rt_pt_test){ (verb), (kind) }, \
				  (session));                                  \
	}

#endif
