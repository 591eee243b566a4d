/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "rdmatest/watchdog.h"

void rt_watchdog_start(struct rt_watchdog *w, long long bound_ms, unsigned every,
		       uint64_t now)
{
	*w = (struct rt_watchdog){ .last_ns = now, .every = every ? every : 1,
				   .bound_ns = (uint64_t)bound_ms * 1000000ull };
}

void rt_watchdog_progress(struct rt_watchdog *w, uint64_t now)
{
	w->last_ns = now;
}

bool rt_watchdog_due(struct rt_watchdog *w)
{
	return ++w->spins % w->every == 0;
}

int rt_watchdog_check(const struct rt_watchdog *w, uint64_t now)
{
	if (rt_interrupt_pending())
		return RT_WATCHDOG_INTERRUPTED;
	if (now - w->last_ns >= w->bound_ns)
		return RT_WATCHDOG_TIMEOUT;
	return RT_WATCHDOG_OK;
}
