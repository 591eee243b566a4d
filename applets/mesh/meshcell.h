/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A result as the aggregate stores it (meshstore.c says why this form):
 * the storage's own, shared with the modules that work on the stored
 * figures in place (meshmedian.c, meshjudge.c); everyone else reads
 * links decoded through meshagg.h's rt_mesh_links. */
#ifndef RDMATEST_MESHCELL_H
#define RDMATEST_MESHCELL_H

#include <stdint.h>

#include "mesh/hostlist.h"
#include "mesh/meshagg.h"
#include "rdmatest/util.h"

struct rt_mesh_cell {
	uint32_t connect, rtt_p50, rtt_p99; /* rt_mesh_cell_ns's form */
	uint32_t mbps, mbps_rev;            /* a to b, b to a (a < b) */
	/* 0: not tested, else (status + 1) | RT_MESH_HAS_* << 4 */
	uint8_t sf;
	uint8_t why;                        /* RT_LINK_*, after judging */
	uint8_t rail, rail_b;               /* the rails tested: a's and b's */
};

struct rt_mesh_sparse {
	uint32_t pair; /* a << 16 | b, a < b: sorted, it is the (a, b) order */
	uint32_t seq;  /* its round, so that a re-test wins whatever the order
			* the lines came in (mesh report) */
	struct rt_mesh_cell c;
};

_Static_assert(sizeof(struct rt_mesh_cell) == 24, "a stored result is 24 B");
_Static_assert(RT_MESH_STATUS_MAX + 1 < 16 && (RT_MESH_HAS_RTT | RT_MESH_HAS_BW) < 16,
	       "status + 1 and the flags share a byte");
_Static_assert(sizeof(struct rt_mesh_sparse) == 32, "a sparse entry is 32 B");
/* the sparse key holds a rank in 16 bits */
_Static_assert(RT_HOSTLIST_MAX <= 65536u, "ranks fit 16 bits");

/* A cell's status + 1 (0: not tested) and its RT_MESH_HAS_* flags. */
static inline unsigned rt_mesh_cell_state(const struct rt_mesh_cell *c)
{
	return c->sf & 0xfu;
}

static inline unsigned rt_mesh_cell_flags(const struct rt_mesh_cell *c)
{
	return c->sf >> 4;
}

/* A link's class: its two rails, the smaller first (which end is a is
 * only the ranks' order); rail r against itself is r x 33. */
static inline int rt_mesh_class_of(unsigned rail, unsigned rail_b)
{
	return (int)(RT_MIN(rail, rail_b) * RT_MESH_RAILS_MAX + RT_MAX(rail, rail_b));
}

/* A stored time (RTT, connect) back in nanoseconds. */
uint64_t rt_mesh_cell_ns(uint32_t v);
/* Every stored cell, tested or not, in storage order, and cell i. */
uint64_t rt_mesh_cells(const struct rt_mesh_agg *g);
struct rt_mesh_cell *rt_mesh_cell_at(const struct rt_mesh_agg *g, uint64_t i);
/* The walk of rt_mesh_links over the stored cells: the next tested one
 * and its pair, NULL past the last. */
struct rt_mesh_cell *rt_mesh_cell_next(struct rt_mesh_iter *it, uint32_t *a, uint32_t *b);
/* Before judging: the sparse entries by pair and rails, each pair's
 * latest round alone (a re-test wins). */
void rt_mesh_settle(struct rt_mesh_agg *g);
/* Results taken before the size was known (report): a rank outside it,
 * or 0. */
uint32_t rt_mesh_rank_outside(const struct rt_mesh_agg *g);

#endif
