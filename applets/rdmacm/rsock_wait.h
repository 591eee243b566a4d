/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the socket set-up (rsock.c) and the transfers (rsock_io.c) share,
 * defined in rsock_wait.c: a call's name for messages and the bounded
 * wait on one descriptor. Private to those files; applets use rsock.h. */
#ifndef RDMATEST_RSOCK_WAIT_H
#define RDMATEST_RSOCK_WAIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rdmacm/rsock.h"

/* librdmacm's rpoll does not wake up for every state change of listening
 * and connecting rsockets (another thread consumes the CM events), so
 * those waits are cut into short slices; the caller rechecks in between. */
#define RT_SOCK_CM_SLICE_MS 10
#define RT_SOCK_DATA_SLICE_MS 1000

/* "rconnect" or "connect": name with the ops' prefix, into buf. */
const char *rt_sock_call(const struct rt_sock_ops *ops, const char *name, char *buf,
			 size_t len);
/* left_ms cut to max_ms (max_ms <= 0: not cut; left_ms < 0: forever). */
int rt_sock_slice(int left_ms, int max_ms);
/* Sleeps until fd has one of events, timeout_ms passes or a signal
 * arrives (the interrupt pipe sits beside fd); returns fd's revents. */
short rt_sock_poll_one(const struct rt_sock_ops *ops, int fd, short events, int timeout_ms);
/* errno says "try again", not "failed". */
bool rt_sock_would_block(int e);

#endif
