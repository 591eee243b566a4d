/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pairing schedules of a mesh run: which ranks test each other in which
 * round. A round is a set of disjoint pairs (no rank in two pairs), so
 * every rank takes part in at most one test at a time.
 *   ring        (i, i+1 mod n) for every i: n pairs (1 for n = 2) in 2
 *               rounds (3 when n is odd)
 *   tournament  every pair exactly once: n-1 rounds of n/2 pairs for
 *               even n; n rounds of (n-1)/2 with one rank resting (a
 *               bye) in each for odd n (the circle method)
 *   random      one round of n/2 pairs from a seeded shuffle
 *   budget      (--budget) random perfect matchings, one after another,
 *               matching m from its own shuffle of the seed and m; with an
 *               odd n rank m mod n rests in matching m, so the rank resting
 *               in one is in the next: the first two matchings (the first
 *               for even n) test every rank (cover_rounds). At most
 *               rt_sched_matchings(n) matchings; the coordinator stops
 *               earlier, when the budget is spent
 *   bisection   (--pattern bisection) the budget's random perfect matchings,
 *               all pairs of one at once, each pair's bandwidth in both
 *               directions at once: half the hosts against the other half,
 *               a different half each round; rt_sched_cap bounds the
 *               matchings (--rounds) where no budget does
 *   incast      (--pattern incast --fan-in K) not disjoint pairs: groups
 *               of K senders writing into one receiver at once, G =
 *               floor(n / (K+1)) groups a round, ceil(n / G) rounds; every
 *               rank receives exactly once (a seeded shuffle, G receivers
 *               a round, the last round what is left), its senders drawn
 *               from a shuffle of that round's other ranks, no rank in two
 *               groups of a round. Made by rt_sched_incast; no bound
 *               splits it and rt_sched_cap leaves it whole
 *   alltoall    (--pattern alltoall --fan-in K) not disjoint pairs either:
 *               in each round every rank sends to K ranks and receives
 *               from K at once, rank i to i + d (mod n) for the round's K
 *               offsets d, taken in turn from a seeded shuffle of 1 to
 *               n-1: ceil((n-1) / K) rounds have every rank send to every
 *               other once (rt_sched_cap: fewer, random partners), n K
 *               pairs a round, at most RT_SCHED_ALLTOALL_PAIRS. Made by
 *               rt_sched_alltoall; no bound splits it
 * The blame pass (meshrun.h) is made of rounds of disjoint pairs from
 * rt_sched_disjoint, its partners chosen by rt_sched_blame.
 * With a bound B on concurrent pairs below a round's size, the round is
 * split into ceil(size / B) rounds of at most B pairs; no round is empty.
 * Rounds are computed on demand: memory is O(n) whatever the round count
 * (a tournament of 65536 ranks has over 2 * 10^9 pairs), at most
 * 12 bytes per rank (the shuffle and one round's pairs); incast 8 (the
 * shuffle and one round's senders) plus the caller's out (max_pairs <=
 * n K / (K+1) pairs: under 8 bytes per rank); alltoall 4 (the offsets)
 * plus the caller's out (n K pairs, 8 bytes each: at most 512 KiB).
 * Distinct pairs (rt_pairset, budget runs): one bit per pair, n(n-1)/2
 * bits, for n up to RT_PAIRSET_MAX_N (8,192 hosts: 4 MiB; 4,096 hosts:
 * 1 MiB); not counted above. */
#ifndef RDMATEST_SCHED_H
#define RDMATEST_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmatest/error.h"

enum rt_sched_kind { RT_SCHED_RING, RT_SCHED_TOURNAMENT, RT_SCHED_RANDOM,
		     RT_SCHED_BUDGET, RT_SCHED_BISECTION, RT_SCHED_INCAST, RT_SCHED_ALLTOALL };

/* Matchings a budget schedule of n ranks holds at most: their results
 * stay within 8 Mi (half of meshagg.h's bound, the rest is the blame
 * pass's), at least 2 (every rank once), at most 65536. */
uint32_t rt_sched_matchings(uint32_t n);

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
	uint32_t *perm;       /* random: the shuffle, n ranks; incast: the
			       * shuffle, then room for a round's senders
			       * (2n) */
	struct rt_pair *base; /* one base round, n/2 pairs (scratch) */
	uint32_t cached;      /* 1 + the base round in base, 0: none */
	uint32_t cached_k;    /* its pairs */
	uint64_t seed;
	uint32_t cover_rounds; /* budget: the rounds that test every rank */
	uint32_t fan_in;      /* incast: senders per receiver (K); alltoall:
			       * partners each way (K); 0 else */
};

/* n ranks (1 to 65536); bound 0 means n/2 (no limit). Bad kind or n:
 * exit 2 (RT_SCHED_INCAST too: it needs rt_sched_incast's fan-in). */
int rt_sched_init(struct rt_sched *s, enum rt_sched_kind kind, uint32_t n,
		  uint32_t bound, uint64_t seed, struct rt_error *err);
/* An incast schedule (RT_SCHED_INCAST, see above) of n ranks (2 to
 * 65536), fan_in senders per receiver (1 to n-1); the same (n, fan_in,
 * seed) gives the same rounds on every rank. A round's pairs are
 * (receiver, sender), a group's in a row, groups in receiver order;
 * bound = max_pairs = G K, split 1, cover_rounds = rounds (each round
 * has receivers no other round has). Bad n or fan_in: exit 2. */
int rt_sched_incast(struct rt_sched *s, uint32_t n, uint32_t fan_in,
		    uint64_t seed, struct rt_error *err);
/* Tests an alltoall round holds at most (rank 0 keeps a round's RESULTs
 * in 240 bytes a test: 15 MiB). */
#define RT_SCHED_ALLTOALL_PAIRS 65536u
/* An alltoall schedule (RT_SCHED_ALLTOALL, see above) of n ranks, each
 * sending to fan ranks and receiving from fan at once (1 to n-1, n fan
 * at most RT_SCHED_ALLTOALL_PAIRS); pairs (receiver, sender), each
 * sender's in a row; cover_rounds 1 (round 0 has every rank send and
 * receive). Bad n or fan: exit 2. */
int rt_sched_alltoall(struct rt_sched *s, uint32_t n, uint32_t fan, uint64_t seed,
		      struct rt_error *err);
/* At most `matchings` base rounds (>= 1; the cover rounds stay within
 * them): a bisection's --rounds. An incast keeps all its rounds: each
 * is the one where its receivers receive. */
void rt_sched_cap(struct rt_sched *s, uint32_t matchings);
/* The pairs of round r (< s->rounds) into out (room for s->max_pairs);
 * returns their number. Not reentrant: it uses s->base (incast: the
 * second half of s->perm). */
uint32_t rt_sched_round(struct rt_sched *s, uint32_t r, struct rt_pair *out);
void rt_sched_free(struct rt_sched *s);
/* "ring", "tournament", "random" -> kind; -1 for anything else ("budget"
 * and "bisection" name --budget's and --pattern's matchings, not a
 * --schedule). */
int rt_sched_kind_parse(const char *name);
const char *rt_sched_kind_name(enum rt_sched_kind kind);

/* Puts pairs p[0..k) into rounds of disjoint pairs (no rank twice in a
 * round) of at most bound pairs (0: no limit), first fit in order:
 * round_of[i] gets the round of p[i]; returns the number of rounds. A
 * pair lands after at most 2(D - 1) rounds where an end was busy and
 * floor(k / bound) full ones, so rounds <= 2D - 1 + k / bound, D the most
 * pairs of one rank. Ranks below n; 4 bytes per rank of scratch. */
uint32_t rt_sched_disjoint(const struct rt_pair *p, uint32_t k, uint32_t n,
			   uint32_t bound, uint32_t *round_of);

/* The blame pass's partners: good[i] != 0 for a rank whose links all
 * passed. Every end (ends[0..ne)) gets two distinct good partners (one
 * when only one is left, none when none is), never itself nor a rank
 * avoid(ctx, end, rank) refuses (the other end of its bad link), chosen
 * from the good ranks shuffled with the seed and spread over them (end i
 * starts at the (2i)th, modulo their count, and takes the next ones that
 * fit). out (room for 2 ne) gets (partner, end) pairs, an end's in a
 * row; returns their number. */
typedef bool rt_sched_avoid_fn(const void *ctx, uint32_t end, uint32_t rank);
uint32_t rt_sched_blame(const uint32_t *ends, uint32_t ne, const uint8_t *good,
			uint32_t n, uint64_t seed, rt_sched_avoid_fn *avoid,
			const void *ctx, struct rt_pair *out);

/* Distinct pairs seen (a budget run's coverage): one bit per pair. */
#define RT_PAIRSET_MAX_N 8192u
struct rt_pairset {
	uint32_t n;
	uint64_t *bits;   /* NULL: not counted (n above RT_PAIRSET_MAX_N) */
	uint64_t count;   /* distinct pairs added */
};

/* false (and nothing held) above RT_PAIRSET_MAX_N ranks. */
bool rt_pairset_init(struct rt_pairset *ps, uint32_t n);
/* Adds pair (a, b), either order; true when it was new. */
bool rt_pairset_add(struct rt_pairset *ps, uint32_t a, uint32_t b);
void rt_pairset_free(struct rt_pairset *ps);

#endif
