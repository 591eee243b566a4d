/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <signal.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmatest/interrupt.h"
#include "mesh/meshrun.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

#define ROUND_MS 1000
#define TEST_MS 300 /* one pair's test: under half a round */

/* How the stubbed data path of one cluster behaves. */
struct cluster {
	uint32_t n;
	enum rt_sched_kind kind;
	uint32_t absent;  /* never starts; n: none */
	uint32_t dies;    /* exits at its first test */
	uint32_t dies_late; /* exits at its test in the last round */
	uint32_t silent;  /* never answers its first test as the connecting side */
	uint32_t slow;    /* a NIC at a tenth of the others' bandwidth */
	uint32_t liar;    /* answers its first test with another pair's result */
	uint32_t dribbles; /* sends its first result a byte now and then, and exits */
	bool interrupt;   /* rank 0 gets SIGINT before the first round */
	double min_gbps;
	uint32_t blip;    /* slow in the first pass's rounds only (below blip_rounds) */
	uint32_t blip_rounds;
	long long budget_ms; /* a budget schedule's */
	unsigned rails;   /* each rank's hello lists this many, all ACTIVE */
	bool cross;       /* rank 0 crosses them (--cross-rails) */
	uint32_t fan_in;  /* kind RT_SCHED_INCAST: senders a receiver */
	/* a round's and a stub test's bounds, when not ROUND_MS and TEST_MS:
	 * a rank's several tests at once (alltoall) are threads that
	 * valgrind runs one at a time */
	long long round_ms, test_ms;
};

struct stub {
	const struct cluster *cl;
	int lfd; /* the rank's test port */
	struct rt_oob *conn; /* to rank 0 */
};

/* The data path stubbed by one byte over TCP: a dead peer is a refused
 * connection or no client, as a real test would find. */
static bool ping(struct stub *st, const struct rt_mesh_assign *a)
{
	struct rt_error err = {0};
	struct rt_oob o;
	char c = 'x';
	bool ok;

	long long test_ms = st->cl->test_ms ? st->cl->test_ms : TEST_MS;

	rt_oob_init(&o, test_ms);
	if (a->role == RT_MESH_CONNECT) {
		ok = !rt_oob_connect(&o, "127.0.0.1", a->port, 0, &err) &&
		     !rt_oob_write(&o, &c, 1, &err) && !rt_oob_read(&o, &c, 1, &err);
		rt_oob_close(&o);
		return ok;
	}
	/* the listener answers one connection a partner (the stub's
	 * connecting side makes one whatever its rails): as many as its
	 * assignment's connections count (an incast receiver: every sender) */
	ok = true;
	for (unsigned i = 0; ok && i < RT_MAX(a->conns / (RT_MAX(a->nrails, 1u) * RT_MAX(a->qps, 1u)),
					      1u); i++) {
		struct pollfd p = {.fd = st->lfd, .events = POLLIN};

		o.fd = poll(&p, 1, (int)test_ms) == 1 ? accept(st->lfd, NULL, NULL) : -1;
		ok = o.fd >= 0 && !rt_oob_read(&o, &c, 1, &err) && !rt_oob_write(&o, &c, 1, &err);
		rt_oob_close(&o);
	}
	return ok;
}

/* A valid RESULT for the pair, 7 bytes of its header at once, the 8th
 * just before the round's bound, the rest just before a second bound:
 * each piece within any one read's bound, the whole well past a round. */
static _Noreturn void dribble(struct stub *st, const struct rt_mesh_assign *a,
			      uint32_t self)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_RESULT,
		.u.result = {.round = a->round, .a = a->peer, .b = self,
			     .status = RT_MESH_FAILED}};
	uint8_t buf[RT_MESHMSG_MAX];
	size_t len = rt_meshmsg_encode(&m, buf);
	ssize_t ignored;

	ignored = write(st->conn->fd, buf, 7);
	usleep(ROUND_MS * 900);
	ignored = write(st->conn->fd, buf + 7, 1);
	usleep(ROUND_MS * 900);
	ignored = write(st->conn->fd, buf + 8, len - 8);
	(void)ignored;
	_exit(0);
}

static void stub_test(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
		      struct rt_mesh_result *r)
{
	struct stub *st = ctx;
	const struct cluster *cl = st->cl;
	bool slow = self == cl->slow || a->peer == cl->slow ||
		    ((self == cl->blip || a->peer == cl->blip) && a->round < cl->blip_rounds);

	if (self == cl->dies || (self == cl->dies_late && a->round + 1 == a->rounds))
		_exit(0);
	if (a->role == RT_MESH_CONNECT && self == cl->silent)
		usleep(3 * ROUND_MS * 1000);
	if (a->role == RT_MESH_CONNECT && self == cl->dribbles)
		dribble(st, a, self);
	if (a->role == RT_MESH_CONNECT && self == cl->liar) {
		struct rt_meshmsg m = {.type = RT_MESHMSG_RESULT,
			.u.result = {.round = a->round, .a = a->peer == 0 ? 1 : 0, .b = self}};
		struct rt_error err = {0};

		rt_meshmsg_write(st->conn, &m, &err);
	}
	if (!ping(st, a))
		return; /* status failed */
	for (unsigned i = 0; i < (a->nrails ? a->nrails : 1u); i++) /* one a rail */
		r[i] = (struct rt_mesh_result){.status = RT_MESH_OK,
			.flags = RT_MESH_HAS_RTT | RT_MESH_HAS_BW, .connect_ns = 300000,
			.rtt_p50_ns = 10000, .rtt_p99_ns = 15000, .mbps = 50000,
			.mbps_rev = slow ? 5000 : 50000};
}

/* One rank's process: hello, follow, and its exit status tells the test
 * which verdict came (10 ready, 11 not ready, 12 interrupted, 13 not
 * ready and blaming this rank's host, 1 none). */
static int rank_main(const struct cluster *cl, uint32_t rank, unsigned port)
{
	struct rt_mesh_hello h = {.rank = rank, .size = cl->n};
	struct stub st = {.cl = cl};
	struct rt_error err = {0};
	struct rt_mesh_verdict v;
	struct rt_oob o, lis;

	rt_oob_init(&lis, TEST_MS);
	lis.backlog = 4;
	if (rt_oob_listen(&lis, "127.0.0.1", 0, &err))
		return 2;
	st.lfd = lis.lfd;
	st.conn = &o;
	h.port = (uint16_t)lis.port;
	snprintf(h.host, sizeof(h.host), "node%u", rank);
	h.nrails = (uint8_t)cl->rails;
	for (unsigned i = 0; i < cl->rails; i++) {
		h.rails[i] = (struct rt_mesh_rail){.rail = (uint8_t)i, .port = 1,
			.state = RT_RAIL_ACTIVE, .addr = "127.0.0.1"};
		snprintf(h.rails[i].dev, sizeof(h.rails[i].dev), "rxe%u", i);
	}
	rt_oob_init(&o, 10000);
	if (rt_mesh_join(&o, "127.0.0.1", port, 5000, &h, &err) ||
	    rt_mesh_follow(&o, NULL, rank, cl->n, stub_test, &st, &v, &err))
		return 1;
	rt_oob_close(&o);
	return v.ready ? 10 : v.interrupted ? 12 : v.self ? 13 : 11;
}

struct outcome {
	struct rt_mesh_agg g;
	struct rt_mesh_coord c;
	int status[8];
	uint32_t rounds;
	uint64_t coord_ns; /* rt_mesh_coordinate's wall time */
	int rc;
};

static void run_cluster(const struct cluster *cl, struct outcome *out)
{
	struct rt_mesh_limits lim = {.min_gbps = cl->min_gbps};
	struct rt_mesh_gather gt;
	struct rt_error err = {0};
	struct rt_sched s;
	struct rt_oob lis;
	pid_t pid[8];

	assert_true(cl->n <= 8);
	rt_oob_init(&lis, 5000);
	/* ranks that come before the gathering starts wait in the backlog */
	lis.backlog = RT_MESH_PENDING_MAX;
	assert_int_equal(rt_oob_listen(&lis, "127.0.0.1", 0, &err), 0);
	assert_int_equal(cl->kind == RT_SCHED_INCAST ? rt_sched_incast(&s, cl->n, cl->fan_in, 7, &err) :
			 cl->kind == RT_SCHED_ALLTOALL ?
			 rt_sched_alltoall(&s, cl->n, cl->fan_in, 7, &err) :
			 rt_sched_init(&s, cl->kind, cl->n, 0, 7, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&out->g, cl->n, 0, &err), 0);
	out->g.cross = cl->cross;
	fflush(NULL);
	for (uint32_t i = 0; i < cl->n; i++) {
		pid[i] = i == cl->absent ? -1 : fork();
		if (pid[i] == 0) {
			close(lis.lfd);
			_exit(rank_main(cl, i, lis.port));
		}
	}
	/* wide enough for forked ranks on a loaded 2-core machine (1.5 s once
	 * missed a rank there); only the cases with an absent rank wait it out */
	assert_int_equal(rt_mesh_gather(&gt, lis.lfd, cl->n, 4000, 2000, &out->g, &err), 0);
	out->c = (struct rt_mesh_coord){.gt = &gt, .g = &out->g, .s = &s, .lim = &lim,
					.round_ms = cl->round_ms ? cl->round_ms : ROUND_MS,
					.seed = 3, .budget_ms = cl->budget_ms,
					.fan_in = cl->fan_in};
	if (cl->interrupt) {
		assert_int_equal(rt_interrupt_install(), 0);
		rt_interrupt_raise(SIGINT);
	}
	out->coord_ns = rt_now_ns();
	out->rc = rt_mesh_coordinate(&out->c, &err);
	out->coord_ns = rt_now_ns() - out->coord_ns;
	rt_interrupt_restore();
	out->rounds = s.rounds;
	rt_mesh_gather_close(&gt);
	for (uint32_t i = 0; i < cl->n; i++) {
		out->status[i] = -1;
		if (pid[i] > 0 && waitpid(pid[i], &out->status[i], 0) == pid[i])
			out->status[i] = WIFEXITED(out->status[i]) ? WEXITSTATUS(out->status[i]) : -2;
	}
	rt_sched_free(&s);
	rt_oob_close(&lis);
}

static uint32_t count_status(const struct rt_mesh_agg *g, uint8_t status)
{
	uint32_t k = 0;
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l))
		k += l.r.status == status;
	return k;
}

static void healthy_tournament(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_TOURNAMENT, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99, .dribbles = 99};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, cl.interrupt ? RT_INTERRUPTED : 0);
	assert_true(o.g.ready);
	assert_int_equal(o.g.nlinks, 6);
	assert_int_equal(count_status(&o.g, RT_MESH_OK), 6);
	assert_int_equal(o.c.lost, 0);
	assert_int_equal(o.c.rounds, 3);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(o.status[i], 10);
	assert_int_not_equal(o.g.nodes[2].port, 0); /* the hello's port kept */
	rt_mesh_agg_free(&o.g);
}

/* Rank 4 never starts, rank 2 exits at its first test: both are named,
 * every pair still has a result, the others get the verdict. */
static void absent_and_dead_rank(void **state)
{
	struct cluster cl = {.n = 5, .kind = RT_SCHED_TOURNAMENT, .absent = 4,
			     .dies = 2, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99, .dribbles = 99};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, cl.interrupt ? RT_INTERRUPTED : 0);
	assert_false(o.g.ready);
	assert_int_equal(o.g.nlinks, 10); /* every pair of 5 */
	assert_int_equal(o.g.nodes[4].verdict, RT_NODE_ABSENT);
	assert_int_equal(o.g.nodes[2].verdict, RT_NODE_BAD);
	assert_int_equal(o.g.bad_nodes, 1);
	assert_int_equal(o.c.lost, 1);
	assert_int_equal(count_status(&o.g, RT_MESH_ABSENT), 4);
	for (uint32_t i = 0; i < 4; i++) {
		if (i != 2) {
			assert_int_equal(o.g.nodes[i].verdict, RT_NODE_OK);
			assert_int_equal(o.status[i], 11);
		}
	}
	assert_int_equal(o.status[2], 0); /* died, no verdict */
	rt_mesh_agg_free(&o.g);
}

/* Rank 3 sleeps past the round's bound: its pair times out, it is lost
 * and its later pair fails without a try; the run ends. */
/* Rank 1 exits at its test of the last round: all its other pairs
 * passed, yet it is the bad node, lost, and its partner is not blamed. */
static void rank_dying_in_last_round_is_named(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_TOURNAMENT, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99,
			     .dies_late = 1, .dribbles = 99};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_false(o.g.ready);
	assert_int_equal(o.c.lost, 1);
	assert_true(o.g.nodes[1].lost);
	assert_int_equal(count_status(&o.g, RT_MESH_OK), 5);
	assert_int_equal(o.g.nodes[1].verdict, RT_NODE_BAD);
	assert_int_equal(o.g.bad_nodes, 1);
	assert_int_equal(o.g.bad_links, 0);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(o.status[i], i == 1 ? 0 : 11);
	rt_mesh_agg_free(&o.g);
}

static void silent_rank_times_out(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_RING, .absent = 99,
			     .dies = 99, .silent = 3, .slow = 99, .liar = 99, .dies_late = 99, .dribbles = 99};
	struct outcome o;
	uint64_t t0 = rt_now_ns();

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, cl.interrupt ? RT_INTERRUPTED : 0);
	assert_false(o.g.ready);
	assert_int_equal(count_status(&o.g, RT_MESH_TIMEOUT), 1);
	assert_int_equal(o.g.nodes[3].verdict, RT_NODE_BAD);
	assert_int_equal(o.c.lost, 1);
	assert_int_equal(o.status[3], 1); /* its late write found the door shut */
	assert_true(rt_now_ns() - t0 < 10ull * 1000000000ull);
	rt_mesh_agg_free(&o.g);
}

/* A random round leaves a slow pair's two ends suspect; the blame pass
 * re-tests the pair (slow again), pairs each end with two good ranks and
 * names the slow one alone, by its pairings. */
static void random_second_pass(void **state)
{
	struct cluster cl = {.n = 6, .kind = RT_SCHED_RANDOM, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 5, .liar = 99, .dies_late = 99, .dribbles = 99,
			     .min_gbps = 20};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, cl.interrupt ? RT_INTERRUPTED : 0);
	assert_int_equal(o.rounds, 1);
	assert_true(o.c.rounds > 1);
	assert_false(o.g.ready);
	assert_int_equal(o.g.bad_nodes, 1);
	assert_int_equal(o.g.nodes[5].verdict, RT_NODE_BAD);
	assert_int_equal(o.g.suspect_nodes, 0);
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(o.g.nodes[i].verdict, RT_NODE_OK);
	assert_int_equal(o.g.blame.nre, 1);
	assert_int_equal(o.g.blame.nends, 2);
	assert_true(o.g.nodes[5].named);
	assert_int_equal(o.g.bad_links, 0);
	/* the verdict tells rank 5 alone that its host is the one at fault */
	assert_int_equal(o.status[5], 13);
	for (uint32_t i = 1; i < 5; i++)
		assert_int_equal(o.status[i], 11);
	rt_mesh_agg_free(&o.g);
}

/* A link slow in the first pass only: re-tested, good, reported flaky
 * with its first figures, and the run is READY; no host is paired. */
static void flaky_link_good_on_retest(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_TOURNAMENT, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99,
			     .dribbles = 99, .min_gbps = 20, .blip = 2, .blip_rounds = 3};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_true(o.g.blame.ran);
	assert_int_equal(o.g.blame.nre, 3); /* rank 2's three links */
	assert_int_equal(o.g.blame.flaky, 3);
	assert_int_equal(o.g.blame.nends, 0);
	assert_int_equal(o.g.blame.re[0].first.why, RT_LINK_BW_ABS);
	assert_int_equal(RT_MIN(o.g.blame.re[0].first.r.mbps, o.g.blame.re[0].first.r.mbps_rev), 5000);
	assert_int_equal(o.c.rounds, 3 + 3); /* rank 2 in every re-test */
	assert_true(o.g.ready);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(o.status[i], 10);
	rt_mesh_agg_free(&o.g);
}

/* A budget of 1.5 s over 5 ranks: random matchings until it is spent,
 * every rank tested (the resting one in the next matching), every one
 * of the 10 pairs covered by then, the budget kept to within a round. */
static void budget_matchings(void **state)
{
	struct cluster cl = {.n = 5, .kind = RT_SCHED_BUDGET, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99,
			     .dribbles = 99, .budget_ms = 1500};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_true(o.g.cover.rounds >= 2);
	assert_int_equal(o.g.cover.matchings, o.g.cover.rounds);
	assert_true(o.g.cover.counted);
	assert_int_equal(o.g.cover.distinct, 10);
	assert_int_equal(o.g.nlinks, 10);
	assert_true(o.coord_ns < (1500ull + ROUND_MS) * 1000000ull);
	assert_true(o.g.cover.elapsed_s <= 1.5 + 0.5);
	assert_true(o.g.ready);
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(o.status[i], 10);
	rt_mesh_agg_free(&o.g);
}

/* A random round of 3 ranks pairs two: the third was never tested, so
 * the run is not READY and names it; every rank hears so. */
static void random_odd_count_leaves_one_untested(void **state)
{
	struct cluster cl = {.n = 3, .kind = RT_SCHED_RANDOM, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99,
			     .dribbles = 99};
	struct outcome o;
	uint32_t untested = 0;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.g.nlinks, 1);
	for (uint32_t i = 0; i < 3; i++)
		untested += o.g.nodes[i].verdict == RT_NODE_UNTESTED;
	assert_int_equal(untested, 1);
	assert_int_equal(o.g.untested_nodes, 1);
	assert_false(o.g.ready);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(o.status[i], 11);
	rt_mesh_agg_free(&o.g);
}

/* Rank 2 answers with a result for a pair that is not its own: a
 * breach of the protocol, so it is lost and its pairs fail; the
 * others' results stand. */
static void wrong_result_loses_the_rank(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_TOURNAMENT, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 2, .dies_late = 99, .dribbles = 99};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, cl.interrupt ? RT_INTERRUPTED : 0);
	assert_false(o.g.ready);
	assert_int_equal(o.c.lost, 1);
	assert_int_equal(o.g.nlinks, 6);
	assert_int_equal(o.g.nodes[2].verdict, RT_NODE_BAD);
	assert_int_equal(count_status(&o.g, RT_MESH_OK), 3); /* the pairs without 2 */
	assert_int_equal(o.status[2], 1);
	rt_mesh_agg_free(&o.g);
}

/* SIGINT at rank 0: the rounds end at once, and every rank still gets
 * a verdict, "interrupted" and never ready, instead of waiting out its
 * bound. */
static void interrupt_ends_with_a_verdict(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_TOURNAMENT, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99, .dribbles = 99,
			     .interrupt = true};
	struct outcome o;
	uint64_t t0 = rt_now_ns();

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, RT_INTERRUPTED);
	assert_false(o.g.ready);
	assert_true(o.g.interrupted);
	assert_int_equal(o.c.rounds, 1);
	assert_int_equal(o.g.nres, 0);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(o.status[i], 12); /* told: interrupted */
	assert_true(rt_now_ns() - t0 < 5ull * 1000000000ull);
	rt_mesh_agg_free(&o.g);
}

/* Rank 3 sends its result a byte now and then, each piece within a
 * read's bound: the round still ends at its own bound, the rank is lost
 * and its pair timed out, and the honest pairs' results stand. */
static void dribbling_rank_cannot_stretch_a_round(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_RING, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99,
			     .dies_late = 99, .dribbles = 3};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_true(o.coord_ns < (ROUND_MS + 600) * 1000000ull);
	assert_int_equal(o.c.lost, 1);
	assert_true(o.g.nodes[3].lost);
	assert_int_equal(count_status(&o.g, RT_MESH_TIMEOUT), 1);
	assert_int_equal(o.g.nodes[3].verdict, RT_NODE_BAD);
	assert_int_equal(o.g.bad_nodes, 1);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(o.g.nodes[i].verdict, RT_NODE_OK);
	rt_mesh_agg_free(&o.g);
}

static void round_needs_a_bound(void **state)
{
	struct rt_mesh_gather gt = {0};
	struct rt_mesh_agg g;
	struct rt_mesh_limits lim = {0};
	struct rt_error err = {0};
	struct rt_sched s;
	struct rt_mesh_coord c = {.gt = &gt, .g = &g, .s = &s, .lim = &lim};

	(void)state;
	assert_int_equal(rt_sched_init(&s, RT_SCHED_RING, 2, 0, 0, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&g, 2, 0, &err), 0);
	assert_int_not_equal(rt_mesh_coordinate(&c, &err), 0);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	rt_sched_free(&s);
	rt_mesh_agg_free(&g);
}

/* Rails multiply the results: a tournament of 4,096 hosts of 8 rails is
 * refused at planning, naming the ways out; 2,048 hosts fit, stored
 * sparse (one entry per pair and rail); a plan made dense before the
 * hellos turns sparse when they list more than one rail. */
static void rails_counted_in_the_plan(void **state)
{
	struct rt_sched s;
	struct rt_mesh_agg g;
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_sched_init(&s, RT_SCHED_TOURNAMENT, 4096, 0, 1, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&g, 4096, 0, &err), 0);
	g.rails = 8;
	assert_int_equal(rt_mesh_plan_fits(&s, &g, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "tournament of 4096 hosts x 8 rails makes 67092480 results"));
	assert_non_null(strstr(err.reason, "--schedule random"));
	rt_mesh_agg_free(&g);
	rt_sched_free(&s);

	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_sched_init(&s, RT_SCHED_TOURNAMENT, 2048, 0, 1, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&g, 2048, 0, &err), 0);
	g.rails = 8;
	assert_int_equal(rt_mesh_plan_fits(&s, &g, &err), 0);
	assert_null(g.dense);
	/* crossed: rails x rails a pair, 64 times the pairs */
	g.cross = true;
	assert_int_equal(rt_mesh_plan_fits(&s, &g, &err), -1);
	assert_non_null(strstr(err.reason, "tournament of 2048 hosts x 8 rails crossed (x rails) "
				"makes 134152192 results"));
	rt_mesh_agg_free(&g);
	rt_sched_free(&s);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_sched_init(&s, RT_SCHED_TOURNAMENT, 512, 0, 1, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&g, 512, 0, &err), 0);
	g.rails = 8;
	g.cross = true;
	assert_int_equal(rt_mesh_plan_fits(&s, &g, &err), 0); /* 8,372,224 results */
	rt_mesh_agg_free(&g);
	rt_sched_free(&s);

	assert_int_equal(rt_sched_init(&s, RT_SCHED_TOURNAMENT, 8, 0, 1, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&g, 8, 0, &err), 0);
	assert_int_equal(rt_mesh_plan_fits(&s, &g, &err), 0);
	assert_non_null(g.dense);
	for (uint32_t i = 0; i < 8; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 8, .host = "h", .nrails = i ? 1 : 2};

		h.rails[0] = (struct rt_mesh_rail){.dev = "rxe0", .port = 1, .addr = "10.0.0.1"};
		h.rails[1] = (struct rt_mesh_rail){.dev = "rxe1", .rail = 1, .port = 1,
						   .addr = "10.1.0.1"};
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	assert_int_equal(rt_mesh_plan_fits(&s, &g, &err), 0);
	assert_null(g.dense);
	assert_int_equal(g.rails, 2);
	rt_mesh_agg_free(&g);
	rt_sched_free(&s);
}

/* Rails at work: 6 rails a host, rail i against rail i (6 connections
 * a pair), then crossed (36 a pair: two waves of 32 and 4 under each of
 * the 3 rounds); every connection's RESULT in its wave's order, nobody
 * lost, READY. */
static void crossed_rails_in_waves(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_TOURNAMENT, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99,
			     .dribbles = 99, .blip = 99, .rails = 6};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_true(o.g.ready);
	assert_int_equal(o.g.nlinks, 6 * 6);
	assert_int_equal(o.g.ncross, 0);
	rt_mesh_agg_free(&o.g);

	cl.cross = true;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.c.lost, 0);
	assert_int_equal(o.c.rounds, 3); /* waves are not rounds */
	assert_true(o.g.ready);
	assert_int_equal(o.g.nlinks, 6 * 36);
	assert_int_equal(o.g.ncross, 6 * 30);
	assert_int_equal(count_status(&o.g, RT_MESH_OK), 6 * 36);
	assert_int_equal(rt_mesh_class_stat(&o.g, 5, 2)->links, 12); /* both ways round */
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(o.status[i], 10);
	rt_mesh_agg_free(&o.g);
}

/* --pattern incast: each round's receiver is in three pairs and takes
 * all three senders' connections in one test (the stub answers exactly
 * the connections its ASSIGN counts, so a count short of the senders
 * leaves one unanswered, failed); every rank receives once: 4 rounds of
 * 3 results, READY. A rank that receives answers nothing to rank 0. */
static void incast_receiver_takes_every_sender(void **state)
{
	struct cluster cl = {.n = 4, .kind = RT_SCHED_INCAST, .fan_in = 3, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99,
			     .dribbles = 99, .blip = 99};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.rounds, 4);
	assert_int_equal(o.c.lost, 0);
	assert_true(o.g.ready);
	assert_int_equal(count_status(&o.g, RT_MESH_OK), o.g.nlinks);
	assert_true(o.g.nlinks >= 6);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(o.status[i], 10);
	rt_mesh_agg_free(&o.g);
	/* a rank that dies at its first test: lost, every pair of it failed,
	 * the run still ends with a verdict that every other rank gets (a
	 * receiver that waited out the dead sender may be late for its next
	 * test, as a listener whose partner never came: so not every other
	 * link need pass) */
	cl.dies = 2;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_false(o.g.ready);
	assert_int_equal(o.c.lost, 1);
	assert_true(count_status(&o.g, RT_MESH_OK) >= 1);
	for (uint32_t i = 0; i < 4; i++)
		assert_true(i == 2 ? o.status[i] != 10 && o.status[i] != 11 : o.status[i] == 11);
	rt_mesh_agg_free(&o.g);
}

/* --pattern alltoall: each round every rank listens for its two senders
 * and connects to its two receivers, all at once (the rank runs its
 * three tests on threads), and sends its RESULTs pair after pair: 2
 * rounds of 8 tests, every ordered pair once, READY. */
static void alltoall_ranks_in_several_tests(void **state)
{
	struct cluster cl = {.n = 5, .kind = RT_SCHED_ALLTOALL, .fan_in = 2, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99,
			     .dribbles = 99, .blip = 99, .round_ms = 8000, .test_ms = 3000};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.rounds, 2);
	assert_int_equal(o.c.lost, 0);
	assert_true(o.g.ready);
	assert_int_equal(count_status(&o.g, RT_MESH_OK), o.g.nlinks);
	assert_int_equal(o.g.nlinks, 10); /* every pair of 5, each tested both ways */
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(o.status[i], 10);
	rt_mesh_agg_free(&o.g);
	/* a rank that answers its first test with another pair's RESULT is
	 * lost, its pending tests failed; the rest still end with a verdict */
	cl.liar = 3;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_false(o.g.ready);
	assert_int_equal(o.c.lost, 1);
	for (uint32_t i = 0; i < 5; i++)
		assert_true(i == 3 || o.status[i] == 11);
	rt_mesh_agg_free(&o.g);
}

/* --pattern alltoall under a budget too short for a second round: the
 * first runs whatever the budget (every rank sends and receives in it),
 * the rest are not started; the cover says 1 of the 4 rounds, no
 * matchings, and the 5 pairs of the round's one offset are all tested. */
static void alltoall_budget_runs_what_fits(void **state)
{
	struct cluster cl = {.n = 5, .kind = RT_SCHED_ALLTOALL, .fan_in = 1, .absent = 99,
			     .dies = 99, .silent = 99, .slow = 99, .liar = 99, .dies_late = 99,
			     .dribbles = 99, .blip = 99, .budget_ms = 1,
			     .round_ms = 8000, .test_ms = 3000};
	struct outcome o;

	(void)state;
	run_cluster(&cl, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.rounds, 4);
	assert_int_equal(o.g.cover.rounds, 1);
	assert_int_equal(o.g.cover.all_rounds, 4);
	assert_int_equal(o.g.cover.matchings, 0);
	assert_true(o.g.cover.counted);
	assert_int_equal(o.g.cover.distinct, 5);
	assert_int_equal(o.g.nlinks, 5);
	assert_int_equal(count_status(&o.g, RT_MESH_OK), 5);
	assert_int_equal(o.g.untested_nodes, 0);
	assert_true(o.g.ready);
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(o.status[i], 10);
	rt_mesh_agg_free(&o.g);
}

/* Each test's connections within 64 at either end, and no rail without
 * an address meeting --qps or --fan-in: exit 2 before round 0. */
static void connections_fit_or_are_refused(void **state)
{
	static struct rt_mesh_rail rails[2][8];
	struct rt_mesh_agg g;
	struct rt_mesh_coord c = {.g = &g, .qps = 8};
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 2, 0, &err), 0);
	for (uint32_t r = 0; r < 2; r++) {
		g.nodes[r].present = true;
		g.nodes[r].nrails = 8;
		g.nodes[r].rails = rails[r];
		snprintf(g.nodes[r].host, sizeof(g.nodes[r].host), "node%u", r);
		for (unsigned i = 0; i < 8; i++)
			g.nodes[r].rails[i] = (struct rt_mesh_rail){.rail = (uint8_t)i,
				.state = RT_RAIL_ACTIVE, .addr = "10.0.0.1"};
	}
	assert_int_equal(rt_mesh_conns_fit(&c, &err), 0); /* 8 x 8 = 64 */
	c.fan_in = 2;
	assert_int_equal(rt_mesh_conns_fit(&c, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "8 rails x --qps 8 x 2 senders is 128 connections "
				       "into one host, above 64"));
	c.fan_in = 0;
	c.qps = 2;
	g.nodes[1].rails[5].addr[0] = '\0'; /* tested over verbs */
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_conns_fit(&c, &err), -1);
	assert_non_null(strstr(err.reason, "node1's rail 5 has no address"));
	assert_non_null(strstr(err.reason, "not with --qps"));
	c.qps = 1; /* one connection, one partner: verbs is fine */
	assert_int_equal(rt_mesh_conns_fit(&c, &err), 0);
	g.nodes[1].rails[5].state = RT_RAIL_DOWN; /* not tested at all */
	c.qps = 2;
	assert_int_equal(rt_mesh_conns_fit(&c, &err), 0);
	for (uint32_t r = 0; r < 2; r++)
		g.nodes[r].rails = NULL; /* the test's, not the aggregate's */
	rt_mesh_agg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_tournament),
		cmocka_unit_test(rails_counted_in_the_plan),
		cmocka_unit_test(crossed_rails_in_waves),
		cmocka_unit_test(absent_and_dead_rank),
		cmocka_unit_test(rank_dying_in_last_round_is_named),
		cmocka_unit_test(silent_rank_times_out),
		cmocka_unit_test(random_second_pass),
		cmocka_unit_test(wrong_result_loses_the_rank),
		cmocka_unit_test(random_odd_count_leaves_one_untested),
		cmocka_unit_test(flaky_link_good_on_retest),
		cmocka_unit_test(budget_matchings),
		cmocka_unit_test(interrupt_ends_with_a_verdict),
		cmocka_unit_test(dribbling_rank_cannot_stretch_a_round),
		cmocka_unit_test(round_needs_a_bound),
		cmocka_unit_test(incast_receiver_takes_every_sender),
		cmocka_unit_test(connections_fit_or_are_refused),
		cmocka_unit_test(alltoall_ranks_in_several_tests),
		cmocka_unit_test(alltoall_budget_runs_what_fits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
