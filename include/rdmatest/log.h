/* Human output. Applets print their upstream-compatible lines with
 * rt_say (stdout, or stderr when --json owns stdout); diagnostics go to
 * stderr with the applet name as prefix, one line each. */
#ifndef RDMATEST_LOG_H
#define RDMATEST_LOG_H

#include <stdbool.h>
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

#endif
