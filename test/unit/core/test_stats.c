/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/json.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"

static struct rt_summary summarize(const uint64_t *v, size_t n)
{
	static struct rt_hist h; /* 58 KiB: kept off the test's stack */
	struct rt_summary out;

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < n; i++)
		rt_hist_add(&h, v[i]);
	rt_hist_summarize(&h, &out);
	return out;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The exact nearest-rank percentile of sorted v[0..n). */
static uint64_t exact_permille(const uint64_t *v, size_t n, unsigned pm)
{
	uint64_t rank = ((uint64_t)n * pm + 999) / 1000;

	return v[rank ? rank - 1 : 0];
}

/* The documented bound: |got - want| <= want / 256. */
static void assert_within_bound(uint64_t got, uint64_t want)
{
	uint64_t d = got > want ? got - want : want - got;

	if (d > want / 256) {
		fprintf(stderr, "got %llu, exact %llu\n", (unsigned long long)got,
			(unsigned long long)want);
		fail();
	}
}

/* Every per-mille percentile of the histogram against the exact one of
 * the same samples; min, max and count exactly. */
static void check_against_exact(uint64_t *v, size_t n)
{
	static struct rt_hist h;
	struct rt_summary m;

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < n; i++)
		rt_hist_add(&h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	rt_hist_summarize(&h, &m);
	assert_int_equal(m.count, n);
	assert_true(m.min == v[0]);
	assert_true(m.max == v[n - 1]);
	for (unsigned pm = 0; pm <= 1000; pm++)
		assert_within_bound(rt_hist_permille(&h, pm), exact_permille(v, n, pm));
	assert_within_bound(m.median, exact_permille(v, n, 500));
	assert_within_bound(m.p99, exact_permille(v, n, 990));
	assert_within_bound(m.p999, exact_permille(v, n, 999));
}

static uint64_t rng_next(uint64_t *x) /* xorshift64*: reproducible */
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

#define NRAND 200000

static void random_data_within_bound(void **state)
{
	uint64_t *v = rt_xcalloc(NRAND, sizeof(*v)), x = 88172645463325252ull;

	(void)state;
	for (size_t i = 0; i < NRAND; i++) /* log-uniform over the whole range */
		v[i] = rng_next(&x) >> (rng_next(&x) % 64);
	check_against_exact(v, NRAND);
	for (size_t i = 0; i < NRAND; i++) /* RTT-like: 2..60 µs, a long tail */
		v[i] = 2000 + rng_next(&x) % 8000 + (i % 97 == 0 ? rng_next(&x) % 50000000 : 0);
	check_against_exact(v, NRAND);
	for (size_t n = 1; n < 40; n++) { /* small counts */
		for (size_t i = 0; i < n; i++)
			v[i] = rng_next(&x) % 100000;
		check_against_exact(v, n);
	}
	free(v);
}

/* Samples on the edges of buckets, where a wrong bucket or a range off
 * by one shows first; runs of one value; the two ends of the range. */
static void adversarial_data_within_bound(void **state)
{
	uint64_t *v = rt_xcalloc(NRAND, sizeof(*v));
	size_t n = 0;

	(void)state;
	for (unsigned e = 0; e < 64; e++)
		for (int d = -2; d <= 2; d++) {
			v[n++] = (1ull << e) + (uint64_t)d;
			v[n++] = (1ull << e) * 3 / 2 + (uint64_t)d;
		}
	v[n++] = 0;
	v[n++] = UINT64_MAX;
	v[n++] = UINT64_MAX - 1;
	check_against_exact(v, n);
	for (n = 0; n < 1000; n++) /* one value: every percentile exact */
		v[n] = 123456789;
	check_against_exact(v, n);
	for (n = 0; n < 1000; n++) /* all in the first half of one bucket */
		v[n] = 1000000 + n % 3;
	check_against_exact(v, n);
	for (n = 0; n < 1001; n++) /* two far apart clusters */
		v[n] = n < 990 ? 5 : UINT64_MAX - n;
	check_against_exact(v, n);
	free(v);
}

/* The buckets tile 0..UINT64_MAX without gaps or overlaps, every value
 * lands in the bucket whose range holds it, and every bucket is narrow
 * enough for the stated error. */
static void buckets_tile_the_range(void **state)
{
	uint64_t lo, hi, next = 0;

	(void)state;
	for (size_t b = 0; b < RT_HIST_BUCKETS; b++) {
		rt_hist_bucket_range(b, &lo, &hi);
		assert_true(lo == next);
		assert_true(hi >= lo);
		assert_true((hi - lo) / 2 <= lo / 256);
		assert_int_equal(rt_hist_bucket(lo), b);
		assert_int_equal(rt_hist_bucket(hi), b);
		next = hi + 1;
	}
	assert_true(next == 0); /* the last bucket ends at UINT64_MAX */
	assert_int_equal(rt_hist_bucket(UINT64_MAX), RT_HIST_BUCKETS - 1);
	for (uint64_t v = 0; v < 256; v++) /* exact below 256 */
		assert_int_equal(rt_hist_bucket(v), v);
}

static void percentiles_of_1_to_1000(void **state)
{
	uint64_t v[1000];
	struct rt_summary m;

	(void)state;
	for (uint64_t i = 0; i < 1000; i++)
		v[i] = i * 7919 % 1000 + 1; /* a shuffle of 1..1000 */
	m = summarize(v, 1000);
	assert_int_equal(m.count, 1000);
	assert_int_equal(m.min, 1);
	assert_int_equal(m.median, 500);
	assert_int_equal(m.p99, 989);  /* 990's bucket [988, 991] */
	assert_int_equal(m.p999, 997); /* 999's bucket [996, 999] */
	assert_int_equal(m.max, 1000);
	assert_true(m.mean == 500.5);
}

/* Any rank, as the percentiles find theirs: 1 is the minimum, the count
 * and past it the maximum, the others within their bucket. */
static void rank_lookup(void **state)
{
	struct rt_hist *h = rt_xcalloc(1, sizeof(*h));

	(void)state;
	assert_int_equal(rt_hist_rank(h, 1), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		rt_hist_add(h, v * 100);
	assert_int_equal(rt_hist_rank(h, 0), 100);
	assert_int_equal(rt_hist_rank(h, 1), 100);
	assert_int_equal(rt_hist_rank(h, 1000), 100000);
	assert_int_equal(rt_hist_rank(h, 5000), 100000);
	assert_within_bound(rt_hist_rank(h, 999), 99900);
	assert_within_bound(rt_hist_rank(h, 500), 50000);
	assert_int_equal(rt_hist_rank(h, 500), rt_hist_permille(h, 500));
	free(h);
}

/* Below 256 every value has its own bucket, so nearest rank is exact. */
static void percentiles_are_nearest_rank(void **state)
{
	const uint64_t two[] = { 20, 10 };
	const uint64_t dup[] = { 5, 9, 5, 1, 9, 5 };
	uint64_t v[2000];
	struct rt_summary m;

	(void)state;
	m = summarize(two, 2); /* median of an even count: the lower one */
	assert_int_equal(m.median, 10);
	assert_int_equal(m.p99, 20);
	assert_true(m.mean == 15.0);
	m = summarize(dup, 6); /* 1 5 5 5 9 9 */
	assert_int_equal(m.min, 1);
	assert_int_equal(m.median, 5);
	assert_int_equal(m.p99, 9);
	assert_int_equal(m.p999, 9);
	assert_true(m.mean * 6 > 33.99 && m.mean * 6 < 34.01);
	for (size_t i = 0; i < 2000; i++)
		v[i] = i + 1;
	m = summarize(v, 10); /* ranks 5, ceil(9.9) = 10, 10 */
	assert_int_equal(m.median, 5);
	assert_int_equal(m.p99, 10);
	m = summarize(v, 100);
	assert_int_equal(m.median, 50);
	assert_int_equal(m.p99, 99);
	assert_int_equal(m.p999, 100);
	m = summarize(v, 200); /* ranks 100, 198, ceil(199.8) = 200 */
	assert_int_equal(m.median, 100);
	assert_int_equal(m.p99, 198);
	assert_int_equal(m.p999, 200);
	/* a ceiling, not rounding: 1.5 -> 2, 1598.4 -> 1599 */
	m = summarize(v, 3);
	assert_int_equal(m.median, 2);
	for (size_t i = 0; i < 1600; i++) /* ranks 1..1598 are 1, 1599 is 2 */
		v[i] = i < 1598 ? 1 : i == 1598 ? 2 : 3;
	m = summarize(v, 1600);
	assert_int_equal(m.p999, 2);
	assert_int_equal(m.max, 3);
}

static void one_sample_and_none(void **state)
{
	const uint64_t one[] = { 42 }, big[] = { 987654321987ull };
	static struct rt_hist h;
	struct rt_summary m;

	(void)state;
	m = summarize(one, 1);
	assert_int_equal(m.count, 1);
	assert_int_equal(m.min, 42);
	assert_int_equal(m.median, 42);
	assert_int_equal(m.p99, 42);
	assert_int_equal(m.p999, 42);
	assert_int_equal(m.max, 42);
	assert_true(m.mean == 42.0);
	m = summarize(big, 1); /* clamped to [min, max]: exact */
	assert_true(m.median == big[0] && m.p99 == big[0] && m.p999 == big[0]);
	memset(&m, 0xff, sizeof(m));
	rt_hist_summarize(&h, &m);
	assert_int_equal(m.count, 0);
	assert_int_equal(m.min, 0);
	assert_int_equal(m.median, 0);
	assert_int_equal(m.max, 0);
	assert_true(m.mean == 0.0);
	assert_int_equal(rt_hist_permille(&h, 500), 0);
}

/* A plain 64-bit sum would wrap here. */
static void mean_does_not_overflow(void **state)
{
	const uint64_t big[] = { 1ull << 63, 1ull << 63, 1ull << 63 };
	const uint64_t odd[] = { UINT64_MAX, UINT64_MAX - 2 };
	const uint64_t far[] = { UINT64_MAX, 1, 1ull << 63 };
	struct rt_summary m;

	(void)state;
	m = summarize(big, 3);
	assert_true(m.mean == 9223372036854775808.0);
	m = summarize(odd, 2);
	assert_true(m.mean == (double)(UINT64_MAX - 1));
	m = summarize(far, 3);
	assert_int_equal(m.min, 1);
	assert_true(m.median >= (1ull << 63) && m.median - (1ull << 63) <= (1ull << 55));
	assert_int_equal(m.max, UINT64_MAX);
}

/* The histogram is a fixed-size value with no pointer: 10^6 samples or
 * none take the same memory, and there is nothing to free. */
static void memory_is_constant(void **state)
{
	static struct rt_hist h;
	struct rt_summary m;

	(void)state;
	_Static_assert(sizeof(struct rt_hist) == (5 + RT_HIST_BUCKETS) * sizeof(uint64_t),
		       "counters and the exact count/min/max/sum, nothing else");
	_Static_assert(sizeof(struct rt_hist) < 60 * 1024, "58 KiB, as documented");
	for (uint64_t i = 0; i < 1000000; i++)
		rt_hist_add(&h, 1000 + i % 5000);
	rt_hist_summarize(&h, &m);
	assert_int_equal(m.count, 1000000);
	assert_int_equal(m.min, 1000);
	assert_int_equal(m.max, 5999);
	assert_true(m.mean == 3499.5);
}

static void summary_json_text(void **state)
{
	const uint64_t v[] = { 1000, 3000, 2000, 1500 };
	const uint64_t slow[] = { 12345678901ull };
	struct rt_summary m = summarize(v, 4), none = { 0 };
	uint64_t seq[1000];
	struct rt_json j;

	(void)state;
	for (uint64_t i = 0; i < 1000; i++)
		seq[i] = i + 1;
	m = summarize(seq, 1000);
	rt_json_init(&j);
	rt_summary_json(&j, &m, 1);
	assert_string_equal(rt_json_text(&j),
		"{\"count\":1000,\"min\":1,\"median\":500,\"p99\":989,"
		"\"p99_9\":997,\"max\":1000,\"mean\":500.5}");
	rt_json_free(&j);

	/* undivided, the order statistics keep every digit */
	m = summarize(slow, 1);
	rt_json_init(&j);
	rt_summary_json(&j, &m, 1);
	assert_string_equal(rt_json_text(&j),
		"{\"count\":1,\"min\":12345678901,\"median\":12345678901,"
		"\"p99\":12345678901,\"p99_9\":12345678901,\"max\":12345678901,"
		"\"mean\":1.23456789e+10}");
	rt_json_free(&j);

	m = summarize(v, 4);
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_json_key(&j, "lat_us");
	rt_summary_json(&j, &m, 1000);
	rt_json_key(&j, "lat_ns");
	rt_summary_json(&j, &m, 1);
	rt_json_key(&j, "bad_divisor");
	rt_summary_json(&j, &m, 0);
	rt_json_key(&j, "empty");
	rt_summary_json(&j, &none, 1000);
	rt_json_object_end(&j);
	assert_string_equal(rt_json_text(&j),
		"{\"lat_us\":{\"count\":4,\"min\":1,\"median\":1.499,\"p99\":3,"
		"\"p99_9\":3,\"max\":3,\"mean\":1.875},"
		"\"lat_ns\":{\"count\":4,\"min\":1000,\"median\":1499,\"p99\":3000,"
		"\"p99_9\":3000,\"max\":3000,\"mean\":1875},"
		"\"bad_divisor\":{\"count\":4,\"min\":1000,\"median\":1499,\"p99\":3000,"
		"\"p99_9\":3000,\"max\":3000,\"mean\":1875},"
		"\"empty\":{\"count\":0,\"min\":0,\"median\":0,\"p99\":0,"
		"\"p99_9\":0,\"max\":0,\"mean\":0}}");
	rt_json_free(&j);
}

static const char *const step_names[] = {
	"resolve-addr", "resolve-route", "connect", "disconnect",
};

/* 100 samples of 1..100 µs (+ 0.5) in "connect", one in "resolve-addr". */
static void steps_fill(struct rt_steps *st)
{
	rt_steps_init(st, step_names, ARRAY_SIZE(step_names));
	rt_steps_add(st, 0, 1234567);
	for (uint64_t i = 1; i <= 100; i++)
		rt_steps_add(st, 2, i * 1000 + 500);
	rt_steps_add(st, 4, 1); /* no such step: ignored */
	rt_steps_add(st, SIZE_MAX, 1);
}

static void steps_table(void **state)
{
	struct rt_steps st;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	(void)state;
	steps_fill(&st);
	f = open_memstream(&text, &size);
	assert_non_null(f);
	rt_steps_print(f, &st);
	fclose(f);
	assert_string_equal(text,
		"step             count     min_us  median_us     p99_us     max_us\n"
		"resolve-addr         1    1234.57    1234.57    1234.57    1234.57\n"
		"resolve-route        0          -          -          -          -\n"
		"connect            100       1.50      50.56      99.58     100.50\n"
		"disconnect           0          -          -          -          -\n");
	free(text);
	rt_steps_free(&st);
	assert_null(st.hist);
	assert_int_equal(st.n, 0);
}

/* Names shorter than the title still leave the columns aligned. */
static void steps_table_short_names(void **state)
{
	static const char *const names[] = { "a", "bc" };
	struct rt_steps st;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	(void)state;
	rt_steps_init(&st, names, ARRAY_SIZE(names));
	rt_steps_add(&st, 1, 999);
	f = open_memstream(&text, &size);
	assert_non_null(f);
	rt_steps_print(f, &st);
	fclose(f);
	assert_string_equal(text,
		"step    count     min_us  median_us     p99_us     max_us\n"
		"a           0          -          -          -          -\n"
		"bc          1       1.00       1.00       1.00       1.00\n");
	free(text);
	rt_steps_free(&st);
}

static void steps_json(void **state)
{
	struct rt_steps st;
	struct rt_json j;

	(void)state;
	steps_fill(&st);
	rt_json_init(&j);
	rt_steps_json(&j, &st);
	assert_string_equal(rt_json_text(&j),
		"{\"resolve-addr\":{\"count\":1,\"min\":1234.567,\"median\":1234.567,"
		"\"p99\":1234.567,\"p99_9\":1234.567,\"max\":1234.567,\"mean\":1234.567},"
		"\"resolve-route\":{\"count\":0,\"min\":0,\"median\":0,\"p99\":0,"
		"\"p99_9\":0,\"max\":0,\"mean\":0},"
		"\"connect\":{\"count\":100,\"min\":1.5,\"median\":50.559,\"p99\":99.583,"
		"\"p99_9\":100.5,\"max\":100.5,\"mean\":51},"
		"\"disconnect\":{\"count\":0,\"min\":0,\"median\":0,\"p99\":0,"
		"\"p99_9\":0,\"max\":0,\"mean\":0}}");
	rt_json_free(&j);
	rt_steps_free(&st);
}

struct fmt_case {
	uint64_t n;
	const char *want;
};

static void size_str_matches_upstream(void **state)
{
	static const struct fmt_case cases[] = {
		{ 0, "0" }, { 1, "1" }, { 64, "64" }, { 1023, "1023" },
		{ 1024, "1k" }, { 1126, "1k" }, { 1127, "1.1k" },
		{ 1500, "1.4k" }, { 1536, "1.5k" }, { 2047, "1.9k" },
		{ 4096, "4k" }, { 10239, "9.9k" }, { 10240, "10k" },
		{ 10752, "10k" }, { 65536, "64k" }, { 90000, "87k" },
		{ (1 << 20) - 1, "1023k" }, { 1 << 20, "1m" },
		{ 3 << 19, "1.5m" }, { 6 << 20, "6m" }, { 12800000, "12m" },
		{ 200 << 20, "200m" }, { (1ull << 30) - 1, "1023m" },
		{ 1ull << 30, "1g" }, { 3ull << 29, "1.5g" },
		{ (10ull << 30) - 1, "9.9g" }, { 10ull << 30, "10g" },
		{ 1ull << 40, "1024g" },
		{ UINT64_MAX, "17179869183g" },
	};
	char b[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		rt_size_str(b, sizeof(b), cases[i].n);
		assert_string_equal(b, cases[i].want);
	}
	rt_size_str(b, 3, 1536); /* truncated, still terminated */
	assert_string_equal(b, "1.");
}

static void cnt_str_matches_upstream(void **state)
{
	static const struct fmt_case cases[] = {
		{ 0, "0" }, { 1, "1" }, { 100, "100" }, { 999, "999" },
		{ 1000, "1k" }, { 1500, "1k" }, { 1999, "1k" },
		{ 10000, "10k" }, { 100000, "100k" }, { 999999, "999k" },
		{ 1000000, "1m" }, { 6000000, "6m" }, { 999999999, "999m" },
		{ 1000000000, "1b" }, { 2500000000ull, "2b" },
		{ 1000000000000ull, "1000b" },
	};
	char b[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		rt_cnt_str(b, sizeof(b), cases[i].n);
		assert_string_equal(b, cases[i].want);
	}
}

static void size_to_count_boundaries(void **state)
{
	(void)state;
	assert_int_equal(rt_size_to_count(0), 100000);
	assert_int_equal(rt_size_to_count(1023), 100000);
	assert_int_equal(rt_size_to_count(1024), 10000);
	assert_int_equal(rt_size_to_count(65535), 10000);
	assert_int_equal(rt_size_to_count(65536), 1000);
	assert_int_equal(rt_size_to_count((1 << 20) - 1), 1000);
	assert_int_equal(rt_size_to_count(1 << 20), 100);
	assert_int_equal(rt_size_to_count(UINT64_MAX), 100);
}

/* The first five columns of upstream's rstream table (reference §6.5),
 * rebuilt from the sizes alone: latency rows do size_to_count iterations
 * of one transfer, bandwidth rows one iteration of that many. */
static void rstream_columns_byte_for_byte(void **state)
{
	static const struct {
		const char *name;
		uint64_t size;
		int bw;
		const char *want;
	} rows[] = {
		{ "64_lat", 64, 0, "64_lat    64      1       100k    12m     " },
		{ "4k_lat", 4096, 0, "4k_lat    4k      1       10k     78m     " },
		{ "64k_lat", 65536, 0, "64k_lat   64k     1       1k      125m    " },
		{ "1m_lat", 1 << 20, 0, "1m_lat    1m      1       100     200m    " },
		{ "64_bw", 64, 1, "64_bw     64      100k    1       12m     " },
		{ "4k_bw", 4096, 1, "4k_bw     4k      10k     1       78m     " },
		{ "64k_bw", 65536, 1, "64k_bw    64k     1k      1       125m    " },
		{ "1m_bw", 1 << 20, 1, "1m_bw     1m      100     1       200m    " },
	};
	char size[16], xfers[16], iters[16], total[16], line[128];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		uint64_t n = rt_size_to_count(rows[i].size);
		uint64_t x = rows[i].bw ? n : 1, it = rows[i].bw ? 1 : n;

		rt_size_str(size, sizeof(size), rows[i].size);
		rt_cnt_str(xfers, sizeof(xfers), x);
		rt_cnt_str(iters, sizeof(iters), it);
		rt_size_str(total, sizeof(total), it * x * rows[i].size * 2);
		snprintf(line, sizeof(line), "%-10s%-8s%-8s%-8s%-8s",
			 rows[i].name, size, xfers, iters, total);
		assert_string_equal(line, rows[i].want);
	}
	/* custom row: 1500 bytes, 10 transfers, 3 iterations */
	rt_size_str(size, sizeof(size), 1500);
	rt_size_str(total, sizeof(total), 3 * 10 * 1500 * 2);
	snprintf(line, sizeof(line), "%-10s%-8s%-8s", "custom", size, total);
	assert_string_equal(line, "custom    1.4k    87k     ");
}

/* Two histograms merged summarize as one that had every sample. */
static void merged_is_both_sets(void **state)
{
	static struct rt_hist odd, even, all, empty;
	struct rt_summary m, w;

	(void)state;
	for (uint64_t v = 1; v <= 2000; v++) {
		rt_hist_add(v % 2 ? &odd : &even, v * 977);
		rt_hist_add(&all, v * 977);
	}
	rt_hist_merge(&odd, &even);
	rt_hist_merge(&odd, &empty);
	rt_hist_summarize(&odd, &m);
	rt_hist_summarize(&all, &w);
	assert_int_equal(m.count, 2000);
	assert_int_equal(m.min, 977);
	assert_int_equal(m.max, 2000u * 977);
	assert_int_equal(m.median, w.median);
	assert_int_equal(m.p99, w.p99);
	assert_true(m.mean == w.mean);
	rt_hist_merge(&empty, &all);
	assert_int_equal(empty.min, 977);
	assert_memory_equal(&empty, &all, sizeof(all));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(percentiles_of_1_to_1000),
		cmocka_unit_test(merged_is_both_sets),
		cmocka_unit_test(rank_lookup),
		cmocka_unit_test(percentiles_are_nearest_rank),
		cmocka_unit_test(random_data_within_bound),
		cmocka_unit_test(adversarial_data_within_bound),
		cmocka_unit_test(buckets_tile_the_range),
		cmocka_unit_test(one_sample_and_none),
		cmocka_unit_test(mean_does_not_overflow),
		cmocka_unit_test(memory_is_constant),
		cmocka_unit_test(summary_json_text),
		cmocka_unit_test(steps_table),
		cmocka_unit_test(steps_table_short_names),
		cmocka_unit_test(steps_json),
		cmocka_unit_test(size_str_matches_upstream),
		cmocka_unit_test(cnt_str_matches_upstream),
		cmocka_unit_test(size_to_count_boundaries),
		cmocka_unit_test(rstream_columns_byte_for_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
