/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* UD traffic on the CM reactor: the step hooks, predicates and progress
 * line of the waits of a paced sender (udsend.h) and of receiving QPs
 * (udrecv.h), for rt_wait with `arg` pointing to a struct rt_ud_flow.
 * Steps do the work (reposting receives, posting the sends the rate
 * allows, failing the connection of a failed post); predicates only
 * answer. */
#ifndef RDMATEST_UDFLOW_H
#define RDMATEST_UDFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/cm.h"
#include "rdmacm/udrecv.h"
#include "rdmacm/udsend.h"

/* How often (ms) a receiving wait checks rt_ud_received's clock bounds. */
#define RT_UD_RX_TICK_MS 50

struct rt_ud_flow {
	struct rt_ud_tx *tx;  /* the sender; NULL: none */
	struct rt_ud_rx *rx;  /* n receiving sides (rings of 0 slots allowed) */
	size_t n;
	/* receiving: over when complete, or nothing within first_ms of
	 * t_ready, or nothing within quiet_ms of the latest datagram */
	uint64_t t_ready;
	long long first_ms, quiet_ms;
};

/* Step: reposts what the rings consumed. */
void rt_ud_refill_step(struct rt_cm *cm, void *flow);
/* Step: reposts, then posts the sends that are due on the lanes whose
 * connection is established; a failed post fails the connection that
 * owns its lane (lane owners are struct rt_conn). */
void rt_ud_send_step(struct rt_cm *cm, void *flow);
/* Every lane has its send completions. */
bool rt_ud_sent(const struct rt_cm *cm, const void *flow);
/* Receiving is over (see struct rt_ud_flow). */
bool rt_ud_received(const struct rt_cm *cm, const void *flow);
/* "4 of 10 send completions" */
void rt_ud_send_progress(const struct rt_cm *cm, const void *flow, char *buf,
			 size_t len);

#endif
