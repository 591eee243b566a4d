/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Slurm-style hostlist expansion (hostlist.h). An expression is split
 * into literal text and bracket groups; every group is parsed and its
 * size counted before a single name is made, so "n[0-999999999]" is
 * refused at once instead of filling memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/hostlist.h"
#include "rdmatest/util.h"

#define GROUPS_MAX 8   /* bracket groups in one expression */
#define DIGITS_MAX 9   /* digits of a range bound: fits in 32 bits */

struct range {
	uint32_t lo, hi;
	unsigned width; /* digits of the lower bound as written: zero padding */
};

struct group {
	size_t lit_off, lit_len; /* literal text before the group */
	struct range *r;
	size_t nr;
	uint64_t size; /* names this group yields */
};

struct expr {
	const char *text;
	size_t len;
	struct group g[GROUPS_MAX];
	size_t ng;
	size_t tail_off, tail_len; /* literal text after the last group */
};

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	       c == ':';
}

int rt_hostlist_number(const char *s, size_t len, uint32_t *v)
{
	uint32_t x = 0;

	if (len == 0 || len > DIGITS_MAX)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint32_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

static int parse_num(const char *s, size_t len, uint32_t *v, unsigned *width)
{
	*width = (unsigned)len;
	return rt_hostlist_number(s, len, v);
}

/* "1-4" or "7": one range of a group. */
static int parse_range(const char *s, size_t len, struct range *r)
{
	const char *dash = memchr(s, '-', len);
	unsigned w;

	if (!dash)
		return parse_num(s, len, &r->lo, &r->width) ? -1 :
		       (r->hi = r->lo, 0);
	if (parse_num(s, (size_t)(dash - s), &r->lo, &r->width) ||
	    parse_num(dash + 1, len - (size_t)(dash - s) - 1, &r->hi, &w) ||
	    r->hi < r->lo)
		return -1;
	return 0;
}

/* The inside of one [...] (without brackets) into g. */
static int parse_group(struct group *g, const char *s, size_t len,
		       const char *whole, struct rt_error *err)
{
	size_t n = 1, start = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == ',';
	g->r = rt_xcalloc(n, sizeof(*g->r));
	g->nr = 0;
	g->size = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != ',')
			continue;
		if (parse_range(s + start, i - start, &g->r[g->nr]))
			return rt_fail(err, RT_EXIT_USAGE,
				       "host list '%.64s': bad range '%.*s' (want N or N-M with N <= M, at most %d digits)",
				       whole, (int)RT_MIN(i - start, 32),
				       s + start, DIGITS_MAX);
		g->size += (uint64_t)g->r[g->nr].hi - g->r[g->nr].lo + 1;
		g->nr++;
		start = i + 1;
	}
	return 0;
}

static void expr_free(struct expr *e)
{
	for (size_t i = 0; i < e->ng; i++)
		free(e->g[i].r);
	e->ng = 0;
}

static int parse_expr(struct expr *e, const char *text, size_t len,
		      struct rt_error *err)
{
	size_t lit = 0;

	memset(e, 0, sizeof(*e));
	e->text = text;
	e->len = len;
	if (len == 0)
		return rt_fail(err, RT_EXIT_USAGE, "host list: empty name (two commas in a row, or one at an end)");
	for (size_t i = 0; i < len; i++) {
		const char *close;

		if (text[i] == ']')
			return rt_fail(err, RT_EXIT_USAGE, "host list '%.64s': ']' without '['", text);
		if (text[i] != '[') {
			if (!name_char(text[i]))
				return rt_fail(err, RT_EXIT_USAGE, "host list '%.64s': character 0x%02x is not allowed in a host name",
					       text, (unsigned char)text[i]);
			continue;
		}
		close = memchr(text + i + 1, ']', len - i - 1);
		if (!close)
			return rt_fail(err, RT_EXIT_USAGE, "host list '%.64s': '[' without ']'", text);
		if (e->ng == GROUPS_MAX)
			return rt_fail(err, RT_EXIT_USAGE, "host list '%.64s': more than %d [...] groups in one name",
				       text, GROUPS_MAX);
		e->g[e->ng].lit_off = lit;
		e->g[e->ng].lit_len = i - lit;
		if (memchr(text + i + 1, '[', (size_t)(close - text) - i - 1))
			return rt_fail(err, RT_EXIT_USAGE, "host list '%.64s': '[' inside [...]", text);
		e->ng++;
		if (parse_group(&e->g[e->ng - 1], text + i + 1,
				(size_t)(close - text) - i - 1, text, err))
			return -1;
		i = (size_t)(close - text);
		lit = i + 1;
	}
	e->tail_off = lit;
	e->tail_len = len - lit;
	return 0;
}

/* The number of names e yields, or UINT64_MAX once it passes cap. */
static uint64_t expr_count(const struct expr *e, uint64_t cap)
{
	uint64_t n = 1;

	for (size_t i = 0; i < e->ng; i++) {
		if (e->g[i].size && (e->g[i].size > cap || n > cap / e->g[i].size))
			return UINT64_MAX;
		n *= e->g[i].size;
	}
	return n > cap ? UINT64_MAX : n;
}

/* The name for the odometer position idx[] (one range index and offset
 * per group) into buf of RT_HOST_NAME_MAX + 1 bytes. */
static int make_name(const struct expr *e, const size_t *ri,
		     const uint32_t *off, char *buf, struct rt_error *err)
{
	size_t len = 0;

	for (size_t i = 0; i <= e->ng; i++) {
		size_t lo = i < e->ng ? e->g[i].lit_off : e->tail_off;
		size_t ll = i < e->ng ? e->g[i].lit_len : e->tail_len;
		int w = 0;

		if (len + ll > RT_HOST_NAME_MAX)
			goto too_long;
		memcpy(buf + len, e->text + lo, ll);
		len += ll;
		if (i == e->ng)
			break;
		w = snprintf(buf + len, RT_HOST_NAME_MAX + 1 - len, "%0*u",
			     (int)e->g[i].r[ri[i]].width,
			     e->g[i].r[ri[i]].lo + off[i]);
		if (w < 0 || len + (size_t)w > RT_HOST_NAME_MAX)
			goto too_long;
		len += (size_t)w;
	}
	buf[len] = '\0';
	if (len == 0)
		return rt_fail(err, RT_EXIT_USAGE, "host list: empty name");
	return 0;
too_long:
	return rt_fail(err, RT_EXIT_USAGE, "host list '%.64s': a name longer than %u bytes",
		       e->text, RT_HOST_NAME_MAX);
}

/* Advances the odometer; false after the last name. */
static int odometer_next(const struct expr *e, size_t *ri, uint32_t *off)
{
	for (size_t k = e->ng; k-- > 0;) {
		const struct range *r = &e->g[k].r[ri[k]];

		if (r->lo + off[k] < r->hi) {
			off[k]++;
			return 1;
		}
		off[k] = 0;
		if (ri[k] + 1 < e->g[k].nr) {
			ri[k]++;
			return 1;
		}
		ri[k] = 0;
	}
	return 0;
}

static int expand(struct rt_hostlist *l, const struct expr *e,
		  struct rt_error *err)
{
	size_t ri[GROUPS_MAX] = {0};
	uint32_t off[GROUPS_MAX] = {0};
	char buf[RT_HOST_NAME_MAX + 1];
	uint64_t n = expr_count(e, RT_HOSTLIST_MAX - l->n);

	if (n == UINT64_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "host list '%.64s': more than %u hosts",
			       e->text, RT_HOSTLIST_MAX);
	l->names = rt_xrealloc(l->names, (l->n + n) * sizeof(*l->names));
	do {
		if (make_name(e, ri, off, buf, err))
			return -1;
		l->names[l->n++] = rt_xstrdup(buf);
	} while (odometer_next(e, ri, off));
	return 0;
}

static void truncate_to(struct rt_hostlist *l, uint32_t n)
{
	while (l->n > n)
		free(l->names[--l->n]);
	if (n == 0) {
		free(l->names);
		l->names = NULL;
	}
}

int rt_hostlist_parse(struct rt_hostlist *l, const char *text,
		      struct rt_error *err)
{
	size_t len = strnlen(text, RT_HOSTLIST_TEXT_MAX + 1), start = 0;
	uint32_t before = l->n;
	int depth = 0;

	if (len > RT_HOSTLIST_TEXT_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "host list: longer than %u bytes",
			       RT_HOSTLIST_TEXT_MAX);
	for (size_t i = 0; i <= len; i++) {
		struct expr e;
		int rc;

		if (i < len) {
			depth += text[i] == '[';
			depth -= text[i] == ']' && depth > 0;
			if (text[i] != ',' || depth)
				continue;
		}
		rc = parse_expr(&e, text + start, i - start, err);
		if (!rc)
			rc = expand(l, &e, err);
		expr_free(&e);
		if (rc) {
			truncate_to(l, before);
			return -1;
		}
		start = i + 1;
	}
	return 0;
}

/* Every whitespace or comment becomes a comma, so the file is one text. */
static void file_to_text(char *s, size_t len)
{
	int comment = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '#')
			comment = 1;
		if (s[i] == '\n')
			comment = 0;
		if (comment || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
		    s[i] == '\r')
			s[i] = ',';
	}
}

/* Drops empty items (",,") that file_to_text leaves between names. */
static void squeeze_commas(char *s)
{
	size_t o = 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == ',' && (o == 0 || s[o - 1] == ','))
			continue;
		s[o++] = s[i];
	}
	if (o && s[o - 1] == ',')
		o--;
	s[o] = '\0';
}

int rt_hostlist_load(struct rt_hostlist *l, const char *path,
		     struct rt_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t len;
	int rc;

	if (!f)
		return rt_fail_errno(err, RT_EXIT_USAGE, errno, "host file '%.200s'", path);
	buf = rt_xmalloc(RT_HOSTLIST_TEXT_MAX + 2);
	len = fread(buf, 1, RT_HOSTLIST_TEXT_MAX + 1, f);
	rc = ferror(f);
	fclose(f);
	if (rc || len > RT_HOSTLIST_TEXT_MAX || memchr(buf, '\0', len)) {
		free(buf);
		return rt_fail(err, RT_EXIT_USAGE, "host file '%.200s': %s", path,
			       rc ? "read error" : len > RT_HOSTLIST_TEXT_MAX ?
			       "larger than 1 MiB" : "contains a NUL byte");
	}
	buf[len] = '\0';
	file_to_text(buf, len);
	squeeze_commas(buf);
	rc = buf[0] ? rt_hostlist_parse(l, buf, err) :
	     rt_fail(err, RT_EXIT_USAGE, "host file '%.200s': no hosts", path);
	free(buf);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rt_hostlist_check(const struct rt_hostlist *l, struct rt_error *err)
{
	char **sorted;
	int rc = 0;

	if (l->n == 0)
		return rt_fail(err, RT_EXIT_USAGE, "host list: no hosts");
	sorted = rt_xmalloc(l->n * sizeof(*sorted));
	memcpy(sorted, l->names, l->n * sizeof(*sorted));
	qsort(sorted, l->n, sizeof(*sorted), cmp_name);
	for (uint32_t i = 1; i < l->n && !rc; i++)
		if (!strcmp(sorted[i - 1], sorted[i]))
			rc = rt_fail(err, RT_EXIT_USAGE, "host list: '%.200s' is named twice",
				     sorted[i]);
	free(sorted);
	return rc;
}

int64_t rt_hostlist_find(const struct rt_hostlist *l, const char *name)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return i;
	return -1;
}

void rt_hostlist_free(struct rt_hostlist *l)
{
	truncate_to(l, 0);
}
