/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One round's state at rank 0 (meshrun.h): meshrun.c hears the RESULTs
 * within the round's bound and runs the rounds and the blame pass;
 * meshround.c assigns each wave's tests, loses ranks, and gives itself
 * the results of pairs not (fully) tried. */
#ifndef RDMATEST_MESHROUND_H
#define RDMATEST_MESHROUND_H

#include <stdbool.h>
#include <stdint.h>

#include "mesh/meshrun.h"
#include "mesh/meshseal.h"

/* no pair: a rank that listens in none, or connects in none */
#define RT_MESH_NO_PAIR UINT32_MAX

/* What has come of one pair's RESULT: a rank that sends it a byte at a
 * time must not hold rank 0 in a read past the round's deadline. */
struct inbox {
	/* a RESULT, sealed or not; a HELLO's rails never fit */
	uint8_t buf[RT_MESHMSG_SMALL + RT_MESH_AUTH_TRAILER];
	uint8_t got, need; /* need: the header's length until it is whole */
};

/* One round's state at rank 0. */
struct round {
	uint32_t r, rounds, k;
	uint32_t wave;               /* of the round's waves (crossed rails) */
	const struct rt_pair *pairs; /* a listens, b connects */
	/* per rank: a pair it listens in (an incast or alltoall receiver is
	 * in several: one of them), and its first pair as the connecting
	 * side (an alltoall sender's are in a row), RT_MESH_NO_PAIR: none */
	uint32_t *in_of, *out_of;
	uint8_t *nout, *cur;         /* per rank: its pairs as sender, the one heard now */
	uint16_t *conns;             /* per rank: connections its listen takes
				      * this wave (every pending pair it is a in) */
	uint8_t *done;               /* per pair */
	uint8_t *want, *got;         /* per pair: RESULTs to come (one a rail), come */
	struct inbox *in;            /* per pair */
	uint32_t left;               /* pairs without a result */
};

/* One connection of a pair: a's rail against b's. */
struct duo {
	uint8_t ra, rb;
};

/* Whether rank's connection to rank 0 is still open. */
static inline bool alive(const struct rt_mesh_coord *c, uint32_t rank)
{
	return c->gt->conn[rank].fd >= 0;
}

/* The rank's connection's end when the run authenticates, else NULL:
 * what rt_mesh_send and rt_mesh_recv seal with. */
static inline struct rt_mesh_auth *auth_of(const struct rt_mesh_coord *c, uint32_t rank)
{
	return c->gt->auth ? &c->gt->auth[rank] : NULL;
}

/* Rank is gone for the rest of the run: its connection
 * closed, its key wiped, the aggregate told. */
void rt_mesh_round_lose(struct rt_mesh_coord *c, uint32_t rank);

/* The connections of pair i in this round's wave: *first of them into
 * d (RT_MESH_CLASSES), their count returned (-1: the hosts, in wave 0;
 * 0: none in this wave). */
int rt_mesh_wave_duos(const struct rt_mesh_coord *c, const struct round *rd, uint32_t i,
		      struct duo *d, int *first);
/* The waves pair i needs: its connections, RT_MESH_RAILS_MAX a wave. */
uint32_t rt_mesh_waves_of(const struct rt_mesh_coord *c, const struct round *rd, uint32_t i);
/* Pair i is done: rank 0 records `status` for each of its connections of
 * the wave that did not report. */
int rt_mesh_round_settle(struct rt_mesh_coord *c, struct round *rd, uint32_t i,
			 uint8_t status, struct rt_error *err);
/* Every pending pair that rank connects in is settled with `status`. */
int rt_mesh_round_settle_out(struct rt_mesh_coord *c, struct round *rd, uint32_t rank,
			     uint8_t status, struct rt_error *err);
/* The wave's ASSIGNs to every rank still there; pairs with an end
 * absent or lost are settled without a try. */
int rt_mesh_round_assign(struct rt_mesh_coord *c, struct round *rd, struct rt_error *err);

#endif
