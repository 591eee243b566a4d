/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared by the fuzz targets: the libFuzzer entry point, a hard check
 * that aborts with a message (a finding), a cursor over the input, and a
 * strict JSON validator that knows nothing about core/json.c. */
#ifndef RDMATEST_FUZZ_H
#define RDMATEST_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a finding: print it and abort, so libFuzzer
 * saves the input and the replay test fails. */
#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* Reads the input front to back; past the end every read gives zeros. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t v = 0;

	if (in->n) {
		v = *in->p++;
		in->n--;
	}
	return v;
}

static inline uint64_t fuzz_u64(struct fuzz_in *in, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | fuzz_u8(in);
	return v;
}

/* The next n (at most what is left) bytes as an exactly sized heap copy,
 * so that ASan sees a read one past the end. *len gets the length. */
static inline uint8_t *fuzz_bytes(struct fuzz_in *in, size_t n, size_t *len)
{
	uint8_t *b;

	if (n > in->n)
		n = in->n;
	b = malloc(n ? n : 1);
	if (!b)
		abort();
	if (n)
		memcpy(b, in->p, n);
	in->p += n;
	in->n -= n;
	*len = n;
	return b;
}

/* A NUL-terminated heap string of the next n bytes (embedded NULs end it
 * early, as they would on a command line). */
static inline char *fuzz_str(struct fuzz_in *in, size_t n)
{
	size_t len;
	uint8_t *b = fuzz_bytes(in, n, &len);
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, b, len);
	s[len] = '\0';
	free(b);
	return s;
}

/* ---- strict JSON (RFC 8259) ------------------------------------------- */

struct fuzz_json_doc {
	const char *s;
	size_t i, n;
	unsigned depth;
	const char *why; /* first problem, for the report */
};

static inline bool fj_fail(struct fuzz_json_doc *d, const char *why)
{
	if (!d->why)
		d->why = why;
	return false;
}

static inline void fj_ws(struct fuzz_json_doc *d)
{
	while (d->i < d->n && (d->s[d->i] == ' ' || d->s[d->i] == '\t' ||
			       d->s[d->i] == '\n' || d->s[d->i] == '\r'))
		d->i++;
}

static inline bool fj_lit(struct fuzz_json_doc *d, const char *w)
{
	size_t k = strlen(w);

	if (d->n - d->i < k || memcmp(d->s + d->i, w, k))
		return fj_fail(d, "bad literal");
	d->i += k;
	return true;
}

static inline int fj_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static inline long fj_u4(struct fuzz_json_doc *d)
{
	long v = 0;

	if (d->n - d->i < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		int h = fj_hex(d->s[d->i + (size_t)k]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	d->i += 4;
	return v;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
 * Returns the sequence length at s[0..n), or 0. Written from RFC 3629's
 * table, independently of the writer's decoder. */
static inline size_t fj_utf8(const unsigned char *s, size_t n)
{
	if (s[0] <= 0x7f)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		unsigned char lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		unsigned char hi = s[0] == 0xed ? 0x9f : 0xbf;

		return n >= 3 && s[1] >= lo && s[1] <= hi &&
		       (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		unsigned char lo = s[0] == 0xf0 ? 0x90 : 0x80;
		unsigned char hi = s[0] == 0xf4 ? 0x8f : 0xbf;

		return n >= 4 && s[1] >= lo && s[1] <= hi &&
		       (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/* A string; with out, its decoded bytes (UTF-8) are appended there. */
static inline bool fj_string(struct fuzz_json_doc *d, char *out, size_t *olen)
{
	size_t k;

	if (d->i >= d->n || d->s[d->i] != '"')
		return fj_fail(d, "expected a string");
	d->i++;
	while (d->i < d->n) {
		unsigned char c = (unsigned char)d->s[d->i];
		long cp;

		if (c == '"') {
			d->i++;
			return true;
		}
		if (c < 0x20)
			return fj_fail(d, "raw control character in a string");
		if (c != '\\') {
			k = fj_utf8((const unsigned char *)d->s + d->i, d->n - d->i);
			if (!k)
				return fj_fail(d, "invalid UTF-8 in a string");
			if (out)
				memcpy(out + *olen, d->s + d->i, k), *olen += k;
			d->i += k;
			continue;
		}
		if (++d->i >= d->n)
			break;
		c = (unsigned char)d->s[d->i++];
		switch (c) {
		case '"': case '\\': case '/':
			cp = c;
			break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			cp = fj_u4(d);
			if (cp < 0)
				return fj_fail(d, "bad \\u escape");
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return fj_fail(d, "lone low surrogate");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				long lo;

				if (d->n - d->i < 2 || d->s[d->i] != '\\' ||
				    d->s[d->i + 1] != 'u')
					return fj_fail(d, "lone high surrogate");
				d->i += 2;
				lo = fj_u4(d);
				if (lo < 0xdc00 || lo > 0xdfff)
					return fj_fail(d, "bad surrogate pair");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			break;
		default:
			return fj_fail(d, "bad escape");
		}
		if (out) { /* encode cp as UTF-8 */
			unsigned char *o = (unsigned char *)out + *olen;

			if (cp < 0x80) {
				o[0] = (unsigned char)cp, *olen += 1;
			} else if (cp < 0x800) {
				o[0] = (unsigned char)(0xc0 | cp >> 6);
				o[1] = (unsigned char)(0x80 | (cp & 0x3f));
				*olen += 2;
			} else if (cp < 0x10000) {
				o[0] = (unsigned char)(0xe0 | cp >> 12);
				o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
				o[2] = (unsigned char)(0x80 | (cp & 0x3f));
				*olen += 3;
			} else {
				o[0] = (unsigned char)(0xf0 | cp >> 18);
				o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
				o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
				o[3] = (unsigned char)(0x80 | (cp & 0x3f));
				*olen += 4;
			}
		}
	}
	return fj_fail(d, "unterminated string");
}

static inline bool fj_digits(struct fuzz_json_doc *d)
{
	size_t start = d->i;

	while (d->i < d->n && d->s[d->i] >= '0' && d->s[d->i] <= '9')
		d->i++;
	return d->i > start ? true : fj_fail(d, "expected a digit");
}

static inline bool fj_number(struct fuzz_json_doc *d)
{
	if (d->i < d->n && d->s[d->i] == '-')
		d->i++;
	if (d->i < d->n && d->s[d->i] == '0')
		d->i++;
	else if (!fj_digits(d))
		return false;
	if (d->i < d->n && d->s[d->i] == '.') {
		d->i++;
		if (!fj_digits(d))
			return false;
	}
	if (d->i < d->n && (d->s[d->i] == 'e' || d->s[d->i] == 'E')) {
		d->i++;
		if (d->i < d->n && (d->s[d->i] == '+' || d->s[d->i] == '-'))
			d->i++;
		if (!fj_digits(d))
			return false;
	}
	return true;
}

static inline bool fj_value(struct fuzz_json_doc *d)
{
	bool ok = true;
	char c;

	fj_ws(d);
	if (d->i >= d->n)
		return fj_fail(d, "expected a value");
	c = d->s[d->i];
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';

		if (++d->depth > 10000)
			return fj_fail(d, "nesting too deep for the validator");
		d->i++;
		fj_ws(d);
		if (d->i < d->n && d->s[d->i] == close) {
			d->i++;
			d->depth--;
			return true;
		}
		for (;;) {
			if (c == '{') {
				fj_ws(d);
				if (!fj_string(d, NULL, NULL))
					return false;
				fj_ws(d);
				if (d->i >= d->n || d->s[d->i] != ':')
					return fj_fail(d, "expected ':'");
				d->i++;
			}
			if (!fj_value(d))
				return false;
			fj_ws(d);
			if (d->i < d->n && d->s[d->i] == ',') {
				d->i++;
				continue;
			}
			if (d->i < d->n && d->s[d->i] == close) {
				d->i++;
				d->depth--;
				return true;
			}
			return fj_fail(d, "expected ',' or a closing bracket");
		}
	}
	if (c == '"')
		ok = fj_string(d, NULL, NULL);
	else if (c == 't')
		ok = fj_lit(d, "true");
	else if (c == 'f')
		ok = fj_lit(d, "false");
	else if (c == 'n')
		ok = fj_lit(d, "null");
	else if (c == '-' || (c >= '0' && c <= '9'))
		ok = fj_number(d);
	else
		ok = fj_fail(d, "unexpected character");
	return ok;
}

/* NULL when text[0..n) is exactly one JSON value (surrounding white space
 * allowed), else what is wrong. No embedded NUL may precede n. */
static inline const char *fuzz_json_invalid(const char *text, size_t n)
{
	struct fuzz_json_doc d = { text, 0, n, 0, NULL };

	if (memchr(text, '\0', n))
		return "NUL byte inside the document";
	if (!fj_value(&d))
		return d.why ? d.why : "invalid";
	fj_ws(&d);
	if (d.i != n)
		return "text after the value";
	return NULL;
}

#endif
