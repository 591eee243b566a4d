/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The Prometheus text writer (prom.h). Misuse (a bad name, a sample
 * before its family) and overflow are kept as the first `problem` and
 * fail the write, so a caller's bug never becomes a file the collector
 * rejects as a whole. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatest/prom.h"
#include "rdmatest/util.h"

void rt_prom_init(struct rt_prom *p)
{
	memset(p, 0, sizeof(*p));
}

void rt_prom_free(struct rt_prom *p)
{
	free(p->buf);
	rt_prom_init(p);
}

static void problem(struct rt_prom *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void problem(struct rt_prom *p, const char *fmt, ...)
{
	va_list ap;

	if (p->problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(p->problem, sizeof(p->problem), fmt, ap);
	va_end(ap);
}

static void put(struct rt_prom *p, const char *s, size_t n)
{
	if (p->len + n + 1 > RT_PROM_MAX_BYTES) {
		problem(p, "more than %u bytes of metrics", RT_PROM_MAX_BYTES);
		return;
	}
	if (p->len + n + 1 > p->cap) {
		p->cap = p->cap ? p->cap * 2 : 4096;
		while (p->cap < p->len + n + 1)
			p->cap *= 2;
		p->buf = rt_xrealloc(p->buf, p->cap);
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

static void put_str(struct rt_prom *p, const char *s)
{
	put(p, s, strlen(s));
}

static bool name_ok(const char *name, bool colon)
{
	if (!name || !*name || (*name >= '0' && *name <= '9'))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || (colon && *c == ':')))
			return false;
	return true;
}

bool rt_prom_metric_name_ok(const char *name)
{
	return name_ok(name, true);
}

bool rt_prom_label_name_ok(const char *name)
{
	/* names starting with "__" are Prometheus' own */
	return name_ok(name, false) && strncmp(name, "__", 2);
}

/* Escapes backslash and newline, and with `quote` the double quote: the
 * exposition format's escapes for label values (HELP text: no quote). */
static void escaped(struct rt_prom *p, const char *s, bool quote)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t left = strlen(s);

	while (left) {
		size_t n = rt_utf8_len(u, left);

		if (*u == '\\')
			put_str(p, "\\\\");
		else if (*u == '\n')
			put_str(p, "\\n");
		else if (*u == '"' && quote)
			put_str(p, "\\\"");
		else if (n)
			put(p, (const char *)u, n);
		else
			put_str(p, "?");
		u += n ? n : 1;
		left -= n ? n : 1;
	}
}

void rt_prom_gauge(struct rt_prom *p, const char *name, const char *help)
{
	if (!rt_prom_metric_name_ok(name) || strlen(name) >= sizeof(p->family)) {
		problem(p, "invalid metric name '%s'", name ? name : "");
		p->family[0] = '\0';
		return;
	}
	rt_strlcpy(p->family, name, sizeof(p->family));
	put_str(p, "# HELP ");
	put_str(p, name);
	put_str(p, " ");
	escaped(p, help, false);
	put_str(p, "\n# TYPE ");
	put_str(p, name);
	put_str(p, " gauge\n");
}

static void number(struct rt_prom *p, double v)
{
	char num[40];

	if (isnan(v))
		rt_strlcpy(num, "NaN", sizeof(num));
	else if (isinf(v))
		rt_strlcpy(num, v > 0 ? "+Inf" : "-Inf", sizeof(num));
	else
		snprintf(num, sizeof(num), "%.15g", v);
	put_str(p, num);
}

static void put_labels(struct rt_prom *p, const char *const *labels)
{
	for (size_t i = 0; labels && labels[i]; i += 2) {
		if (!rt_prom_label_name_ok(labels[i]) || !labels[i + 1]) {
			problem(p, "invalid label '%s' of %s", labels[i], p->family);
			return;
		}
		put_str(p, i ? "," : "{");
		put_str(p, labels[i]);
		put_str(p, "=\"");
		escaped(p, labels[i + 1], true);
		put_str(p, "\"");
	}
	if (labels && labels[0])
		put_str(p, "}");
}

void rt_prom_sample(struct rt_prom *p, const char *const *labels, double value)
{
	if (!p->family[0]) {
		problem(p, "a sample outside a valid metric family");
		return;
	}
	put_str(p, p->family);
	put_labels(p, labels);
	put_str(p, " ");
	number(p, value);
	put_str(p, "\n");
}

void rt_prom_gauge_value(struct rt_prom *p, const char *name, const char *help,
			 double value)
{
	rt_prom_gauge(p, name, help);
	rt_prom_sample(p, NULL, value);
}

/* Writes and syncs the whole text into fd. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return fchmod(fd, 0644) || fsync(fd) ? -1 : 0;
}

int rt_prom_write(const struct rt_prom *p, const char *opt, const char *path,
		  struct rt_error *err)
{
	size_t n = strlen(path);
	char *tmp;
	int fd, e;

	if (p->problem[0])
		return rt_fail(err, RT_EXIT_USAGE, "%s %s: %s", opt, path, p->problem);
	/* not *.prom: the collector never reads the temporary file */
	tmp = rt_xmalloc(n + 8);
	snprintf(tmp, n + 8, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = errno;
		free(tmp);
		return rt_fail_errno(err, RT_EXIT_USAGE, e, "%s %s", opt, path);
	}
	e = write_all(fd, p->buf ? p->buf : "", p->len) ? errno : 0;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	if (e)
		unlink(tmp);
	free(tmp);
	return e ? rt_fail_errno(err, RT_EXIT_USAGE, e, "%s %s", opt, path) : 0;
}
