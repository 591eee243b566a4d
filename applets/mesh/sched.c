/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pairing schedules (sched.h). */
#include <string.h>
#include <stdlib.h>

#include "mesh/sched.h"
#include "rdmatest/util.h"

#define SCHED_MAX 65536u /* ranks, as RT_HOSTLIST_MAX */

/* xorshift64*: the same shuffle for the same seed on every rank. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

static void shuffle(uint32_t *v, uint32_t n, uint64_t seed)
{
	uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;

	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(next_rand(&x) % i);
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

static uint32_t ring_base_rounds(uint32_t n)
{
	return n < 2 ? 0 : n == 2 ? 1 : n % 2 ? 3 : 2;
}

/* Pairs in ring round b (ring_round below); the last one, alone for odd
 * n, needs no splitting. */
static uint32_t ring_round_size(uint32_t n, uint32_t b)
{
	return b == 2 || n == 2 ? 1 : b == 0 ? n / 2 : n % 2 ? (n - 1) / 2 : n / 2;
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

/* Round 0: (0,1),(2,3)...; round 1: (1,2),(3,4)... and, for even n, the
 * closing (n-1,0); round 2 (odd n only): the closing pair alone. */
static uint32_t ring_round(uint32_t n, uint32_t r, struct rt_pair *out)
{
	uint32_t k = 0;

	if (r == 2 || (r == 1 && n == 2))
		return r == 2 ? (out[0] = (struct rt_pair){n - 1, 0}, 1) : 0;
	for (uint32_t i = r; i + 1 < n; i += 2)
		out[k++] = (struct rt_pair){i, i + 1};
	if (r == 1 && n % 2 == 0 && n > 2)
		out[k++] = (struct rt_pair){n - 1, 0};
	return k;
}

/* The circle method on m = n rounded up to even: rank m-1 stays put,
 * the others turn; a pair with the phantom rank n (odd n) is a bye. */
static uint32_t tournament_round(uint32_t n, uint32_t r, struct rt_pair *out)
{
	uint32_t m = n + n % 2, k = 0, c = m - 1;

	if (n % 2 == 0)
		out[k++] = (struct rt_pair){r, m - 1};
	for (uint32_t i = 1; i < m / 2; i++)
		out[k++] = (struct rt_pair){(r + i) % c, (r + c - i) % c};
	return k;
}

static uint32_t random_round(const struct rt_sched *s, struct rt_pair *out)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i + 1 < s->n; i += 2)
		out[k++] = (struct rt_pair){s->perm[i], s->perm[i + 1]};
	return k;
}

/* Matching m of a budget schedule: every rank but the resting one (m mod
 * n, odd n only) shuffled with a seed of its own, paired in order. */
static uint32_t matching_round(struct rt_sched *s, uint32_t m, struct rt_pair *out)
{
	uint32_t rest = s->n % 2 ? m % s->n : s->n, k = 0;
	uint64_t x = s->seed ^ ((uint64_t)(m + 1) * 0x9e3779b97f4a7c15ull);

	for (uint32_t i = 0; i < s->n; i++)
		if (i != rest)
			s->perm[k++] = i;
	shuffle(s->perm, k, x ? x : 1);
	for (uint32_t i = 0; i + 1 < k; i += 2)
		out[i / 2] = (struct rt_pair){s->perm[i], s->perm[i + 1]};
	return k / 2;
}

/* Incast round r: receivers perm[r G, r G + g), g = G but for a short
 * last round; the other n - g ranks (a cyclic window of perm, from the
 * one after the receivers) shuffled with a seed of the round's own so
 * that a host's group and receiver change from round to round; receiver
 * i takes the i-th K of them. g (K+1) <= G (K+1) <= n: always enough. */
static uint32_t incast_round(struct rt_sched *s, uint32_t r, struct rt_pair *out)
{
	uint32_t n = s->n, groups = s->max_pairs / s->fan_in, from = r * groups;
	uint32_t g = RT_MIN(groups, n - from), m = n - g, *snd = s->perm + n, k = 0;
	uint64_t x = s->seed ^ ((uint64_t)(r + 1) * 0xbf58476d1ce4e5b9ull);

	for (uint32_t i = 0; i < m; i++)
		snd[i] = s->perm[(from + g + i) % n];
	shuffle(snd, m, x ? x : 1);
	for (uint32_t i = 0; i < g; i++)
		for (uint32_t j = 0; j < s->fan_in; j++, k++)
			out[k] = (struct rt_pair){s->perm[from + i], snd[k]};
	return k;
}

uint32_t rt_sched_matchings(uint32_t n)
{
	uint32_t m = n < 4 ? 65536u : (8u << 20) / (n / 2);

	return RT_MAX(RT_MIN(m, 65536u), 2u);
}

int rt_sched_init(struct rt_sched *s, enum rt_sched_kind kind, uint32_t n,
		  uint32_t bound, uint64_t seed, struct rt_error *err)
{
	uint32_t half = n / 2;

	memset(s, 0, sizeof(*s));
	if (n == 0 || n > SCHED_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "a schedule for %u ranks: want 1 to %u",
			       n, SCHED_MAX);
	s->kind = kind;
	s->n = n;
	s->seed = seed;
	switch (kind) {
	case RT_SCHED_RING:
		s->base_rounds = ring_base_rounds(n);
		break;
	case RT_SCHED_TOURNAMENT:
		s->base_rounds = n < 2 ? 0 : n - 1 + n % 2;
		break;
	case RT_SCHED_BUDGET:
	case RT_SCHED_BISECTION:
		s->base_rounds = n < 2 ? 0 : rt_sched_matchings(n);
		s->perm = rt_xmalloc(n * sizeof(*s->perm));
		break;
	case RT_SCHED_RANDOM:
		s->base_rounds = n < 2 ? 0 : 1;
		s->perm = rt_xmalloc(n * sizeof(*s->perm));
		for (uint32_t i = 0; i < n; i++)
			s->perm[i] = i;
		shuffle(s->perm, n, seed);
		break;
	case RT_SCHED_INCAST: /* its fan-in comes with rt_sched_incast */
	default:
		return rt_fail(err, RT_EXIT_USAGE, "unknown pairing schedule %d", (int)kind);
	}
	s->bound = bound && bound < half ? bound : RT_MAX(half, 1u);
	s->split = div_up(RT_MAX(half, 1u), s->bound);
	s->rounds = s->base_rounds * s->split;
	if (kind == RT_SCHED_RING) {
		s->rounds = 0;
		for (uint32_t b = 0; b < s->base_rounds; b++)
			s->rounds += div_up(ring_round_size(n, b), s->bound);
	}
	s->max_pairs = RT_MIN(s->bound, RT_MAX(half, 1u));
	s->cover_rounds = (kind != RT_SCHED_BUDGET && kind != RT_SCHED_BISECTION) || n < 2 ?
			  s->rounds : (n % 2 && n > 2 ? 2 : 1) * s->split;
	s->base = rt_xmalloc(RT_MAX(half, 1u) * sizeof(*s->base));
	return 0;
}

/* A fan-in pattern's ranks (2 to SCHED_MAX) and fan-in (1 to n - 1),
 * each named when out of range: exit 2. */
static int fan_ok(const char *what, uint32_t n, uint32_t fan, struct rt_error *err)
{
	if (n < 2 || n > SCHED_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "an %s schedule for %u ranks: want 2 to %u",
			       what, n, SCHED_MAX);
	if (fan < 1 || fan > n - 1)
		return rt_fail(err, RT_EXIT_USAGE, "--fan-in %u for %u ranks: want 1 to %u",
			       fan, n, n - 1);
	return 0;
}

int rt_sched_incast(struct rt_sched *s, uint32_t n, uint32_t fan_in,
		    uint64_t seed, struct rt_error *err)
{
	uint32_t groups;

	memset(s, 0, sizeof(*s));
	if (fan_ok("incast", n, fan_in, err))
		return -1;
	groups = n / (fan_in + 1); /* >= 1: fan_in + 1 <= n */
	*s = (struct rt_sched){.kind = RT_SCHED_INCAST, .n = n, .seed = seed,
			       .fan_in = fan_in, .split = 1,
			       .base_rounds = div_up(n, groups)};
	s->rounds = s->cover_rounds = s->base_rounds;
	s->bound = s->max_pairs = groups * fan_in;
	s->perm = rt_xmalloc(2 * (size_t)n * sizeof(*s->perm));
	for (uint32_t i = 0; i < n; i++)
		s->perm[i] = i;
	shuffle(s->perm, n, seed);
	return 0;
}

/* Alltoall round r: every rank i sends to rank i + d for each offset d
 * of the round (the shuffled offsets rK to rK + K - 1, so that a capped
 * run meets random partners), each rank's pairs in a row. */
static uint32_t alltoall_round(const struct rt_sched *s, uint32_t r, struct rt_pair *out)
{
	uint32_t from = r * s->fan_in, to = RT_MIN(from + s->fan_in, s->n - 1), k = 0;

	for (uint32_t i = 0; i < s->n; i++)
		for (uint32_t j = from; j < to; j++)
			out[k++] = (struct rt_pair){ .a = (i + s->perm[j]) % s->n, .b = i };
	return k;
}

int rt_sched_alltoall(struct rt_sched *s, uint32_t n, uint32_t fan, uint64_t seed,
		      struct rt_error *err)
{
	memset(s, 0, sizeof(*s));
	if (fan_ok("alltoall", n, fan, err))
		return -1;
	if ((uint64_t)n * fan > RT_SCHED_ALLTOALL_PAIRS)
		return rt_fail(err, RT_EXIT_USAGE, "--fan-in %u with %u ranks is %llu tests a "
			       "round, above %u: a smaller --fan-in", fan, n,
			       (unsigned long long)n * fan, RT_SCHED_ALLTOALL_PAIRS);
	*s = (struct rt_sched){.kind = RT_SCHED_ALLTOALL, .n = n, .seed = seed, .fan_in = fan,
			       .split = 1, .base_rounds = div_up(n - 1, fan), .cover_rounds = 1};
	s->rounds = s->base_rounds;
	s->bound = s->max_pairs = n * fan;
	s->perm = rt_xmalloc((size_t)(n - 1) * sizeof(*s->perm));
	for (uint32_t i = 0; i + 1 < n; i++)
		s->perm[i] = i + 1;
	shuffle(s->perm, n - 1, seed);
	return 0;
}

void rt_sched_cap(struct rt_sched *s, uint32_t matchings)
{
	uint32_t m = RT_MAX(matchings, 1u);

	/* an incast's every round is some ranks' only one as receiver */
	if (s->kind == RT_SCHED_RING || s->kind == RT_SCHED_INCAST || s->base_rounds <= m)
		return;
	s->base_rounds = m;
	s->rounds = m * s->split;
	s->cover_rounds = RT_MIN(s->cover_rounds, s->rounds);
}

uint32_t rt_sched_round(struct rt_sched *s, uint32_t r, struct rt_pair *out)
{
	uint32_t b, part, k, from;

	if (r >= s->rounds)
		return 0;
	if (s->kind == RT_SCHED_INCAST) /* never split: straight into out */
		return incast_round(s, r, out);
	if (s->kind == RT_SCHED_ALLTOALL)
		return alltoall_round(s, r, out);
	b = r / s->split;
	part = r % s->split;
	if (s->kind == RT_SCHED_RING) /* rounds of unequal size */
		for (b = 0, part = r; part >= div_up(ring_round_size(s->n, b), s->bound); b++)
			part -= div_up(ring_round_size(s->n, b), s->bound);
	k = s->cached == b + 1 ? s->cached_k :
	    s->kind == RT_SCHED_RING ? ring_round(s->n, b, s->base) :
	    s->kind == RT_SCHED_TOURNAMENT ? tournament_round(s->n, b, s->base) :
	    s->kind == RT_SCHED_BUDGET || s->kind == RT_SCHED_BISECTION ?
	    matching_round(s, b, s->base) :
	    random_round(s, s->base);
	/* the parts of one base round come in a row: compute it once */
	s->cached = b + 1;
	s->cached_k = k;
	from = part * s->bound;
	if (from >= k)
		return 0;
	k = RT_MIN(k - from, s->bound);
	memcpy(out, s->base + from, k * sizeof(*out));
	return k;
}

void rt_sched_free(struct rt_sched *s)
{
	free(s->perm);
	free(s->base);
	memset(s, 0, sizeof(*s));
}

static const char *const kind_names[] = {"ring", "tournament", "random", "budget",
					 "bisection", "incast", "alltoall"};

int rt_sched_kind_parse(const char *name)
{
	for (size_t i = 0; i < RT_SCHED_BUDGET; i++)
		if (!strcmp(name, kind_names[i]))
			return (int)i;
	return -1;
}

const char *rt_sched_kind_name(enum rt_sched_kind kind)
{
	return (size_t)kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : "?";
}

uint32_t rt_sched_disjoint(const struct rt_pair *p, uint32_t k, uint32_t n,
			   uint32_t bound, uint32_t *round_of)
{
	uint32_t *busy = rt_xcalloc(RT_MAX(n, 1u), sizeof(*busy)); /* round + 1 */
	uint32_t left = k, rounds = 0;

	for (uint32_t i = 0; i < k; i++)
		round_of[i] = UINT32_MAX;
	while (left) {
		uint32_t in = 0;

		for (uint32_t i = 0; i < k && (!bound || in < bound); i++) {
			if (round_of[i] != UINT32_MAX || busy[p[i].a] == rounds + 1 ||
			    busy[p[i].b] == rounds + 1)
				continue;
			busy[p[i].a] = busy[p[i].b] = rounds + 1;
			round_of[i] = rounds;
			in++;
		}
		left -= in;
		rounds++;
	}
	free(busy);
	return rounds;
}

uint32_t rt_sched_blame(const uint32_t *ends, uint32_t ne, const uint8_t *good,
			uint32_t n, uint64_t seed, rt_sched_avoid_fn *avoid,
			const void *ctx, struct rt_pair *out)
{
	uint32_t *g = rt_xmalloc(RT_MAX(n, 1u) * sizeof(*g)), ng = 0, k = 0;

	for (uint32_t i = 0; i < n; i++)
		if (good[i])
			g[ng++] = i;
	shuffle(g, ng, seed);
	for (uint32_t e = 0; e < ne; e++) {
		uint32_t got = 0;

		for (uint32_t t = 0; t < ng && got < 2; t++) {
			uint32_t p = g[(2 * (uint64_t)e + t) % ng];

			if (p == ends[e] || (avoid && avoid(ctx, ends[e], p)))
				continue;
			out[k++] = (struct rt_pair){p, ends[e]};
			got++;
		}
	}
	free(g);
	return k;
}

static uint64_t pair_bit(uint32_t n, uint32_t a, uint32_t b)
{
	return (uint64_t)a * (2ull * n - a - 1) / 2 + (b - a - 1);
}

bool rt_pairset_init(struct rt_pairset *ps, uint32_t n)
{
	uint64_t bits = (uint64_t)n * (n ? n - 1 : 0) / 2;

	*ps = (struct rt_pairset){.n = n};
	if (n > RT_PAIRSET_MAX_N)
		return false;
	ps->bits = rt_xcalloc((size_t)(bits / 64 + 1), sizeof(*ps->bits));
	return true;
}

bool rt_pairset_add(struct rt_pairset *ps, uint32_t a, uint32_t b)
{
	uint32_t lo = RT_MIN(a, b), hi = RT_MAX(a, b);
	uint64_t i, m;

	if (!ps->bits || lo == hi || hi >= ps->n)
		return false;
	i = pair_bit(ps->n, lo, hi);
	m = 1ull << (i % 64);
	if (ps->bits[i / 64] & m)
		return false;
	ps->bits[i / 64] |= m;
	ps->count++;
	return true;
}

void rt_pairset_free(struct rt_pairset *ps)
{
	free(ps->bits);
	*ps = (struct rt_pairset){0};
}
