/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The receiving side of UD datagram traffic on several QPs. Each QP keeps
 * a receive ring and a tally (udtally.h) and the times of its first and
 * latest datagram. Over all QPs: the repost of the rings (the work of a
 * wait's step hook, rt_ud_rx_refill), whether every expected datagram came
 * and whether the receiving is over (pure predicates), the verdict
 * (corrupt, wrong-sized or lost datagrams, a loss with its likely cause),
 * and the JSON of the counts. Memory: what the ring and the tally bound
 * (RT_MC_RING_*, RT_MC_SENDERS_MAX in udtally.h). */
#ifndef RDMATEST_UDRECV_H
#define RDMATEST_UDRECV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/cm.h"
#include "rdmatest/error.h"
#include "rdmatest/json.h"
#include "rdmacm/udtally.h"

struct rt_ud_rx {
	struct rt_conn *conn;   /* the QP's connection; NULL: not yet created */
	struct rt_mc_ring ring; /* no slots: this QP receives nothing */
	struct rt_mc_tally tally;
	uint64_t t_first, t_last; /* ns of the first and latest datagram */
};

/* What each sender sends, senders expected (0: those heard), size of a
 * datagram: see rt_mc_tally_init. */
void rt_ud_rx_init(struct rt_ud_rx *q, struct rt_conn *c, uint64_t per_sender,
		   uint64_t senders, size_t size);
/* Receive slots for `want` datagrams (UINT64_MAX: as many as the memory
 * ceiling allows, see rt_mc_ring_slots) on one of nqps QPs of a device
 * taking max_wr (0: no limit) work requests; 0 when want is 0. */
uint32_t rt_ud_rx_slots(const struct rt_ud_rx *q, uint64_t want, unsigned nqps,
			uint32_t max_wr);
/* Posts `slots` receives of size + RT_MC_GRH_LEN bytes on the QP (none
 * when 0) and keeps, for the overrun hint, what the ceiling would have
 * allowed. Failures fail the connection. */
int rt_ud_rx_post(struct rt_ud_rx *q, uint32_t slots, unsigned nqps, uint32_t max_wr);
void rt_ud_rx_free(struct rt_ud_rx *q);
/* A successful receive completion at `now`: checks and counts the
 * datagram; *cls and *sender as rt_mc_tally_add. A completion of a slot
 * that is not the ring's fails the connection (-1). */
int rt_ud_rx_take(struct rt_ud_rx *q, const struct ibv_wc *wc, uint64_t now,
		  enum rt_mc_class *cls, uint32_t *sender);
/* Step work: reposts what each live QP's ring consumed. */
void rt_ud_rx_refill(struct rt_ud_rx *rx, size_t n);

/* Pure questions over n QPs. */
bool rt_ud_rx_complete(const struct rt_ud_rx *rx, size_t n);
uint64_t rt_ud_rx_received(const struct rt_ud_rx *rx, size_t n);
/* Over at `now`: complete, or nothing came within first_ms of t_ready,
 * or nothing within quiet_ms of the latest datagram. */
bool rt_ud_rx_over(const struct rt_ud_rx *rx, size_t n, uint64_t now,
		   uint64_t t_ready, long long first_ms, long long quiet_ms);
/* Missing datagrams over all QPs, and in *expected the "of N". */
uint64_t rt_ud_rx_missing(const struct rt_ud_rx *rx, size_t n, uint64_t *expected);
/* The verdict once receiving is over: corrupt or wrong-sized datagrams,
 * else missing ones ("lost 3 of 40 datagrams: none arrived for 2 s after
 * the last one (cause)"); 0 when all came. quiet_ms is the wait that
 * ended it. Records in e. */
int rt_ud_rx_judge(const struct rt_ud_rx *rx, size_t n, long long quiet_ms,
		   struct rt_error *e);
/* First to latest datagram over all QPs; 0 with fewer than two. */
double rt_ud_rx_seconds(const struct rt_ud_rx *rx, size_t n);

/* One QP's counts as members of the open JSON object; a sender (receiver
 * false) expects nothing, so loses nothing. */
void rt_ud_rx_json(struct rt_json *j, const struct rt_ud_rx *q, bool receiver);

struct rt_ud_rx_sum {
	uint64_t received, distinct, lost, dup, ooo, late, beyond, foreign;
	uint64_t untracked, corrupt, wrong_size;
};
/* Adds one QP's counts to s (lost only for a receiver). */
void rt_ud_rx_sum_add(struct rt_ud_rx_sum *s, const struct rt_ud_rx *q, bool receiver);
/* The sum as members of the open JSON object: received, lost,
 * duplicates, out_of_order, unverified, corrupt; `all` adds the rest. */
void rt_ud_rx_sum_json(struct rt_json *j, const struct rt_ud_rx_sum *s, bool all);
/* "received 40 datagrams on 2 QPs: 0 lost, 0 duplicate, 0 out of order"
 * (and unverified and corrupt ones when there are any). */
void rt_ud_rx_sum_str(const struct rt_ud_rx_sum *s, unsigned nqps, char *buf,
		      size_t len);

#endif
