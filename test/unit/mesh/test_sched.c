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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
