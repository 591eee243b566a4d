/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/sched.h"
#include "rdmatest/util.h"

/* Walks every round of a schedule and checks what holds for each kind:
 * ranks in range, no rank twice in a round, at most bound pairs per
 * round. counts[a * n + b] (a < b) gets how often each pair ran. */
static uint32_t walk(struct rt_sched *s, uint32_t bound, uint8_t *counts)
{
	struct rt_pair *out = rt_xmalloc(RT_MAX(s->max_pairs, 1u) * sizeof(*out));
	uint32_t *seen = rt_xcalloc(s->n, sizeof(*seen)), total = 0;

	for (uint32_t r = 0; r < s->rounds; r++) {
		uint32_t k = rt_sched_round(s, r, out);

		assert_true(k >= 1);
		assert_true(k <= s->max_pairs);
		if (bound)
			assert_true(k <= bound);
		for (uint32_t i = 0; i < k; i++) {
			uint32_t a = RT_MIN(out[i].a, out[i].b), b = RT_MAX(out[i].a, out[i].b);

			assert_true(a != b && b < s->n);
			assert_true(seen[a] != r + 1 && seen[b] != r + 1);
			seen[a] = seen[b] = r + 1;
			counts[(size_t)a * s->n + b]++;
		}
		total += k;
	}
	assert_int_equal(rt_sched_round(s, s->rounds, out), 0);
	free(out);
	free(seen);
	return total;
}

static void tournament_every_pair_once(void **state)
{
	static const uint32_t bounds[] = {0, 1, 2, 3, 7, 1000};

	(void)state;
	for (uint32_t n = 1; n <= 70; n++) {
		for (size_t bi = 0; bi < ARRAY_SIZE(bounds); bi++) {
			uint32_t bound = bounds[bi], half = n / 2;
			uint32_t eff = bound && bound < half ? bound : half;
			uint8_t *counts = rt_xcalloc((size_t)n * n, 1);
			struct rt_sched s;
			struct rt_error err = {0};

			assert_int_equal(rt_sched_init(&s, RT_SCHED_TOURNAMENT, n, bound, 1, &err), 0);
			assert_int_equal(walk(&s, bound, counts), n * (n - 1) / 2);
			/* n-1 rounds (n with a bye for odd n), each split by the bound */
			assert_int_equal(s.rounds, n < 2 ? 0 :
					 (n - 1 + n % 2) * ((half + eff - 1) / eff));
			for (uint32_t a = 0; a < n; a++)
				for (uint32_t b = a + 1; b < n; b++)
					assert_int_equal(counts[a * n + b], 1);
			free(counts);
			rt_sched_free(&s);
		}
	}
}

/* Without a bound, an even tournament runs n/2 pairs in every round. */
static void tournament_full_rounds(void **state)
{
	struct rt_pair out[32];
	struct rt_sched s;
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_sched_init(&s, RT_SCHED_TOURNAMENT, 64, 0, 0, &err), 0);
	assert_int_equal(s.rounds, 63);
	for (uint32_t r = 0; r < s.rounds; r++)
		assert_int_equal(rt_sched_round(&s, r, out), 32);
	rt_sched_free(&s);
}

static void ring_neighbours(void **state)
{
	(void)state;
	for (uint32_t n = 2; n <= 70; n++) {
		for (uint32_t bound = 0; bound <= 3; bound++) {
			uint8_t *counts = rt_xcalloc((size_t)n * n, 1);
			struct rt_sched s;
			struct rt_error err = {0};

			assert_int_equal(rt_sched_init(&s, RT_SCHED_RING, n, bound, 0, &err), 0);
			assert_int_equal(walk(&s, bound, counts), n == 2 ? 1 : n);
			for (uint32_t i = 0; i < n; i++) {
				uint32_t j = (i + 1) % n;

				assert_int_equal(counts[RT_MIN(i, j) * n + RT_MAX(i, j)], 1);
			}
			if (!bound)
				assert_int_equal(s.rounds, n == 2 ? 1 : n % 2 ? 3 : 2);
			free(counts);
			rt_sched_free(&s);
		}
	}
}

static void random_pairs_each_once(void **state)
{
	(void)state;
	for (uint32_t n = 2; n <= 70; n++) {
		uint8_t *counts = rt_xcalloc((size_t)n * n, 1);
		uint32_t *deg = rt_xcalloc(n, sizeof(*deg));
		struct rt_sched s, t;
		struct rt_pair p1[40], p2[40];
		struct rt_error err = {0};

		assert_int_equal(rt_sched_init(&s, RT_SCHED_RANDOM, n, 0, n * 77, &err), 0);
		assert_int_equal(walk(&s, 0, counts), n / 2);
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = a + 1; b < n; b++) {
				deg[a] += counts[a * n + b];
				deg[b] += counts[a * n + b];
			}
		for (uint32_t i = 0, idle = 0; i < n; i++) {
			assert_true(deg[i] <= 1);
			idle += !deg[i];
			assert_true(idle <= n % 2);
		}
		/* same seed, same pairs: every rank computes the same round */
		assert_int_equal(rt_sched_init(&t, RT_SCHED_RANDOM, n, 0, n * 77, &err), 0);
		assert_int_equal(rt_sched_round(&s, 0, p1), rt_sched_round(&t, 0, p2));
		assert_memory_equal(p1, p2, n / 2 * sizeof(*p1));
		rt_sched_free(&t);
		rt_sched_free(&s);
		free(deg);
		free(counts);
	}
}

/* Budget matchings: every round disjoint (walk), every rank tested by
 * the cover rounds, the resting rank of an odd count in the next
 * matching, the same seed the same pairs, distinct pairs counted. */
static void budget_covers_every_rank(void **state)
{
	(void)state;
	for (uint32_t n = 2; n <= 41; n++) {
		for (uint32_t bound = 0; bound <= 3; bound += 3) {
			struct rt_sched s, t;
			struct rt_error err = {0};
			struct rt_pair out[32], out2[32];
			uint32_t *seen = rt_xcalloc(n, sizeof(*seen)), rest = UINT32_MAX;

			assert_int_equal(rt_sched_init(&s, RT_SCHED_BUDGET, n, bound, 42, &err), 0);
			assert_int_equal(rt_sched_init(&t, RT_SCHED_BUDGET, n, bound, 42, &err), 0);
			assert_int_equal(s.base_rounds, rt_sched_matchings(n));
			assert_int_equal(s.cover_rounds, (n % 2 && n > 2 ? 2 : 1) * s.split);
			for (uint32_t r = 0; r < s.cover_rounds; r++) {
				uint32_t k = rt_sched_round(&s, r, out);

				assert_int_equal(rt_sched_round(&t, r, out2), k);
				assert_memory_equal(out, out2, k * sizeof(*out));
				for (uint32_t i = 0; i < k; i++)
					seen[out[i].a] = seen[out[i].b] = 1;
			}
			for (uint32_t i = 0; i < n; i++)
				assert_int_equal(seen[i], 1);
			/* 40 matchings: the rank resting in one plays in the next */
			for (uint32_t m = 0; m < 40 && n % 2; m++) {
				uint32_t in[64] = {0}, now = UINT32_MAX;

				for (uint32_t part = 0; part < s.split; part++) {
					uint32_t k = rt_sched_round(&s, m * s.split + part, out);

					for (uint32_t i = 0; i < k; i++)
						in[out[i].a] = in[out[i].b] = 1;
				}
				for (uint32_t i = 0; i < n; i++)
					if (!in[i]) {
						assert_int_equal(now, UINT32_MAX);
						now = i;
					}
				assert_int_not_equal(now, rest);
				rest = now;
			}
			free(seen);
			rt_sched_free(&t);
			rt_sched_free(&s);
		}
	}
}

/* Whole walks of budget schedules stay disjoint; the pair set counts
 * each pair once, against a plain table. */
static void budget_distinct_pairs(void **state)
{
	static const uint32_t sizes[] = {2, 3, 8, 17};

	(void)state;
	for (size_t si = 0; si < ARRAY_SIZE(sizes); si++) {
		uint32_t n = sizes[si], distinct = 0;
		uint8_t *counts = rt_xcalloc((size_t)n * n, 1);
		struct rt_pairset ps;
		struct rt_sched s;
		struct rt_error err = {0};
		struct rt_pair out[16];

		assert_int_equal(rt_sched_init(&s, RT_SCHED_BUDGET, n, 0, 9, &err), 0);
		assert_true(rt_pairset_init(&ps, n));
		for (uint32_t r = 0; r < 60; r++) {
			uint32_t k = rt_sched_round(&s, r, out);

			for (uint32_t i = 0; i < k; i++) {
				uint32_t a = RT_MIN(out[i].a, out[i].b), b = RT_MAX(out[i].a, out[i].b);

				assert_int_equal(rt_pairset_add(&ps, a, b), counts[a * n + b] == 0);
				distinct += counts[a * n + b]++ == 0;
			}
		}
		assert_int_equal(ps.count, distinct);
		/* 60 random matchings of up to 17 ranks cover most pairs */
		assert_true(distinct * 2 > n * (n - 1) / 2);
		assert_false(rt_pairset_add(&ps, 1, 1));
		rt_pairset_free(&ps);
		rt_sched_free(&s);
		free(counts);
	}
}

/* The pair set's bound: 1 MiB at 4,096 ranks, none above 8,192. */
/* A bisection: the cap leaves that many matchings, each a perfect one
 * (every rank once, the odd one out resting), all of its pairs in one
 * round when nothing bounds them, and the matchings differ. */
static void bisection_matchings(void **state)
{
	(void)state;
	for (uint32_t n = 2; n <= 17; n++) {
		struct rt_sched s;
		struct rt_error err = {0};
		struct rt_pair out[16], first[16];
		uint32_t k0 = 0;
		bool differ = false;

		assert_int_equal(rt_sched_init(&s, RT_SCHED_BISECTION, n, 0, 7, &err), 0);
		rt_sched_cap(&s, 3);
		assert_int_equal(s.base_rounds, 3);
		assert_int_equal(s.split, 1);
		assert_int_equal(s.rounds, 3);
		assert_true(s.cover_rounds <= s.rounds);
		assert_string_equal(rt_sched_kind_name(s.kind), "bisection");
		for (uint32_t r = 0; r < s.rounds; r++) {
			uint8_t in[17] = {0};
			uint32_t k = rt_sched_round(&s, r, out);

			assert_int_equal(k, n / 2);
			for (uint32_t i = 0; i < k; i++) {
				assert_int_equal(in[out[i].a]++, 0);
				assert_int_equal(in[out[i].b]++, 0);
			}
			if (r == 0) {
				memcpy(first, out, k * sizeof(*out));
				k0 = k;
			} else if (memcmp(first, out, k0 * sizeof(*out))) {
				differ = true;
			}
		}
		assert_true(differ || n <= 3); /* 2 and 3 ranks have one matching */
		rt_sched_cap(&s, 100); /* a cap above what is left changes nothing */
		assert_int_equal(s.rounds, 3);
		rt_sched_free(&s);
	}
	/* "bisection" is not a --schedule */
	assert_int_equal(rt_sched_kind_parse("bisection"), -1);
}

/* Walks every round of an incast schedule of n ranks and fan-in k:
 * G = n / (k+1) groups of k senders a round (what is left in the last),
 * a group's pairs in a row with the receiver as a, no rank both receiver
 * and sender or in two groups of a round, every rank a receiver exactly
 * once. Returns the pairs, all rounds' in a row (the caller frees them). */
static struct rt_pair *incast_walk(struct rt_sched *s, uint32_t n, uint32_t k)
{
	uint32_t groups = n / (k + 1), rounds = (n + groups - 1) / groups;
	uint32_t *rx = rt_xcalloc(n, sizeof(*rx)), *tx = rt_xcalloc(n, sizeof(*tx));
	uint32_t *received = rt_xcalloc(n, sizeof(*received)), total = 0;
	/* zeroed: a short last round leaves the tail unwritten */
	struct rt_pair *all = rt_xcalloc((size_t)rounds * groups * k, sizeof(*all));

	assert_int_equal(s->kind, RT_SCHED_INCAST);
	assert_int_equal(s->fan_in, k);
	assert_int_equal(s->rounds, rounds);
	assert_int_equal(s->base_rounds, rounds);
	assert_int_equal(s->cover_rounds, rounds);
	assert_int_equal(s->split, 1);
	assert_int_equal(s->max_pairs, groups * k);
	assert_int_equal(s->bound, s->max_pairs);
	for (uint32_t r = 0; r < rounds; r++) {
		struct rt_pair *out = all + total;
		uint32_t c = rt_sched_round(s, r, out), g = c / k;

		assert_int_equal(c % k, 0);
		assert_int_equal(g, r + 1 < rounds ? groups : n - r * groups);
		assert_true(g >= 1 && c <= s->max_pairs);
		for (uint32_t i = 0; i < g; i++) { /* receivers first: none sends */
			assert_true(out[i * k].a < n);
			assert_int_not_equal(rx[out[i * k].a], r + 1);
			rx[out[i * k].a] = r + 1;
			received[out[i * k].a]++;
		}
		for (uint32_t i = 0; i < c; i++) {
			assert_int_equal(out[i].a, out[i / k * k].a); /* a group in a row */
			assert_true(out[i].b < n && out[i].a != out[i].b);
			assert_int_not_equal(rx[out[i].b], r + 1);
			assert_int_not_equal(tx[out[i].b], r + 1);
			tx[out[i].b] = r + 1;
		}
		total += c;
	}
	assert_int_equal(rt_sched_round(s, rounds, all), 0);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(received[i], 1);
	free(received);
	free(tx);
	free(rx);
	return all;
}

/* The layout for many (n, K, seed); the same seed gives the same rounds,
 * another seed other ones (from 7 ranks on: fewer have few orders). */
static void incast_rounds(void **state)
{
	static const uint32_t cases[][2] = {
		{2, 1}, {3, 1}, {3, 2}, {4, 1}, {4, 2}, {4, 3}, {5, 2}, {7, 3},
		{10, 2}, {11, 4}, {64, 7}, {64, 63}, {100, 1}, {1000, 15},
		{65536, 3},
	};

	(void)state;
	for (size_t ci = 0; ci < ARRAY_SIZE(cases); ci++) {
		for (uint64_t seed = 0; seed < 3; seed++) {
			uint32_t n = cases[ci][0], k = cases[ci][1], groups = n / (k + 1);
			size_t bytes = (size_t)((n + groups - 1) / groups) * groups * k *
				       sizeof(struct rt_pair);
			struct rt_sched s, t, u;
			struct rt_error err = {0};
			struct rt_pair *p, *q, *o;

			assert_int_equal(rt_sched_incast(&s, n, k, seed, &err), 0);
			assert_int_equal(rt_sched_incast(&t, n, k, seed, &err), 0);
			assert_int_equal(rt_sched_incast(&u, n, k, seed + 100, &err), 0);
			p = incast_walk(&s, n, k);
			q = incast_walk(&t, n, k);
			o = incast_walk(&u, n, k);
			assert_memory_equal(p, q, bytes);
			if (n >= 7) { /* the receivers' order differs, not only senders */
				bool differ = false;

				assert_true(memcmp(p, o, bytes) != 0);
				for (size_t i = 0; i < bytes / sizeof(*p); i += k)
					differ |= p[i].a != o[i].a;
				assert_true(differ);
			}
			rt_sched_cap(&s, 1); /* leaves every round: each one's receivers */
			assert_int_equal(s.rounds, t.rounds);
			assert_string_equal(rt_sched_kind_name(s.kind), "incast");
			free(o);
			free(q);
			free(p);
			rt_sched_free(&u);
			rt_sched_free(&t);
			rt_sched_free(&s);
			assert_null(s.perm);
		}
	}
}

/* Senders vary: over the rounds of 8 ranks, fan-in 3 (2 groups a round,
 * 4 rounds) a host sends to more than one receiver, and the hosts that
 * write beside it are not one fixed block of K - 1: some host shares a
 * group with more than K - 1 others. */
static void incast_senders_vary(void **state)
{
	enum { N = 8, K = 3 };

	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		uint8_t sent_to[N][N] = {{0}}, beside[N][N] = {{0}};
		uint32_t most_rx = 0, most_beside = 0;
		struct rt_sched s;
		struct rt_error err = {0};
		struct rt_pair *all;

		assert_int_equal(rt_sched_incast(&s, N, K, seed, &err), 0);
		all = incast_walk(&s, N, K);
		for (uint32_t i = 0; i < s.rounds * s.max_pairs; i++) {
			sent_to[all[i].b][all[i].a] = 1;
			for (uint32_t j = i / K * K; j < i / K * K + K; j++)
				if (j != i)
					beside[all[i].b][all[j].b] = 1;
		}
		for (uint32_t h = 0; h < N; h++) {
			uint32_t rx = 0, bs = 0;

			for (uint32_t o = 0; o < N; o++) {
				rx += sent_to[h][o];
				bs += beside[h][o];
			}
			most_rx = RT_MAX(most_rx, rx);
			most_beside = RT_MAX(most_beside, bs);
		}
		assert_true(most_rx >= 2);
		assert_true(most_beside > K - 1);
		free(all);
		rt_sched_free(&s);
	}
}

/* Bad n or fan-in: exit 2 with a message naming the value. */
static void incast_bad_input(void **state)
{
	static const uint32_t bad[][2] = {{4, 0}, {4, 4}, {4, 9}, {2, 2}, {1, 1}, {0, 1},
					  {65537, 3}};
	static const char *const named[] = {"--fan-in 0", "--fan-in 4", "--fan-in 9",
					    "--fan-in 2", "1 ranks", "0 ranks", "65537 ranks"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct rt_sched s;
		struct rt_error err = {0};

		assert_int_equal(rt_sched_incast(&s, bad[i][0], bad[i][1], 1, &err), -1);
		assert_int_equal(err.exit_code, RT_EXIT_USAGE);
		assert_non_null(strstr(err.reason, named[i]));
		assert_null(s.perm);
	}
	/* the kind needs a fan-in: rt_sched_init refuses it */
	{
		struct rt_sched s;
		struct rt_error err = {0};

		assert_int_equal(rt_sched_init(&s, RT_SCHED_INCAST, 8, 0, 1, &err), -1);
		assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	}
	/* "incast" is a --pattern, not a --schedule */
	assert_int_equal(rt_sched_kind_parse("incast"), -1);
	assert_string_equal(rt_sched_kind_name(RT_SCHED_INCAST), "incast");
}

static void pairset_bound(void **state)
{
	struct rt_pairset ps;

	(void)state;
	assert_true(rt_pairset_init(&ps, 4096));
	assert_true(rt_pairset_add(&ps, 4095, 0));
	assert_false(rt_pairset_add(&ps, 0, 4095));
	assert_int_equal(ps.count, 1);
	rt_pairset_free(&ps);
	assert_false(rt_pairset_init(&ps, RT_PAIRSET_MAX_N + 1));
	assert_null(ps.bits);
	assert_false(rt_pairset_add(&ps, 0, 1));
	assert_true(rt_sched_matchings(4096) == 4096);
	assert_true(rt_sched_matchings(65536) == 256);
	assert_true(rt_sched_matchings(2) == 65536);
}

/* Disjoint rounds: no rank twice in a round, the bound kept, and the
 * rounds within 2D - 1 + k / bound. */
static void disjoint_rounds(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 30; seed++) {
		for (uint32_t bound = 0; bound <= 4; bound++) {
			struct rt_pair p[60];
			uint32_t round_of[60], deg[12] = {0}, d = 0, rounds, x = seed;

			for (uint32_t i = 0; i < 60; i++) {
				uint32_t a, b;

				x = x * 1103515245u + 12345u;
				a = (x >> 16) % 12;
				x = x * 1103515245u + 12345u;
				b = (a + 1 + (x >> 16) % 11) % 12;
				p[i] = (struct rt_pair){a, b};
				d = RT_MAX(d, RT_MAX(++deg[a], ++deg[b]));
			}
			rounds = rt_sched_disjoint(p, 60, 12, bound, round_of);
			assert_true(rounds <= 2 * d - 1 + (bound ? 60 / bound : 0));
			for (uint32_t r = 0; r < rounds; r++) {
				uint32_t used[12] = {0}, in = 0;

				for (uint32_t i = 0; i < 60; i++)
					if (round_of[i] == r) {
						assert_int_equal(used[p[i].a]++, 0);
						assert_int_equal(used[p[i].b]++, 0);
						in++;
					}
				assert_true(in >= 1);
				if (bound)
					assert_true(in <= bound);
			}
		}
	}
}

/* The test's other ends: 0's bad link is to 4. */
static bool avoid_0_4(const void *ctx, uint32_t end, uint32_t rank)
{
	(void)ctx;
	return (end == 0 && rank == 4) || (end == 4 && rank == 0);
}

/* Blame partners: two distinct good ones per end, spread; never itself
 * (an end may be good, a partner of another end), never what avoid
 * refuses (the other end). */
static void blame_partners(void **state)
{
	uint8_t good[10] = {0, 1, 1, 0, 1, 1, 1, 0, 0, 1};
	uint32_t ends[3] = {0, 3, 7}, uses[10] = {0};
	struct rt_pair out[6];
	uint32_t k = rt_sched_blame(ends, 3, good, 10, 5, NULL, NULL, out);

	(void)state;
	assert_int_equal(k, 6);
	for (uint32_t i = 0; i < k; i++) {
		assert_int_equal(out[i].b, ends[i / 2]);
		assert_true(good[out[i].a]);
		uses[out[i].a]++;
	}
	for (uint32_t e = 0; e < 3; e++)
		assert_int_not_equal(out[2 * e].a, out[2 * e + 1].a);
	for (uint32_t i = 0; i < 10; i++)
		assert_true(uses[i] <= 2); /* 6 pairings over 6 good ranks */
	/* one good rank: one partner each; none: no pairs */
	memset(good, 0, sizeof(good));
	good[4] = 1;
	assert_int_equal(rt_sched_blame(ends, 3, good, 10, 5, NULL, NULL, out), 3);
	good[4] = 0;
	assert_int_equal(rt_sched_blame(ends, 3, good, 10, 5, NULL, NULL, out), 0);
	/* ranks 0 and 4 are ends of one bad link and good otherwise; 3 too */
	memset(good, 1, sizeof(good));
	for (uint64_t seed = 1; seed < 50; seed++) {
		uint32_t e2[3] = {0, 4, 3};

		k = rt_sched_blame(e2, 3, good, 10, seed, avoid_0_4, NULL, out);
		assert_int_equal(k, 6);
		for (uint32_t i = 0; i < k; i++) {
			assert_int_equal(out[i].b, e2[i / 2]);
			assert_int_not_equal(out[i].a, out[i].b);
			assert_false(avoid_0_4(NULL, out[i].b, out[i].a));
		}
	}
}

static void bad_input(void **state)
{
	struct rt_sched s;
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_sched_init(&s, RT_SCHED_RING, 0, 0, 0, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_sched_init(&s, RT_SCHED_TOURNAMENT, 65537, 0, 0, &err), -1);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_sched_init(&s, (enum rt_sched_kind)9, 4, 0, 0, &err), -1);
	assert_int_equal(rt_sched_kind_parse("tournament"), RT_SCHED_TOURNAMENT);
	assert_int_equal(rt_sched_kind_parse("ring"), RT_SCHED_RING);
	assert_int_equal(rt_sched_kind_parse("Ring"), -1);
	assert_string_equal(rt_sched_kind_name(RT_SCHED_RANDOM), "random");
	assert_string_equal(rt_sched_kind_name(RT_SCHED_BUDGET), "budget");
	assert_int_equal(rt_sched_kind_parse("budget"), -1); /* --budget, not a --schedule */
	/* one rank: nothing to pair, no rounds */
	assert_int_equal(rt_sched_init(&s, RT_SCHED_TOURNAMENT, 1, 0, 0, &err), 0);
	assert_int_equal(s.rounds, 0);
	rt_sched_free(&s);
}

/* Alltoall: in each round every rank sends to K ranks and receives from
 * K, its sends in a row; over all rounds every ordered pair (sender,
 * receiver) exactly once; ceil((n-1)/K) rounds. */
static void alltoall_every_ordered_pair_once(void **state)
{
	static const uint32_t cases[][2] = { {2, 1}, {3, 2}, {4, 3}, {4, 2}, {5, 2}, {8, 3},
					     {64, 7}, {100, 9} };

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		uint32_t n = cases[c][0], k = cases[c][1];
		struct rt_sched s;
		struct rt_error err = {0};
		uint8_t *seen = calloc((size_t)n * n, 1);
		uint32_t *sends = calloc(n, sizeof(*sends)), *gets = calloc(n, sizeof(*gets));
		struct rt_pair *out;

		assert_int_equal(rt_sched_alltoall(&s, n, k, 5, &err), 0);
		assert_int_equal(s.rounds, (n - 1 + k - 1) / k);
		assert_int_equal(s.cover_rounds, 1);
		out = calloc(s.max_pairs, sizeof(*out));
		for (uint32_t r = 0; r < s.rounds; r++) {
			uint32_t np = rt_sched_round(&s, r, out);

			memset(sends, 0, n * sizeof(*sends));
			memset(gets, 0, n * sizeof(*gets));
			assert_true(np <= s.max_pairs && np % n == 0);
			for (uint32_t i = 0; i < np; i++) {
				assert_true(out[i].a < n && out[i].b < n && out[i].a != out[i].b);
				/* a sender's pairs in a row */
				assert_true(i == 0 || out[i].b == out[i - 1].b ||
					    sends[out[i].b] == 0);
				assert_int_equal(seen[out[i].b * n + out[i].a]++, 0);
				sends[out[i].b]++;
				gets[out[i].a]++;
			}
			for (uint32_t x = 0; x < n; x++)
				assert_true(sends[x] == np / n && gets[x] == np / n);
		}
		for (uint32_t x = 0; x < n; x++)
			for (uint32_t y = 0; y < n; y++)
				assert_int_equal(seen[x * n + y], x != y);
		assert_int_equal(rt_sched_round(&s, s.rounds, out), 0);
		rt_sched_free(&s);
		free(out);
		free(seen);
		free(sends);
		free(gets);
	}
}

/* --rounds caps an alltoall (random partners); bad fan or too many
 * tests a round: exit 2 naming it. */
static void alltoall_capped_and_bad_input(void **state)
{
	struct rt_sched s;
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_sched_alltoall(&s, 64, 4, 1, &err), 0);
	assert_int_equal(s.rounds, 16);
	rt_sched_cap(&s, 3);
	assert_int_equal(s.rounds, 3);
	assert_string_equal(rt_sched_kind_name(s.kind), "alltoall");
	rt_sched_free(&s);
	assert_int_equal(rt_sched_alltoall(&s, 4, 4, 1, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "--fan-in 4 for 4 ranks: want 1 to 3"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_sched_alltoall(&s, 8192, 9, 1, &err), -1);
	assert_non_null(strstr(err.reason, "--fan-in 9 with 8192 ranks is 73728 tests a round, "
				       "above 65536"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_sched_alltoall(&s, 1, 1, 1, &err), -1);
	assert_int_equal(rt_sched_kind_parse("alltoall"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tournament_every_pair_once),
		cmocka_unit_test(tournament_full_rounds),
		cmocka_unit_test(ring_neighbours),
		cmocka_unit_test(random_pairs_each_once),
		cmocka_unit_test(budget_covers_every_rank),
		cmocka_unit_test(budget_distinct_pairs),
		cmocka_unit_test(bisection_matchings),
		cmocka_unit_test(pairset_bound),
		cmocka_unit_test(disjoint_rounds),
		cmocka_unit_test(blame_partners),
		cmocka_unit_test(bad_input),
		cmocka_unit_test(incast_rounds),
		cmocka_unit_test(incast_senders_vary),
		cmocka_unit_test(incast_bad_input),
		cmocka_unit_test(alltoall_every_ordered_pair_once),
		cmocka_unit_test(alltoall_capped_and_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
