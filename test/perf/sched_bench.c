/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The pairing schedules' own cost (sched.h; docs/mesh.md, "How long each
 * schedule takes"): for each size given (4,096 and 65,536 by default),
 * in a process of its own, the time to compute every round of a ring, a
 * tournament, a random round and budget matchings (all of the matchings
 * a budget may hold), the blame pass's planning at its bound (4,096
 * re-tests into disjoint rounds, 64 ends with their partners), the
 * distinct-pair set, and the memory each holds (its allocations, and the
 * process's peak RSS). Every round is checked disjoint as it is walked;
 * exit 1 when a check fails. `meson test --benchmark mesh-sched`. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mesh/sched.h"
#include "rdmatest/util.h"

static long max_rss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

/* What a schedule holds: the shuffle and one base round. */
static size_t sched_bytes(const struct rt_sched *s)
{
	return (s->perm ? s->n * sizeof(*s->perm) : 0) +
	       RT_MAX(s->n / 2, 1u) * sizeof(*s->base);
}

/* Walks rounds [0, rounds) of kind over n ranks; every round disjoint.
 * Returns the failures. */
static int walk(enum rt_sched_kind kind, uint32_t n, uint32_t rounds_max)
{
	struct rt_sched s;
	struct rt_error err = {0};
	uint32_t *stamp = rt_xcalloc(n, sizeof(*stamp)), rounds;
	uint64_t pairs = 0, t0 = rt_now_ns();
	struct rt_pair *out;
	int bad = 0;

	if (rt_sched_init(&s, kind, n, 0, 1, &err)) {
		fprintf(stderr, "sched-bench: %s\n", err.reason);
		free(stamp);
		return 1;
	}
	out = rt_xmalloc(s.max_pairs * sizeof(*out));
	rounds = RT_MIN(s.rounds, rounds_max);
	for (uint32_t r = 0; r < rounds; r++) {
		uint32_t k = rt_sched_round(&s, r, out);

		for (uint32_t i = 0; i < k; i++) {
			bad += stamp[out[i].a] == r + 1 || stamp[out[i].b] == r + 1;
			stamp[out[i].a] = stamp[out[i].b] = r + 1;
		}
		pairs += k;
	}
	printf("%-10s %6u hosts: %9u rounds, %13" PRIu64 " pairs in %8.3f s; "
	       "schedule %zu B\n", rt_sched_kind_name(kind), n, rounds, pairs,
	       (double)(rt_now_ns() - t0) / 1e9, sched_bytes(&s));
	if (bad)
		fprintf(stderr, "sched-bench: %s of %u: a rank twice in a round\n",
			rt_sched_kind_name(kind), n);
	free(out);
	free(stamp);
	rt_sched_free(&s);
	return bad != 0;
}

static bool never(const void *ctx, uint32_t end, uint32_t rank)
{
	(void)ctx;
	(void)end;
	(void)rank;
	return false;
}

/* The blame pass's planning at its bounds: 4,096 re-tests, at most 4 a
 * rank, into disjoint rounds; 64 ends with 2 partners each. */
static int blame_plan(uint32_t n)
{
	uint32_t k = 0, rounds, *round_of, *deg = rt_xcalloc(n, sizeof(*deg)), x = 1;
	struct rt_pair *p = rt_xmalloc(4096 * sizeof(*p)), out[128];
	uint32_t ends[64];
	uint8_t *good = rt_xmalloc(n);
	uint64_t t0 = rt_now_ns();

	round_of = rt_xmalloc(4096 * sizeof(*round_of));
	for (uint32_t tries = 0; k < 4096 && tries < 1u << 20; tries++) {
		uint32_t a, b;

		x = x * 1103515245u + 12345u;
		a = (x >> 8) % n;
		x = x * 1103515245u + 12345u;
		b = (x >> 8) % n;
		if (a == b || deg[a] >= 4 || deg[b] >= 4)
			continue;
		deg[a]++;
		deg[b]++;
		p[k++] = (struct rt_pair){a, b};
	}
	rounds = rt_sched_disjoint(p, k, n, 0, round_of);
	memset(good, 1, n);
	for (uint32_t i = 0; i < 64; i++) {
		ends[i] = i * (n / 64);
		good[ends[i]] = 0;
	}
	k = rt_sched_blame(ends, 64, good, n, 1, never, NULL, out);
	/* the pairs and their rounds, 4 B a rank (disjoint's busy marks or the
	 * shuffled good ranks) and 1 B a rank (the good flags) */
	printf("blame plan %6u hosts: %u re-test pairs in %u rounds, %u pairings, in %.3f s; "
	       "%zu B\n", n, 4096u, rounds, k, (double)(rt_now_ns() - t0) / 1e9,
	       (size_t)4224 * 12 + (size_t)n * 5);
	free(p);
	free(round_of);
	free(deg);
	free(good);
	return rounds > 7 || k != 128;
}

static int pairset(uint32_t n)
{
	struct rt_pairset ps;
	bool on = rt_pairset_init(&ps, n);
	uint64_t bytes = on ? ((uint64_t)n * (n - 1) / 2 / 64 + 1) * 8 : 0;

	if (on)
		printf("pair set   %6u hosts: %" PRIu64 " B (%.2f MiB)\n", n, bytes,
		       (double)bytes / 1048576.0);
	else
		printf("pair set   %6u hosts: not counted (above %u hosts)\n", n, RT_PAIRSET_MAX_N);
	rt_pairset_free(&ps);
	return 0;
}

static int one_size(uint32_t n)
{
	int bad = walk(RT_SCHED_RING, n, UINT32_MAX) + walk(RT_SCHED_TOURNAMENT, n, UINT32_MAX) +
		  walk(RT_SCHED_RANDOM, n, UINT32_MAX) + walk(RT_SCHED_BUDGET, n, UINT32_MAX) +
		  blame_plan(n) + pairset(n);

	printf("peak RSS   %6u hosts: %ld KiB\n", n, max_rss_kib());
	return bad;
}

int main(int argc, char **argv)
{
	static const char *const dflt[] = {"4096", "65536"};
	int n = argc > 1 ? argc - 1 : 2, bad = 0;

	for (int i = 0; i < n; i++) {
		unsigned long v = strtoul(argc > 1 ? argv[i + 1] : dflt[i], NULL, 10);
		int status = 1;
		pid_t pid;

		if (v < 64 || v > 65536) {
			fprintf(stderr, "sched-bench: sizes from 64 to 65536\n");
			return 2;
		}
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			int rc = one_size((uint32_t)v);

			fflush(NULL);
			_exit(rc ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	}
	return bad;
}
