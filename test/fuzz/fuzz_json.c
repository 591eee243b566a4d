/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The JSON writer under arbitrary call sequences and arbitrary bytes
 * (device names, peer data, error strings): whatever the calls, the text
 * after rt_json_finish must be exactly one valid JSON value (checked by
 * the strict validator in fuzz.h, written independently of core/json.c),
 * and every string must come back as its bytes with each byte that does
 * not start valid UTF-8 replaced by U+FFFD.
 *
 * Input: a sequence of operations, one byte each, followed by what they
 * take (a 1-byte length and the bytes for strings, 8 bytes for numbers). */
#include <math.h>

#include "fuzz.h"

#include "rdmatest/json.h"

#define MAX_DEPTH 512

enum op {
	OP_OBJECT_BEGIN, OP_ARRAY_BEGIN, OP_OBJECT_END, OP_ARRAY_END,
	OP_KEY, OP_KEY_NULL, OP_STRING, OP_STRING_N, OP_STRING_NULL,
	OP_INT, OP_UINT, OP_DOUBLE, OP_BOOL, OP_NULL, OP_RAW, OP_RAW_EMPTY,
	OP_KV_STRING, OP_KV_INT, OP_KV_UINT, OP_KV_DOUBLE, OP_KV_BOOL,
	OP_FINISH, OP_COUNT
};

/* What a string must decode to: its bytes, each byte that does not start
 * a valid UTF-8 sequence replaced by U+FFFD. */
static size_t expected(const uint8_t *s, size_t n, char *out)
{
	size_t i = 0, o = 0, k;

	while (i < n) {
		k = fj_utf8(s + i, n - i);
		if (k) {
			memcpy(out + o, s + i, k);
			o += k, i += k;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3, i++;
		}
	}
	return o;
}

/* A string on its own must be one valid JSON string with the right text. */
static void check_string(const uint8_t *s, size_t n)
{
	struct rt_json j;
	struct fuzz_json_doc d;
	char *want = malloc(3 * n + 1), *got = malloc(3 * n + 1);
	size_t wlen, glen = 0;

	if (!want || !got)
		abort();
	rt_json_init(&j);
	rt_json_string_n(&j, (const char *)s, n);
	d = (struct fuzz_json_doc){ rt_json_text(&j), 0, j.len, 0, NULL };
	FUZZ_CHECK(fj_string(&d, got, &glen) && d.i == j.len, "string: %s: %s",
		   d.why ? d.why : "trailing text", rt_json_text(&j));
	wlen = expected(s, n, want);
	FUZZ_CHECK(glen == wlen && !memcmp(got, want, wlen),
		   "string decodes to other bytes: %s", rt_json_text(&j));
	rt_json_free(&j);
	free(want);
	free(got);
}

static void check_double(double v)
{
	struct rt_json j;
	const char *t, *why;

	rt_json_init(&j);
	rt_json_double(&j, v);
	t = rt_json_text(&j);
	why = fuzz_json_invalid(t, j.len);
	FUZZ_CHECK(!why, "double %a: %s: %s", v, why, t);
	if (!isfinite(v)) {
		FUZZ_CHECK(!strcmp(t, "null"), "double %a: %s", v, t);
	} else {
		double back = strtod(t, NULL);

		FUZZ_CHECK(back == v || fabs(back - v) <= fabs(v) * 1e-8,
			   "double %a printed as %s", v, t);
	}
	rt_json_free(&j);
}

/* A complete document of its own, for rt_json_raw. */
static char *sub_document(struct fuzz_in *in)
{
	struct rt_json j;
	size_t n = fuzz_u8(in) % 8;
	char *s;

	rt_json_init(&j);
	rt_json_array_begin(&j);
	for (size_t i = 0; i < n; i++) {
		char *str = fuzz_str(in, fuzz_u8(in) % 16);

		if (i % 2)
			rt_json_kv_string(&j, str, str); /* key ignored: array */
		else
			rt_json_string(&j, str);
		free(str);
	}
	rt_json_finish(&j);
	s = strdup(rt_json_text(&j));
	rt_json_free(&j);
	if (!s)
		abort();
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct rt_json j;
	const char *why;
	size_t len, depth = 0;
	uint8_t *b;
	char *s;
	double dv;
	uint64_t u;

	if (size > 8192)
		return 0;
	rt_json_init(&j);
	while (in.n) {
		enum op op = (enum op)(fuzz_u8(&in) % OP_COUNT);

		switch (op) {
		case OP_OBJECT_BEGIN:
		case OP_ARRAY_BEGIN:
			if (depth >= MAX_DEPTH) /* the validator recurses */
				break;
			/* after a complete top-level value nothing opens */
			depth += depth || !j.len;
			if (op == OP_OBJECT_BEGIN)
				rt_json_object_begin(&j);
			else
				rt_json_array_begin(&j);
			break;
		case OP_OBJECT_END:
			rt_json_object_end(&j);
			depth -= depth > 0;
			break;
		case OP_ARRAY_END:
			rt_json_array_end(&j);
			depth -= depth > 0;
			break;
		case OP_KEY:
		case OP_STRING:
		case OP_KV_STRING:
			s = fuzz_str(&in, fuzz_u8(&in));
			check_string((const uint8_t *)s, strlen(s));
			if (op == OP_KEY)
				rt_json_key(&j, s);
			else if (op == OP_STRING)
				rt_json_string(&j, s);
			else
				rt_json_kv_string(&j, s, s);
			free(s);
			break;
		case OP_KEY_NULL:
			rt_json_key(&j, NULL);
			break;
		case OP_STRING_N:
			b = fuzz_bytes(&in, fuzz_u8(&in), &len);
			check_string(b, len);
			rt_json_string_n(&j, (const char *)b, len);
			free(b);
			break;
		case OP_STRING_NULL:
			rt_json_string(&j, NULL);
			break;
		case OP_INT:
			rt_json_int(&j, (int64_t)fuzz_u64(&in, 8));
			break;
		case OP_UINT:
			rt_json_uint(&j, fuzz_u64(&in, 8));
			break;
		case OP_DOUBLE:
		case OP_KV_DOUBLE:
			u = fuzz_u64(&in, 8);
			memcpy(&dv, &u, sizeof(dv));
			check_double(dv);
			if (op == OP_DOUBLE)
				rt_json_double(&j, dv);
			else
				rt_json_kv_double(&j, "d", dv);
			break;
		case OP_BOOL:
			rt_json_bool(&j, fuzz_u8(&in) & 1);
			break;
		case OP_NULL:
			rt_json_null(&j);
			break;
		case OP_RAW:
			s = sub_document(&in);
			rt_json_raw(&j, s);
			free(s);
			break;
		case OP_RAW_EMPTY:
			rt_json_raw(&j, fuzz_u8(&in) & 1 ? "" : NULL);
			break;
		case OP_KV_INT:
			rt_json_kv_int(&j, "i", (int64_t)fuzz_u64(&in, 8));
			break;
		case OP_KV_UINT:
			rt_json_kv_uint(&j, "u", fuzz_u64(&in, 8));
			break;
		case OP_KV_BOOL:
			rt_json_kv_bool(&j, "b", fuzz_u8(&in) & 1);
			break;
		case OP_FINISH:
			rt_json_finish(&j);
			depth = 0;
			break;
		case OP_COUNT:
			break;
		}
		FUZZ_CHECK(j.depth == depth, "depth %zu, expected %zu", j.depth, depth);
		FUZZ_CHECK(strlen(rt_json_text(&j)) == j.len, "length field is off");
	}
	rt_json_finish(&j);
	/* nothing written at all is the one empty document */
	if (j.len) {
		why = fuzz_json_invalid(rt_json_text(&j), j.len);
		FUZZ_CHECK(!why, "%s: %s", why, rt_json_text(&j));
	}
	rt_json_free(&j);
	return 0;
}
