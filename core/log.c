/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdarg.h>
#include <stdio.h>

#include "rdmatest/log.h"

void rt_log_init(struct rt_log *l, const char *prefix, bool json, bool quiet,
		 bool debug)
{
	l->prefix = prefix;
	l->human = json ? stderr : stdout;
	l->diag = stderr;
	l->quiet = quiet;
	l->debug = debug;
}

void rt_say(const struct rt_log *l, const char *fmt, ...)
{
	va_list ap;

	if (l->quiet)
		return;
	va_start(ap, fmt);
	vfprintf(l->human, fmt, ap);
	va_end(ap);
	fputc('\n', l->human);
}

/* One fprintf per line keeps lines whole when processes share stderr. */
static void diag(const struct rt_log *l, const char *tag, const char *fmt,
		 va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	fflush(l->human);
	fprintf(l->diag, "%s: %s%s\n", l->prefix, tag, line);
}

void rt_warn(const struct rt_log *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag(l, "warning: ", fmt, ap);
	va_end(ap);
}

void rt_dbg(const struct rt_log *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->debug)
		return;
	va_start(ap, fmt);
	diag(l, "debug: ", fmt, ap);
	va_end(ap);
}

void rt_log_flush(const struct rt_log *l)
{
	fflush(l->human);
}

void rt_progress_start(struct rt_progress *p, FILE *out, uint64_t now)
{
	rt_progress_clear(p);
	p->out = out;
	p->t0 = p->last = now;
}

bool rt_progress_due(struct rt_progress *p, uint64_t now)
{
	if (!p->out || now - p->t0 < RT_PROGRESS_AFTER_NS ||
	    now - p->last < RT_PROGRESS_EVERY_NS)
		return false;
	p->last = now;
	return true;
}

void rt_progress_show(struct rt_progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->out)
		return;
	fputc('\r', p->out);
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
	fflush(p->out);
	p->shown = true;
}

void rt_progress_clear(struct rt_progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->shown = false;
}
