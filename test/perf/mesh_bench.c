/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The mesh at scale, simulated (docs/mesh.md):
 *  1. the tournament schedule for 1,000 and 10,000 ranks, unbounded and
 *     with a bound of 64 concurrent pairs: every pair exactly once, n-1
 *     rounds (times the split), no rank twice in a round, the bound in
 *     every round; time and memory;
 *  2. for each size given, the coordination of that many simulated ranks
 *     over TCP loopback with the data path stubbed, in a process of its
 *     own: a child process plays every rank on its own connection (hello,
 *     then per round read its assignment and, on the connecting side,
 *     answer with a made-up result), rank 0 gathers the hellos
 *     (meshgather.h), runs every round of the tournament, judges and sends
 *     the verdict through the applet's coordinator (meshrun.h), and
 *     writes the document as the applet does, streamed (to /dev/null, or
 *     the file MESH_BENCH_DOC names). One rank has a slow NIC: the
 *     verdict must name it (the blame pass re-tests 4 of its links and
 *     pairs the ends with good ranks, rounds the instances follow too).
 * Prints rank 0's time a round, CPU a pair, peak RSS, descriptors and
 * document size (docs/mesh.md, Scale); exit 1 when a check fails.
 * `meson test --benchmark mesh-scale` runs 256 and 1,024 ranks;
 * arguments: [ranks]... */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mesh/meshagg.h"
#include "mesh/meshgather.h"
#include "mesh/meshdoc.h"
#include "mesh/meshnode.h"
#include "mesh/meshrun.h"
#include "mesh/meshwire.h"
#include "rdmatest/oob.h"
#include "mesh/sched.h"
#include "rdmatest/util.h"

#define SLOW_RANK 17u  /* the instance with the degraded NIC */
#define TIMEOUT_MS 30000

static long max_rss_kib(int who)
{
	struct rusage ru;

	return getrusage(who, &ru) ? -1 : ru.ru_maxrss;
}

static int check(int ok, const char *what)
{
	if (!ok)
		fprintf(stderr, "mesh-bench: check failed: %s\n", what);
	return ok ? 0 : 1;
}

/* Part 1: walks a whole schedule with a bitset of the n(n-1)/2 pairs
 * (the checker's memory, not the schedule's). */
static int schedule(uint32_t n, uint32_t bound)
{
	struct rt_sched s;
	struct rt_error err = {0};
	uint64_t npairs = (uint64_t)n * (n - 1) / 2, seen_pairs = 0, t0;
	uint8_t *bits = rt_xcalloc(npairs / 8 + 1, 1);
	uint32_t *stamp = rt_xcalloc(n, sizeof(*stamp));
	struct rt_pair *out;
	uint32_t eff, want_rounds, rounds;
	int bad = 0;

	if (rt_sched_init(&s, RT_SCHED_TOURNAMENT, n, bound, 0, &err))
		return check(0, err.reason);
	out = rt_xmalloc(s.max_pairs * sizeof(*out));
	eff = bound && bound < n / 2 ? bound : n / 2;
	want_rounds = (n - 1 + n % 2) * ((n / 2 + eff - 1) / eff);
	t0 = rt_now_ns();
	for (uint32_t r = 0; r < s.rounds; r++) {
		uint32_t k = rt_sched_round(&s, r, out);

		bad |= k == 0 || k > eff;
		for (uint32_t i = 0; i < k; i++) {
			uint32_t a = RT_MIN(out[i].a, out[i].b), b = RT_MAX(out[i].a, out[i].b);
			uint64_t idx = (uint64_t)a * (2ull * n - a - 1) / 2 + (b - a - 1);

			bad |= a == b || b >= n || stamp[a] == r + 1 || stamp[b] == r + 1;
			stamp[a] = stamp[b] = r + 1;
			bad |= bits[idx / 8] >> (idx % 8) & 1;
			bits[idx / 8] |= (uint8_t)(1u << (idx % 8));
			seen_pairs++;
		}
	}
	printf("schedule tournament n=%u bound=%u: %u rounds (want %u), %" PRIu64
	       " pairs (want %" PRIu64 "), %.3f s, schedule memory %zu B, peak RSS %ld KiB\n",
	       n, eff, s.rounds, want_rounds, seen_pairs, npairs,
	       (double)(rt_now_ns() - t0) / 1e9,
	       (size_t)n * sizeof(*s.base) / 2 + s.max_pairs * sizeof(*out),
	       max_rss_kib(RUSAGE_SELF));
	rounds = s.rounds;
	rt_sched_free(&s);
	free(out);
	free(bits);
	free(stamp);
	return check(!bad && seen_pairs == npairs && rounds == want_rounds,
		     "tournament: every pair once, the bound, the rounds");
}

/* ---- part 2: the instances (child) ---- */

static struct rt_mesh_result stub_result(uint32_t round, uint32_t a, uint32_t b)
{
	int slow = a == SLOW_RANK || b == SLOW_RANK;

	return (struct rt_mesh_result){.round = round, .a = a, .b = b,
		.status = RT_MESH_OK, .flags = RT_MESH_HAS_RTT | RT_MESH_HAS_BW,
		.connect_ns = 400000 + (a * 7 + b * 13) % 1000,
		.rtt_p50_ns = 9000 + (a + b) % 100, .rtt_p99_ns = 14000,
		/* the slow rank is slow one way only: the slower direction is judged */
		.mbps = slow ? 20000 : 97000 + (a ^ b) % 500, .mbps_rev = 96000 + (a + b) % 500};
}

static int instances(uint32_t n, unsigned port)
{
	struct rt_oob *o = rt_xcalloc(n, sizeof(*o));
	struct rt_error err = {0};
	struct rt_meshmsg m;
	bool done = false;

	for (uint32_t i = 0; i < n; i++) {
		rt_oob_init(&o[i], TIMEOUT_MS);
		m = (struct rt_meshmsg){.type = RT_MESHMSG_HELLO,
			.u.hello = {.rank = i, .size = n, .port = 7000}};
		snprintf(m.u.hello.host, sizeof(m.u.hello.host), "node%05u", i);
		if (rt_oob_connect(&o[i], "127.0.0.1", port, TIMEOUT_MS, &err) ||
		    rt_meshmsg_write(&o[i], &m, &err))
			goto fail;
	}
	/* the tournament's rounds, then the blame pass's, until the verdict */
	for (uint32_t r = 0; !done; r++) {
		for (uint32_t i = 0; i < n; i++) {
			struct rt_mesh_assign *a = &m.u.assign;

			if (rt_meshmsg_read(&o[i], n, &m, &err))
				goto fail;
			if (m.type == RT_MESHMSG_VERDICT && (i == 0 || done)) {
				done = true;
				rt_oob_close(&o[i]);
				continue;
			}
			if (done || m.type != RT_MESHMSG_ASSIGN || a->round != r)
				return fprintf(stderr, "instance %u: not round %u's assignment\n", i, r), 1;
			if (a->role != RT_MESH_CONNECT)
				continue;
			/* the stubbed data path: no RDMA, a made-up measurement */
			m = (struct rt_meshmsg){.type = RT_MESHMSG_RESULT,
						.u.result = stub_result(r, a->peer, i)};
			if (rt_meshmsg_write(&o[i], &m, &err))
				goto fail;
		}
	}
	free(o);
	return m.type == RT_MESHMSG_VERDICT ? 0 : 1;
fail:
	fprintf(stderr, "instances: %s\n", err.reason);
	return 1;
}

/* ---- part 2: rank 0, the coordinator (parent) ---- */

/* What rank 0 spent on one size. */
struct cost {
	uint64_t wall_ns, doc_ns, cpu_ns, doc_bytes;
	long rss_rounds_kib, rss_doc_kib;
	unsigned fds;
};

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static unsigned open_fds(void)
{
	unsigned n = 0;

	for (int fd = 0; fd < 1 << 16; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void report(uint32_t n, const struct rt_sched *s, const struct rt_mesh_agg *g,
		   const struct cost *k)
{
	double pairs = (double)g->nres;

	printf("coordination n=%u tournament over loopback, data path stubbed: %u rounds, "
	       "%u results; rank 0: %.2f s (%.2f ms a round), document %.2f s, "
	       "CPU %.1f us a pair, peak RSS %ld KiB after the rounds and judging, "
	       "%ld KiB with the document, %u descriptors, %" PRIu64 " bytes of JSON "
	       "(%.0f a pair); verdict %s, bad nodes %u (rank %u: %s)\n",
	       n, s->rounds, g->nres, (double)k->wall_ns / 1e9,
	       (double)k->wall_ns / 1e6 / s->rounds, (double)k->doc_ns / 1e9,
	       (double)k->cpu_ns / 1e3 / pairs, k->rss_rounds_kib, k->rss_doc_kib,
	       k->fds, k->doc_bytes, (double)k->doc_bytes / pairs,
	       g->ready ? "READY" : "NOT READY", g->bad_nodes, SLOW_RANK,
	       rt_node_verdict_name(g->nodes[SLOW_RANK].verdict));
	fflush(stdout);
}

/* Gathers, coordinates and writes the document, measuring each. */
static int lead(struct rt_mesh_coord *c, int lfd, struct cost *k, struct rt_error *err)
{
	uint64_t t0 = rt_now_ns(), cpu0 = cpu_ns(), t1;
	uint32_t n = c->s->n;
	struct rt_json j;
	const char *doc;
	FILE *f;

	if (rt_mesh_gather(c->gt, lfd, n, TIMEOUT_MS, TIMEOUT_MS, c->g, err))
		return -1;
	if (c->gt->present != n)
		return rt_fail(err, RT_EXIT_FAIL, "%u of %u instances said hello",
			       c->gt->present, n);
	k->fds = open_fds();
	/* rounds, judging and the verdict: the applet's own loop (meshrun.h) */
	if (rt_mesh_coordinate(c, err))
		return -1;
	t1 = rt_now_ns();
	k->wall_ns = t1 - t0;
	k->rss_rounds_kib = max_rss_kib(RUSAGE_SELF);
	/* streamed as the applet streams it (run.h), to /dev/null unless
	 * MESH_BENCH_DOC names a file to check it in */
	doc = getenv("MESH_BENCH_DOC");
	f = fopen(doc && *doc ? doc : "/dev/null", "w");
	if (!f)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "%s", doc);
	rt_json_init(&j);
	rt_mesh_document(&j, c->g, c->lim, f);
	rt_json_finish(&j);
	rt_json_flush(&j, f);
	k->doc_bytes = j.flushed;
	rt_json_free(&j);
	if (fclose(f))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "writing the document");
	k->doc_ns = rt_now_ns() - t1;
	k->cpu_ns = cpu_ns() - cpu0;
	k->rss_doc_kib = max_rss_kib(RUSAGE_SELF);
	return 0;
}

static int verdicts(uint32_t n, const struct rt_mesh_coord *c, int status)
{
	const struct rt_mesh_agg *g = c->g;

	return check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "instances ended well") |
	       check(g->nres >= (uint64_t)n * (n - 1) / 2 && g->nlinks == (uint64_t)n * (n - 1) / 2,
		     "a result for every pair") |
	       check(c->lost == 0 && c->rounds == c->s->rounds + g->blame.rounds,
		     "no instance lost, every round run, the blame pass's too") |
	       check(g->bad_nodes == 1 && g->nodes[SLOW_RANK].verdict == RT_NODE_BAD &&
		     !g->ready, "the slow instance is the one bad node");
}

/* One size, in a process of its own: its peak RSS is this size's. The
 * aggregate's bound is the tournament's pairs, as the applet's own
 * (RT_MESH_RESULTS_MAX) would refuse sizes above 5,793 hosts. */
static int coordinate(uint32_t n)
{
	struct rt_mesh_gather gt = {0};
	struct rt_oob lis;
	struct rt_mesh_limits lim = {.rtt_factor = 2.1, .bw_fraction = 0.93};
	struct rt_error err = {0};
	struct rt_mesh_agg g = {0};
	struct rt_sched s = {0};
	struct rt_mesh_coord c = {.gt = &gt, .g = &g, .s = &s, .lim = &lim,
				  .round_ms = TIMEOUT_MS};
	struct cost k = {0};
	int status = 1, rc = 1;
	pid_t child = -1;

	rt_oob_init(&lis, TIMEOUT_MS);
	lis.backlog = RT_MESH_PENDING_MAX;
	if (rt_mesh_fd_limit(n, &err) || rt_oob_listen(&lis, "127.0.0.1", 0, &err) ||
	    rt_sched_init(&s, RT_SCHED_TOURNAMENT, n, 0, 0, &err) ||
	    rt_mesh_agg_init(&g, n, (uint32_t)((uint64_t)n * (n - 1) / 2), &err))
		goto out;
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(instances(n, lis.port));
	if (!lead(&c, lis.lfd, &k, &err)) {
		rt_mesh_gather_close(&gt);
		waitpid(child, &status, 0);
		child = -1;
		report(n, &s, &g, &k);
		rc = verdicts(n, &c, status);
	}
out:
	if (err.set)
		fprintf(stderr, "coordinator: %s\n", err.reason);
	if (child > 0)
		kill(child, SIGKILL);
	rt_sched_free(&s);
	rt_mesh_agg_free(&g);
	rt_oob_close(&lis);
	rt_mesh_gather_close(&gt);
	return rc;
}

static int in_own_process(uint32_t n)
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(coordinate(n));
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
	       WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	int rc = 0;

	rc |= schedule(1000, 0);
	rc |= schedule(1000, 64);
	rc |= schedule(10000, 0);
	rc |= schedule(10000, 64);
	for (int i = 1; i < argc; i++) {
		uint32_t n = (uint32_t)strtoul(argv[i], NULL, 10);

		if (n < SLOW_RANK + 2 || n > 10000)
			return fprintf(stderr, "usage: mesh-bench [ranks %u..10000]...\n",
				       SLOW_RANK + 2), 2;
		rc |= in_own_process(n);
	}
	return rc;
}
