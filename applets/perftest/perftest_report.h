/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* perftest 4.5's result arithmetic and table rows (perftest's
 * perftest_parameters.c, print_report_bw and print_report_lat), so that scripts that scrape perftest's text read the same figures from
 * rdmatest, and the figures rdmatest adds (the true maximum and the
 * p50..p99.99 percentiles).
 *
 * Time is measured in ns on CLOCK_MONOTONIC instead of CPU cycles. Memory:
 * a latency record is one fixed histogram (stats.h), whatever -n is;
 * perftest keeps every sample, rdmatest keeps the two largest exactly and
 * the others within 1/256. */
#ifndef RDMATEST_PERFTEST_REPORT_H
#define RDMATEST_PERFTEST_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perftest/perftest_wire.h"
#include "rdmatest/stats.h"

/* Bytes per second in one unit of the BW columns: perftest's "MB" is
 * 2^20 bytes; with --report_gbits a unit is 10^9 bit. */
double rt_pt_bw_unit(bool gbits);

/* The figures of a BW run: msgs messages of size bytes in elapsed_ns
 * (first post to last completion); best_ns the shortest per-message time
 * of any window, 0 when the peak is not measured (-N, -D). */
void rt_pt_bw_figures(struct rt_pt_bw_report *r, uint64_t size, uint64_t msgs,
		      uint64_t elapsed_ns, uint64_t best_ns, bool gbits);

/* The smallest per-message time (ns) over perftest's windows: from the
 * post of message i (every post_list-th) to the completion stamped at
 * index j (every signalled one, tcomp[j] != 0): (tcomp[j] - tpost[i]) /
 * (j - i + 1). 0 when no window exists. */
uint64_t rt_pt_peak_ns(const uint64_t *tpost, const uint64_t *tcomp, uint64_t n,
		       unsigned post_list, unsigned cq_mod);

/* -b: the peer's figures b added to a (the row prints their sum). */
void rt_pt_bw_sum(struct rt_pt_bw_report *a, const struct rt_pt_bw_report *b);

/* The column header and a row, as perftest prints them (no newline). With
 * --report_gbits and an average below 0.1 the row has 6 decimals. */
const char *rt_pt_bw_header(bool gbits);
void rt_pt_bw_row(char *buf, size_t len, const struct rt_pt_bw_report *r,
		  bool gbits);

/* Latency samples: one per iteration after the first (the time between
 * consecutive posts, a full round trip), in ns. A zeroed struct is empty. */
struct rt_pt_lat {
	struct rt_hist hist;
	uint64_t top[2];      /* the largest and the second largest */
	double sum, sumsq;    /* ns, for the mean and deviation */
};

void rt_pt_lat_add(struct rt_pt_lat *l, uint64_t ns);

/* In µs, one way (divided by the round-trip factor: 2 for send and write,
 * 1 for read and atomic). perftest drops the two largest samples (n =
 * samples - 2) for everything but t_min: t_max is the sample at sorted
 * index n, the second largest; t_typical the median of the n kept;
 * p99 and p99.9 those at index ceil(0.99 n) and ceil(0.999 n). t_stdev
 * is perftest's: the root of the mean of (t_avg - sample)^2 with every
 * difference truncated to whole µs first (perftest stores it in an int),
 * each kept sample taken as its histogram bucket's middle. rdmatest adds
 * the true deviation of the kept samples, every sample's true maximum and
 * nearest-rank percentiles. */
struct rt_pt_lat_figures {
	uint64_t samples;
	double t_min, t_max, t_typical, t_avg, t_stdev, p99, p999;
	double stdev, max, p50, p90, p99_all, p999_all, p9999_all;
};

/* False when there are fewer than 3 samples (-n below 4): perftest's
 * figures need two samples to drop and one to keep. */
bool rt_pt_lat_figures(const struct rt_pt_lat *l, unsigned rtt_factor,
		       struct rt_pt_lat_figures *f);

const char *rt_pt_lat_header(void);
/* iters is -n as perftest prints it. */
void rt_pt_lat_row(char *buf, size_t len, uint64_t size, uint64_t iters,
		   const struct rt_pt_lat_figures *f);

#endif
