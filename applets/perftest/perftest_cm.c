/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ib_* applets' -R: their own QPs connected with the RDMA CM. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#include "rdmatest/addr.h"
#include "rdmatest/cm.h"
#include "rdmatest/fdwait.h"
#include "perftest/perftest_cm.h"
#include "rdmatest/util.h"

struct rt_pt_cm {
	struct rt_pt_cm_spec s;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct qp_conn {
		struct rdma_cm_id *id; /* NULL until created or requested */
		bool up;               /* established */
	} *q;                      /* s.n, QP i's connection */
	char peer[64];             /* "192.0.2.1:18515", for messages */
};

/* PSN out: the send PSN of the QP after RTS. */
static int qp_to(struct rt_pt_cm *cm, unsigned i, enum ibv_qp_state state,
		 uint32_t *psn, struct rt_error *err)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int mask = 0;

	if (rdma_init_qp_attr(cm->q[i].id, &a, &mask))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "rdma_init_qp_attr "
				     "(%s) of QP %u with %s", state == IBV_QPS_RTR ?
				     "RTR" : "RTS", i + 1, cm->peer);
	if (state == IBV_QPS_RTR) {
		/* perftest's 12 (0.64 ms); the CM's 0 would mean 655 ms */
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MIN_RNR_TIMER;
		if (a.path_mtu > cm->s.mtu)
			a.path_mtu = cm->s.mtu;
	} else {
		a.timeout = cm->s.ack_timeout;
		mask |= IBV_QP_TIMEOUT;
		*psn = a.sq_psn & 0xffffff;
	}
	if (ibv_modify_qp(cm->s.qp[i], &a, mask))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "moving QP %u to %s with "
				     "the CM's attributes", i + 1,
				     state == IBV_QPS_RTR ? "RTR" : "RTS");
	return 0;
}

static int ready(struct rt_pt_cm *cm, unsigned i, uint32_t *psn,
		 struct rt_error *err)
{
	return qp_to(cm, i, IBV_QPS_RTR, psn, err) ||
	       qp_to(cm, i, IBV_QPS_RTS, psn, err) ? -1 : 0;
}

/* The CM found the path on this id's device and port: it must be the
 * QPs' (-d, -i), which the CM cannot move. */
static int same_device(struct rt_pt_cm *cm, const struct rdma_cm_id *id,
		       struct rt_error *err)
{
	const char *dev = id->verbs ? ibv_get_device_name(id->verbs->device) : "none";

	if (id->verbs && !strcmp(dev, cm->s.dev) && id->port_num == cm->s.ib_port)
		return 0;
	return rt_fail(err, RT_EXIT_ENV, "the RDMA CM reaches %s over %s port %u, "
		       "but the test QPs are on %s port %u (-d, -i)", cm->peer, dev,
		       id->port_num, cm->s.dev, cm->s.ib_port);
}

/* The next event, copied and acknowledged, within timeout_ms. */
static int next_event(struct rt_pt_cm *cm, const char *what,
		      struct rdma_cm_event *out, struct rt_error *err)
{
	struct rdma_cm_event *ev;
	int n = rt_fdwait(cm->ch->fd, POLLIN, rt_deadline_after_ms(cm->s.timeout_ms));

	if (n == RT_FDWAIT_INTERRUPTED)
		return RT_INTERRUPTED;
	if (n < 0)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "poll");
	if (n == RT_FDWAIT_TIMEOUT)
		return rt_fail(err, RT_EXIT_TIMEOUT, "%s: no %s within %lld s (RDMA CM, "
			       "-R)", cm->peer, what, cm->s.timeout_ms / 1000);
	if (rdma_get_cm_event(cm->ch, &ev))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "rdma_get_cm_event");
	*out = *ev;
	out->param.conn.private_data = NULL; /* gone with the event */
	rdma_ack_cm_event(ev);
	return 0;
}

/* The event the step waits for, or a named failure. */
static int expect(struct rt_pt_cm *cm, enum rdma_cm_event_type want,
		  const char *what, struct rdma_cm_event *ev, struct rt_error *err)
{
	int rc = next_event(cm, what, ev, err);

	if (rc || ev->event == want)
		return rc;
	return rt_fail(err, RT_EXIT_FAIL, "%s: %s instead of %s (status %d): %s",
		       cm->peer, rdma_event_str(ev->event), rdma_event_str(want),
		       ev->status, rt_cm_explain(ev->event, ev->status));
}

static struct rdma_conn_param conn_param(const struct rt_pt_cm *cm, unsigned i)
{
	return (struct rdma_conn_param){
		.responder_resources = (uint8_t)cm->s.out_reads,
		.initiator_depth = (uint8_t)cm->s.out_reads,
		/* perftest asks for its --retry_count (7 by default) for both */
		.retry_count = cm->s.retry_count, .rnr_retry_count = cm->s.retry_count,
		.qp_num = cm->s.qp[i]->qp_num,
	};
}

struct rt_pt_cm *rt_pt_cm_create(const struct rt_pt_cm_spec *spec,
				 struct rt_error *err)
{
	struct rt_pt_cm *cm = rt_xcalloc(1, sizeof(*cm));

	cm->s = *spec;
	cm->q = rt_xcalloc(spec->n, sizeof(*cm->q));
	rt_strlcpy(cm->peer, spec->peer, sizeof(cm->peer));
	cm->ch = rdma_create_event_channel();
	if (!cm->ch) {
		rt_fail_errno(err, RT_EXIT_ENV, errno, "rdma_create_event_channel (is "
			      "rdma_ucm loaded?)");
		goto fail;
	}
	if (spec->client)
		return cm;
	if (rdma_create_id(cm->ch, &cm->listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(cm->listen, (struct sockaddr *)&cm->s.addr) ||
	    rdma_listen(cm->listen, (int)spec->n)) {
		char where[64];

		rt_addr_str((const struct sockaddr *)&cm->s.addr, where, sizeof(where));
		rt_fail_errno(err, RT_EXIT_ENV, errno, "listening with the RDMA CM on %s",
			      where);
		goto fail;
	}
	return cm;
fail:
	rt_pt_cm_destroy(cm);
	return NULL;
}

/* -T: where perftest sets it, between address and route resolution, so
 * that the route (on RoCE the GRH's traffic class) carries it. */
static int set_tos(struct rt_pt_cm *cm, unsigned i, struct rt_error *err)
{
	uint8_t tos = (uint8_t)cm->s.tos;

	if (cm->s.tos < 0 ||
	    !rdma_set_option(cm->q[i].id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos,
			     sizeof(tos)))
		return 0;
	return rt_fail_errno(err, RT_EXIT_FAIL, errno, "setting -T %d on the RDMA "
			     "CM id of QP %u", cm->s.tos, i + 1);
}

/* Address and route of QP i's fresh id. */
static int resolve(struct rt_pt_cm *cm, unsigned i, struct rt_error *err)
{
	int ms = (int)RT_MAX(cm->s.timeout_ms * 3 / 4, 1);
	struct rdma_cm_event ev = { 0 };
	int rc;

	if (rdma_create_id(cm->ch, &cm->q[i].id, NULL, RDMA_PS_TCP))
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "rdma_create_id");
	if (rdma_resolve_addr(cm->q[i].id, cm->s.src.ss_family ?
			      (struct sockaddr *)&cm->s.src : NULL,
			      (struct sockaddr *)&cm->s.addr, ms))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "rdma_resolve_addr %s",
				     cm->peer);
	if ((rc = expect(cm, RDMA_CM_EVENT_ADDR_RESOLVED, "address", &ev, err)) ||
	    (rc = same_device(cm, cm->q[i].id, err)) || (rc = set_tos(cm, i, err)))
		return rc;
	if (rdma_resolve_route(cm->q[i].id, ms))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "rdma_resolve_route %s",
				     cm->peer);
	return expect(cm, RDMA_CM_EVENT_ROUTE_RESOLVED, "route", &ev, err);
}

/* A request the peer turned away because nothing listens there yet:
 * perftest's server starts listening for the test QPs only after the
 * barrier that lets the client connect. */
static bool not_listening(const struct rdma_cm_event *ev)
{
	return ev->event == RDMA_CM_EVENT_REJECTED ||
	       ev->event == RDMA_CM_EVENT_UNREACHABLE ||
	       ev->event == RDMA_CM_EVENT_CONNECT_ERROR;
}

/* One attempt: 1 when the server was not listening (retry), 0 when QP i
 * is connected, else -1 or RT_INTERRUPTED. */
static int try_connect(struct rt_pt_cm *cm, unsigned i, uint32_t *psn,
		       struct rt_error *err)
{
	struct rdma_conn_param p = conn_param(cm, i);
	struct rdma_cm_event ev = { 0 };
	int rc;

	if ((rc = resolve(cm, i, err)))
		return rc;
	if (rdma_connect(cm->q[i].id, &p))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "rdma_connect %s", cm->peer);
	if ((rc = next_event(cm, "connect response", &ev, err)))
		return rc;
	if (not_listening(&ev)) {
		rdma_destroy_id(cm->q[i].id);
		cm->q[i].id = NULL;
		return 1;
	}
	if (ev.event != RDMA_CM_EVENT_CONNECT_RESPONSE)
		return rt_fail(err, RT_EXIT_FAIL, "%s: %s instead of %s (status %d): %s",
			       cm->peer, rdma_event_str(ev.event),
			       rdma_event_str(RDMA_CM_EVENT_CONNECT_RESPONSE), ev.status,
			       rt_cm_explain(ev.event, ev.status));
	/* a self-managed QP: this side establishes once its QP is ready */
	if ((rc = ready(cm, i, &psn[i], err)))
		return rc;
	if (rdma_establish(cm->q[i].id))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "rdma_establish %s",
				     cm->peer);
	cm->q[i].up = true;
	return 0;
}

/* Retried every 100 ms, as perftest does, for as long as a CM step may
 * take; the QP stays in INIT until a request is answered. */
static int connect_one(struct rt_pt_cm *cm, unsigned i, uint32_t *psn,
		       struct rt_error *err)
{
	uint64_t deadline = rt_deadline_after_ms(cm->s.timeout_ms);
	int rc;

	while ((rc = try_connect(cm, i, psn, err)) == 1) {
		if (rt_now_ns() >= deadline)
			return rt_fail(err, RT_EXIT_TIMEOUT, "%s: nothing listened for the "
				       "test QPs' RDMA CM requests within %lld s (is the "
				       "peer's -R server running the same test?)", cm->peer,
				       cm->s.timeout_ms / 1000);
		if (rt_fdwait(-1, 0, rt_deadline_after_ms(100)) == RT_FDWAIT_INTERRUPTED)
			return RT_INTERRUPTED;
	}
	return rc;
}

/* The next request gets the next QP; later ones are refused. */
static int accept_one(struct rt_pt_cm *cm, struct rdma_cm_id *id,
		      unsigned *taken, uint32_t *psn, struct rt_error *err)
{
	unsigned i = *taken;
	struct rdma_conn_param p;

	if (i == cm->s.n) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return rt_fail(err, RT_EXIT_FAIL, "%s: RDMA CM request %u, but -q is %u "
			       "(does the peer's -q match?)", cm->peer, i + 1, cm->s.n);
	}
	cm->q[i].id = id;
	*taken = i + 1;
	if (same_device(cm, id, err) || ready(cm, i, &psn[i], err)) {
		rdma_reject(id, NULL, 0);
		return -1;
	}
	p = conn_param(cm, i);
	if (rdma_accept(id, &p))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "rdma_accept %s", cm->peer);
	return 0;
}

static unsigned count_up(const struct rt_pt_cm *cm)
{
	unsigned k = 0;

	for (unsigned i = 0; i < cm->s.n; i++)
		k += cm->q[i].up;
	return k;
}

static int serve(struct rt_pt_cm *cm, uint32_t *psn, struct rt_error *err)
{
	unsigned taken = 0;
	struct rdma_cm_event ev = { 0 };
	int rc;

	while (count_up(cm) < cm->s.n) {
		if ((rc = next_event(cm, taken < cm->s.n ? "connect request"
				     : "established connection", &ev, err)))
			return rc;
		if (ev.event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			if (accept_one(cm, ev.id, &taken, psn, err))
				return -1;
			continue;
		}
		for (unsigned i = 0; ev.event == RDMA_CM_EVENT_ESTABLISHED && i < taken; i++)
			cm->q[i].up |= cm->q[i].id == ev.id;
		if (ev.event != RDMA_CM_EVENT_ESTABLISHED)
			return rt_fail(err, RT_EXIT_FAIL, "%s: %s (status %d) while "
				       "accepting: %s", cm->peer, rdma_event_str(ev.event),
				       ev.status, rt_cm_explain(ev.event, ev.status));
	}
	/* served: the port is free again, as perftest leaves it */
	rdma_destroy_id(cm->listen);
	cm->listen = NULL;
	return 0;
}

int rt_pt_cm_connect(struct rt_pt_cm *cm, uint32_t *psn, struct rt_error *err)
{
	if (!cm->s.client)
		return serve(cm, psn, err);
	for (unsigned i = 0; i < cm->s.n; i++) {
		int rc = connect_one(cm, i, psn, err);

		if (rc)
			return rc;
	}
	return 0;
}

void rt_pt_cm_destroy(struct rt_pt_cm *cm)
{
	if (!cm)
		return;
	for (unsigned i = 0; cm->q && i < cm->s.n; i++) {
		if (!cm->q[i].id)
			continue;
		if (cm->q[i].up)
			(void)rdma_disconnect(cm->q[i].id);
		rdma_destroy_id(cm->q[i].id);
	}
	if (cm->listen)
		rdma_destroy_id(cm->listen);
	if (cm->ch)
		rdma_destroy_event_channel(cm->ch);
	free(cm->q);
	free(cm);
}
