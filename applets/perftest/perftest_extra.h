/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The last perftest options of issue #40 (perftest_opts.h has the rest):
 * -X (--vector), the completion vector of the test's CQs.
 *
 * -X N: perftest 25.01 takes it in every test but the write tests (its
 * parser: "Events feature not available on WRITE verb"), only with -e
 * ("Events must be enabled to select a completion vector"), N in 0..2048;
 * both are exit 2 here, naming the option. Every CQ of the test (send and
 * receive) is made on vector N; a device with N or fewer completion
 * vectors (ibv_context's num_comp_vectors) exits 3 naming both, before
 * anything is made (perftest checks N > num_comp_vectors, one too late,
 * and then ibv_create_cq fails).
 *
 * -C (--report-cycles): the latency tests only (perftest: "Available only
 * on Latency tests"; the bandwidth tests refuse it by name). perftest
 * reports its figures in CPU cycles instead of µs: the table's and the
 * JSON's figures and -H/-U's samples ("#, cycles"), while its table header
 * still says [usec]; so does this. rdmatest times with the monotonic clock,
 * so a figure in cycles is its µs times the CPU's MHz, read from
 * /proc/cpuinfo's first "cpu MHz" line (what perftest compares its own
 * measurement with); a host without one exits 3 naming it. rdmatest's own
 * line after the table stays in usec, and --limit_lat/--limit_lat_max stay
 * in µs.
 *
 * Memory: nothing beyond the parameters. */
#ifndef RDMATEST_PERFTEST_EXTRA_H
#define RDMATEST_PERFTEST_EXTRA_H

#include <stdbool.h>
#include <stddef.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

#define RT_PT_MAX_VECTOR 2048 /* perftest's MAX_EQ_NUM */

/* The rows' config (struct rt_pt_cfg's `extra`). */
struct rt_pt_extra_cfg {
	long long vector;
	int cycles;
};

/* The checked parameters (struct rt_pt_params's `extra`). */
struct rt_pt_extra {
	int vector; /* -X, -1: not given (vector 0) */
	double cycles_per_us; /* -C: the CPU's MHz; 0: report in µs */
};

/* -X: every test but the write tests (which refuse it by name). */
#define RT_PT_OPT_VECTOR \
	{ 'X', "vector", RT_OPT_INT, RT_L(extra.vector), 0, RT_PT_MAX_VECTOR, NULL, \
	  "N", "-e only (exit 2 without, as perftest): make the CQs on " \
	  "completion vector N; a device with no vector N exits 3 naming its " \
	  "num_comp_vectors", NULL }

/* -C: the latency tests. */
#define RT_PT_OPT_CYCLES \
	{ 'C', "report-cycles", RT_OPT_FLAG, RT_I(extra.cycles), 0, 0, NULL, NULL, \
	  "report the table's figures (and the JSON's, and -H/-U's samples) in " \
	  "CPU cycles, as perftest: µs times /proc/cpuinfo's cpu MHz (none " \
	  "there: exit 3); the header still says usec, as perftest's", NULL }

struct rt_pt_lat_figures;
/* -C: every figure of f (in µs) in cycles; nothing without -C. */
void rt_pt_cycles_scale(const struct rt_pt_extra *x, struct rt_pt_lat_figures *f);
/* The first "cpu MHz" of a /proc/cpuinfo text; 0 when there is none. */
double rt_pt_cpuinfo_mhz(const char *text);

struct rt_pt_params;
struct rt_pt_cfg;
/* -X's and -C's rules (exit 2 naming it; -C without a cpu MHz: 3); called by rt_pt_params_init. */
int rt_pt_extra_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      const struct rt_opt_table *tab, struct rt_error *err);
/* The completion vector the CQs take on ctx: 0 without -X; exit 3 naming
 * num_comp_vectors when ctx has no vector -X. */
int rt_pt_comp_vector(const struct rt_pt_params *p, struct ibv_context *ctx,
		      struct rt_error *err);

#endif
