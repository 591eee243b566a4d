/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The per-invocation context the dispatcher hands to an applet: shared
 * options, output, the error record and the JSON results. There is no
 * other process-wide state. */
#ifndef RDMATEST_RUN_H
#define RDMATEST_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "rdmatest/error.h"
#include "rdmatest/json.h"
#include "rdmatest/log.h"
#include "rdmatest/opt.h"

/* Options every applet takes (rt_common_opts). */
struct rt_common {
	int json;
	int quiet;
	int debug;
	long long timeout_ms;        /* bound on every single network wait */
	long long accept_timeout_ms; /* server's wait for a first client; 0: none */
	long long wait_server_ms;    /* client: keep retrying the connect this long */
};

/* A member of "results" too large to hold as text (mesh's document at
 * thousands of hosts), written as the JSON document goes out:
 * rt_run_finish writes the document up to the results' members so far,
 * then calls write, which adds its members to results and writes them
 * out as it goes (rt_json_flush); then release, with --json or not. The
 * last words of an exit from a signal handler leave it out. */
struct rt_run_stream {
	void (*write)(void *ctx, struct rt_json *results, FILE *out);
	void (*release)(void *ctx);
	void *ctx;
};

struct rt_run {
	const char *name;       /* the applet's, for messages and the JSON */
	struct rt_common common;
	struct rt_log log;
	struct rt_error err;
	struct rt_json results; /* members of the "results" object */
	struct rt_opt_table tabs[2]; /* applet's own, then common */
	const char *const *secret_opts; /* the applet's (applet.h) */
	/* An interrupt is how this run normally ends (rping -C 0, a server
	 * that serves until stopped): SIGINT/SIGTERM then leave the verdict
	 * to the rounds before it instead of making it "interrupted". */
	bool interrupt_is_end;
	struct rt_run_stream stream; /* none: all zero */
};

extern const struct rt_opt rt_common_opts[];

/* The bound of a server's wait for its first client, as a wait timeout:
 * --accept-timeout, or -1 (none) when it is 0. */
long long rt_run_accept_bound(const struct rt_run *run);

/* Catches SIGINT/SIGTERM for the run (interrupt.h) and prepares the last
 * words of an exit from a signal handler. */
void rt_run_start(struct rt_run *run);
/* Ends the run: prints the error line once, writes the JSON document
 * when asked (run->stream's member streamed into it), releases
 * run->stream, and returns the exit status. `rc` is the applet's return;
 * after an interrupt it decides with run->interrupt_is_end. */
int rt_run_finish(struct rt_run *run, int rc);

#endif
