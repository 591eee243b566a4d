/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A rank's side of the rounds (meshrun.h): its HELLO to rank 0, then each
 * ASSIGN's test and, from the connecting end, its RESULTs, until the
 * VERDICT. Rank 0's side is meshrun.c. */
#include <stdlib.h>
#include <string.h>

#include "mesh/meshpar.h"
#include "mesh/meshrun.h"
#include "mesh/meshseal.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

int rt_mesh_join(struct rt_oob *conn, const char *host, unsigned port,
		 long long wait_ms, const struct rt_mesh_hello *h,
		 struct rt_error *err)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_HELLO, .u.hello = *h};

	return rt_oob_connect(conn, host, port, wait_ms, err) ||
	       rt_mesh_send(conn, NULL, &m, err) ? -1 : 0;
}

void rt_mesh_result_msg(const struct rt_mesh_assign *a, uint32_t self, unsigned i,
			const struct rt_mesh_result *r, struct rt_meshmsg *m)
{
	*m = (struct rt_meshmsg){.type = RT_MESHMSG_RESULT, .u.result = *r};
	m->u.result.round = a->round;
	m->u.result.a = a->peer;
	m->u.result.b = self;
	m->u.result.rail = a->nrails ? a->rails[i].rail_b : 0;
	m->u.result.rail_b = a->nrails ? a->rails[i].rail : 0;
}

/* One test of a round: its assignment, its results (each starts failed). */
struct test_run {
	/* first: rt_mesh_par_run's, reached through the job's address */
	// cppcheck-suppress unusedStructMember
	struct rt_mesh_par par;
	struct rt_mesh_assign a;
	struct rt_mesh_result res[RT_MESH_RAILS_MAX];
	rt_mesh_test_fn *fn;
	void *ctx;
	uint32_t self;
};

static void *run_test(void *arg)
{
	struct test_run *t = arg;

	t->fn(t->ctx, &t->a, t->self, t->res);
	return NULL;
}

/* From the connecting side, a RESULT a rail (or one for the host), in
 * the assignment's order. */
static int tell(struct rt_oob *conn, struct rt_mesh_auth *auth, const struct test_run *t,
		struct rt_error *err)
{
	unsigned n = t->a.nrails ? t->a.nrails : 1;

	for (unsigned i = 0; t->a.role == RT_MESH_CONNECT && i < n; i++) {
		struct rt_meshmsg m;

		rt_mesh_result_msg(&t->a, t->self, i, &t->res[i], &m);
		if (rt_mesh_send(conn, auth, &m, err))
			return -1;
	}
	return 0;
}

/* The rest of a round's ASSIGNs (--pattern alltoall: a listen and a
 * connect a partner), each of the round and count of the first. */
static int take_rest(struct rt_oob *conn, struct rt_mesh_auth *auth, uint32_t size,
		     struct test_run *t, unsigned tests, struct rt_error *err)
{
	for (unsigned i = 1; i < tests; i++) {
		struct rt_meshmsg m;
		int rc = rt_mesh_recv(conn, auth, size, &m, err);

		if (rc)
			return rc;
		if (m.type != RT_MESHMSG_ASSIGN || m.u.assign.round != t[0].a.round ||
		    m.u.assign.tests != tests)
			return rt_fail(err, RT_EXIT_FAIL, "mesh: rank 0 sent %u of the %u tests "
				       "of round %u, then another message", i, tests,
				       t[0].a.round);
		t[i].a = m.u.assign;
	}
	return 0;
}

/* One round's tests, all at once (a thread each when there are several:
 * meshpar.h), then their RESULTs in the assignments' order. At most
 * RT_MESH_TESTS_MAX tests: 290 KiB. */
static int round_tests(struct rt_oob *conn, struct rt_mesh_auth *auth, uint32_t size,
		       const struct rt_mesh_assign *first, uint32_t self, rt_mesh_test_fn *fn,
		       void *ctx, struct rt_error *err)
{
	unsigned n = first->tests ? first->tests : 1, i;
	struct test_run *t = rt_xcalloc(n, sizeof(*t));
	int rc;

	t[0].a = *first;
	rc = take_rest(conn, auth, size, t, n, err);
	for (i = 0; !rc && i < n; i++) {
		t[i].fn = fn;
		t[i].ctx = ctx;
		t[i].self = self;
		for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
			t[i].res[r].status = RT_MESH_FAILED;
	}
	if (!rc && n > 1)
		rt_mesh_par_run(t, n, sizeof(*t), run_test);
	else if (!rc)
		run_test(t);
	for (i = 0; !rc && i < n; i++)
		rc = tell(conn, auth, &t[i], err);
	free(t);
	return rc;
}

int rt_mesh_follow(struct rt_oob *conn, struct rt_mesh_auth *auth, uint32_t self,
		   uint32_t size, rt_mesh_test_fn *fn, void *ctx, struct rt_mesh_verdict *v,
		   struct rt_error *err)
{
	struct rt_meshmsg m;

	for (;;) {
		const struct rt_mesh_assign *a = &m.u.assign;
		int rc = rt_mesh_recv(conn, auth, size, &m, err);

		if (rc)
			return rc; /* RT_INTERRUPTED too */
		if (m.type == RT_MESHMSG_VERDICT) {
			*v = m.u.verdict;
			return 0;
		}
		if (m.type != RT_MESHMSG_ASSIGN)
			return rt_fail(err, RT_EXIT_FAIL, "mesh: rank 0 sent message type %u, "
				       "not an assignment", m.type);
		if (a->role == RT_MESH_REST)
			continue;
		rc = round_tests(conn, auth, size, a, self, fn, ctx, err);
		if (rc)
			return rc == RT_INTERRUPTED ? rc : -1;
	}
}
