/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The watchdog of a spinning wait: it counts spins, and every `every`
 * of them looks at the interrupt flag and at how long the wait has gone
 * without progress, both without a system call but the clock's. */
#ifndef RDMATEST_WATCHDOG_H
#define RDMATEST_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmatest/interrupt.h"

/* What rt_watchdog_check says. */
#define RT_WATCHDOG_OK 0
#define RT_WATCHDOG_TIMEOUT 1
#define RT_WATCHDOG_INTERRUPTED RT_INTERRUPTED

struct rt_watchdog {
	uint64_t last_ns;  /* the last progress: the bound runs from here */
	uint64_t bound_ns; /* how long without progress is a stall */
	unsigned spins;    /* counted by rt_watchdog_due */
	unsigned every;    /* spins between two looks */
};

/* A watchdog whose bound, bound_ms (> 0), runs from now. */
void rt_watchdog_start(struct rt_watchdog *w, long long bound_ms, unsigned every,
		       uint64_t now);
/* Something happened at now (a post, a completion): the bound restarts. */
void rt_watchdog_progress(struct rt_watchdog *w, uint64_t now);
/* Counts a spin; true at every `every`-th, when it is time to look. */
bool rt_watchdog_due(struct rt_watchdog *w);
/* The look: RT_WATCHDOG_INTERRUPTED when a signal is pending (first),
 * RT_WATCHDOG_TIMEOUT when the bound has passed since the last progress,
 * else RT_WATCHDOG_OK. */
int rt_watchdog_check(const struct rt_watchdog *w, uint64_t now);

#endif
