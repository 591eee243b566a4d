/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rcopy's server (rcopy_server.c; rcopy.c has the protocol and the
 * options): each client served on a thread of its own, at most
 * `concurrent` at a time, its files kept below one directory (confine.h).
 *
 * A client's time is bounded three ways: --timeout per stall; --min-rate
 * on the whole connection, from its acceptance: a client may stay one
 * --timeout plus one second for every min_rate bytes it has sent (the
 * time the server spends reading a file back is not counted), so a file
 * of SIZE bytes is done within --timeout + SIZE / min_rate seconds and a
 * client that trickles is dropped one --timeout after it fell behind;
 * and --max-time in all. A dropped client frees its slot at once.
 *
 * Memory: a 64 KiB transfer buffer and a 4 KiB path per client being
 * served. */
#ifndef RDMATEST_RCOPY_SERVER_H
#define RDMATEST_RCOPY_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmacm/rsock.h"
#include "rdmatest/run.h"

struct rt_rcopy_server {
	struct rt_run *run;
	const struct rt_sock_ops *ops;
	int dirfd;              /* files go below it */
	unsigned clients;       /* end after this many; 0: until interrupted */
	unsigned concurrent;    /* clients served at once (1..64) */
	long long max_time_ms;  /* a client's whole connection; 0: no bound */
	long long min_rate;     /* bytes per second a client keeps up; 0: none */
	uint64_t max_size;      /* the largest file */
	bool allow_exec;        /* keep the source's execute bits */
	/* counted as clients come and go */
	unsigned client, failed;
};

/* Accepts and serves clients on the listening socket lfd until
 * `clients` were served (0 on success, each client's failure its own
 * warning line) or the run is interrupted (RT_INTERRUPTED); -1 with the
 * run's error set when accepting fails or --accept-timeout passes. */
int rt_rcopy_serve(struct rt_rcopy_server *srv, int lfd);

#endif
