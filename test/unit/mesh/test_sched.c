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

/* Every suspect is paired once with a rank that passed; no rank twice in
 * a round; the bound holds; absent ranks are left alone. */
static void recheck_pairs_suspects_with_good(void **state)
{
	static const char *const cases[] = {"SP", "SSSSP", "PPSSPS-S", "S-S", "PPPP",
					    "SSPPPPPPPPSPSPSPSSSS-"};

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		for (uint32_t bound = 0; bound <= 3; bound++) {
			const char *st = cases[c];
			uint32_t n = (uint32_t)strlen(st), rounds, k, suspects = 0, good = 0;
			struct rt_pair out[32];
			uint32_t round_of[32], paired[32] = {0};

			for (uint32_t i = 0; i < n; i++) {
				suspects += st[i] == 'S';
				good += st[i] == 'P';
			}
			k = rt_sched_recheck(st, n, bound, 5, out, round_of, &rounds);
			assert_int_equal(k, good ? suspects : 0);
			for (uint32_t r = 0; r < rounds; r++) {
				uint32_t used[32] = {0}, in_round = 0;

				for (uint32_t i = 0; i < k; i++) {
					if (round_of[i] != r)
						continue;
					assert_int_equal(st[out[i].a], 'P');
					assert_int_equal(st[out[i].b], 'S');
					assert_int_equal(used[out[i].a]++, 0);
					in_round++;
				}
				assert_true(in_round >= 1);
				if (bound)
					assert_true(in_round <= bound);
			}
			for (uint32_t i = 0; i < k; i++)
				assert_int_equal(paired[out[i].b]++, 0);
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
		cmocka_unit_test(recheck_pairs_suspects_with_good),
		cmocka_unit_test(bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
