/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The one bounded wait on descriptors: poll() until one is ready, an
 * absolute deadline (util.h's clock) passes, or SIGINT/SIGTERM arrives
 * (interrupt.h's self-pipe wakes it). A signal that interrupts poll()
 * without being the run's interrupt (winding down) only restarts it. */
#ifndef RDMATEST_FDWAIT_H
#define RDMATEST_FDWAIT_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/interrupt.h"

/* What the waits return; -1 is a failed poll() (errno). */
#define RT_FDWAIT_READY 1
#define RT_FDWAIT_TIMEOUT 0
#define RT_FDWAIT_INTERRUPTED RT_INTERRUPTED

/* Waits for fd (< 0: none, a plain sleep) to report one of `events` (or
 * an error or hang-up) before deadline (0: no deadline). */
int rt_fdwait(int fd, short events, uint64_t deadline);

/* The same over fds[0..n-1], which hold n + 1 entries: the last is the
 * wait's own, for the self-pipe. RT_FDWAIT_READY leaves each entry's
 * revents set. */
int rt_fdwait_many(struct pollfd *fds, size_t n, uint64_t deadline);

#endif
