/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <stdbool.h>

#include "rdmatest/fdwait.h"
#include "rdmatest/util.h"

static bool any_ready(const struct pollfd *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i].revents)
			return true;
	return false;
}

int rt_fdwait_many(struct pollfd *fds, size_t n, uint64_t deadline)
{
	for (;;) {
		int pipe_fd = rt_interrupt_fd(), got;

		if (rt_interrupt_pending())
			return RT_FDWAIT_INTERRUPTED;
		fds[n] = (struct pollfd){ .fd = pipe_fd, .events = POLLIN };
		got = poll(fds, n + (pipe_fd >= 0), rt_ms_until(deadline));
		if (got < 0 && errno != EINTR)
			return -1;
		if (got > 0 && any_ready(fds, n))
			return RT_FDWAIT_READY;
		/* a readable pipe with no signal recorded would wake every
		 * poll at once until the deadline */
		if (got > 0)
			rt_interrupt_drain();
		/* poll's millisecond may end a hair early: the clock decides */
		if (got == 0 && rt_ms_until(deadline) == 0)
			return RT_FDWAIT_TIMEOUT;
	}
}

int rt_fdwait(int fd, short events, uint64_t deadline)
{
	struct pollfd p[2] = { { .fd = fd, .events = events } };

	return rt_fdwait_many(p, 1, deadline);
}
