/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Measurements and how they are shown: latency histograms and their summary,
 * per-step timings of the CM tools, and the number formatting of
 * upstream's common.c, which rstream's table reproduces byte for byte. */
#ifndef RDMATEST_STATS_H
#define RDMATEST_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rt_json;

/*
 * Durations in ns, in fixed memory: a log-linear histogram (HDR style).
 * Values below 2^(RT_HIST_SUB_BITS + 1) = 256 each have their own bucket;
 * above, every power-of-two range [2^e, 2^(e+1)) is cut into
 * 2^RT_HIST_SUB_BITS = 128 equal buckets of width 2^(e-7). The whole
 * uint64_t range takes RT_HIST_BUCKETS = 7424 counters, 58 KiB, whatever the
 * number of samples: a run that never ends never grows. Count, min, max
 * and the sum (hence the mean) are kept exactly. A zeroed struct is an
 * empty histogram; there is nothing to free.
 */
#define RT_HIST_SUB_BITS 7
#define RT_HIST_SUB (1u << RT_HIST_SUB_BITS)
#define RT_HIST_BUCKETS ((65 - RT_HIST_SUB_BITS) * RT_HIST_SUB)

struct rt_hist {
	uint64_t count, min, max;
	uint64_t sum_hi, sum_lo; /* 128-bit sum: 2^64 samples of any value */
	uint64_t bucket[RT_HIST_BUCKETS];
};

void rt_hist_add(struct rt_hist *h, uint64_t ns);
/* Adds from's samples to into's: the histogram of both sets of samples
 * (several connections' round trips as one). */
void rt_hist_merge(struct rt_hist *into, const struct rt_hist *from);

/*
 * Percentiles are nearest-rank on the histogram: the p-th percentile of
 * n samples is the sample at rank ceil(p/100 * n), counting from 1, as
 * with a sorted list, except that it is reported as the middle of that
 * sample's bucket, clamped to [min, max]. So it is exact below 256 ns and
 * for ranks 1 and n (min and max), and otherwise off by at most half a
 * bucket: a relative error of at most 2^-(RT_HIST_SUB_BITS + 1) = 1/256
 * (0.39 %) of the true order statistic. The median of an even count is
 * the lower of the two middle samples. For 1..1000 the median is 500
 * (bucket [500, 501], reported 500), p99 is 990 (bucket [988, 991],
 * reported 989), p99.9 is 999 (bucket [996, 999], reported 997). An empty
 * histogram summarizes to all zeros.
 */
struct rt_summary {
	size_t count;
	uint64_t min, max, median, p99, p999;
	double mean;
};

void rt_hist_summarize(const struct rt_hist *h, struct rt_summary *out);
/* One percentile, given in per mille (500: median), as rt_summary's. */
uint64_t rt_hist_permille(const struct rt_hist *h, unsigned permille);
/* The sample at a rank (1 = the smallest), the same way; ranks past the
 * count give the maximum. */
uint64_t rt_hist_rank(const struct rt_hist *h, uint64_t rank);
/* The bucket of a value, and the range [lo, hi] that bucket holds. */
size_t rt_hist_bucket(uint64_t ns);
void rt_hist_bucket_range(size_t bucket, uint64_t *lo, uint64_t *hi);

/* Writes {"count","min","median","p99","p99_9","max","mean"} as the next
 * value (call it after rt_json_key inside an object). Every value but the
 * count is divided by divisor, e.g. 1000 for ns to µs; with divisor 1 the
 * order statistics stay exact integers. A divisor <= 0 counts as 1. */
void rt_summary_json(struct rt_json *j, const struct rt_summary *s,
		     double divisor);

/* Timings of the named steps of a connection (resolve-addr, connect, ...),
 * one histogram per step. names must outlive the struct: it is kept,
 * not copied, as it is normally a static table. */
struct rt_steps {
	const char *const *names;
	size_t n;
	struct rt_hist *hist;
};

void rt_steps_init(struct rt_steps *st, const char *const *names, size_t n);
/* A step index out of range is ignored. */
void rt_steps_add(struct rt_steps *st, size_t step, uint64_t ns);
void rt_steps_free(struct rt_steps *st);

/* A table in µs with two decimals, one row per step, "-" for steps with
 * no samples:
 *   step            count     min_us  median_us     p99_us     max_us
 *   resolve-addr       10       1.20       1.50       3.00       3.00 */
void rt_steps_print(FILE *f, const struct rt_steps *st);
/* An object with one rt_summary_json (in µs) per step name, in order. */
void rt_steps_json(struct rt_json *j, const struct rt_steps *st);

/* upstream size_str: binary units g/m/k with the whole part truncated,
 * plus one truncated decimal when the whole part is below 10 and that
 * decimal is not 0: 64, 1.5k, 1500 -> "1.4k", 4k, 12m, 10239 -> "9.9k",
 * 10240 -> "10k". */
void rt_size_str(char *buf, size_t len, uint64_t n);
/* upstream cnt_str: decimal units b/m/k, truncated, never a decimal:
 * 999, 1500 -> "1k", 100000 -> "100k", 1000000 -> "1m". */
void rt_cnt_str(char *buf, size_t len, uint64_t n);
/* upstream size_to_count: the transfer count rstream uses for a size:
 * 100000 below 1 KiB, 10000 from 1 KiB, 1000 from 64 KiB, 100 from 1 MiB. */
uint64_t rt_size_to_count(uint64_t size);

#endif
