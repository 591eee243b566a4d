/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A rank's side of the rounds (meshrun.h): its HELLO to rank 0, then each
 * ASSIGN's test and, from the connecting end, its RESULTs, until the
 * VERDICT. Rank 0's side is meshrun.c. */
#include <string.h>

#include "mesh/meshrun.h"
#include "mesh/meshseal.h"
#include "rdmatest/oob.h"

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

/* One assignment's test, and from the connecting side a RESULT a rail
 * (or one for the host), in the assignment's order. */
static int tell(struct rt_oob *conn, struct rt_mesh_auth *auth,
		const struct rt_mesh_assign *a, uint32_t self, rt_mesh_test_fn *fn, void *ctx,
		struct rt_error *err)
{
	struct rt_mesh_result res[RT_MESH_RAILS_MAX];
	unsigned n = a->nrails ? a->nrails : 1;

	memset(res, 0, sizeof(res));
	for (unsigned i = 0; i < n; i++)
		res[i].status = RT_MESH_FAILED;
	fn(ctx, a, self, res);
	if (a->role != RT_MESH_CONNECT)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		struct rt_meshmsg m;

		rt_mesh_result_msg(a, self, i, &res[i], &m);
		if (rt_mesh_send(conn, auth, &m, err))
			return -1;
	}
	return 0;
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
		if (tell(conn, auth, a, self, fn, ctx, err))
			return -1;
	}
}
