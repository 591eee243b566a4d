/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A paced round-robin sender of UD datagrams over several QPs ("lanes"):
 * at most `rate` datagrams per second over all lanes together, taken one
 * lane after the other so that receivers see the senders interleaved
 * rather than in bursts per QP, each lane with at most `depth` sends in
 * flight. Unpaced, a lane's turn posts what its depth allows, up to
 * RT_POST_LIST_MAX (16) as one chain: a doorbell, a system call on rxe,
 * per chain rather than per datagram. Every datagram is a verify.h
 * message (the lane's sender id, a sequence number, the pattern), so
 * receivers can count and check it (the tally of udtally.h).
 *
 * It knows verbs resources only, not the RDMA CM, so CM applets (mckey,
 * udaddy) and verbs-only ones (perftest's UD tests) share it. Posting is
 * the work of a wait's step hook (rt_ud_tx_post_due); the completion hook
 * counts (rt_ud_tx_completed); rt_ud_tx_done only answers.
 *
 * Memory: nlanes lanes, allocated once; each lane's send buffer is depth
 * x size bytes, registered on its QP's PD (rt_ud_lane_setup). */
#ifndef RDMATEST_UDSEND_H
#define RDMATEST_UDSEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/res.h"

/* Sends in flight per lane that CM applets ask for (rt_ud_tx_depth). */
#define RT_UD_SEND_RING_MAX 128

struct rt_ud_lane {
	struct rt_res *res;   /* the QP; not owned */
	struct rt_error *err; /* where a failed post is recorded */
	struct rt_buf *buf;   /* depth slots of the datagram size */
	struct ibv_ah *ah;    /* the destination, from rt_ud_lane_ready */
	uint32_t qpn, qkey;
	uint32_t sender_id;   /* in every datagram's header */
	uint32_t depth;       /* sends in flight at most */
	bool ready;           /* may post; cleared by a failed post */
	uint64_t posted, completed;
	uint64_t t_done;      /* ns of the count-th completion; 0: not yet */
	void *owner;          /* the caller's, e.g. its connection */
};

struct rt_ud_tx {
	struct rt_ud_lane *lanes;
	size_t nlanes;
	uint64_t count;       /* datagrams per lane */
	size_t size;          /* bytes per datagram */
	long long rate;       /* datagrams per second over all lanes; 0: unpaced */
	uint64_t t0;          /* ns when sending began; 0: not yet */
	uint64_t posted;      /* over all lanes */
	size_t next;          /* the lane the round robin tries next */
	uint32_t id_base;     /* lane i's sender id is id_base + i */
};

/* Sender ids start at a random base, so that senders on different hosts
 * (whose QPNs often agree) differ, and are consecutive per lane, so that
 * "is it ours" is one comparison (rt_ud_tx_own). */
void rt_ud_tx_init(struct rt_ud_tx *s, size_t nlanes, uint64_t count,
		   size_t size, long long rate);
/* The sender id is one of our lanes' (a datagram that came back). */
bool rt_ud_tx_own(const struct rt_ud_tx *s, uint32_t sender_id);
void rt_ud_tx_free(struct rt_ud_tx *s);
/* Send slots for count datagrams: at most max_depth, at least 1. */
uint32_t rt_ud_tx_depth(uint64_t count, uint32_t max_depth);
/* Puts lane i on a QP with depth sends in flight and registers its send
 * buffer there (a failure is recorded in err, which failed posts use
 * too). The lane is not ready until rt_ud_lane_ready. */
int rt_ud_lane_setup(struct rt_ud_tx *s, size_t i, struct rt_res *res,
		     uint32_t depth, struct rt_error *err);
/* The destination is known (a join, a resolved peer): the lane may send. */
void rt_ud_lane_ready(struct rt_ud_lane *l, struct ibv_ah *ah, uint32_t qpn,
		      uint32_t qkey);

/* Datagrams the rate allows elapsed_ns after the start, over all lanes:
 * one at once, then rate per second; UINT64_MAX when unpaced. */
uint64_t rt_ud_tx_allowed(long long rate, uint64_t elapsed_ns);
/* How often (ms) a wait must run the step for the pacing to stay smooth:
 * once per datagram, between 1 and 100 ms; 0 when unpaced (completions
 * wake the wait). */
long long rt_ud_tx_tick_ms(long long rate);
/* Sending begins now: the rate counts from here. */
void rt_ud_tx_start(struct rt_ud_tx *s, uint64_t now);
/* The step: posts what the rate allows at `now`, lane after lane, passing
 * over lanes that are not ready, have sent their count or have depth
 * sends in flight. A failed post is recorded in the lane's err, the lane
 * stops, and it is returned so that the caller fails its owner; NULL
 * when nothing failed. */
struct rt_ud_lane *rt_ud_tx_post_due(struct rt_ud_tx *s, uint64_t now);
/* A successful send completion on lane l. */
void rt_ud_tx_completed(const struct rt_ud_tx *s, struct rt_ud_lane *l,
			uint64_t now);
/* Every lane has its count of send completions. */
bool rt_ud_tx_done(const struct rt_ud_tx *s);
uint64_t rt_ud_tx_completions(const struct rt_ud_tx *s);
/* "4 of 10 send completions", for a wait's progress line. */
void rt_ud_tx_progress(const struct rt_ud_tx *s, char *buf, size_t len);
/* From the start to the last lane's count-th completion; 0 before. */
double rt_ud_tx_seconds(const struct rt_ud_tx *s);

#endif
