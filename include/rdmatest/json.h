/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A streaming JSON writer into a growing buffer. It inserts commas and
 * escapes strings itself, so every document it produces is valid JSON
 * whatever bytes the caller hands it (device names, peer data, errors).
 * A document too large to hold can go out in pieces (rt_json_flush). */
#ifndef RDMATEST_JSON_H
#define RDMATEST_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rt_json {
	char *buf;
	size_t len, cap;
	char *stack; /* per open container: 'o' or 'a', upper case once it
		      * holds a member (the next one needs a comma) */
	size_t depth, stack_cap;
	bool after_key;
	size_t flushed; /* bytes rt_json_flush has written out */
};

void rt_json_init(struct rt_json *j);
void rt_json_free(struct rt_json *j);
/* An independent copy, e.g. to finish a document without closing the
 * original's open containers. */
void rt_json_copy(struct rt_json *dst, const struct rt_json *src);

void rt_json_object_begin(struct rt_json *j);
void rt_json_object_end(struct rt_json *j);
void rt_json_array_begin(struct rt_json *j);
void rt_json_array_end(struct rt_json *j);
void rt_json_key(struct rt_json *j, const char *key);

void rt_json_string(struct rt_json *j, const char *s);
void rt_json_string_n(struct rt_json *j, const char *s, size_t n);
void rt_json_int(struct rt_json *j, int64_t v);
void rt_json_uint(struct rt_json *j, uint64_t v);
void rt_json_double(struct rt_json *j, double v); /* NaN/inf become null */
void rt_json_bool(struct rt_json *j, bool v);
void rt_json_null(struct rt_json *j);
/* Splices an already valid JSON value (e.g. another writer's buffer). */
void rt_json_raw(struct rt_json *j, const char *json);

/* key + value shorthands */
void rt_json_kv_string(struct rt_json *j, const char *key, const char *s);
void rt_json_kv_int(struct rt_json *j, const char *key, int64_t v);
void rt_json_kv_uint(struct rt_json *j, const char *key, uint64_t v);
void rt_json_kv_double(struct rt_json *j, const char *key, double v);
void rt_json_kv_bool(struct rt_json *j, const char *key, bool v);

/* Closes whatever is still open, so the text is one complete value. */
void rt_json_finish(struct rt_json *j);
/* Writes the text so far to f and empties the buffer; the open
 * containers stay open, so the next value still gets its comma and the
 * pieces written make one document. -1 on a write error (the text is
 * dropped all the same: the buffer never grows past what one piece
 * adds). */
int rt_json_flush(struct rt_json *j, FILE *f);
/* The text so far, NUL-terminated (never NULL); after rt_json_flush, the
 * text since. */
const char *rt_json_text(const struct rt_json *j);

#endif
