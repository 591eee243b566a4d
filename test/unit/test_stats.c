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
	struct rt_samples s = { 0 };
	struct rt_summary out;

	for (size_t i = 0; i < n; i++)
		rt_samples_add(&s, v[i]);
	rt_samples_summarize(&s, &out);
	rt_samples_free(&s);
	return out;
}

static void percentiles_of_1_to_1000(void **state)
{
	struct rt_samples s = { 0 };
	struct rt_summary m;

	(void)state;
	for (uint64_t i = 0; i < 1000; i++)
		rt_samples_add(&s, i * 7919 % 1000 + 1); /* a shuffle of 1..1000 */
	rt_samples_summarize(&s, &m);
	assert_int_equal(m.count, 1000);
	assert_int_equal(m.min, 1);
	assert_int_equal(m.median, 500);
	assert_int_equal(m.p99, 990);
	assert_int_equal(m.p999, 999);
	assert_int_equal(m.max, 1000);
	assert_true(m.mean == 500.5);
	for (size_t i = 0; i < s.n; i++) /* sorted in place */
		assert_int_equal(s.v[i], i + 1);
	rt_samples_free(&s);
	assert_null(s.v);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.cap, 0);
}

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
	m = summarize(v, 1001); /* ceil(999.999) = 1000 */
	assert_int_equal(m.median, 501);
	assert_int_equal(m.p999, 1000);
	m = summarize(v, 2000);
	assert_int_equal(m.p99, 1980);
	assert_int_equal(m.p999, 1998);
	/* a ceiling, not rounding: 1.5 -> 2, 59.4 -> 60, 1598.4 -> 1599 */
	m = summarize(v, 3);
	assert_int_equal(m.median, 2);
	m = summarize(v, 60);
	assert_int_equal(m.p99, 60);
	m = summarize(v, 1600);
	assert_int_equal(m.p999, 1599);
}

static void one_sample_and_none(void **state)
{
	const uint64_t one[] = { 42 };
	struct rt_samples s = { 0 };
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
	memset(&m, 0xff, sizeof(m));
	rt_samples_summarize(&s, &m);
	assert_int_equal(m.count, 0);
	assert_int_equal(m.min, 0);
	assert_int_equal(m.median, 0);
	assert_int_equal(m.max, 0);
	assert_true(m.mean == 0.0);
	rt_samples_free(&s);
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
	m = summarize(far, 3); /* sorting must not compare by subtraction */
	assert_int_equal(m.min, 1);
	assert_int_equal(m.median, 1ull << 63);
	assert_int_equal(m.max, UINT64_MAX);
}

static void samples_grow(void **state)
{
	struct rt_samples s = { 0 };

	(void)state;
	for (uint64_t i = 0; i < 100000; i++)
		rt_samples_add(&s, 100000 - i);
	assert_int_equal(s.n, 100000);
	assert_true(s.cap >= s.n);
	assert_int_equal(s.v[0], 100000);
	assert_int_equal(s.v[99999], 1);
	rt_samples_free(&s);
}

static void summary_json_text(void **state)
{
	const uint64_t v[] = { 1000, 3000, 2000, 1500 };
	const uint64_t slow[] = { 12345678901ull };
	struct rt_summary m = summarize(v, 4), none = { 0 };
	struct rt_samples s = { 0 };
	struct rt_json j;

	(void)state;
	for (uint64_t i = 1; i <= 1000; i++)
		rt_samples_add(&s, i);
	rt_samples_summarize(&s, &m);
	rt_samples_free(&s);
	rt_json_init(&j);
	rt_summary_json(&j, &m, 1);
	assert_string_equal(rt_json_text(&j),
		"{\"count\":1000,\"min\":1,\"median\":500,\"p99\":990,"
		"\"p99_9\":999,\"max\":1000,\"mean\":500.5}");
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
		"{\"lat_us\":{\"count\":4,\"min\":1,\"median\":1.5,\"p99\":3,"
		"\"p99_9\":3,\"max\":3,\"mean\":1.875},"
		"\"lat_ns\":{\"count\":4,\"min\":1000,\"median\":1500,\"p99\":3000,"
		"\"p99_9\":3000,\"max\":3000,\"mean\":1875},"
		"\"bad_divisor\":{\"count\":4,\"min\":1000,\"median\":1500,\"p99\":3000,"
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
		"connect            100       1.50      50.50      99.50     100.50\n"
		"disconnect           0          -          -          -          -\n");
	free(text);
	rt_steps_free(&st);
	assert_null(st.samples);
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
		"\"connect\":{\"count\":100,\"min\":1.5,\"median\":50.5,\"p99\":99.5,"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(percentiles_of_1_to_1000),
		cmocka_unit_test(percentiles_are_nearest_rank),
		cmocka_unit_test(one_sample_and_none),
		cmocka_unit_test(mean_does_not_overflow),
		cmocka_unit_test(samples_grow),
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
