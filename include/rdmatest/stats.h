/* Measurements and how they are shown: latency samples and their summary,
 * per-step timings of the CM tools, and the number formatting of
 * upstream's common.c, which rstream's table reproduces byte for byte. */
#ifndef RDMATEST_STATS_H
#define RDMATEST_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rt_json;

/* A growing list of durations in ns. A zeroed struct is an empty list. */
struct rt_samples {
	uint64_t *v;
	size_t n, cap;
};

void rt_samples_add(struct rt_samples *s, uint64_t ns);
void rt_samples_free(struct rt_samples *s);

/*
 * Percentiles are nearest-rank: the p-th percentile of n sorted samples
 * is the sample at rank ceil(p/100 * n), counting from 1. It is always a
 * measured value, never interpolated; the median of an even count is the
 * lower of the two middle samples. For 1..1000: median 500, p99 990,
 * p99.9 999. An empty list summarizes to all zeros.
 */
struct rt_summary {
	size_t count;
	uint64_t min, max, median, p99, p999;
	double mean;
};

/* Sorts s->v in place. */
void rt_samples_summarize(struct rt_samples *s, struct rt_summary *out);

/* Writes {"count","min","median","p99","p99_9","max","mean"} as the next
 * value (call it after rt_json_key inside an object). Every value but the
 * count is divided by divisor, e.g. 1000 for ns to µs; with divisor 1 the
 * order statistics stay exact integers. A divisor <= 0 counts as 1. */
void rt_summary_json(struct rt_json *j, const struct rt_summary *s,
		     double divisor);

/* Timings of the named steps of a connection (resolve-addr, connect, ...),
 * one sample list per step. names must outlive the struct: it is kept,
 * not copied, as it is normally a static table. */
struct rt_steps {
	const char *const *names;
	size_t n;
	struct rt_samples *samples;
};

void rt_steps_init(struct rt_steps *st, const char *const *names, size_t n);
/* A step index out of range is ignored. */
void rt_steps_add(struct rt_steps *st, size_t step, uint64_t ns);
void rt_steps_free(struct rt_steps *st);

/* A table in µs with two decimals, one row per step, "-" for steps with
 * no samples:
 *   step            count     min_us  median_us     p99_us     max_us
 *   resolve-addr       10       1.20       1.50       3.00       3.00
 * Both functions sort the samples in place. */
void rt_steps_print(FILE *f, struct rt_steps *st);
/* An object with one rt_summary_json (in µs) per step name, in order. */
void rt_steps_json(struct rt_json *j, struct rt_steps *st);

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
