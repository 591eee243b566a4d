/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "free_port.h"
#include "mesh/meshparse.h"
#include "mesh/meshnode.h"
#include "mesh/meshtext.h"
#include "rdmatest/oob.h"

/* The instances of a run as processes on loopback, the tests stubbed:
 * rank 0 leads (its own rank a child of it), the others take part. */
#define TIMEOUT_MS 4000 /* generous: ranks are processes on a loaded machine */


struct stub {
	uint32_t slow; /* a rank whose links are slow */
};

static void stub_test(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
		      struct rt_mesh_result *r)
{
	const struct stub *st = ctx;
	bool slow = self == st->slow || a->peer == st->slow;

	if (a->role != RT_MESH_CONNECT)
		return;
	*r = (struct rt_mesh_result){ .status = RT_MESH_OK, .flags = RT_MESH_HAS_RTT,
		.connect_ns = 200000, .rtt_p50_ns = slow ? 90000 : 9000,
		.rtt_p99_ns = slow ? 99000 : 12000 };
}

/* A free TCP port: bound, read back, closed (the run binds it again). */
struct run {
	uint32_t n, absent;
	struct stub st;
	struct rt_mesh_limits lim;
	struct rt_mesh_agg g;
	int rc, status[8];
	FILE *lines; /* rank 1's, or NULL */
	struct rt_hostlist hosts;
};

/* The port carrying 127.0.0.1 moves 392.149 Gb/s of payload (400G RoCE
 * at MTU 4096); other hosts none. */
static uint32_t stub_payload(const char *host)
{
	return strcmp(host, "127.0.0.1") ? 0 : 392149;
}

static void plan_of(struct run *r, uint32_t rank, unsigned port, struct rt_mesh_plan *p)
{
	*p = (struct rt_mesh_plan){ .rank = rank, .size = r->n, .coord_host = "127.0.0.1",
		.coord_port = port, .self_host = "127.0.0.1", .test_port = 20000 + rank,
		.kind = RT_SCHED_TOURNAMENT, .timeout_ms = TIMEOUT_MS, .lim = &r->lim,
		.fn = stub_test, .ctx = &r->st, .lines = rank == 1 ? r->lines : NULL,
		.hosts = r->hosts.n ? &r->hosts : NULL, .payload_of = stub_payload };
}

static void run_mesh(struct run *r)
{
	struct rt_mesh_plan p;
	struct rt_error err = { 0 };
	unsigned port = free_port();
	pid_t pid[8];

	fflush(NULL);
	for (uint32_t i = 1; i < r->n; i++) {
		pid[i] = i == r->absent ? -1 : fork();
		if (pid[i] == 0) {
			struct rt_mesh_verdict v;
			struct rt_error e = { 0 };

			plan_of(r, i, port, &p);
			if (rt_mesh_take_part(&p, &v, &e))
				_exit(1);
			_exit(v.ready ? 10 : 11);
		}
	}
	plan_of(r, 0, port, &p);
	r->rc = rt_mesh_lead(&p, &r->g, &err);
	for (uint32_t i = 1; i < r->n; i++) {
		r->status[i] = -1;
		if (pid[i] > 0 && waitpid(pid[i], &r->status[i], 0) == pid[i])
			r->status[i] = WIFEXITED(r->status[i]) ? WEXITSTATUS(r->status[i]) : -2;
	}
}

/* Rank 0 tests its own pairs: every pair of 4 has a result, all ok. */
static void rank0_is_a_rank_too(void **state)
{
	struct run r = { .n = 4, .absent = 99, .st = { .slow = 99 } };
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	(void)state;
	run_mesh(&r);
	assert_int_equal(r.rc, 0);
	assert_true(r.g.ready);
	assert_int_equal(r.g.nlinks, 6);
	rt_mesh_links(&r.g, &it);
	for (uint32_t i = 0; i < r.g.nlinks; i++) {
		assert_true(rt_mesh_link_next(&it, &l));
		assert_int_equal(l.r.status, RT_MESH_OK);
	}
	assert_false(rt_mesh_link_next(&it, &l));
	assert_true(r.g.nodes[0].present);
	assert_string_equal(r.g.nodes[0].host, "127.0.0.1");
	assert_int_equal(r.g.nodes[0].port, 20000);
	for (uint32_t i = 1; i < 4; i++)
		assert_int_equal(r.status[i], 10);
	/* every hello carried its port's payload rate to rank 0 */
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(r.g.nodes[i].payload_mbps, 392149);
	rt_mesh_agg_free(&r.g);
}

/* A rank that never starts is absent after the gathering's bound; the
 * run still ends, NOT READY, and the others learn it. */
static void absent_rank_bounded(void **state)
{
	struct run r = { .n = 3, .absent = 2, .st = { .slow = 99 } };
	struct rt_error err = { 0 };
	struct timespec t0, t1;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(rt_hostlist_parse(&r.hosts, "127.0.0.1,127.0.0.1,gone03", &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_mesh(&r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(r.rc, 0);
	assert_false(r.g.ready);
	assert_int_equal(r.g.nodes[2].verdict, RT_NODE_ABSENT);
	assert_int_equal(r.g.absent_nodes, 1);
	assert_int_equal(r.status[1], 11);
	assert_true(t1.tv_sec - t0.tv_sec < 3 * TIMEOUT_MS / 1000 + 2);
	/* named by the launcher's list, as it never said which host it is */
	f = open_memstream(&text, &len);
	rt_mesh_summary(f, &r.g, &r.lim);
	fclose(f);
	assert_non_null(strstr(text, "absent host 2 (gone03): never reported\n"));
	free(text);
	rt_hostlist_free(&r.hosts);
	rt_mesh_agg_free(&r.g);
}

/* --lines: what rank 1 printed is what `mesh report` reads back. */
static void lines_feed_the_report(void **state)
{
	struct run r = { .n = 3, .absent = 99, .st = { .slow = 99 } };
	struct rt_mesh_agg g;
	struct rt_error err = { 0 };
	char buf[256];
	unsigned hellos = 0, results = 0;

	(void)state;
	r.lines = tmpfile();
	assert_non_null(r.lines);
	run_mesh(&r);
	assert_true(r.g.ready);
	rewind(r.lines);
	while (fgets(buf, sizeof(buf), r.lines)) {
		hellos += strstr(buf, "\"mesh\":\"hello\"") != NULL;
		results += strstr(buf, "\"mesh\":\"result\"") != NULL;
	}
	assert_int_equal(hellos, 1);
	assert_true(results >= 1);
	rewind(r.lines);
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	assert_int_equal(rt_mesh_report_read(r.lines, &g, &err), 0);
	assert_int_equal(g.n, 3);
	assert_true(g.nodes[1].present);
	assert_int_equal(g.nres, results);
	rt_mesh_agg_free(&g);
	fclose(r.lines);
	rt_mesh_agg_free(&r.g);
}

/* valgrind keeps descriptors of its own above the limit and refuses a
 * hard limit below them (scripts/valgrind-unit). */
static bool under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload");
}

/* rt_mesh_lead alone, in a child with RLIMIT_NOFILE at soft/hard
 * (0: unchanged), for n ranks none of which comes: the child's exit
 * status is 0 when the run's outcome was `want` (exit code, 0: a run)
 * within 2 s and the soft limit ends at least at min_soft. */
static int lead_alone(uint32_t n, enum rt_sched_kind kind, rlim_t soft, rlim_t hard,
		      int want, rlim_t min_soft)
{
	struct run r = { .n = n, .absent = 99, .st = { .slow = 99 } };
	struct rt_error err = { 0 };
	struct rlimit rl;
	struct rt_mesh_plan p;
	struct timespec t0, t1;
	int rc;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = soft;
	rl.rlim_max = hard ? hard : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return under_valgrind() ? 77 : 20;
	plan_of(&r, 0, free_port(), &p);
	p.kind = kind;
	p.timeout_ms = 200;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = rt_mesh_lead(&p, &r.g, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rt_mesh_agg_free(&r.g); /* the child's leaks fail a valgrind run */
	getrlimit(RLIMIT_NOFILE, &rl);
	if ((want ? !rc || err.exit_code != want : rc != 0) || t1.tv_sec - t0.tv_sec > 2)
		return 21;
	if (want == RT_EXIT_ENV && !strstr(err.reason, "RLIMIT_NOFILE"))
		return 22;
	return rl.rlim_cur < min_soft ? 23 : 0;
}

static int in_child(uint32_t n, enum rt_sched_kind kind, rlim_t soft, rlim_t hard,
		    int want, rlim_t min_soft)
{
	int st = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(lead_alone(n, kind, soft, hard, want, min_soft));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

/* A soft limit of 64 descriptors is raised to what 300 ranks need (one
 * each, and the pending connections), before rank 0 listens. */
static void fd_limit_raised_for_the_size(void **state)
{
	(void)state;
	assert_int_equal(in_child(300, RT_SCHED_RING, 64, 0, 0, 300 + RT_MESH_PENDING_MAX), 0);
}

/* A hard limit too low for the size: exit 3 naming the limit before the
 * run, not EMFILE at some rank's accept. */
static void fd_limit_too_low_is_refused_first(void **state)
{
	int rc = in_child(300, RT_SCHED_RING, 64, 64, RT_EXIT_ENV, 0);

	(void)state;
	if (rc == 77)
		skip();
	assert_int_equal(rc, 0);
}

/* A tournament of 5,794 hosts makes more results than rank 0 holds
 * (16 Mi: 5,793 hosts fit): exit 2 at planning, not "more than 16777216
 * results" rounds later. */
static void size_that_cannot_fit_is_refused_at_planning(void **state)
{
	(void)state;
	assert_int_equal(in_child(5794, RT_SCHED_TOURNAMENT, 8192, 0, RT_EXIT_USAGE, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rank0_is_a_rank_too),
		cmocka_unit_test(absent_rank_bounded),
		cmocka_unit_test(lines_feed_the_report),
		cmocka_unit_test(fd_limit_raised_for_the_size),
		cmocka_unit_test(fd_limit_too_low_is_refused_first),
		cmocka_unit_test(size_that_cannot_fit_is_refused_at_planning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
