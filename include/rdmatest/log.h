/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Human output. Applets print their upstream-compatible lines with
 * rt_say (stdout, or stderr when --json owns stdout); diagnostics go to
 * stderr with the applet name as prefix, one line each. */
#ifndef RDMATEST_LOG_H
#define RDMATEST_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct rt_log {
	const char *prefix; /* applet name */
	FILE *human;        /* stdout, or stderr with --json */
	FILE *diag;         /* stderr */
	bool quiet;
	bool debug;
};

void rt_log_init(struct rt_log *l, const char *prefix, bool json, bool quiet,
		 bool debug);
void rt_say(const struct rt_log *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rt_warn(const struct rt_log *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rt_dbg(const struct rt_log *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Writes whatever the human stream holds now (e.g. before a long wait). */
void rt_log_flush(const struct rt_log *l);

/* A transient progress line for a terminal: shown once a task has run for
 * RT_PROGRESS_AFTER_NS, redrawn at most every RT_PROGRESS_EVERY_NS, and
 * cleared before any other output. Times are the caller's rt_now_ns(). */
#define RT_PROGRESS_AFTER_NS 1000000000ull
#define RT_PROGRESS_EVERY_NS 250000000ull

struct rt_progress {
	FILE *out;     /* NULL: never shown (not a terminal, or quiet) */
	uint64_t t0, last;
	bool shown;
};

/* Starts timing a task; out is NULL, or stderr when it is a terminal. */
void rt_progress_start(struct rt_progress *p, FILE *out, uint64_t now);
/* True when the line is due: call it often, and rt_progress_show then. */
bool rt_progress_due(struct rt_progress *p, uint64_t now);
void rt_progress_show(struct rt_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rt_progress_clear(struct rt_progress *p);

#endif
