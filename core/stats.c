#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/json.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"

void rt_samples_add(struct rt_samples *s, uint64_t ns)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = rt_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = ns;
}

void rt_samples_free(struct rt_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank, ceil(pm/1000 * n), for a percentile given in per mille,
 * on sorted v[0..n) with n >= 1; integers keep the ceiling exact. */
static uint64_t rank_permille(const uint64_t *v, size_t n, unsigned pm)
{
	uint64_t rank = ((uint64_t)n * pm + 999) / 1000;

	return v[rank - 1];
}

/* Summing quotients and remainders separately gives the exact mean
 * (up to the final division) without overflowing a 64-bit total. */
static double exact_mean(const uint64_t *v, size_t n)
{
	uint64_t q = 0, r = 0;

	for (size_t i = 0; i < n; i++) {
		q += v[i] / n;
		r += v[i] % n;
		if (r >= n) {
			q++;
			r -= n;
		}
	}
	return (double)q + (double)r / (double)n;
}

void rt_samples_summarize(struct rt_samples *s, struct rt_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	out->count = s->n;
	out->min = s->v[0];
	out->max = s->v[s->n - 1];
	out->median = rank_permille(s->v, s->n, 500);
	out->p99 = rank_permille(s->v, s->n, 990);
	out->p999 = rank_permille(s->v, s->n, 999);
	out->mean = exact_mean(s->v, s->n);
}

static void kv_scaled(struct rt_json *j, const char *key, uint64_t v,
		      double divisor)
{
	if (divisor == 1.0)
		rt_json_kv_uint(j, key, v);
	else
		rt_json_kv_double(j, key, (double)v / divisor);
}

void rt_summary_json(struct rt_json *j, const struct rt_summary *s,
		     double divisor)
{
	if (!(divisor > 0)) /* also catches NaN */
		divisor = 1.0;
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "count", s->count);
	kv_scaled(j, "min", s->min, divisor);
	kv_scaled(j, "median", s->median, divisor);
	kv_scaled(j, "p99", s->p99, divisor);
	kv_scaled(j, "p99_9", s->p999, divisor);
	kv_scaled(j, "max", s->max, divisor);
	rt_json_kv_double(j, "mean", s->mean / divisor);
	rt_json_object_end(j);
}

void rt_steps_init(struct rt_steps *st, const char *const *names, size_t n)
{
	st->names = names;
	st->n = n;
	st->samples = rt_xcalloc(n, sizeof(*st->samples));
}

void rt_steps_add(struct rt_steps *st, size_t step, uint64_t ns)
{
	if (step < st->n)
		rt_samples_add(&st->samples[step], ns);
}

void rt_steps_free(struct rt_steps *st)
{
	for (size_t i = 0; i < st->n; i++)
		rt_samples_free(&st->samples[i]);
	free(st->samples);
	memset(st, 0, sizeof(*st));
}

static int name_width(const struct rt_steps *st)
{
	size_t w = strlen("step");

	for (size_t i = 0; i < st->n; i++)
		w = RT_MAX(w, strlen(st->names[i]));
	return (int)RT_MIN(w, 64u); /* longer names only push their own row */
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static void print_row(FILE *f, int w, const char *name,
		      const struct rt_summary *s)
{
	if (!s->count) {
		fprintf(f, "%-*s %8d %10s %10s %10s %10s\n", w, name, 0,
			"-", "-", "-", "-");
		return;
	}
	fprintf(f, "%-*s %8zu %10.2f %10.2f %10.2f %10.2f\n", w, name,
		s->count, us(s->min), us(s->median), us(s->p99), us(s->max));
}

void rt_steps_print(FILE *f, struct rt_steps *st)
{
	int w = name_width(st);
	struct rt_summary s;

	fprintf(f, "%-*s %8s %10s %10s %10s %10s\n", w, "step", "count",
		"min_us", "median_us", "p99_us", "max_us");
	for (size_t i = 0; i < st->n; i++) {
		rt_samples_summarize(&st->samples[i], &s);
		print_row(f, w, st->names[i], &s);
	}
}

void rt_steps_json(struct rt_json *j, struct rt_steps *st)
{
	struct rt_summary s;

	rt_json_object_begin(j);
	for (size_t i = 0; i < st->n; i++) {
		rt_samples_summarize(&st->samples[i], &s);
		rt_json_key(j, st->names[i]);
		rt_summary_json(j, &s, 1000.0);
	}
	rt_json_object_end(j);
}

struct unit {
	uint64_t base;
	const char *suffix;
};

static const struct unit binary_units[] = {
	{ 1ull << 30, "g" }, { 1ull << 20, "m" }, { 1ull << 10, "k" }, { 1, "" },
};

static const struct unit decimal_units[] = {
	{ 1000000000, "b" }, { 1000000, "m" }, { 1000, "k" }, { 1, "" },
};

/* The largest unit not above n; both tables end with base 1, which
 * also takes n = 0. */
static const struct unit *pick_unit(const struct unit *u, uint64_t n)
{
	while (u->base > 1 && n < u->base)
		u++;
	return u;
}

void rt_size_str(char *buf, size_t len, uint64_t n)
{
	const struct unit *u = pick_unit(binary_units, n);
	uint64_t whole = n / u->base, tenth = 0;

	if (whole < 10)
		tenth = n % u->base * 10 / u->base;
	if (tenth)
		snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%s", whole, tenth,
			 u->suffix);
	else
		snprintf(buf, len, "%" PRIu64 "%s", whole, u->suffix);
}

void rt_cnt_str(char *buf, size_t len, uint64_t n)
{
	const struct unit *u = pick_unit(decimal_units, n);

	snprintf(buf, len, "%" PRIu64 "%s", n / u->base, u->suffix);
}

uint64_t rt_size_to_count(uint64_t size)
{
	if (size >= 1u << 20)
		return 100;
	if (size >= 1u << 16)
		return 1000;
	if (size >= 1u << 10)
		return 10000;
	return 100000;
}
