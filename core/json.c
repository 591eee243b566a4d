/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/json.h"
#include "rdmatest/util.h"

void rt_json_init(struct rt_json *j)
{
	memset(j, 0, sizeof(*j));
}

void rt_json_free(struct rt_json *j)
{
	free(j->buf);
	free(j->stack);
	rt_json_init(j);
}

void rt_json_copy(struct rt_json *dst, const struct rt_json *src)
{
	*dst = *src;
	dst->buf = src->buf ? rt_xmalloc(src->cap) : NULL;
	dst->stack = src->stack ? rt_xmalloc(src->stack_cap) : NULL;
	if (src->buf)
		memcpy(dst->buf, src->buf, src->cap);
	if (src->stack)
		memcpy(dst->stack, src->stack, src->stack_cap);
}

static void put(struct rt_json *j, const char *s, size_t n)
{
	if (j->len + n + 1 > j->cap) {
		j->cap = RT_MAX(j->cap * 2, j->len + n + 64);
		j->buf = rt_xrealloc(j->buf, j->cap);
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void puts_(struct rt_json *j, const char *s)
{
	put(j, s, strlen(s));
}

static char top(const struct rt_json *j)
{
	return j->depth ? j->stack[j->depth - 1] : 0;
}

static void write_escaped(struct rt_json *j, const char *s, size_t n);

/* Everything a value needs before it: a comma after a sibling, and in an
 * object a key (an empty one if the caller gave none, to stay valid).
 * False when the top-level value is complete: a document holds one value,
 * so anything after it is dropped (as closers with nothing open are). */
static bool before_value(struct rt_json *j)
{
	char t = top(j);

	if (!t && (j->len || j->flushed))
		return false;
	if (j->after_key) {
		j->after_key = false;
		return true;
	}
	if (t == 'O' || t == 'A')
		put(j, ",", 1);
	if (t == 'o' || t == 'O')
		put(j, "\"\":", 3);
	if (t)
		j->stack[j->depth - 1] = (char)toupper((unsigned char)t);
	return true;
}

static void push(struct rt_json *j, char type)
{
	if (!before_value(j))
		return;
	if (j->depth == j->stack_cap) {
		j->stack_cap = j->stack_cap ? j->stack_cap * 2 : 8;
		j->stack = rt_xrealloc(j->stack, j->stack_cap);
	}
	j->stack[j->depth++] = type;
	put(j, type == 'o' ? "{" : "[", 1);
}

static void pop(struct rt_json *j)
{
	char t;

	if (!j->depth)
		return;
	if (j->after_key) { /* a key with no value: give it one */
		j->after_key = false;
		puts_(j, "null");
	}
	t = j->stack[--j->depth];
	put(j, (t == 'o' || t == 'O') ? "}" : "]", 1);
}

void rt_json_object_begin(struct rt_json *j) { push(j, 'o'); }
void rt_json_array_begin(struct rt_json *j) { push(j, 'a'); }
void rt_json_object_end(struct rt_json *j) { pop(j); }
void rt_json_array_end(struct rt_json *j) { pop(j); }

void rt_json_finish(struct rt_json *j)
{
	while (j->depth)
		pop(j);
}

void rt_json_key(struct rt_json *j, const char *key)
{
	char t = top(j);

	if (t != 'o' && t != 'O')
		return; /* keys only exist inside objects */
	if (j->after_key)
		puts_(j, "null");
	if (t == 'O' || j->after_key)
		put(j, ",", 1);
	j->stack[j->depth - 1] = 'O';
	write_escaped(j, key ? key : "", key ? strlen(key) : 0);
	put(j, ":", 1);
	j->after_key = true;
}

static void write_escaped(struct rt_json *j, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;
	char esc[8];

	put(j, "\"", 1);
	while (i < n) {
		if (p[i] == '"' || p[i] == '\\') {
			esc[0] = '\\';
			esc[1] = (char)p[i];
			put(j, esc, 2);
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", p[i]);
			put(j, esc, 6);
			i++;
		} else if ((len = rt_utf8_len(p + i, n - i)) != 0) {
			put(j, (const char *)p + i, len);
			i += len;
		} else {
			puts_(j, "\\ufffd"); /* not UTF-8: replacement char */
			i++;
		}
	}
	put(j, "\"", 1);
}

void rt_json_string_n(struct rt_json *j, const char *s, size_t n)
{
	if (!before_value(j))
		return;
	if (!s) {
		puts_(j, "null");
		return;
	}
	write_escaped(j, s, n);
}

void rt_json_string(struct rt_json *j, const char *s)
{
	rt_json_string_n(j, s, s ? strlen(s) : 0);
}

void rt_json_int(struct rt_json *j, int64_t v)
{
	char b[32];

	if (!before_value(j))
		return;
	snprintf(b, sizeof(b), "%" PRId64, v);
	puts_(j, b);
}

void rt_json_uint(struct rt_json *j, uint64_t v)
{
	char b[32];

	if (!before_value(j))
		return;
	snprintf(b, sizeof(b), "%" PRIu64, v);
	puts_(j, b);
}

void rt_json_double(struct rt_json *j, double v)
{
	char b[40];

	if (!before_value(j))
		return;
	if (!isfinite(v)) {
		puts_(j, "null");
		return;
	}
	snprintf(b, sizeof(b), "%.9g", v);
	puts_(j, b);
}

void rt_json_bool(struct rt_json *j, bool v)
{
	if (before_value(j))
		puts_(j, v ? "true" : "false");
}

void rt_json_null(struct rt_json *j)
{
	if (before_value(j))
		puts_(j, "null");
}

void rt_json_raw(struct rt_json *j, const char *json)
{
	if (before_value(j))
		puts_(j, json && *json ? json : "null");
}

void rt_json_kv_string(struct rt_json *j, const char *k, const char *s)
{
	rt_json_key(j, k);
	rt_json_string(j, s);
}

void rt_json_kv_int(struct rt_json *j, const char *k, int64_t v)
{
	rt_json_key(j, k);
	rt_json_int(j, v);
}

void rt_json_kv_uint(struct rt_json *j, const char *k, uint64_t v)
{
	rt_json_key(j, k);
	rt_json_uint(j, v);
}

void rt_json_kv_double(struct rt_json *j, const char *k, double v)
{
	rt_json_key(j, k);
	rt_json_double(j, v);
}

void rt_json_kv_bool(struct rt_json *j, const char *k, bool v)
{
	rt_json_key(j, k);
	rt_json_bool(j, v);
}

int rt_json_flush(struct rt_json *j, FILE *f)
{
	size_t n = j->len;
	int rc = n && fwrite(j->buf, 1, n, f) != n ? -1 : 0;

	j->len = 0;
	j->flushed += n;
	if (j->buf)
		j->buf[0] = '\0';
	return rc;
}

const char *rt_json_text(const struct rt_json *j)
{
	return j->buf ? j->buf : "";
}
