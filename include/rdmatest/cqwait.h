/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A bounded wait for completions on one CQ without the RDMA CM, for the
 * verbs-only applets (the ping-pongs, perftest): busy polling, or sleeping
 * on a completion channel (re-armed before every sleep, events acked in
 * batches). Every wait ends within its bound (exit 124 with the caller's
 * words for what was awaited) or at an interrupt (RT_INTERRUPTED), so a
 * lost UC or UD message can no longer hang a run. */
#ifndef RDMATEST_CQWAIT_H
#define RDMATEST_CQWAIT_H

#include <stdbool.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"

struct rt_cqwait {
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch; /* NULL: busy polling */
	long long timeout_ms;        /* bound of each rt_cqwait_poll (> 0) */
	unsigned unacked;            /* events taken, not yet acked */
	bool armed;
};

/* ch may be NULL (poll mode); with a channel its descriptor is made
 * non-blocking. */
int rt_cqwait_init(struct rt_cqwait *w, struct ibv_cq *cq,
		   struct ibv_comp_channel *ch, long long timeout_ms,
		   struct rt_error *err);
/* Up to n completions into wc; waits for at least one for timeout_ms.
 * Returns their count (> 0); 0 when nothing came within the bound (err
 * untouched: the caller knows what it was waiting for and says so, exit
 * 124); -1 with err set when polling failed; RT_INTERRUPTED on SIGINT or
 * SIGTERM. */
int rt_cqwait_poll(struct rt_cqwait *w, struct ibv_wc *wc, int n,
		   struct rt_error *err);
/* Acks the events still unacked; call before destroying the CQ. */
void rt_cqwait_done(struct rt_cqwait *w);

#endif
