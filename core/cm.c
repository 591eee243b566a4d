/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Connections and the CM events that move them (the reactor's loop is in
 * cm_loop.c). Each event is copied and acknowledged before it is handled,
 * so handlers may destroy ids without deadlocking librdmacm. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/devquery.h"
#include "cm_priv.h"
#include "rdmatest/util.h"

/* Resolution gives up a little before the wait that covers it, so an
 * unanswered ARP ends as an ADDR_ERROR that names the cause, not as a
 * bare timeout. */
static int resolve_ms(const struct rt_cm *cm)
{
	long long ms = cm->params.timeout_ms;

	if (cm->params.resolve_ms > 0)
		return cm->params.resolve_ms;
	if (ms <= 0 || ms >= 0x7fffffff)
		return 10000;
	return (int)RT_MAX(ms * 3 / 4, 100);
}

static void step_done(struct rt_conn *c, enum rt_step s)
{
	uint64_t now = rt_now_ns();

	c->step_ns[s] = now - c->step_start;
	c->step_start = now;
}

int rt_conn_fail(struct rt_conn *c, int exit_code, const char *fmt, ...)
{
	va_list ap;
	char msg[256];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rt_fail(&c->err, exit_code, "%s", msg);
	if (c->state != RT_CONN_FAILED)
		c->cm->failures_pending++;
	c->state = RT_CONN_FAILED;
	return -1;
}

int rt_conn_refuse_beyond(struct rt_conn *c, unsigned n)
{
	if (!rt_conn_beyond(c, n))
		return 0;
	return rt_conn_fail(c, RT_EXIT_FAIL, "%s: extra connection request beyond "
			    "-c %u: rejected (does the client's -c match?)", c->peer, n);
}

int rt_conn_hook_result(struct rt_conn *c, int rc, const char *what)
{
	if (rc && c->state != RT_CONN_FAILED)
		rt_conn_fail(c, c->err.set ? c->err.exit_code : RT_EXIT_FAIL, "%s",
			     c->err.set ? c->err.reason : what);
	return rc;
}

int rt_conn_fail_recorded(struct rt_conn *c)
{
	return rt_conn_hook_result(c, -1, "failed (no cause recorded)");
}

static int conn_fail_errno(struct rt_conn *c, int exit_code, int e,
			   const char *call)
{
	bool first = !c->err.set;

	rt_conn_fail(c, exit_code, "%s %s: %s", call, c->peer, strerror(e));
	if (first)
		c->err.err_no = e;
	return -1;
}

static struct rt_conn *conn_new(struct rt_cm *cm, struct rdma_cm_id *id,
				bool passive)
{
	struct rt_conn *c = rt_xcalloc(1, sizeof(*c));

	c->cm = cm;
	c->id = id;
	c->passive = passive;
	c->index = cm->next_index++;
	c->step_start = c->last_progress = rt_now_ns();
	rt_strlcpy(c->peer, "?", sizeof(c->peer));
	rt_strlcpy(c->err.phase, "setup", sizeof(c->err.phase));
	if (cm->nconns == cm->conns_cap) {
		cm->conns_cap = cm->conns_cap ? cm->conns_cap * 2 : 16;
		/* NOLINTBEGIN(bugprone-sizeof-expression): arrays of pointers */
		cm->conns = rt_xrealloc(cm->conns, cm->conns_cap * sizeof(*cm->conns));
		cm->cq_active = rt_xrealloc(cm->cq_active,
					    cm->conns_cap * sizeof(*cm->cq_active));
		/* NOLINTEND(bugprone-sizeof-expression) */
	}
	c->slot = cm->nconns;
	cm->conns[cm->nconns++] = c;
	id->context = c;
	return c;
}

struct rt_cm *rt_cm_create(const struct rt_cm_params *params,
			   const struct rt_cm_hooks *hooks, void *applet,
			   struct rt_log *log, struct rt_error *err)
{
	struct rt_cm *cm;

	rt_error_phase(err, "setup");
	if (rt_devices_present(err))
		return NULL;
	cm = rt_xcalloc(1, sizeof(*cm));
	cm->log = log;
	cm->err = err;
	cm->params = *params;
	cm->hooks = hooks;
	cm->applet = applet;
	cm->ch = rdma_create_event_channel();
	if (!cm->ch)
		rt_fail_errno(err, RT_EXIT_ENV, errno,
			      "rdma_create_event_channel (is rdma_ucm loaded?)");
	else if (rt_set_nonblock(cm->ch->fd))
		rt_fail_errno(err, RT_EXIT_FAIL, errno, "fcntl");
	else
		return cm;
	rt_cm_destroy(cm);
	return NULL;
}

/* Undoes a half-opened device, keeping the errno that made it fail. */
static void device_undo(struct rt_cm_device *d)
{
	int e = errno;

	if (d->channel)
		ibv_destroy_comp_channel(d->channel);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	memset(d, 0, sizeof(*d));
	errno = e;
}

struct rt_cm_device *rt_cm_device(struct rt_cm *cm, struct ibv_context *verbs)
{
	struct rt_cm_device *d;

	for (size_t i = 0; i < cm->ndevs; i++)
		if (cm->devs[i].verbs == verbs)
			return &cm->devs[i];
	if (cm->ndevs == RT_CM_MAX_DEVICES)
		return NULL;
	/* the slot counts only once complete: a later connection on this
	 * device must never find a NULL PD or channel in it */
	d = &cm->devs[cm->ndevs];
	memset(d, 0, sizeof(*d));
	d->verbs = verbs;
	d->pd = ibv_alloc_pd(verbs);
	d->channel = d->pd ? ibv_create_comp_channel(verbs) : NULL;
	if (d->channel && !rt_set_nonblock(d->channel->fd) &&
	    !ibv_query_device(verbs, &d->attr)) {
		cm->ndevs++;
		return d;
	}
	device_undo(d);
	return NULL;
}

struct rt_cm_device *rt_conn_device(struct rt_conn *c)
{
	return c->id && c->id->verbs ? rt_cm_device(c->cm, c->id->verbs) : NULL;
}

/* Depths past the device's limits fail inside the provider with a bare
 * EINVAL; say which limit instead. */
static int check_limits(struct rt_conn *c, const struct rt_cm_device *d,
			const struct rt_res_spec *spec)
{
	uint32_t cqe = spec->cq_depth ? spec->cq_depth
				      : spec->send_depth + spec->recv_depth;
	uint32_t wr = RT_MAX(spec->send_depth, spec->recv_depth);

	if (d->attr.max_qp_wr && wr > (uint32_t)d->attr.max_qp_wr)
		return rt_conn_fail(c, RT_EXIT_ENV, "%u outstanding work requests "
				    "per queue needed, the device allows %d "
				    "(use a smaller message count)", wr, d->attr.max_qp_wr);
	if (d->attr.max_cqe && cqe > (uint32_t)d->attr.max_cqe)
		return rt_conn_fail(c, RT_EXIT_ENV, "a completion queue of %u "
				    "entries needed, the device allows %d (use a "
				    "smaller message count)", cqe, d->attr.max_cqe);
	return 0;
}

int rt_conn_setup_res(struct rt_conn *c, const struct rt_res_spec *spec)
{
	struct rt_cm_device *d = rt_cm_device(c->cm, c->id->verbs);

	if (!d)
		return rt_conn_fail(c, RT_EXIT_FAIL,
				    "cannot open the RDMA device of %s (PD or "
				    "completion channel): %s", c->peer, strerror(errno));
	if (check_limits(c, d, spec))
		return -1;
	return rt_res_create(&c->res, c->id, d->pd, d->channel, c, spec, &c->err)
		       ? rt_conn_fail_recorded(c) : 0;
}

/* ENODEV/EADDRNOTAVAIL: no device owns the source, or none routes to the
 * destination; say which ports do carry IP, since that is the fix. */
static void resolve_fail(struct rt_conn *c, int e)
{
	char src[64], ports[256];
	bool first = !c->err.set;

	if (e != ENODEV && e != EADDRNOTAVAIL) {
		conn_fail_errno(c, RT_EXIT_FAIL, e, "rdma_resolve_addr");
		return;
	}
	rt_rdma_netdevs("/sys", ports, sizeof(ports));
	if (c->has_src)
		rt_conn_fail(c, RT_EXIT_ENV, "rdma_resolve_addr %s from %s: %s (no RDMA "
			     "device owns the source address; RDMA ports with IP: %s)",
			     c->peer, rt_addr_str((struct sockaddr *)&c->src, src, sizeof(src)),
			     strerror(e), ports);
	else
		rt_conn_fail(c, RT_EXIT_ENV, "rdma_resolve_addr %s: %s (no RDMA device "
			     "has a route to it; RDMA ports with IP: %s)", c->peer,
			     strerror(e), ports);
	if (first)
		c->err.err_no = e;
}

void rt_conn_resolve(struct rt_conn *c)
{
	c->state = RT_CONN_RESOLVING_ADDR;
	c->step_start = rt_now_ns();
	rt_strlcpy(c->err.phase, "resolve-addr", sizeof(c->err.phase));
	if (rdma_resolve_addr(c->id, c->has_src ? (struct sockaddr *)&c->src : NULL,
			      (struct sockaddr *)&c->dst, resolve_ms(c->cm)))
		resolve_fail(c, errno);
}

/* A connection on a fresh id of the reactor's port space, named for
 * messages by addr (the peer, or the address it binds); NULL with the
 * run's error set. */
static struct rt_conn *conn_create(struct rt_cm *cm, const struct sockaddr *addr)
{
	struct rdma_cm_id *id;
	struct rt_conn *c;

	if (rdma_create_id(cm->ch, &id, NULL, cm->params.ps)) {
		rt_fail_errno(cm->err, RT_EXIT_FAIL, errno, "rdma_create_id");
		return NULL;
	}
	c = conn_new(cm, id, false);
	rt_addr_str(addr, c->peer, sizeof(c->peer));
	return c;
}

struct rt_conn *rt_cm_connect(struct rt_cm *cm, struct sockaddr *src,
			      struct sockaddr *dst)
{
	struct rt_conn *c = conn_create(cm, dst);

	if (!c)
		return NULL;
	memcpy(&c->dst, dst, rt_addr_len(dst));
	if (src) {
		memcpy(&c->src, src, rt_addr_len(src));
		c->has_src = true;
	}
	c->first_try = rt_now_ns();
	rt_conn_resolve(c);
	return c;
}

void rt_conn_set_peer(struct rt_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->peer, sizeof(c->peer), fmt, ap);
	va_end(ap);
}

void *rt_conn_priv(struct rt_conn *c, size_t size)
{
	if (!c->priv)
		c->priv = rt_xcalloc(1, size);
	else
		memset(c->priv, 0, size);
	return c->priv;
}

static int bind_fail(struct rt_cm *cm, int e, const char *addr)
{
	char ports[256];

	if (e == EADDRNOTAVAIL || e == ENODEV)
		return rt_fail(cm->err, RT_EXIT_ENV, "rdma_bind_addr %s: %s (no "
			       "RDMA device owns this address; RDMA ports with IP: %s)",
			       addr, strerror(e), rt_rdma_netdevs("/sys", ports, sizeof(ports)));
	return rt_fail(cm->err, RT_EXIT_FAIL, "rdma_bind_addr %s: %s%s", addr,
		       strerror(e), e == EADDRINUSE ? " (another server holds this port)" : "");
}

int rt_cm_listen(struct rt_cm *cm, struct sockaddr *addr)
{
	struct rt_conn *c;

	rt_error_phase(cm->err, "listen");
	c = conn_create(cm, addr);
	if (!c)
		return -1;
	cm->listener = c;
	if (rdma_bind_addr(c->id, addr))
		return bind_fail(cm, errno, c->peer);
	if (rdma_listen(c->id, cm->params.backlog))
		return rt_fail_errno(cm->err, RT_EXIT_FAIL, errno,
				     "rdma_listen %s", c->peer);
	c->state = RT_CONN_LISTENING;
	return 0;
}

int rt_cm_start(struct rt_cm *cm, const struct rt_addr_query *q, unsigned n,
		struct rt_error *err)
{
	struct rdma_addrinfo *ai;
	int rc = 0;

	if (rt_addr_resolve(q, &ai, err))
		return -1;
	if (q->passive)
		rc = rt_cm_listen(cm, ai->ai_src_addr);
	else
		for (unsigned i = 0; i < n && !rc; i++)
			rc = rt_cm_connect(cm, ai->ai_src_addr, ai->ai_dst_addr) ? 0 : -1;
	rdma_freeaddrinfo(ai);
	return rc;
}

struct rt_conn *rt_cm_bind(struct rt_cm *cm, struct sockaddr *addr)
{
	struct rt_conn *c = conn_create(cm, addr);
	uint8_t tos;

	if (!c)
		return NULL;
	if (addr && rdma_bind_addr(c->id, addr)) {
		bind_fail(cm, errno, c->peer);
		return NULL;
	}
	tos = (uint8_t)cm->params.tos;
	if (cm->params.tos >= 0 &&
	    rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos))) {
		rt_fail_errno(cm->err, RT_EXIT_FAIL, errno, "setting TOS on %s", c->peer);
		return NULL;
	}
	return c;
}

int rt_conn_disconnect(struct rt_conn *c)
{
	if (c->disconnect_sent)
		return 0;
	c->disconnect_sent = true;
	c->step_start = rt_now_ns();
	if (c->state == RT_CONN_ESTABLISHED)
		c->state = RT_CONN_DISCONNECTING;
	if (rdma_disconnect(c->id) && errno != EINVAL)
		return conn_fail_errno(c, RT_EXIT_FAIL, errno, "rdma_disconnect");
	return 0;
}

static int run_setup(struct rt_conn *c)
{
	int rc = 0;

	c->step_start = rt_now_ns();
	if (c->cm->hooks->setup)
		rc = c->cm->hooks->setup(c);
	step_done(c, RT_STEP_CREATE_QP);
	return rc;
}

static int set_u8_option(struct rt_conn *c, int name, int value,
			 const char *what)
{
	uint8_t v = (uint8_t)value;

	if (value < 0)
		return 0;
	rt_dbg(c->cm->log, "%s: set %s %u", c->peer, what, v);
	if (rdma_set_option(c->id, RDMA_OPTION_ID, name, &v, sizeof(v)))
		return rt_conn_fail(c, RT_EXIT_FAIL, "setting %s on %s: %s", what,
				    c->peer, strerror(errno));
	return 0;
}

static void on_addr_resolved(struct rt_conn *c)
{
	struct rt_cm_params *p = &c->cm->params;

	step_done(c, RT_STEP_RESOLVE_ADDR);
	/* before the hook too: a multicast join takes the id's TOS as well */
	if (set_u8_option(c, RDMA_OPTION_ID_TOS, p->tos, "TOS"))
		return;
	if (c->cm->hooks->addr_resolved) {
		rt_conn_hook_result(c, c->cm->hooks->addr_resolved(c),
				    "address handling failed");
		return;
	}
	rt_strlcpy(c->err.phase, "resolve-route", sizeof(c->err.phase));
	if (set_u8_option(c, RDMA_OPTION_ID_ACK_TIMEOUT, p->ack_timeout, "ACK timeout"))
		return;
	c->state = RT_CONN_RESOLVING_ROUTE;
	if (rdma_resolve_route(c->id, resolve_ms(c->cm)))
		conn_fail_errno(c, RT_EXIT_FAIL, errno, "rdma_resolve_route");
}

static uint8_t clip(uint8_t want, int max)
{
	return (int)want > max ? (uint8_t)max : want;
}

static void on_route_resolved(struct rt_conn *c)
{
	struct rdma_conn_param param = c->cm->params.conn;
	struct rt_cm_device *d;

	step_done(c, RT_STEP_RESOLVE_ROUTE);
	rt_strlcpy(c->err.phase, "connect", sizeof(c->err.phase));
	if (rt_conn_hook_result(c, run_setup(c), "connection setup failed"))
		return;
	/* librdmacm refuses depths above the device's (EINVAL): ask for at
	 * most what it has, as the accepting side does */
	d = rt_cm_device(c->cm, c->id->verbs);
	param.responder_resources = clip(param.responder_resources,
					 d ? d->attr.max_qp_rd_atom : 1);
	param.initiator_depth = clip(param.initiator_depth, d ? d->attr.max_qp_init_rd_atom : 1);
	if (c->res.qp && !c->res.id)
		param.qp_num = c->res.qp->qp_num; /* self-managed QP */
	else if (!c->res.qp)
		param.qp_num = c->qp_num; /* none: the applet's number, if any */
	c->state = RT_CONN_CONNECTING;
	if (rdma_connect(c->id, &param))
		conn_fail_errno(c, RT_EXIT_FAIL, errno, "rdma_connect");
}

/* Datagram port spaces: connecting is a SIDR request and its reply, with
 * no ESTABLISHED event on the passive side and nothing to disconnect. */
static bool ud_port_space(const struct rt_cm *cm)
{
	return cm->params.ps == RDMA_PS_UDP || cm->params.ps == RDMA_PS_IPOIB;
}

static void on_established(struct rt_conn *c)
{
	step_done(c, RT_STEP_CONNECT);
	c->state = RT_CONN_ESTABLISHED;
	c->was_established = true;
	rt_strlcpy(c->err.phase, "transfer", sizeof(c->err.phase));
	if (c->cm->hooks->established)
		c->cm->hooks->established(c);
}

static void on_connect_request(struct rt_cm *cm, struct rdma_cm_id *id,
			       const struct rdma_cm_event *ev)
{
	struct rt_conn *c = conn_new(cm, id, true);
	struct rt_cm_device *d = rt_cm_device(cm, id->verbs);
	struct rdma_conn_param p = { .retry_count = 7 };

	rt_addr_str(rdma_get_peer_addr(id), c->peer, sizeof(c->peer));
	rt_strlcpy(c->err.phase, "accept", sizeof(c->err.phase));
	c->req = ev->param.conn;
	c->req.private_data = NULL; /* gone with the event */
	c->state = RT_CONN_ACCEPTING;
	/* the passive side's ACK timeout applies to its QP, set before accept */
	if (rt_conn_hook_result(c, run_setup(c), "connection setup failed") ||
	    set_u8_option(c, RDMA_OPTION_ID_ACK_TIMEOUT, cm->params.ack_timeout, "ACK timeout")) {
		rdma_reject(id, NULL, 0);
		return;
	}
	/* as librdmacm does for NULL parameters, but with a bounded RNR retry */
	p.responder_resources = clip(c->req.initiator_depth, d ? d->attr.max_qp_rd_atom : 1);
	p.initiator_depth = clip(c->req.responder_resources, d ? d->attr.max_qp_init_rd_atom : 1);
	p.rnr_retry_count = cm->params.accept_rnr_retry;
	if (c->res.qp && !c->res.id)
		p.qp_num = c->res.qp->qp_num;
	else if (!c->res.qp)
		p.qp_num = c->qp_num;
	if (rdma_accept(id, &p)) {
		conn_fail_errno(c, RT_EXIT_FAIL, errno, "rdma_accept");
		/* answer the request, or the peer waits for its CM timeout */
		rdma_reject(id, NULL, 0);
		return;
	}
	if (ud_port_space(cm))
		on_established(c); /* the SIDR reply was the whole exchange */
}

static void on_disconnected(struct rt_conn *c)
{
	if (!c->disconnect_sent) {
		/* the peer started it: answer, which also flushes our QP */
		c->disconnect_sent = true;
		rdma_disconnect(c->id);
	}
	step_done(c, RT_STEP_DISCONNECT);
	if (c->state != RT_CONN_FAILED)
		c->state = RT_CONN_DISCONNECTED;
	if (c->cm->hooks->disconnected)
		c->cm->hooks->disconnected(c);
}

static bool server_not_up(const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return true;
	case RDMA_CM_EVENT_ADDR_ERROR:
		return ev->status == -ETIMEDOUT || ev->status == -EHOSTUNREACH;
	default:
		return false;
	}
}

/* --wait-server: a client whose server is not up yet starts over on a
 * fresh id a little later, until the bound passes. */
static bool schedule_retry(struct rt_conn *c, const struct rdma_cm_event *ev)
{
	struct rt_cm *cm = c->cm;
	long long bound = cm->params.wait_server_ms;
	uint64_t now = rt_now_ns();
	struct rdma_cm_id *id;

	if (c->passive || c->was_established || bound <= 0 || !server_not_up(ev) ||
	    now - c->first_try >= (uint64_t)bound * 1000000u ||
	    rdma_create_id(cm->ch, &id, c, cm->params.ps))
		return false;
	rt_dbg(cm->log, "%s: %s (%s); retrying", c->peer,
	       rdma_event_str(ev->event), rt_cm_explain(ev->event, ev->status));
	rt_res_destroy(&c->res);
	rdma_destroy_id(c->id);
	c->id = id;
	c->state = RT_CONN_IDLE;
	if (!c->retry_at)
		cm->retries_pending++;
	c->retry_at = now + 200 * (uint64_t)1000000;
	c->retries++;
	c->sends_done = c->recvs_done = c->rdma_done = 0;
	return true;
}

int rt_cm_retry_due(struct rt_cm *cm, int *next_ms)
{
	uint64_t now;
	int n = 0;

	if (!cm->retries_pending)
		return 0;
	now = rt_now_ns();
	for (size_t i = 0; i < cm->nconns; i++) {
		struct rt_conn *c = cm->conns[i];

		if (!c->retry_at)
			continue;
		if (c->retry_at <= now) {
			c->retry_at = 0;
			cm->retries_pending--;
			rt_conn_resolve(c);
			n++;
		} else {
			int ms = (int)((c->retry_at - now) / 1000000u) + 1;

			*next_ms = *next_ms < 0 || ms < *next_ms ? ms : *next_ms;
		}
	}
	return n;
}

static void on_error_event(struct rt_conn *c, const struct rdma_cm_event *ev)
{
	const char *name = rdma_event_str(ev->event);

	if (schedule_retry(c, ev))
		return;
	rt_conn_fail(c, ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL ? RT_EXIT_FAIL
		     : ev->event == RDMA_CM_EVENT_ADDR_ERROR && ev->status == -ENODEV
			     ? RT_EXIT_ENV : RT_EXIT_FAIL,
		     "%s %s: %s", name, c->peer, rt_cm_explain(ev->event, ev->status));
	rt_error_event(&c->err, name, ev->status);
}

/* The event's private data goes with the event. */
static void keep_ud(struct rt_conn *c, const struct rdma_cm_event *ev)
{
	c->ud = ev->param.ud;
	c->ud.private_data = NULL;
	c->ud.private_data_len = 0;
}

static void on_join(struct rt_conn *c, const struct rdma_cm_event *ev)
{
	keep_ud(c, ev);
	c->state = RT_CONN_ESTABLISHED;
	if (c->cm->hooks->joined)
		rt_conn_hook_result(c, c->cm->hooks->joined(c),
				    "multicast join handling failed");
}

void rt_cm_handle_event(struct rt_cm *cm, const struct rdma_cm_event *ev)
{
	struct rt_conn *c = ev->id->context;

	if (c)
		c->last_progress = rt_now_ns();
	rt_dbg(cm->log, "event %s status %d on %s",
	       rdma_event_str(ev->event), ev->status, c ? c->peer : "new id");
	if (!c && ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return; /* an id with no connection: nothing to move on */
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		on_connect_request(cm, ev->id, ev);
		break;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		on_addr_resolved(c);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		on_route_resolved(c);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		/* only for self-managed QPs: the applet establishes, and no
		 * ESTABLISHED event follows on this side */
		if (cm->hooks->connect_response &&
		    !rt_conn_hook_result(c, cm->hooks->connect_response(c),
					 "establish failed"))
			on_established(c);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (ud_port_space(cm))
			keep_ud(c, ev); /* the SIDR reply: the peer's QPN, qkey, AH */
		on_established(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		on_disconnected(c);
		break;
	case RDMA_CM_EVENT_MULTICAST_JOIN:
		on_join(c, ev);
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		rt_warn(cm->log, "%s: address change event", c->peer);
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		on_error_event(c, ev);
		break;
	default:
		rt_dbg(cm->log, "ignoring event %s", rdma_event_str(ev->event));
	}
}

void rt_conn_set_qp_num(struct rt_conn *c, uint32_t qp_num)
{
	c->qp_num = qp_num & 0xffffff;
}

int rt_conn_qp_state(struct rt_conn *c, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };
	int mask = 0;

	if (rdma_init_qp_attr(c->id, &attr, &mask))
		return rt_conn_fail(c, RT_EXIT_FAIL, "rdma_init_qp_attr (%s) %s: %s",
				    state == IBV_QPS_INIT ? "INIT" : state == IBV_QPS_RTR
				    ? "RTR" : "RTS", c->peer, strerror(errno));
	if (ibv_modify_qp(c->res.qp, &attr, mask))
		return rt_conn_fail(c, RT_EXIT_FAIL, "ibv_modify_qp to state %d %s: %s",
				    state, c->peer, strerror(errno));
	return 0;
}

void rt_cm_fail_idle(struct rt_cm *cm)
{
	long long timeout_ms = cm->params.timeout_ms;
	uint64_t now = rt_now_ns();

	if (timeout_ms <= 0)
		return;
	for (size_t i = 0; i < cm->nconns; i++) {
		struct rt_conn *c = cm->conns[i];

		if (c == cm->listener || c->state == RT_CONN_FAILED ||
		    c->state == RT_CONN_DISCONNECTED || c->state == RT_CONN_IDLE ||
		    now - c->last_progress < (uint64_t)timeout_ms * 1000000u)
			continue;
		rt_conn_fail(c, RT_EXIT_TIMEOUT, "%s: no progress for %.3g s while %s "
			     "(peer gone?)", c->peer, timeout_ms / 1000.0,
			     rt_conn_state_str(c->state));
	}
}

static void conn_free(struct rt_conn *c)
{
	if (c->was_established && !c->disconnect_sent && !ud_port_space(c->cm))
		rdma_disconnect(c->id); /* tell the peer now, not by timeout */
	rt_res_destroy(&c->res);
	rdma_destroy_id(c->id);
	free(c->priv);
	free(c);
}

/* Forgets what the loop keeps about c besides its slot. */
static void conn_unlist(struct rt_cm *cm, struct rt_conn *c)
{
	if (c->retry_at)
		cm->retries_pending--;
	for (size_t i = 0; c->cq_listed && i < cm->ncq_active; i++)
		if (cm->cq_active[i] == c) {
			cm->cq_active[i] = cm->cq_active[--cm->ncq_active];
			c->cq_listed = false;
		}
}

/* The rest move up one place, so iteration stays in creation order. */
void rt_cm_release(struct rt_cm *cm, struct rt_conn *c)
{
	if (c->slot >= cm->nconns || cm->conns[c->slot] != c)
		return;
	conn_unlist(cm, c);
	for (size_t i = c->slot + 1; i < cm->nconns; i++) {
		cm->conns[i - 1] = cm->conns[i];
		cm->conns[i - 1]->slot = i - 1;
	}
	cm->nconns--;
	conn_free(c);
}

void rt_cm_unlisten(struct rt_cm *cm)
{
	struct rt_conn *l = cm->listener;

	if (!l)
		return;
	cm->listener = NULL;
	rt_cm_release(cm, l);
}

void rt_cm_release_finished(struct rt_cm *cm)
{
	for (size_t i = cm->nconns; i-- > 0;) {
		struct rt_conn *c = cm->conns[i];

		if (c != cm->listener && (c->state == RT_CONN_DISCONNECTED ||
					  (c->state == RT_CONN_FAILED && c->failure_reported)))
			rt_cm_release(cm, c);
	}
}

void rt_cm_destroy(struct rt_cm *cm)
{
	if (!cm)
		return;
	for (size_t i = 0; i < cm->nconns; i++)
		conn_free(cm->conns[i]);
	free(cm->conns);
	free(cm->cq_active);
	for (size_t i = 0; i < cm->ndevs; i++) {
		if (cm->devs[i].pd)
			ibv_dealloc_pd(cm->devs[i].pd);
		if (cm->devs[i].channel)
			ibv_destroy_comp_channel(cm->devs[i].channel);
	}
	if (cm->ch)
		rdma_destroy_event_channel(cm->ch);
	free(cm);
}
