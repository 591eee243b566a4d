/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pairing schedules of a mesh run: which ranks test each other in which
 * round. A round is a set of disjoint pairs (no rank in two pairs), so
 * every rank takes part in at most one test at a time.
 *   ring        (i, i+1 mod n) for every i: n pairs (1 for n = 2) in 2
 *               rounds (3 when n is odd)
 *   tournament  every pair exactly once: n-1 rounds of n/2 pairs for
 *               even n; n rounds of (n-1)/2 with one rank resting (a
 *               bye) in each for odd n (the circle method)
 *   random      one round of n/2 pairs from a seeded shuffle; then
 *               rt_sched_recheck pairs every suspect with a rank that
 *               passed, so a failed pair turns into a bad node or a bad
 *               link
 * With a bound B on concurrent pairs below a round's size, the round is
 * split into ceil(size / B) rounds of at most B pairs; no round is empty.
 * Rounds are computed on demand: memory is O(n) whatever the round count
 * (a tournament of 65536 ranks has over 2 * 10^9 pairs), at most
 * 12 bytes per rank (the shuffle and one round's pairs). */
#ifndef RDMATEST_SCHED_H
#define RDMATEST_SCHED_H

#include <stdint.h>

#include "rdmatest/error.h"

enum rt_sched_kind { RT_SCHED_RING, RT_SCHED_TOURNAMENT, RT_SCHED_RANDOM };

struct rt_pair {
	uint32_t a, b; /* ranks, a != b; a is the one that listens */
};

struct rt_sched {
	enum rt_sched_kind kind;
	uint32_t n;           /* ranks */
	uint32_t bound;       /* concurrent pairs at most (>= 1) */
	uint32_t base_rounds; /* rounds before splitting */
	uint32_t split;       /* rounds each base round becomes (ring: its
			       * short last round is split less) */
	uint32_t rounds;      /* base_rounds * split */
	uint32_t max_pairs;   /* pairs in any round (<= bound): size of out */
	uint32_t *perm;       /* random: the shuffle, n ranks */
	struct rt_pair *base; /* one base round, n/2 pairs (scratch) */
	uint32_t cached;      /* 1 + the base round in base, 0: none */
	uint32_t cached_k;    /* its pairs */
};

/* n ranks (1 to 65536); bound 0 means n/2 (no limit). Bad kind or n:
 * exit 2. */
int rt_sched_init(struct rt_sched *s, enum rt_sched_kind kind, uint32_t n,
		  uint32_t bound, uint64_t seed, struct rt_error *err);
/* The pairs of round r (< s->rounds) into out (room for s->max_pairs);
 * returns their number. Not reentrant: it uses s->base. */
uint32_t rt_sched_round(struct rt_sched *s, uint32_t r, struct rt_pair *out);
void rt_sched_free(struct rt_sched *s);
/* "ring", "tournament", "random" -> kind; -1 for anything else. */
int rt_sched_kind_parse(const char *name);
const char *rt_sched_kind_name(enum rt_sched_kind kind);

/* The second pass: state[i] is 'S' (suspect), 'P' (passed) or anything
 * else (absent, not to be paired). Pairs every suspect once with a passed
 * rank, a passed rank at most once per round and at most bound pairs per
 * round (0: no limit), choosing partners with the seed. out needs room
 * for one pair per suspect; round_of[k] gets the round of out[k]. Returns
 * the number of pairs (suspects left unpaired when no rank passed: 0)
 * and *rounds the number of rounds. */
uint32_t rt_sched_recheck(const char *state, uint32_t n, uint32_t bound,
			  uint64_t seed, struct rt_pair *out,
			  uint32_t *round_of, uint32_t *rounds);

#endif
