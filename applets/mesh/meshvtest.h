/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One pair's test of the rails that carry no IP address (meshrails.h),
 * over verbs alone: the RDMA CM needs an address to resolve, so an
 * InfiniBand port without IPoIB, or a RoCE port whose address is gone,
 * is reached by its LID or GID instead (vconn.h). The QP attributes
 * travel over TCP between the two ranks' control addresses (oob.h: the
 * connecting side dials the partner's host at its test port), the only
 * network path the two certainly share besides the rail:
 *   set-up   each side opens each such rail's device and port, one RC QP
 *            a rail (InfiniBand: the LID, no GRH; RoCE: the port's first
 *            RoCE v2 GID, its link-local one) and posts a receive
 *   exchange the connecting side sends its connections' records (its
 *            rail, the partner's, LID, GRH, GID, QPN, PSN:
 *            RT_MESH_VREC_LEN bytes each, one a connection), the listener
 *            matches each of its connections with one and answers with
 *            its own; both move
 *            their QPs to RTS, and the listener sends one byte when its
 *            QPs are ready for the pings
 *   pings    rail by rail, the connecting side sends one untimed message
 *            of 8 bytes (its first packet may wait on the neighbour's
 *            resolution, which the RDMA CM does before connecting), reads
 *            the port's counters (both sides do, after that first one),
 *            then `pings` more one at a time and times each echo; the
 *            listener echoes exactly pings + 1
 *   counters each side reads its ports again; the listener sends each
 *            rail's rises (RT_MESH_CTR_MSG_LEN bytes, as the CM test's
 *            final answer) and the connecting side joins them to its own
 * No bandwidth: a result has the connection's set-up time (dial to RTS)
 * and the RTT. Every wait ends by the test's deadline (timeout_ms from
 * the start), whatever the partner does.
 * Memory: a rail's device, queues and two readings of its counters
 * (16 KiB) and one latency histogram (58 KiB); at most
 * RT_MESH_RAILS_MAX rails. */
#ifndef RDMATEST_MESHVTEST_H
#define RDMATEST_MESHVTEST_H

#include "mesh/meshtest.h"

#define RT_MESH_VREC_LEN 32u

/* One side's record of a connection (its rail, the partner's), and its
 * strict reading: -1 with why when a rail is out of range, the GRH flag
 * is not 0 or 1, a QPN or PSN is above 24 bits, or a pad byte is not
 * zero. */
struct rt_mesh_vrec {
	uint8_t rail, peer_rail;
	uint8_t grh;
	uint16_t lid;
	uint32_t qpn, psn;
	uint8_t gid[16];
};
void rt_mesh_vrec_put(const struct rt_mesh_vrec *v, uint8_t *buf);
int rt_mesh_vrec_take(const uint8_t *buf, struct rt_mesh_vrec *v, char *why, size_t why_len);

/* The test of an assignment whose rails all carry no address (a->rails'
 * addr ""), one result a rail into r[0 .. a->nrails). */
void rt_mesh_verbs_test_run(const struct rt_mesh_cm_test *t, const struct rt_mesh_assign *a,
			    struct rt_mesh_result *r);

/* rt_mesh_test_fn for mesh: an assignment's rails with an address go
 * through the RDMA CM (rt_mesh_cm_test_run), then those without one
 * through verbs alone, each result back in its rail's place. ctx is a
 * struct rt_mesh_cm_test. */
void rt_mesh_pair_test_run(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
			   struct rt_mesh_result *r);

#endif
