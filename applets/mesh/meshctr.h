/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A pair test's port counters (portctr.h), from the two readings each end
 * takes of its own port around the test to the rises its RESULT carries
 * (meshwire.h's struct rt_mesh_ctrs), and rank 0's arithmetic on them.
 *
 * What travels: link counters (any rise is an error of the link or the
 * port) and retransmit counters (rt_portctr_retransmit: judged per
 * million packets the two ports sent during the test), and congestion
 * counters (rt_portctr_congestion: CNPs, ECN marks, port_xmit_wait,
 * and a RoCE netdev's pause frames and discards), which rank 0 reports
 * (meshcong.h) and never judges. A RESULT carries at most RT_MESH_CTRS_MAX rises of both ends together: link ones first,
 * then retransmit ones, then congestion ones, the largest first in each;
 * the judged ones left out are counted.
 *
 * A port's counters count everything the port did, not one connection:
 * mesh tests a host in one pair at a time (sched.h), one connection a
 * rail, so a rail's rises are its test's and whatever else ran on the
 * port meanwhile; with --cross-rails a port serves the connections of its
 * wave at once, and each of them reports the same rises. */
#ifndef RDMATEST_MESHCTR_H
#define RDMATEST_MESHCTR_H

#include <stdbool.h>
#include <stdint.h>

#include "mesh/meshwire.h"
#include "rdmatest/portctr.h"

/* What a counter is to mesh (portctr.h's table), in the order a RESULT
 * keeps its rises: a link's error (any rise judged, --max-errors), a
 * retransmit (judged per packet, --max-retrans), congestion (reported,
 * never judged: meshcong.h), or none of these: it does not travel. */
enum rt_mesh_ctr_kind {
	RT_MESH_CTR_LINK, RT_MESH_CTR_RETRANSMIT, RT_MESH_CTR_CONGESTION, RT_MESH_CTR_NONE,
};
/* The kind of the counter named `name` (NULL: none). */
enum rt_mesh_ctr_kind rt_mesh_ctr_kind(const char *name);
/* The kind of counter number `id` (rt_portctr_id's; past the table: none). */
enum rt_mesh_ctr_kind rt_mesh_ctr_id_kind(unsigned id);

/* One reading of a test's port: its sysfs counters and, on RoCE, its
 * netdev's pause and discard counters (ethctr.h); false when it has
 * none. */
bool rt_mesh_ctr_read(const char *sysfs, const char *dev, unsigned port,
		      struct rt_portctrs *out);
/* The judged counters of one port that rose from `before` to `after`, at
 * end `end`, and its packets sent, into out (which holds one end). */
void rt_mesh_ctr_rises(const struct rt_portctrs *before, const struct rt_portctrs *after,
		       enum rt_mesh_end end, struct rt_mesh_ctrs *out);
/* Both ends' rises into one block: link counters first, then
 * retransmit, then congestion ones, the largest first in each, at most
 * RT_MESH_CTRS_MAX, the judged ones of the rest counted in more; then in
 * (end, id) order, as the wire wants them. */
void rt_mesh_ctr_join(const struct rt_mesh_ctrs *a, const struct rt_mesh_ctrs *b,
		      struct rt_mesh_ctrs *out);

/* in's judged rises alone (link and retransmit counters, in their
 * order), its packets sent and more as they are: what a link keeps. */
void rt_mesh_ctr_judged(const struct rt_mesh_ctrs *in, struct rt_mesh_ctrs *out);

/* Packets the link's two ports sent (the known ends'); 0 when neither
 * end's is known. Saturates. */
uint64_t rt_mesh_ctr_sent(const struct rt_mesh_ctrs *c);
/* Whether `rise` events in `sent` packets are more than `ppm` per million
 * (exact, without overflow); false when sent is 0: no rate. */
bool rt_mesh_ctr_above_ppm(uint64_t rise, uint64_t sent, uint64_t ppm);
/* The rate for the text: rise per million of sent (0 when sent is 0). */
double rt_mesh_ctr_ppm(uint64_t rise, uint64_t sent);

#endif
