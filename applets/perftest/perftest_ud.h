/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The UC and UD transports of the ib_* tests (-c) and the rate limiter
 * (--rate_limit and its options), as perftest has them
 * (src/perftest_parameters.c, src/perftest_resources.c):
 *
 *   UC  send and write tests; the QPs connect as RC's do, without the
 *       acknowledgement attributes; a lost message is not resent.
 *   UD  send tests; a message is at most the MTU (a larger -s is lowered
 *       to it; -a stops there); each receive has 40 more bytes in front
 *       for the GRH; a sender reaches the peer's QP through an address
 *       handle built from its exchanged LID/GID, with its QPN and Q_Key
 *       0x11111111. The key records are the RC ones, unchanged, so
 *       perftest 4.5 and 25.01 interoperate both ways.
 *   With UC and UD, -r left at 512 becomes -n (at most 16000) outside -D,
 *   so that every receive is posted before the run.
 *   -g (UD multicast) takes perftest's rules (send tests, one QP, one
 *   direction, no -R or -z) and then exits 3: a QP attached to a group by
 *   ibv_attach_mcast, with no IP multicast join, receives nothing on
 *   RoCE (perftest -g hangs on Soft-RoCE for that reason).
 *
 *   The software rate limiter paces the sending side: bursts of
 *   --burst_size messages (default -t), each burst starting one gap after
 *   the previous one's start, the gap being burst / rate; a late burst
 *   starts at once, so the average holds the rate. The device's limit
 *   (HW) is the QP's packet pacing (ibv_modify_qp_rate_limit): exit 3
 *   naming it on a device without it; asked for implicitly (no
 *   --rate_limit_type) it falls back to software pacing, as perftest.
 *
 * Memory: one address handle per QP on the sending sides of UD. */
#ifndef RDMATEST_PERFTEST_UD_H
#define RDMATEST_PERFTEST_UD_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "perftest/perftest_conn.h"

/* After the handshake: a UD message size above the agreed MTU is lowered
 * to it (perftest's "Max msg size in UD is MTU"; printed with -a). */
void rt_pt_ud_clip(struct rt_pt_conn *c, struct rt_pt_params *p);
/* Bytes in front of a receive (the GRH of UD), 0 otherwise. */
uint32_t rt_pt_ud_grh(const struct rt_pt_conn *c);
/* After the QPs are up: UD sending sides make their address handles;
 * HW rate limiting is applied (or refused, exit 3, or replaced by SW). */
int rt_pt_ud_up(struct rt_pt_conn *c, bool sends);
/* A UD send's destination (nothing for RC and UC). */
void rt_pt_ud_wr(const struct rt_pt_conn *c, unsigned qp, struct ibv_send_wr *w);
void rt_pt_ud_destroy(struct rt_pt_conn *c);

/* ---- the software rate limiter ------------------------------------------ */

struct rt_pt_pacer {
	bool on;
	uint64_t gap_ns;     /* between burst starts */
	uint64_t next_ns;    /* the next burst's start */
	unsigned burst, left; /* messages per burst, left in this one */
};

/* For messages of `size` bytes starting at now_ns (off unless SW). */
void rt_pt_pacer_init(struct rt_pt_pacer *pc, const struct rt_pt_conn *c,
		      uint64_t size, uint64_t now_ns);
/* Whether a post of n messages may go now (starting a burst when its
 * time has come); rt_pt_pacer_sent counts them. */
bool rt_pt_pacer_may(struct rt_pt_pacer *pc, uint64_t now_ns);
void rt_pt_pacer_sent(struct rt_pt_pacer *pc, unsigned n);
/* Whether the pacer holds the next post back now; rt_pt_pacer_nap
 * sleeps while it does, at most RT_PT_PACER_NAP_NS at a time (a pacing
 * sender that spins takes the CPU that Soft-RoCE's own sending needs in
 * a one-CPU guest; the bursts' schedule is absolute, so a late wake-up
 * costs no rate). */
#define RT_PT_PACER_NAP_NS 200000u
bool rt_pt_pacer_holds(const struct rt_pt_pacer *pc, uint64_t now_ns);
void rt_pt_pacer_nap(const struct rt_pt_pacer *pc, uint64_t now_ns);
/* The pacing rate in messages per second (perftest's conversion). */
double rt_pt_rate_pps(double rate, enum rt_pt_rate_unit u, uint64_t size);

#endif
