/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's protocol of rdma-core 52-58 (Debian 13). The client first
 * opens one TCP connection to the server's port (the same number as the
 * CM port) and the two sides keep in step over it with one-byte syncs
 * (cmtsync.h). There are three runs, each synced at its start, once all
 * connections are up and once all are closed: a warm-up with one
 * connection, the main run with -c (QPs, or with -m none and a sleep in
 * their place), and -c again without QPs (fake QP numbers from -q). Both
 * sides need the same -c. -S instead times plain TCP connections to the
 * same port. */
#ifndef RDMATEST_CMTIME_V56_H
#define RDMATEST_CMTIME_V56_H

#include <stdbool.h>

#include "rdmacm/cmtime_conn.h"

/* The three runs, each printing its table; the JSON results are the main
 * run's (mimic: -m was given). A server's reactor is listening. */
int rt_cmt_v56_run(struct rt_cmt_ctx *x, struct rdma_addrinfo *ai, bool mimic);
/* -S: the plain TCP baseline, without the reactor. */
int rt_cmt_socket_run(struct rt_cmt_ctx *x);

#endif
