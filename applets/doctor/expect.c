/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The expected-state file (expect.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor/expect.h"
#include "rdmatest/util.h"

void rt_diag_expect_init(struct rt_diag_expect *x)
{
	x->e = rt_xcalloc(RT_DIAG_EXPECT_MAX, sizeof(*x->e));
	x->n = 0;
}

void rt_diag_expect_free(struct rt_diag_expect *x)
{
	free(x->e);
	x->e = NULL;
	x->n = 0;
}

static bool key_ok(const char *key)
{
	size_t n = strlen(key);

	return n && n < RT_DIAG_EXPECT_KEY &&
	       strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789_.:/-") == n;
}

/* Printable ASCII, no leading or trailing space: what was saved reads
 * back the same. */
static bool value_ok(const char *v)
{
	size_t n = strlen(v);

	if (!n || n >= RT_DIAG_EXPECT_VALUE || v[0] == ' ' || v[n - 1] == ' ')
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			return false;
	return true;
}

const char *rt_diag_expect_get(const struct rt_diag_expect *x, const char *key)
{
	for (int i = 0; i < x->n; i++)
		if (!strcmp(x->e[i].key, key))
			return x->e[i].value;
	return NULL;
}

static int add(struct rt_diag_expect *x, const char *key, const char *value, unsigned line)
{
	struct rt_diag_expect_entry *e;

	if (x->n >= RT_DIAG_EXPECT_MAX || !key_ok(key) || !value_ok(value) ||
	    rt_diag_expect_get(x, key))
		return -1;
	e = &x->e[x->n++];
	rt_strlcpy(e->key, key, sizeof(e->key));
	rt_strlcpy(e->value, value, sizeof(e->value));
	e->line = line;
	return 0;
}

int rt_diag_expect_add(struct rt_diag_expect *x, const char *key, const char *fmt, ...)
{
	char value[RT_DIAG_EXPECT_VALUE + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	return add(x, key, value, 0);
}

/* One line, without its newline: a comment, blank, or `key value`. */
static int parse_line(struct rt_diag_expect *x, char *s, unsigned line, char *why,
		      size_t why_len)
{
	char *value;

	s += strspn(s, " \t");
	if (!*s || *s == '#')
		return 0;
	value = s + strcspn(s, " \t");
	if (*value)
		*value++ = '\0';
	value += strspn(value, " \t");
	for (size_t n = strlen(value); n && (value[n - 1] == ' ' || value[n - 1] == '\t'); n--)
		value[n - 1] = '\0';
	if (!key_ok(s))
		snprintf(why, why_len, "a key is one word of letters, digits and _.:/-");
	else if (!value_ok(value))
		snprintf(why, why_len, "%s: a value is 1 to %d printable characters", s,
			 RT_DIAG_EXPECT_VALUE - 1);
	else if (rt_diag_expect_get(x, s))
		snprintf(why, why_len, "%s given twice", s);
	else if (add(x, s, value, line))
		snprintf(why, why_len, "more than %d entries", RT_DIAG_EXPECT_MAX);
	else
		return 0;
	return -1;
}

int rt_diag_expect_parse(struct rt_diag_expect *x, const char *text, size_t len,
			 unsigned *line, char *why, size_t why_len)
{
	char buf[RT_DIAG_EXPECT_LINE + 1];
	size_t at = 0;

	*line = 0;
	if (len > RT_DIAG_EXPECT_BYTES) {
		snprintf(why, why_len, "larger than %d bytes", RT_DIAG_EXPECT_BYTES);
		return -1;
	}
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;

		++*line;
		if (n > RT_DIAG_EXPECT_LINE) {
			snprintf(why, why_len, "longer than %d bytes", RT_DIAG_EXPECT_LINE);
			return -1;
		}
		if (memchr(text + at, '\0', n)) {
			snprintf(why, why_len, "holds a NUL byte");
			return -1;
		}
		memcpy(buf, text + at, n);
		buf[n] = '\0';
		if (parse_line(x, buf, *line, why, why_len))
			return -1;
		at += n + 1;
	}
	return 0;
}

int rt_diag_expect_load(struct rt_diag_expect *x, const char *path, unsigned *line,
			char *why, size_t why_len)
{
	char *text = rt_xcalloc(1, RT_DIAG_EXPECT_BYTES + 1);
	FILE *f = fopen(path, "r");
	size_t len;
	int rc;

	*line = 0;
	if (!f) {
		snprintf(why, why_len, "%s", strerror(errno));
		free(text);
		return -1;
	}
	/* one byte more than allowed: tells a file at the bound from a larger one */
	len = fread(text, 1, RT_DIAG_EXPECT_BYTES + 1, f);
	rc = ferror(f) ? -1 : 0;
	fclose(f);
	if (rc)
		snprintf(why, why_len, "cannot be read");
	else
		rc = rt_diag_expect_parse(x, text, len, line, why, why_len);
	free(text);
	return rc;
}

int rt_diag_expect_save(const struct rt_diag_expect *x, const char *path,
			const char *header)
{
	char tmp[4096];
	FILE *f;
	int rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	if (header)
		fprintf(f, "# %s\n", header);
	for (int i = 0; i < x->n; i++)
		fprintf(f, "%s %s\n", x->e[i].key, x->e[i].value);
	if (fflush(f) || ferror(f))
		rc = -1;
	if (fclose(f))
		rc = -1;
	if (!rc && rename(tmp, path))
		rc = -1;
	if (rc) {
		int saved = errno;

		unlink(tmp);
		errno = saved;
	}
	return rc;
}
