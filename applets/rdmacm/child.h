/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A job in a child process of its own (rstream -T f: one per accepted
 * client). The parent learns the outcome from waitpid's status. The one
 * other channel is a shared page, for what an exit status cannot carry:
 * a heartbeat that tells a long job from a hung one, the child's error
 * record (its reason, to print once), and its result records (JSON).
 * Memory: one mapping of sizeof(struct rt_child_share) per running child. */
#ifndef RDMATEST_CHILD_H
#define RDMATEST_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rdmatest/error.h"
#include "rdmatest/json.h"

#define RT_CHILD_RESULTS_MAX 65536 /* -S all: 33 rows of about 500 bytes */

struct rt_child_share {
	uint64_t beats;   /* bumped by rt_child_beat */
	struct rt_error err;
	size_t results_len;
	char results[RT_CHILD_RESULTS_MAX]; /* JSON values joined by commas */
};

struct rt_child {
	pid_t pid;
	struct rt_child_share *share; /* NULL once released */
};

/* The child's job: returns its exit status (enum rt_exit). */
typedef int rt_child_fn(struct rt_child_share *share, void *arg);

/* Flushes stdio, forks and runs fn(share, arg) in the child, which then
 * exits with its return value. In the parent, returns once the child runs. */
int rt_child_start(struct rt_child *c, rt_child_fn *fn, void *arg,
		   struct rt_error *err);

/* Waits for the child, polling every 10 ms. An interrupt of the parent
 * (interrupt.h) is passed on once; a child that does not beat for
 * silence_ms is killed (exit 124). The child's result records go into
 * `results` (an open JSON array; NULL: dropped). A failure goes to err:
 * the child's own record when it left one, else what its status says (a
 * signal, an exit code without a reason), naming the child as `what`.
 * Returns 0 when the child exited 0, else -1. Releases the share. */
int rt_child_wait(struct rt_child *c, long long silence_ms, const char *what,
		  struct rt_json *results, struct rt_error *err);

/* In the child: progress, a result record (false when it does not fit),
 * and the error record to hand over. */
void rt_child_beat(struct rt_child_share *s);
bool rt_child_result(struct rt_child_share *s, const char *json);
void rt_child_error(struct rt_child_share *s, const struct rt_error *e);

#endif
