/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One instance of a mesh run, the same on every host:
 *   rank 0   rt_mesh_lead: listens for the ranks' coordination
 *            connections, runs its own rank as a child process that joins
 *            it over loopback, gathers the hellos (meshgather.h), runs the
 *            rounds and judges (meshrun.h); the judged run is in g
 *   a rank   rt_mesh_take_part: joins rank 0 (refusals retried while it
 *            comes up), says hello with its host and test port, runs its
 *            tests (plan->fn) until the verdict
 * Bounds from plan->timeout_ms (T) and plan->join_ms (J, T when 0): one
 * pair's test T, a rank's connect to rank 0 J, the gathering J, a round
 * 2T + 2 s (rt_mesh_round_ms), a rank's wait for its next message the
 * gathering plus a round. Launchers start ranks seconds apart (image
 * pulls, pdsh's fanout) while a pair's test should fail fast: two
 * knobs. */
#ifndef RDMATEST_MESHNODE_H
#define RDMATEST_MESHNODE_H

#include <stdbool.h>
#include <stdio.h>

#include "mesh/hostlist.h"
#include "mesh/meshkey.h"
#include "mesh/meshrun.h"

struct rt_mesh_plan {
	uint32_t rank, size;
	const char *coord_host;  /* rank 0's address as the ranks reach it */
	unsigned coord_port;     /* its coordination (TCP) port */
	/* this rank's host in its hello, which its partners connect to; NULL:
	 * the local address of its connection to rank 0 */
	const char *self_host;
	unsigned test_port;      /* this rank's RDMA CM port for its tests */
	enum rt_sched_kind kind;
	uint32_t max_pairs;      /* 0: no bound */
	uint64_t seed;
	long long timeout_ms;
	long long join_ms;       /* joining and gathering; 0: timeout_ms */
	const struct rt_mesh_limits *lim;
	rt_mesh_test_fn *fn;
	void *ctx;
	FILE *lines;             /* this rank's JSON lines (meshline.h), or NULL */
	/* the launcher's host of every rank, or NULL: rank 0 names the
	 * absent ranks by it (they never said which host they are) */
	const struct rt_hostlist *hosts;
	uint64_t token; /* the job token's hash (launch.h), in every hello; 0: none */
	/* the run's authentication (meshkey.h), opened: a rank proves the
	 * job's secret to rank 0 and rank 0 to it before the hello, and every
	 * message after is sealed; NULL or mode none: none */
	struct rt_mesh_key *key;
	/* the payload rate of the local port carrying `host` (this rank's
	 * hello host), Mbit/s, 0 unknown: in the hello for --min-line-rate;
	 * NULL: none sent */
	uint32_t (*payload_of)(const char *host);
	bool no_blame;        /* rank 0: no blame pass (meshblame.h) */
	long long budget_ms;  /* rank 0: a budget schedule's budget; 0: none */
	/* this rank's rails to test (meshrails.h), in its hello; none: its
	 * host is tested, as before rails */
	const struct rt_mesh_rail *rails;
	unsigned nrails;
	struct rt_mesh_inv inv; /* this host's inventory (meshinv.h), in its hello */
	/* rank 0: --cross-rails, every rail of a pair's one end against every
	 * rail of the other (meshrun.h); the other ranks follow its ASSIGNs */
	bool cross;
	/* rank 0: a traffic pattern (--pattern bisection): its name for the
	 * summary's figures (meshtally.h), its matchings (0: as many as the
	 * schedule or the budget gives) and the bandwidth both ways at once;
	 * NULL: pairs */
	const char *pattern;
	uint32_t matchings;
	bool both_ways;
	/* rank 0: --pattern incast's senders a receiver (kind
	 * RT_SCHED_INCAST), 0 otherwise; --qps, connections a rail and pair
	 * (0 means 1); the other ranks follow its ASSIGNs */
	uint32_t fan_in;
	uint32_t qps;
};

long long rt_mesh_round_ms(long long timeout_ms);
/* J: the plan's bound on joining and gathering. */
long long rt_mesh_join_ms(const struct rt_mesh_plan *p);

/* Rank 0 holds a connection per rank and the pending ones at once:
 * raises the soft RLIMIT_NOFILE (often 1024) to what size needs, up to
 * the hard limit; exit 3 naming the limit when that is too low. */
int rt_mesh_fd_limit(uint32_t size, struct rt_error *err);

/* Rank 0: refuses a size whose descriptors or results cannot fit before
 * it listens (rt_mesh_fd_limit, rt_mesh_plan_fits). Absent and lost ranks are results; exit 1 for local failures,
 * RT_INTERRUPTED after SIGINT/SIGTERM (judged and the verdict sent). */
int rt_mesh_lead(const struct rt_mesh_plan *p, struct rt_mesh_agg *g,
		 struct rt_error *err);
/* Any other rank: 0 with the verdict in *v. A rank 0 that cannot prove
 * the job's secret (a stranger on its port) is exit 1, "NOT READY: rank
 * 0 could not prove the job's secret" and the cause: nothing it sent is
 * taken. */
int rt_mesh_take_part(const struct rt_mesh_plan *p, struct rt_mesh_verdict *v,
		      struct rt_error *err);

/* This rank against itself (--quick): a listener and a connection on its
 * own host and test port, the path a pair takes, in child processes so
 * that this process never holds RDMA resources across the forks of
 * rt_mesh_lead. One line with the figures on out; exit 1 (failed) or 124
 * (timed out) naming the host. */
int rt_mesh_loopback(const struct rt_mesh_plan *p, const char *host, FILE *out,
		     struct rt_error *err);

#endif
