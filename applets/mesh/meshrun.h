/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The rounds of a mesh run, both sides of the coordination (meshwire.h):
 *   rank 0  rt_mesh_coordinate: per round an ASSIGN to every rank still
 *           there (listen, connect or rest), then the connecting side's
 *           RESULT of every pair within round_ms; then the blame pass
 *           (meshblame.h) unless no_blame; then judging and a VERDICT to
 *           every rank still there.
 * With budget_ms (--budget, a budget schedule) the matchings go on while
 * the time since the first round plus (1 + RT_MESH_BUDGET_RESERVE) times
 * the longest round so far stays within it: the next matching's round
 * and a reserve for the blame pass, whose rounds are inside the budget
 * too (each is started only while one more of the longest round fits;
 * the pass is cut short, and says so, when none does). The rounds that
 * test every rank once (sched.h's cover_rounds) run whatever the budget.
 * The budget counts from the first round: the gathering (at most the
 * pair timeout) comes before it, the judging after.
 *   a rank  rt_mesh_join (connect, HELLO) and rt_mesh_follow (run each
 *           assigned test through a callback, answer with its RESULT,
 *           return at the VERDICT). A RESULT's a is the listener, b the
 *           connecting side (the figures' directions follow them).
 * Several tests a rank (--pattern incast and alltoall): a rank that is a
 * in several pairs of a round gets one listen for all of their
 * connections; one that is b in several (alltoall) gets a connect for
 * each, after its listen, each ASSIGN saying how many the round has; the
 * rank runs them at once (on threads) and sends the RESULTs pair after
 * pair, which rank 0 hears in that order.
 * Rails: the ASSIGN names every rail both ranks' hellos list ACTIVE
 * (rail i against rail i; pair_rails), and the connecting side answers
 * with one RESULT a rail, in that order; where either hello lists no
 * rail, one RESULT for the hosts, as before rails. A pair whose hosts
 * list rails but share no ACTIVE one rests (its rails are bad ones).
 * With crossed rails (the aggregate's cross, --cross-rails) the pair
 * tests every ACTIVE rail of b against every ACTIVE rail of a, rail i
 * against rail j too: up to RT_MESH_RAILS_MAX^2 (1,024) connections, in
 * waves of at most RT_MESH_RAILS_MAX (what one ASSIGN carries, and one
 * reactor's connections on the rank), each wave a round of its own
 * (ASSIGN, RESULTs, bounded by round_ms) under the same round number: a
 * round of r rails takes ceil(r^2 / 32) waves (one up to 5 rails).
 * A rank is lost for the rest of the run when its connection fails or
 * closes, when it sends anything but the RESULTs of its pair of this
 * round, or when its pair's RESULT has not come within round_ms: its
 * connection is closed and every pair of it from then on fails without
 * being tried (status failed). A rank that never said hello is absent:
 * its pairs get status absent. Either way the run goes on and ends with
 * a verdict. round_ms must exceed twice the bound of one pair's test:
 * a listener whose partner never came may still wait out the last round.
 * A RESULT is read as its bytes come, never waiting inside a read: a
 * rank that sends it piecemeal cannot stretch the round past round_ms.
 * Memory at rank 0: 12 B per rank and 240 B per pair of one round (its
 * RESULT's bytes so far among them, room for a sealed one), besides
 * the schedule (sched.h) and the results (meshagg.h). */
#ifndef RDMATEST_MESHRUN_H
#define RDMATEST_MESHRUN_H

#include <stdint.h>
#include <stdio.h>

#include "rdmatest/error.h"
#include "mesh/meshagg.h"
#include "mesh/meshauth.h"
#include "mesh/meshgather.h"
#include "mesh/sched.h"

struct rt_mesh_coord {
	struct rt_mesh_gather *gt; /* conn per rank; fd -1: absent or lost */
	struct rt_mesh_agg *g;
	struct rt_sched *s;
	const struct rt_mesh_limits *lim;
	long long round_ms; /* bound on one round's results (> 0) */
	uint64_t seed;      /* of the blame pass's partners */
	bool no_blame;      /* --no-blame: the first pass alone */
	bool both_ways;     /* --pattern bisection: bandwidth both ways at once */
	uint32_t qps;       /* --qps: connections a rail and pair (0 means 1) */
	uint32_t fan_in;    /* --pattern incast: senders a receiver takes at
			     * once (its pairs share the receiver); 0: pairs */
	long long budget_ms; /* --budget; 0: none */
	FILE *lines;        /* rank 0's evidence lines (--lines), or NULL */
	uint32_t lost;      /* ranks lost during the run (after the call) */
	uint32_t rounds;    /* rounds run, blame pass included */
	uint64_t start, longest_ms; /* the first round's start; the longest */
};

/* Rounds of the longest so far kept for the blame pass in a budget: a
 * re-test round and the two pairing rounds of one bad link, one spare. */
#define RT_MESH_BUDGET_RESERVE 4u

/* meshplan.c: whether every result a run of s can make fits g (its max_results):
 * exit 2 naming the size and schedule when not, so that a size that
 * cannot fit is refused before any rank waits for it, not rounds later;
 * when it fits, g's storage is chosen for them (rt_mesh_agg_plan: dense
 * for a tournament). */
int rt_mesh_plan_fits(const struct rt_sched *s, struct rt_mesh_agg *g,
		      struct rt_error *err);

/* Whether every test's connections stay within RT_MESH_TEST_CONNS at
 * both ends with the present ranks' rails, c->qps and c->fan_in, and no
 * rail without an address (tested over verbs: one connection, one
 * partner) meets several of either: exit 2 naming what does not. */
int rt_mesh_conns_fit(const struct rt_mesh_coord *c, struct rt_error *err);
/* Runs every round of c->s over the ranks gathered in c->gt, judges c->g
 * and sends the verdict. Lost and absent ranks are results, not errors:
 * exit 1 only for a local failure (poll), 2 for round_ms <= 0 or a
 * schedule whose results would not fit the aggregate (before any round). SIGINT/SIGTERM (interrupt.h)
 * end the rounds at once: what came is judged, the verdict sent (the
 * run winding down) and RT_INTERRUPTED returned. */
int rt_mesh_coordinate(struct rt_mesh_coord *c, struct rt_error *err);

/* One assigned test, run by a rank: fills the status and figures of r[i]
 * for each of the assignment's rails (r[0] alone when it names none: the
 * partner's host); round, a, b and the rails are set by the caller, and
 * every r[i] starts failed. Returns nothing: a failed test is a result. */
typedef void rt_mesh_test_fn(void *ctx, const struct rt_mesh_assign *a,
			     uint32_t self, struct rt_mesh_result *r);

/* Connects conn (bounded by its timeout_ms, refusals retried for wait_ms)
 * to rank 0 at host:port and says hello. */
int rt_mesh_join(struct rt_oob *conn, const char *host, unsigned port,
		 long long wait_ms, const struct rt_mesh_hello *h,
		 struct rt_error *err);
/* Into *m, the RESULT this rank sends for rail i of assignment a (i 0
 * for the host when a names no rail): the test's figures r, the pair and
 * rails as assigned, whatever the test wrote (a: the partner, b: this
 * rank). rt_mesh_follow sends it; a rank's --lines write the same. */
void rt_mesh_result_msg(const struct rt_mesh_assign *a, uint32_t self, unsigned i,
			const struct rt_mesh_result *r, struct rt_meshmsg *m);
/* Follows rank 0's assignments until its verdict (into *v). Every read
 * waits at most conn->timeout_ms: it must cover a round. auth: the
 * connection's end after its handshake (meshseal.h), every message
 * sealed; NULL: plain. An interrupt returns RT_INTERRUPTED. */
int rt_mesh_follow(struct rt_oob *conn, struct rt_mesh_auth *auth, uint32_t self,
		   uint32_t size, rt_mesh_test_fn *fn, void *ctx, struct rt_mesh_verdict *v,
		   struct rt_error *err);

#endif
