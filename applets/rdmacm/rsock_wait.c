/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The bounded wait on one descriptor that rsock.c's set-up and
 * rsock_io.c's transfers share (rsock_wait.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "rdmatest/interrupt.h"
#include "rdmacm/rsock_wait.h"

const char *rt_sock_call(const struct rt_sock_ops *ops, const char *name, char *buf,
			 size_t len)
{
	snprintf(buf, len, "%s%s", ops->prefix ? "r" : "", name);
	return buf;
}

int rt_sock_slice(int left_ms, int max_ms)
{
	if (max_ms <= 0)
		return left_ms;
	return (left_ms < 0 || left_ms > max_ms) ? max_ms : left_ms;
}

/* rdma-core before v63 leaks a poll count each time an rpoll ends by its
 * own timeout; the next rpoll that must sleep then loops in
 * sched_yield and never returns (a server idle at 100% CPU, deaf to
 * SIGTERM). So rpoll gets no timeout of ours: a timer descriptor beside
 * the socket ends the wait as an event. p has room for one more entry. */
static int rpoll_bounded(const struct rt_sock_ops *ops, struct pollfd *p,
			 nfds_t n, int timeout_ms)
{
	struct itimerspec at = { .it_value = { .tv_sec = timeout_ms / 1000,
					       .tv_nsec = timeout_ms % 1000 * 1000000L } };
	int ready = ops->poll(p, n, 0), timer;

	if (ready || timeout_ms == 0)
		return ready;
	if (timeout_ms < 0)
		return ops->poll(p, n, -1);
	timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (timer < 0)
		return -1;
	if (timerfd_settime(timer, 0, &at, NULL)) {
		close(timer);
		return -1;
	}
	p[n] = (struct pollfd){ .fd = timer, .events = POLLIN };
	ready = ops->poll(p, n + 1, -1);
	close(timer);
	return ready;
}

short rt_sock_poll_one(const struct rt_sock_ops *ops, int fd, short events, int timeout_ms)
{
	struct pollfd p[3] = { { .fd = fd, .events = events } };
	nfds_t n = 1;
	int ready;

	/* rpoll looks up every descriptor it gets: -1 must not be one */
	if (rt_interrupt_fd() >= 0)
		p[n++] = (struct pollfd){ .fd = rt_interrupt_fd(), .events = POLLIN };
	ready = ops->rdma ? rpoll_bounded(ops, p, n, timeout_ms)
			  : ops->poll(p, n, timeout_ms);
	if (ready < 0 && errno != EINTR)
		return POLLERR;
	return ready > 0 ? p[0].revents : 0;
}

bool rt_sock_would_block(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}
