/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A run's congestion evidence: what the ports' congestion counters
 * (portctr.h's rt_portctr_congestion: port_xmit_wait, mlx5's CNP and
 * ECN-mark counters, a RoCE netdev's pause frames and discards) counted
 * during the tests, as the RESULTs carried them (meshctr.h: after the
 * judged rises, in the slots they leave).
 * Never judged: a fabric that marks ECN and sends CNPs under incast is
 * doing its job; the operator reads which port saw the most, and how
 * many tests' ports counted any, to find the hot spot (a receiver that
 * pauses its senders, a sender starved by CNPs).
 *
 * For each counter, in the order first seen (at most RT_MESH_CONG_MAX):
 * the one end of one test with the largest rise (its rank, rail, round
 * and the packets its port sent then), the ends that counted any, and
 * the sum. Memory: fixed, inside the aggregate (3 KiB). */
#ifndef RDMATEST_MESHCONG_H
#define RDMATEST_MESHCONG_H

#include <stdbool.h>
#include <stdint.h>

#include "mesh/meshwire.h"

/* congestion counters kept apart: portctr.c's table has 57 (five in
 * sysfs, 52 that RoCE netdevs' drivers list: ethctr.h) */
#define RT_MESH_CONG_MAX 64u

struct rt_mesh_cong_ctr {
	uint8_t id;          /* portctr.h's number */
	uint8_t rail;        /* the top end's rail */
	bool sent_known;     /* the top end's port counted its packets */
	uint32_t rank, round; /* the top end's rank, and its test's round */
	uint64_t delta;      /* the top rise */
	uint64_t sent;       /* packets the top end's port sent in that test */
	uint32_t ends;       /* test ends whose port counted any (saturates) */
	uint64_t total;      /* every rise summed (saturates) */
};

struct rt_mesh_cong {
	struct rt_mesh_cong_ctr c[RT_MESH_CONG_MAX];
	unsigned n;
};

/* The congestion rises of one RESULT (its other rises are ignored). */
void rt_mesh_cong_add(struct rt_mesh_cong *k, const struct rt_mesh_result *r);
/* The top rise per million packets its port sent; -1 when not known. */
double rt_mesh_cong_ppm(const struct rt_mesh_cong_ctr *c);

#endif
