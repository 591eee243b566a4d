/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Size, count, port and seconds parsing (rt_parse_ll, rt_opt_parse_value
 * on a numeric row with arbitrary bounds) and the size/count formatting
 * rstream's table uses (rt_size_str, rt_cnt_str).
 *
 * Input: byte 0 picks the kind, bytes 1..16 a row's bounds, bytes 17..24
 * a number to format, byte 25 a buffer length; the rest is the text.
 * rt_parse_ll is checked against a reference parser written here from the
 * grammar opt.h documents: [+-] then decimal digits or 0x hex digits,
 * then (sizes only) one of k m g K M G; nothing else, no white space. */
#include <limits.h>
#include <math.h>

#include "fuzz.h"

#include "rdmatest/error.h"
#include "rdmatest/opt.h"
#include "rdmatest/stats.h"

static int digit(char c, int base)
{
	int v = c >= '0' && c <= '9' ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;

	return v < base ? v : -1;
}

static int ref_parse(const char *t, enum rt_opt_kind kind, long long *out)
{
	const char *p = t;
	unsigned long long mag = 0, lim;
	bool neg = false;
	int base = 10, shift = 0, d;
	long long v;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16, p += 2;
	if (digit(*p, base) < 0)
		return -1;
	lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	for (; (d = digit(*p, base)) >= 0; p++) {
		if (mag > (lim - (unsigned)d) / (unsigned)base)
			return -1; /* out of range */
		mag = mag * (unsigned)base + (unsigned)d;
	}
	if (kind == RT_OPT_SIZE && *p && !p[1]) {
		switch (*p) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		}
		if (shift)
			p++;
	}
	if (*p)
		return -1;
	v = neg ? (long long)(0 - mag) : (long long)mag;
	if (__builtin_mul_overflow(v, 1LL << shift, &v))
		return -1;
	*out = v;
	return 0;
}

static void check_parse_ll(const char *text, enum rt_opt_kind kind)
{
	long long got = 0x5a5a, want = 0;
	int rc = rt_parse_ll(text, kind, &got), ref;

	if (kind == RT_OPT_SECONDS || kind == RT_OPT_DECIMAL) {
		char *end;
		double v = strtod(text, &end);

		if (rc)
			return;
		FUZZ_CHECK(text[0] && !strchr(" \t\n\v\f\r", text[0]),
			   "seconds '%s' accepted with white space", text);
		FUZZ_CHECK(!*end && isfinite(v) && v >= 0 && v <= 1e12,
			   "seconds '%s' accepted", text);
		FUZZ_CHECK(got >= 0 && got <= 1000000000000000LL && got == llround(v * 1000.0),
			   "seconds '%s' gave %lld ms", text, got);
		return;
	}
	ref = ref_parse(text, kind, &want);
	FUZZ_CHECK(rc == ref, "kind %d '%s': rt_parse_ll %d, reference %d",
		   (int)kind, text, rc, ref);
	FUZZ_CHECK(rc || got == want, "kind %d '%s': %lld, reference %lld", (int)kind,
		   text, got, want);
	FUZZ_CHECK(!rc || got == 0x5a5a, "kind %d '%s': failure wrote the output",
		   (int)kind, text);
}

static void check_row(const char *text, enum rt_opt_kind kind, long long min,
		      long long max)
{
	struct rt_opt row = { 'x', "fuzz", kind, 0, min, max, NULL, "N", "help", NULL };
	long long v = 0x5a5a, lo, hi;
	struct rt_error e = { 0 };
	int rc = rt_opt_parse_value(&row, text, &v, &e);

	rt_opt_range(&row, &lo, &hi);
	if (rc) {
		FUZZ_CHECK(e.set && e.exit_code == RT_EXIT_USAGE && e.reason[0],
			   "'%s': failure without a usage error", text);
		FUZZ_CHECK(v == 0x5a5a, "'%s': failure wrote the value", text);
		return;
	}
	FUZZ_CHECK(v >= lo && v <= hi, "'%s' = %lld outside %lld..%lld", text, v, lo, hi);
}

static uint64_t unit_of(const char *s, const char *units, const uint64_t *bases)
{
	size_t n = strlen(s);

	for (size_t k = 0; units[k]; k++)
		if (n && s[n - 1] == units[k])
			return bases[k];
	return 1;
}

static void check_format(uint64_t n, size_t len)
{
	static const uint64_t bin[] = { 1ULL << 30, 1ULL << 20, 1ULL << 10 };
	static const uint64_t dec[] = { 1000000000, 1000000, 1000 };
	char *buf = malloc(len), full[64];
	uint64_t base;
	long long back;

	if (!buf)
		abort();
	rt_size_str(buf, len, n);
	FUZZ_CHECK(memchr(buf, '\0', len), "rt_size_str unterminated (len %zu)", len);
	rt_cnt_str(buf, len, n);
	FUZZ_CHECK(memchr(buf, '\0', len), "rt_cnt_str unterminated (len %zu)", len);
	free(buf);

	/* the whole part is truncated, never rounded up */
	rt_size_str(full, sizeof(full), n);
	base = unit_of(full, "gmk", bin);
	if (!strchr(full, '.') && !rt_parse_ll(full, RT_OPT_SIZE, &back))
		FUZZ_CHECK((uint64_t)back <= n && n - (uint64_t)back < base,
			   "rt_size_str(%llu) = %s", (unsigned long long)n, full);
	rt_cnt_str(full, sizeof(full), n);
	base = unit_of(full, "bmk", dec);
	full[strcspn(full, "bmk")] = '\0';
	FUZZ_CHECK(!rt_parse_ll(full, RT_OPT_INT, &back) &&
		   (uint64_t)back == n / base, "rt_cnt_str(%llu) = %s",
		   (unsigned long long)n, full);
	FUZZ_CHECK(rt_size_to_count(n) >= 100, "rt_size_to_count(%llu)",
		   (unsigned long long)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum rt_opt_kind kinds[] = {
		RT_OPT_INT, RT_OPT_SIZE, RT_OPT_PORT, RT_OPT_SECONDS, RT_OPT_DECIMAL,
	};
	struct fuzz_in in = { data, size };
	enum rt_opt_kind kind = kinds[fuzz_u8(&in) % (sizeof(kinds) / sizeof(kinds[0]))];
	long long min = (long long)fuzz_u64(&in, 8), max = (long long)fuzz_u64(&in, 8);
	uint64_t n = fuzz_u64(&in, 8);
	size_t len = 1 + fuzz_u8(&in) % 32;
	char *text;

	if (size > 256)
		return 0;
	text = fuzz_str(&in, in.n);
	for (size_t k = 0; k < 4; k++)
		check_parse_ll(text, kinds[k]);
	check_row(text, kind, min, max);
	check_row(text, kind, 0, 0); /* the kind's own range */
	check_format(n, len);
	free(text);
	return 0;
}
