/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rdmatest/error.h"
#include "rdmatest/util.h"

static int record(struct rt_error *e, int exit_code, int err_no,
		  const char *fmt, va_list ap)
{
	size_t n;

	if (e->set)
		return -1;
	e->set = true;
	e->exit_code = exit_code;
	e->err_no = err_no;
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	n = strlen(e->reason);
	if (err_no && n < sizeof(e->reason))
		snprintf(e->reason + n, sizeof(e->reason) - n, ": %s",
			 strerror(err_no));
	return -1;
}

int rt_fail(struct rt_error *e, int exit_code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(e, exit_code, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int rt_exit_silently(struct rt_error *e, int exit_code)
{
	if (e->set)
		return -1;
	rt_fail(e, exit_code, "exit %d", exit_code);
	e->silent = true;
	return -1;
}

int rt_fail_errno(struct rt_error *e, int exit_code, int err_no,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(e, exit_code, err_no, fmt, ap);
	va_end(ap);
	return -1;
}

int rt_error_adopt(struct rt_error *e, const struct rt_error *from)
{
	if (e->set)
		return -1;
	e->set = true;
	e->exit_code = from->exit_code;
	e->err_no = from->err_no;
	rt_strlcpy(e->reason, from->reason, sizeof(e->reason));
	return -1;
}

void rt_error_phase(struct rt_error *e, const char *phase)
{
	if (!e->set)
		rt_strlcpy(e->phase, phase, sizeof(e->phase));
}

void rt_error_event(struct rt_error *e, const char *event, int status)
{
	if (e->event[0])
		return;
	rt_strlcpy(e->event, event, sizeof(e->event));
	e->status = status;
}

const char *rt_exit_name(int exit_code)
{
	switch (exit_code) {
	case RT_EXIT_OK:
		return "pass";
	case RT_EXIT_FAIL:
		return "fail";
	case RT_EXIT_USAGE:
		return "usage";
	case RT_EXIT_ENV:
		return "environment";
	case RT_EXIT_ELSEWHERE:
		return "elsewhere";
	case RT_EXIT_TIMEOUT:
		return "timeout";
	case RT_EXIT_SIGINT:
	case RT_EXIT_SIGTERM:
		return "interrupted";
	case RT_EXIT_NO_APPLET:
		return "no-applet";
	}
	return "unknown";
}
