/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/json.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"

/* Below 2^(SUB_BITS + 1) the bucket is the value itself; above, the top
 * SUB_BITS + 1 bits of the value pick it, shifted by the exponent. */
size_t rt_hist_bucket(uint64_t ns)
{
	unsigned shift;

	if (ns < (uint64_t)2 * RT_HIST_SUB)
		return (size_t)ns;
	shift = 63u - (unsigned)__builtin_clzll(ns) - RT_HIST_SUB_BITS;
	return (size_t)shift * RT_HIST_SUB + (size_t)(ns >> shift);
}

void rt_hist_bucket_range(size_t bucket, uint64_t *lo, uint64_t *hi)
{
	size_t shift = bucket < 2 * (size_t)RT_HIST_SUB ? 0 : bucket / RT_HIST_SUB - 1;
	uint64_t top = bucket - shift * RT_HIST_SUB; /* the value's top bits */

	*lo = top << shift;
	*hi = *lo + ((1ull << shift) - 1);
}

void rt_hist_add(struct rt_hist *h, uint64_t ns)
{
	if (!h->count || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->count++;
	h->sum_lo += ns;
	h->sum_hi += h->sum_lo < ns; /* carry */
	h->bucket[rt_hist_bucket(ns)]++;
}

void rt_hist_merge(struct rt_hist *into, const struct rt_hist *from)
{
	if (!from->count)
		return;
	if (!into->count || from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	into->count += from->count;
	into->sum_lo += from->sum_lo;
	into->sum_hi += from->sum_hi + (into->sum_lo < from->sum_lo); /* carry */
	for (unsigned i = 0; i < RT_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

/* ceil(pm/1000 * n) without overflowing for any count. */
static uint64_t rank_of(uint64_t n, unsigned pm)
{
	return n / 1000 * pm + (n % 1000 * pm + 999) / 1000;
}

uint64_t rt_hist_rank(const struct rt_hist *h, uint64_t rank)
{
	uint64_t seen = 0, lo, hi, mid;
	size_t b = 0;

	if (!h->count)
		return 0;
	if (rank <= 1)
		return h->min;
	if (rank >= h->count)
		return h->max;
	while (seen + h->bucket[b] < rank)
		seen += h->bucket[b++];
	rt_hist_bucket_range(b, &lo, &hi);
	mid = lo + (hi - lo) / 2;
	return RT_MIN(RT_MAX(mid, h->min), h->max);
}

uint64_t rt_hist_permille(const struct rt_hist *h, unsigned permille)
{
	return rt_hist_rank(h, rank_of(h->count, RT_MIN(permille, 1000u)));
}

void rt_hist_summarize(const struct rt_hist *h, struct rt_summary *out)
{
	memset(out, 0, sizeof(*out));
	if (!h->count)
		return;
	out->count = (size_t)h->count;
	out->min = h->min;
	out->max = h->max;
	out->median = rt_hist_permille(h, 500);
	out->p99 = rt_hist_permille(h, 990);
	out->p999 = rt_hist_permille(h, 999);
	out->mean = ((double)h->sum_hi * 18446744073709551616.0 +
		     (double)h->sum_lo) / (double)h->count;
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
	st->hist = rt_xcalloc(n, sizeof(*st->hist));
}

void rt_steps_add(struct rt_steps *st, size_t step, uint64_t ns)
{
	if (step < st->n)
		rt_hist_add(&st->hist[step], ns);
}

void rt_steps_free(struct rt_steps *st)
{
	free(st->hist);
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

void rt_steps_print(FILE *f, const struct rt_steps *st)
{
	int w = name_width(st);
	struct rt_summary s;

	fprintf(f, "%-*s %8s %10s %10s %10s %10s\n", w, "step", "count",
		"min_us", "median_us", "p99_us", "max_us");
	for (size_t i = 0; i < st->n; i++) {
		rt_hist_summarize(&st->hist[i], &s);
		print_row(f, w, st->names[i], &s);
	}
}

void rt_steps_json(struct rt_json *j, const struct rt_steps *st)
{
	struct rt_summary s;

	rt_json_object_begin(j);
	for (size_t i = 0; i < st->n; i++) {
		rt_hist_summarize(&st->hist[i], &s);
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
