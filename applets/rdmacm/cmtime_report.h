/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's report: upstream's tables, v44's and v56's, to the human
 * output, and the JSON results (per-step totals and percentiles). */
#ifndef RDMATEST_CMTIME_REPORT_H
#define RDMATEST_CMTIME_REPORT_H

#include "rdmacm/cmtime_conn.h"

/* v44's table over n connections (a server shows create qp and connect). */
void rt_cmt_print_v44(const struct rt_cmt_ctx *x, unsigned n);
/* v56's table of the run just ended, n connections. */
void rt_cmt_print_v56(const struct rt_cmt_ctx *x, unsigned n);
/* The JSON results: role, protocol, counts, rates and every step. */
void rt_cmt_report_json(struct rt_cmt_ctx *x, unsigned n);

#endif
