/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One error record per run. The first failure sets it where the cause is
 * known; everything above only passes the return code up. The dispatcher
 * prints it once and turns it into the exit status and the JSON verdict. */
#ifndef RDMATEST_ERROR_H
#define RDMATEST_ERROR_H

#include <stdbool.h>

/* Exit statuses, the same for every applet (docs/exit-codes.md). */
enum rt_exit {
	RT_EXIT_OK = 0,
	RT_EXIT_FAIL = 1,     /* the test failed: peer, CM event, completion, data */
	RT_EXIT_USAGE = 2,    /* bad option or value */
	RT_EXIT_ENV = 3,      /* no device, address not on a device, missing capability */
	RT_EXIT_ELSEWHERE = 4, /* mesh --exit-status self: NOT READY, this host not blamed */
	RT_EXIT_TIMEOUT = 124, /* a bounded wait expired */
	RT_EXIT_SIGINT = 130,  /* interrupted (128 + signal), see interrupt.h */
	RT_EXIT_SIGTERM = 143,
	RT_EXIT_NO_APPLET = 127,
};

struct rt_error {
	bool set;
	int exit_code;   /* enum rt_exit */
	int err_no;      /* errno of the failing call, 0 if none */
	int status;      /* CM event status or ibv_wc_status, 0 if none */
	char phase[32];  /* e.g. "resolve-addr", "connect", "transfer" */
	char event[48];  /* CM event or completion status name, "" if none */
	char reason[320];
	/* what to do, printed on a line of its own after the reason: the
	 * doctor finding that explains it (diag.h, rt_diag_hint); "" if none */
	char hint[240];
	/* the exit status is the whole message: nothing is printed (a tool
	 * whose upstream exits non-zero after its help or version line) */
	bool silent;
};

/* Records the failure unless one is recorded already, and returns -1 so
 * that callers can write `return rt_fail(...)`. */
int rt_fail(struct rt_error *e, int exit_code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Records an exit status with no message (error.silent); returns -1. */
int rt_exit_silently(struct rt_error *e, int exit_code);
/* Same, with the errno of the failing call (appended as ": strerror"). */
int rt_fail_errno(struct rt_error *e, int exit_code, int err_no,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Records the failure held in another record (a retry's, a child's),
 * reason and errno as they are, unless one is recorded already. */
int rt_error_adopt(struct rt_error *e, const struct rt_error *from);
/* Annotations for the JSON verdict; they do not change an earlier record. */
void rt_error_phase(struct rt_error *e, const char *phase);
void rt_error_event(struct rt_error *e, const char *event, int status);

const char *rt_exit_name(int exit_code);

#endif
