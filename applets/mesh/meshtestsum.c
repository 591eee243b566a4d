/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A test's outcome (meshtest_priv.h): each connection's port read before
 * and after its traffic, and each rail's result from its connections'
 * figures. */
#include <stdio.h>
#include <stdlib.h>

#include "mesh/meshtest_priv.h"

bool rt_mesh_conn_port(const struct rt_conn *c, const char **dev, unsigned *port)
{
	const struct rdma_cm_id *id = rt_conn_id(c);

	if (!id || !id->verbs || !id->port_num)
		return false;
	*dev = ibv_get_device_name(id->verbs->device);
	*port = id->port_num;
	return *dev != NULL;
}

/* The first reading of the connection's port, before its traffic; a port
 * whose counters cannot be read (none in sysfs) reports no rises. */
void rt_mesh_snap_before(struct rt_conn *c, struct pair_conn *u)
{
	struct pair_test *p = (struct pair_test *)rt_conn_applet(c);
	const char *dev;
	unsigned port;

	if (p->nsnaps >= p->nconn)
		return;
	u->snap = &p->snaps[p->nsnaps++];
	u->snap->read = rt_mesh_conn_port(c, &dev, &port) &&
			rt_mesh_ctr_read(p->t->sysfs, dev, port, &u->snap->before);
}

/* The second reading, once the traffic is done: this end's rises. */
void rt_mesh_snap_after(struct rt_conn *c, struct pair_conn *u, enum rt_mesh_end end)
{
	const struct pair_test *p = rt_conn_applet(c);
	const char *dev;
	unsigned port;

	if (!u->snap || !u->snap->read || u->snap->taken || !rt_mesh_conn_port(c, &dev, &port) ||
	    !rt_mesh_ctr_read(p->t->sysfs, dev, port, &u->snap->after))
		return;
	u->snap->taken = true;
	rt_mesh_ctr_rises(&u->snap->before, &u->snap->after, end, &u->snap->own);
}

/* A rail's result gets both ends' rises, whatever its status: a test
 * that failed may have failed for what they count. */
static void attach_counters(struct rt_conn *c, struct rt_mesh_result *r)
{
	struct pair_conn *u = rt_conn_data(c);

	if (!u || !u->snap)
		return;
	rt_mesh_snap_after(c, u, RT_MESH_END_B); /* a rail that ended early: now */
	rt_mesh_ctr_join(&u->snap->peer, &u->snap->own, &r->ctr);
	if (r->ctr.n)
		r->flags |= RT_MESH_HAS_CTR;
}

static uint64_t connect_ns(const struct rt_conn *c)
{
	static const enum rt_step steps[] = { RT_STEP_RESOLVE_ADDR, RT_STEP_RESOLVE_ROUTE,
					      RT_STEP_CREATE_QP, RT_STEP_CONNECT };
	uint64_t ns = 0;

	for (size_t i = 0; c && i < ARRAY_SIZE(steps); i++)
		ns += rt_conn_step_ns(c)[steps[i]];
	return ns;
}

/* Why rail i's figures are not all in (NULL when they are); *timeout
 * when its bound passed. */
static const char *short_of(const struct pair_test *p, const struct rail_run *r,
			    const char *peer, bool *timeout, char *buf, size_t len)
{
	const struct rt_mesh_cm_test *t = p->t;
	const char *end = past(p) ? "within the test's bound" : "before the disconnect";

	*timeout = past(p);
	if (r->got < t->pings)
		snprintf(buf, len, "%s: %u of %u echoes %s", peer, r->got, t->pings, end);
	else if (r->written < t->bw_bytes)
		snprintf(buf, len, "%s: %llu of %llu bytes written %s", peer,
			 (unsigned long long)r->written, (unsigned long long)t->bw_bytes, end);
	else if (r->read < t->bw_bytes)
		snprintf(buf, len, "%s: %llu of %llu bytes read %s", peer,
			 (unsigned long long)r->read, (unsigned long long)t->bw_bytes, end);
	else
		return NULL;
	return buf;
}

/* A rail's connections as one: their round trips together, their bytes
 * each way over the span from the first one's start to the last one's
 * end (all of them loading the link at once), the slowest set-up. */
struct rail_sum {
	struct rail_run all;
	uint64_t conn_ns;
	unsigned ok;       /* connections with all their figures */
	bool ctr;          /* its first connection's counters are attached */
};

static void span(uint64_t *t0, uint64_t *t1, uint64_t s0, uint64_t s1)
{
	*t0 = *t0 && *t0 < s0 ? *t0 : s0;
	*t1 = RT_MAX(*t1, s1);
}

static void sum_add(struct rail_sum *m, const struct rail_run *run, uint64_t conn_ns)
{
	rt_hist_merge(&m->all.h, &run->h);
	m->all.got += run->got;
	m->all.read += run->read;
	m->all.written += run->written;
	span(&m->all.bw_t0, &m->all.bw_t1, run->bw_t0, run->bw_t1);
	span(&m->all.rd_t0, &m->all.rd_t1, run->rd_t0, run->rd_t1);
	m->conn_ns = RT_MAX(m->conn_ns, conn_ns);
	m->ok++;
}

static void fill(struct rt_mesh_result *r, const struct pair_test *p,
		 const struct rail_run *run, uint64_t conn_ns);

/* One connection's outcome into its rail's: its figures summed, or the
 * rail failed (timed out) with the first failure's reason. The port's
 * counters are read once a rail: its first connection's. */
static void conclude_conn(struct rt_conn *c, struct pair_test *p, struct rt_mesh_result *r,
			  struct rail_sum *m, char *why)
{
	unsigned k = created_as(p, c);
	const char *reason;
	char buf[160];
	bool timeout;

	if (!m->ctr) {
		attach_counters(c, r);
		m->ctr = true;
	}
	reason = short_of(p, &p->runs[k], rt_conn_peer(c), &timeout, buf, sizeof(buf));
	if (!reason) {
		sum_add(m, &p->runs[k], connect_ns(c));
		return;
	}
	if (rt_conn_err(c)->set)
		reason = rt_conn_err(c)->reason;
	if (why[0])
		return;
	r->status = timeout || rt_conn_err(c)->exit_code == RT_EXIT_TIMEOUT ? RT_MESH_TIMEOUT
									     : RT_MESH_FAILED;
	rt_strlcpy(why, reason, 160);
}

/* Each rail's result into r[]: its connections' figures as one when
 * every one of them has its figures, else failed or timed out with the
 * reason in why[rail], which --debug prints. */
void rt_mesh_test_conclude(struct rt_cm *cm, struct pair_test *p, struct rt_mesh_result *r,
			   char (*why)[160])
{
	struct rail_sum *m = rt_xcalloc(p->nrails, sizeof(*m)); /* 58 KiB a rail */
	struct rt_conn *c;

	rt_cm_each(cm, c) {
		unsigned i = p->conn_rail[created_as(p, c)];

		conclude_conn(c, p, &r[i], &m[i], why[i]);
	}
	for (unsigned i = 0; i < p->nrails; i++) {
		if (!why[i][0] && m[i].ok == p->qps)
			fill(&r[i], p, &m[i].all, m[i].conn_ns);
		else if (!why[i][0])
			snprintf(why[i], sizeof(why[i]), "%u of %u connections of the rail had "
				 "their figures", m[i].ok, p->qps);
		if (why[i][0])
			rt_dbg(p->t->log, "rail %u of %u: %s", i, p->nrails, why[i]);
	}
	free(m);
}

static void fill(struct rt_mesh_result *r, const struct pair_test *p,
		 const struct rail_run *run, uint64_t conn_ns)
{
	uint8_t ctr = r->flags & RT_MESH_HAS_CTR; /* attached before */

	rt_mesh_result_rtt(r, &run->h, conn_ns);
	r->flags |= ctr;
	if (p->t->bw_bytes && run->bw_t1 > run->bw_t0 && run->rd_t1 > run->rd_t0) {
		/* bits per ns are Gbit/s; a thousand times that Mbit/s. This
		 * side is b (meshrun.h): its reads carry a to b, its writes b to a. */
		r->mbps = run->read * 8000u / (run->rd_t1 - run->rd_t0);
		r->mbps_rev = run->written * 8000u / (run->bw_t1 - run->bw_t0);
		r->flags |= RT_MESH_HAS_BW;
	}
}
