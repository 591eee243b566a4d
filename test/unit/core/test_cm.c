/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The CM reactor driven by scripted events: librdmacm and the few verbs
 * calls it makes are replaced with -Wl,--wrap, so no device is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <infiniband/ib.h>

#include "cm_priv.h"
#include "rdmatest/run.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

/* ---- fakes -------------------------------------------------------------- */

struct calls {
	int resolve_addr, resolve_route, connect, accept, reject, disconnect;
	int set_option, destroy_id, migrate, setup, established, failed_hook;
	int resolve_timeout, route_timeout;
	struct rdma_conn_param connect_param, accept_param;
	uint8_t tos;
	int tos_sets;          /* RDMA_OPTION_ID_TOS calls */
	int tos_sets_at_route; /* ... made before rdma_resolve_route */
	int addr_hook;
	int setup_result;      /* -1: fail with a reason; -2: bare -1 */
	bool keep_going;
	/* failures on purpose, and what was undone */
	bool fail_accept, fail_channel, fail_query;
	int fail_migrate_at;   /* 1-based call that fails; 0: none */
	int dealloc_pd, destroy_comp, live_channels;
	/* floods: sources that never run dry (capped, so a loop that never
	 * returns to its checks fails the test instead of hanging it) */
	long flood_events, flood_notifies, cq_entries;
	int notify_cq;         /* CQ re-arms */
	long cq_entries_at_notify; /* land just before a re-arm takes effect */
};

#define FLOOD_CAP 100000

static struct calls calls;
static struct rdma_cm_event *script[16];
static size_t script_len, script_pos;
static int pipefd[2];
static struct ibv_comp_channel fake_comp = { .fd = -1 };
static struct ibv_pd fake_pd;
static struct rt_run run;
static struct rt_cm *cm;

static struct rdma_cm_id *fake_id(void)
{
	return rt_xcalloc(1, sizeof(struct rdma_cm_id));
}

int __wrap_rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id,
			  void *ctx, enum rdma_port_space ps)
{
	(void)ch, (void)ps;
	*id = fake_id();
	(*id)->context = ctx;
	return 0;
}

int __wrap_rdma_destroy_id(struct rdma_cm_id *id)
{
	calls.destroy_id++;
	free(id);
	return 0;
}

int __wrap_rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *s,
			     struct sockaddr *d, int ms)
{
	(void)id, (void)s, (void)d;
	calls.resolve_addr++;
	calls.resolve_timeout = ms;
	return 0;
}

int __wrap_rdma_resolve_route(struct rdma_cm_id *id, int ms)
{
	(void)id;
	calls.resolve_route++;
	calls.route_timeout = ms;
	calls.tos_sets_at_route = calls.tos_sets;
	return 0;
}

int __wrap_rdma_set_option(struct rdma_cm_id *id, int level, int name,
			   void *val, size_t len)
{
	(void)id, (void)level;
	if (name == RDMA_OPTION_ID_TOS) {
		assert_int_equal(len, 1); /* the kernel takes a u8 */
		calls.tos = *(uint8_t *)val;
		calls.tos_sets++;
	}
	calls.set_option++;
	return 0;
}

int __wrap_rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	(void)id;
	calls.connect++;
	calls.connect_param = *p;
	return 0;
}

int __wrap_rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	(void)id;
	calls.accept++;
	calls.accept_param = *p;
	if (calls.fail_accept) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

int __wrap_rdma_reject(struct rdma_cm_id *id, const void *pd, uint8_t len)
{
	(void)id, (void)pd, (void)len;
	calls.reject++;
	return 0;
}

int __wrap_rdma_disconnect(struct rdma_cm_id *id)
{
	(void)id;
	calls.disconnect++;
	return 0;
}

int __wrap_rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *a)
{
	(void)id, (void)a;
	return 0;
}

int __wrap_rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id, (void)backlog;
	return 0;
}

int __wrap_rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev)
{
	char b;

	(void)ch;
	if (calls.flood_events > 0) {
		calls.flood_events--;
		*ev = rt_xcalloc(1, sizeof(**ev));
		(*ev)->id = cm->conns[0]->id;
		(*ev)->event = RDMA_CM_EVENT_TIMEWAIT_EXIT; /* handled as a no-op */
		return 0;
	}
	if (script_pos == script_len) {
		while (read(pipefd[0], &b, 1) == 1)
			;
		errno = EAGAIN;
		return -1;
	}
	*ev = script[script_pos++];
	return 0;
}

int __wrap_rdma_ack_cm_event(struct rdma_cm_event *ev)
{
	/* scribble over it, as a freed event would be */
	if (ev->param.conn.private_data)
		memset((void *)ev->param.conn.private_data, 'X', ev->param.conn.private_data_len);
	free(ev);
	return 0;
}

struct rdma_event_channel *__wrap_rdma_create_event_channel(void)
{
	struct rdma_event_channel *ch = rt_xcalloc(1, sizeof(*ch));

	ch->fd = pipefd[0];
	calls.live_channels++;
	return ch;
}

void __wrap_rdma_destroy_event_channel(struct rdma_event_channel *ch)
{
	calls.live_channels--;
	free(ch);
}

int __wrap_rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *ch)
{
	if (++calls.migrate == calls.fail_migrate_at) {
		errno = ENODEV;
		return -1;
	}
	id->channel = ch;
	return 0;
}

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *c) { (void)c; return &fake_pd; }
int __wrap_ibv_dealloc_pd(struct ibv_pd *pd)
{
	(void)pd;
	calls.dealloc_pd++;
	return 0;
}
struct ibv_comp_channel *__wrap_ibv_create_comp_channel(struct ibv_context *c)
{
	(void)c;
	if (calls.fail_channel) {
		errno = EMFILE;
		return NULL;
	}
	fake_comp.fd = pipefd[1]; /* never readable from our side */
	return &fake_comp;
}
int __wrap_ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	(void)ch;
	calls.destroy_comp++;
	return 0;
}
int __wrap_ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	(void)c;
	if (calls.fail_query) {
		errno = EIO;
		return -1;
	}
	memset(a, 0, sizeof(*a));
	a->max_qp_rd_atom = 2;
	a->max_qp_init_rd_atom = 3;
	return 0;
}

/* A CQ whose provider ops are ours: ibv_poll_cq and ibv_req_notify_cq
 * are inline calls through the context's ops. */
static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int got = 0;

	(void)cq;
	for (; got < n && calls.cq_entries > 0; got++, calls.cq_entries--)
		wc[got] = (struct ibv_wc){ .wr_id = RT_WR_ID(RT_WR_RECV, 0),
					   .status = IBV_WC_SUCCESS };
	return got;
}
static int fake_notify_cq(struct ibv_cq *cq, int solicited)
{
	(void)cq, (void)solicited;
	calls.notify_cq++;
	calls.cq_entries += calls.cq_entries_at_notify;
	calls.cq_entries_at_notify = 0;
	return 0;
}
static struct ibv_context fake_ctx = { .ops = { .poll_cq = fake_poll_cq,
						.req_notify_cq = fake_notify_cq } };
static struct ibv_cq fake_cq = { .context = &fake_ctx };
static struct rt_conn *notified; /* whose CQ the notifications name */

int __wrap_ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **ctx)
{
	(void)ch;
	if (calls.flood_notifies <= 0) {
		errno = EAGAIN;
		return -1;
	}
	calls.flood_notifies--;
	*cq = &fake_cq;
	*ctx = notified;
	return 0;
}
void __wrap_ibv_ack_cq_events(struct ibv_cq *cq, unsigned n) { (void)cq, (void)n; }

/* ---- helpers ------------------------------------------------------------ */

static int hook_setup(struct rt_conn *c)
{
	calls.setup++;
	if (calls.setup_result == -2)
		return -1; /* a hook that forgot to say why */
	if (calls.setup_result)
		return rt_conn_fail(c, RT_EXIT_FAIL, "setup refused for %s", c->peer);
	return 0;
}

static void hook_established(struct rt_conn *c)
{
	(void)c;
	calls.established++;
}

static bool hook_failed(struct rt_conn *c)
{
	(void)c;
	calls.failed_hook++;
	return calls.keep_going;
}

static const struct rt_cm_hooks hooks = {
	.setup = hook_setup,
	.established = hook_established,
	.failed = hook_failed,
};

static int setup_cm(void **state)
{
	struct rt_cm_params p = { .ps = RDMA_PS_TCP, .tos = -1, .ack_timeout = -1,
				  .accept_rnr_retry = 6,
				  .conn = { .retry_count = 5, .rnr_retry_count = 0,
					    .responder_resources = 1, .initiator_depth = 1 } };

	(void)state;
	memset(&calls, 0, sizeof(calls));
	memset(&run, 0, sizeof(run));
	script_len = script_pos = 0;
	assert_int_equal(pipe2(pipefd, O_NONBLOCK), 0);
	rt_log_init(&run.log, "test", false, true, false);
	cm = rt_xcalloc(1, sizeof(*cm));
	cm->log = &run.log;
	cm->err = &run.err;
	cm->params = p;
	cm->hooks = &hooks;
	cm->ch = __wrap_rdma_create_event_channel();
	cm->params.timeout_ms = 10000;
	return 0;
}

static int teardown_cm(void **state)
{
	(void)state;
	for (size_t i = 0; cm && i < cm->nconns; i++)
		if (cm->conns[i]->res.cq == &fake_cq)
			cm->conns[i]->res.cq = NULL; /* a test that stopped early */
	rt_cm_destroy(cm);
	close(pipefd[0]);
	close(pipefd[1]);
	return 0;
}

static struct rdma_cm_event *event(struct rdma_cm_id *id, enum rdma_cm_event_type t,
				   int status)
{
	struct rdma_cm_event *ev = rt_xcalloc(1, sizeof(*ev));

	ev->id = id;
	ev->event = t;
	ev->status = status;
	return ev;
}

/* Hands one event to the reactor as the loop would: copy, ack, handle. */
static void deliver(struct rdma_cm_event *ev)
{
	struct rdma_cm_event copy = *ev;

	__wrap_rdma_ack_cm_event(ev);
	rt_cm_handle_event(cm, &copy);
}

static struct rt_conn *client(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(7471),
				   .sin_addr.s_addr = htonl(0xc0000201) };
	struct rt_conn *c = rt_cm_connect(cm, NULL, (struct sockaddr *)&dst);

	assert_non_null(c);
	assert_string_equal(c->peer, "192.0.2.1:7471");
	return c;
}

static bool always(const struct rt_cm *m, const void *a) { (void)m, (void)a; return true; }
static bool never(const struct rt_cm *m, const void *a) { (void)m, (void)a; return false; }

/* ---- tests -------------------------------------------------------------- */

static void client_resolves_sets_tos_and_connects(void **state)
{
	struct rt_conn *c;

	(void)state;
	cm->params.tos = 0x28;
	c = client();
	assert_int_equal(calls.resolve_addr, 1);
	assert_int_equal(calls.resolve_timeout, 7500); /* 3/4 of --timeout */
	assert_int_equal(c->state, RT_CONN_RESOLVING_ADDR);
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	assert_int_equal(calls.tos, 0x28);
	assert_int_equal(calls.resolve_route, 1);
	assert_int_equal(c->state, RT_CONN_RESOLVING_ROUTE);
	deliver(event(c->id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	assert_int_equal(calls.setup, 1);
	assert_int_equal(calls.connect, 1);
	assert_int_equal(calls.connect_param.rnr_retry_count, 0);
	assert_int_equal(calls.connect_param.retry_count, 5);
	assert_int_equal(c->state, RT_CONN_CONNECTING);
	deliver(event(c->id, RDMA_CM_EVENT_ESTABLISHED, 0));
	assert_int_equal(c->state, RT_CONN_ESTABLISHED);
	assert_int_equal(calls.established, 1);
	assert_true(rt_cm_all_established(cm, &(unsigned){ 1 }));
}

/* cmtime -t: the resolution timeout given, for the address and the route */
static void resolve_timeout_from_the_params(void **state)
{
	struct rt_conn *c;

	(void)state;
	cm->params.resolve_ms = 2000;
	c = client();
	assert_int_equal(calls.resolve_timeout, 2000);
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	assert_int_equal(calls.route_timeout, 2000);
}

static void failed_setup_never_connects(void **state)
{
	struct rt_conn *c;

	(void)state;
	calls.setup_result = -1;
	c = client();
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	deliver(event(c->id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	assert_int_equal(calls.connect, 0);
	assert_int_equal(c->state, RT_CONN_FAILED);
	assert_string_equal(c->err.reason, "setup refused for 192.0.2.1:7471");
}

/* An AF_IB address (-f gid) is 48 bytes, less than a sockaddr_storage:
 * the connection copies exactly that much. dst sits in a heap block of
 * its own size, so that AddressSanitizer reports any read past it; src
 * sits in a larger buffer whose tail must not come along. */
static void gid_addresses_are_copied_at_their_own_length(void **state)
{
	struct sockaddr_ib *dst = rt_xmalloc(sizeof(*dst));
	struct sockaddr_storage src_buf;
	struct sockaddr_ib *src = (struct sockaddr_ib *)&src_buf;
	static const uint8_t zero[sizeof(struct sockaddr_storage)];
	struct rt_conn *c;

	(void)state;
	memset(dst, 0, sizeof(*dst));
	dst->sib_family = AF_IB;
	dst->sib_addr.sib_raw[0] = 0xfe;
	dst->sib_addr.sib_raw[1] = 0x80;
	dst->sib_addr.sib_raw[15] = 1;
	memset(&src_buf, 0xaa, sizeof(src_buf));
	memcpy(src, dst, sizeof(*dst));
	c = rt_cm_connect(cm, (struct sockaddr *)src, (struct sockaddr *)dst);
	assert_non_null(c);
	assert_string_equal(c->peer, "gid fe80::1");
	assert_memory_equal(&c->dst, dst, sizeof(*dst));
	assert_memory_equal(&c->src, src, sizeof(*src));
	assert_memory_equal((uint8_t *)&c->src + sizeof(*src), zero,
			    sizeof(src_buf) - sizeof(*src));
	assert_true(c->has_src);
	free(dst);
}

static struct rt_conn *listener(void)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(7471) };

	assert_int_equal(rt_cm_listen(cm, (struct sockaddr *)&any), 0);
	return cm->listener;
}

static void server_accepts_with_clipped_resources(void **state)
{
	struct rt_conn *l, *c;
	struct rdma_cm_event *ev;

	(void)state;
	l = listener();
	ev = event(fake_id(), RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	ev->listen_id = l->id;
	ev->param.conn.initiator_depth = 4;
	ev->param.conn.responder_resources = 4;
	deliver(ev);
	assert_int_equal(cm->nconns, 2);
	c = cm->conns[1];
	assert_true(c->passive);
	assert_int_equal(calls.setup, 1);
	assert_int_equal(calls.accept, 1);
	assert_int_equal(calls.accept_param.responder_resources, 2); /* device max */
	assert_int_equal(calls.accept_param.initiator_depth, 3);
	assert_int_equal(calls.accept_param.rnr_retry_count, 6);
	assert_int_equal(c->state, RT_CONN_ACCEPTING);
}

/* ucmatose/cmtime servers: requests past -c are turned away, named */
static void requests_beyond_n_are_refused(void **state)
{
	struct rt_conn *l, *c;

	(void)state;
	l = listener();
	for (int i = 0; i < 3; i++) {
		struct rdma_cm_event *ev = event(fake_id(), RDMA_CM_EVENT_CONNECT_REQUEST, 0);

		ev->listen_id = l->id;
		deliver(ev);
	}
	assert_int_equal(cm->nconns, 4);
	assert_false(rt_conn_beyond(l, 0));
	assert_false(rt_conn_beyond(cm->conns[2], 2));
	assert_true(rt_conn_beyond(cm->conns[3], 2));
	assert_int_equal(rt_conn_refuse_beyond(cm->conns[2], 2), 0);
	assert_int_equal(cm->conns[2]->state, RT_CONN_ACCEPTING);
	c = cm->conns[3];
	assert_int_equal(rt_conn_refuse_beyond(c, 2), -1);
	assert_int_equal(c->state, RT_CONN_FAILED);
	assert_non_null(strstr(c->err.reason, "extra connection request beyond -c 2"));
}

static void census_names_what_a_wait_expects(void **state)
{
	char buf[160];

	(void)state;
	client();
	client();
	rt_cm_census_want(cm, 5, "does the peer's -c match?", buf, sizeof(buf));
	assert_string_equal(buf, "2 connections: 2 resolving address; expected 5: "
			    "does the peer's -c match?");
}

static void refused_request_is_rejected(void **state)
{
	struct rt_conn *l;
	struct rdma_cm_event *ev;

	(void)state;
	calls.setup_result = -1;
	l = listener();
	ev = event(fake_id(), RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	ev->listen_id = l->id;
	deliver(ev);
	assert_int_equal(calls.accept, 0);
	assert_int_equal(calls.reject, 1);
	assert_int_equal(cm->conns[1]->state, RT_CONN_FAILED);
}

static void peer_disconnect_is_answered_once(void **state)
{
	struct rt_conn *a, *b;

	(void)state;
	a = client();
	b = client();
	a->state = b->state = RT_CONN_ESTABLISHED;
	deliver(event(a->id, RDMA_CM_EVENT_DISCONNECTED, 0));
	assert_int_equal(calls.disconnect, 1); /* our DREP */
	assert_int_equal(a->state, RT_CONN_DISCONNECTED);
	assert_int_equal(rt_conn_disconnect(b), 0);
	assert_int_equal(rt_conn_disconnect(b), 0);
	assert_int_equal(b->state, RT_CONN_DISCONNECTING);
	assert_int_equal(calls.disconnect, 2);
	deliver(event(b->id, RDMA_CM_EVENT_DISCONNECTED, 0));
	assert_int_equal(calls.disconnect, 2);
	assert_true(rt_cm_all_closed(cm, NULL));
}

static void error_events_name_the_cause(void **state)
{
	struct rt_conn *a, *b;

	(void)state;
	a = client();
	b = client();
	deliver(event(a->id, RDMA_CM_EVENT_REJECTED, 8));
	assert_int_equal(a->state, RT_CONN_FAILED);
	assert_int_equal(a->err.exit_code, RT_EXIT_FAIL);
	assert_string_equal(a->err.event, "RDMA_CM_EVENT_REJECTED");
	assert_int_equal(a->err.status, 8);
	assert_non_null(strstr(a->err.reason, "192.0.2.1:7471: rejected: nothing listening"));
	deliver(event(b->id, RDMA_CM_EVENT_ADDR_ERROR, -ENODEV));
	assert_int_equal(b->err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(b->err.reason, "no RDMA device owns this address"));
}

/* ---- the applet's view: iteration, counters, bounds from params ------- */

static struct rt_conn *accepted(struct rt_conn *l)
{
	struct rdma_cm_event *ev = event(fake_id(), RDMA_CM_EVENT_CONNECT_REQUEST, 0);

	ev->listen_id = l->id;
	deliver(ev);
	return cm->conns[cm->nconns - 1];
}

static void each_skips_the_listener_and_keeps_creation_order(void **state)
{
	struct rt_conn *l, *a, *b, *d, *c;
	struct rt_conn *seen[4];
	size_t n = 0;

	(void)state;
	l = listener();
	a = accepted(l);
	b = accepted(l);
	d = accepted(l);
	assert_int_equal(rt_cm_count(cm), 3);
	assert_true(rt_conn_passive(a));
	assert_ptr_equal(rt_conn_applet(a), rt_cm_applet(cm));
	rt_conn_fail(a, RT_EXIT_FAIL, "gone");
	a->failure_reported = true;
	rt_cm_release_finished(cm); /* the first leaves; the rest move up */
	rt_cm_each(cm, c)
		seen[n++] = c;
	assert_int_equal(n, 2);
	assert_ptr_equal(seen[0], b);
	assert_ptr_equal(seen[1], d);
	assert_int_equal(rt_cm_count(cm), 2);
	assert_string_equal(rt_conn_peer(b), b->peer);
}

static void all_reached_ignores_failed_connections(void **state)
{
	struct rt_conn *l, *a, *b;

	(void)state;
	l = listener();
	a = accepted(l);
	b = accepted(l);
	a->recvs_done = 3;
	b->recvs_done = 2;
	assert_int_equal(rt_conn_count(a, RT_COUNT_RECVS), 3);
	assert_false(rt_cm_all_reached(cm, RT_COUNT_RECVS, 3));
	assert_true(rt_cm_all_reached(cm, RT_COUNT_RECVS, 2));
	assert_false(rt_cm_all_reached(cm, RT_COUNT_SENDS, 1));
	rt_conn_fail(b, RT_EXIT_FAIL, "gone");
	assert_true(rt_cm_all_reached(cm, RT_COUNT_RECVS, 3));
}

static void fail_recorded_keeps_the_first_cause(void **state)
{
	struct rt_conn *c;

	(void)state;
	c = client();
	rt_fail(rt_conn_err(c), RT_EXIT_ENV, "cannot register 4 GiB");
	assert_int_equal(rt_conn_fail_recorded(c), -1);
	assert_int_equal(c->state, RT_CONN_FAILED);
	assert_int_equal(c->err.exit_code, RT_EXIT_ENV);
	assert_string_equal(c->err.reason, "cannot register 4 GiB");
	assert_int_equal(cm->failures_pending, 1);
}

/* A wait without its own bound takes the reactor's, from the params. */
static void default_wait_bound_comes_from_the_params(void **state)
{
	struct rt_wait w = { .done = never, .what = "the peer" };
	uint64_t t0 = rt_now_ns();

	(void)state;
	cm->params.timeout_ms = 60;
	client();
	assert_int_equal(rt_cm_run(cm, &w), -1);
	assert_true(rt_now_ns() - t0 >= 60 * 1000000ULL);
	assert_int_equal(run.err.exit_code, RT_EXIT_TIMEOUT);
	assert_non_null(strstr(run.err.reason, "timed out after 0.06 s"));
}

static void loop_times_out_with_a_reason(void **state)
{
	struct rt_wait w = { .done = never, .timeout_ms = 50, .what = "the peer" };
	uint64_t t0 = rt_now_ns();

	(void)state;
	client();
	assert_int_equal(rt_cm_run(cm, &w), -1);
	assert_true(rt_now_ns() - t0 >= 50 * 1000000ULL);
	assert_int_equal(run.err.exit_code, RT_EXIT_TIMEOUT);
	if (!strstr(run.err.reason, "waiting for the peer (1 connection: 1 resolving address)"))
		fail_msg("reason: %s", run.err.reason);
}

/* A wait without a bound ends when SIGINT arrives (sent by a child while
 * the reactor sleeps in poll), without recording a failure. */
static void loop_returns_on_interrupt(void **state)
{
	struct rt_wait w = { .done = never, .timeout_ms = -1, .what = "the peer" };
	pid_t pid;

	(void)state;
	client();
	assert_int_equal(rt_interrupt_install(), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		usleep(100000);
		kill(getppid(), SIGINT);
		_exit(0);
	}
	assert_int_equal(rt_cm_run(cm, &w), RT_INTERRUPTED);
	waitpid(pid, NULL, 0);
	assert_false(run.err.set);
	assert_int_equal(rt_interrupt_signal(), SIGINT);
	rt_interrupt_wind_down(&run.err); /* then waits run as before */
	w.timeout_ms = 20;
	assert_int_equal(rt_cm_run(cm, &w), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_TIMEOUT);
	rt_interrupt_restore();
}

static void loop_delivers_scripted_events(void **state)
{
	struct rt_wait w = { .done = rt_cm_all_established, .arg = &(unsigned){ 1 },
			     .timeout_ms = 2000, .what = "established" };
	struct rt_conn *c;

	(void)state;
	c = client();
	script[script_len++] = event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
	script[script_len++] = event(c->id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	script[script_len++] = event(c->id, RDMA_CM_EVENT_ESTABLISHED, 0);
	assert_int_equal(write(pipefd[1], "x", 1), 1);
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(c->state, RT_CONN_ESTABLISHED);
	assert_int_equal(cm->events, 3);
	assert_false(run.err.set);
}

static void failure_hook_decides(void **state)
{
	struct rt_wait w = { .done = always, .timeout_ms = 100, .what = "x" };
	struct rt_conn *c;

	(void)state;
	calls.keep_going = true;
	c = client();
	rt_conn_fail(c, RT_EXIT_FAIL, "first");
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(calls.failed_hook, 1);
	assert_false(run.err.set);
	calls.keep_going = false;
	c = client();
	rt_conn_fail(c, RT_EXIT_FAIL, "second");
	assert_int_equal(rt_cm_run(cm, &w), -1);
	assert_int_equal(calls.failed_hook, 2);
	assert_string_equal(run.err.reason, "second");
}

static void migrate_moves_every_id(void **state)
{
	(void)state;
	client();
	client();
	assert_int_equal(rt_cm_migrate(cm), 0);
	assert_int_equal(calls.migrate, 2);
	assert_ptr_equal(cm->conns[0]->id->channel, cm->ch);
}

static void destroy_tells_established_peers(void **state)
{
	struct rt_conn *c;

	(void)state;
	c = client();
	deliver(event(c->id, RDMA_CM_EVENT_ESTABLISHED, 0));
	client();
	rt_cm_destroy(cm);
	cm = NULL; /* freed; teardown has nothing left to do */
	assert_int_equal(calls.disconnect, 1);
	assert_int_equal(calls.destroy_id, 2);
}

static void wait_server_retries_until_the_bound(void **state)
{
	struct rt_conn *c;
	struct rdma_cm_id *first;
	int next = -1;

	(void)state;
	cm->params.wait_server_ms = 60000;
	c = client();
	first = c->id;
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	deliver(event(c->id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	deliver(event(c->id, RDMA_CM_EVENT_REJECTED, 8));
	assert_int_equal(c->state, RT_CONN_IDLE); /* not failed: retrying */
	assert_ptr_not_equal(c->id, first);
	assert_ptr_equal(c->id->context, c);
	assert_int_equal(calls.destroy_id, 1);
	assert_int_equal(rt_cm_retry_due(cm, &next), 0); /* not yet due */
	assert_true(next > 0 && next <= 201);
	assert_int_equal(cm->retries_pending, 1);
	c->retry_at = rt_now_ns() - 1;
	assert_int_equal(rt_cm_retry_due(cm, &next), 1);
	assert_int_equal(cm->retries_pending, 0);
	assert_int_equal(calls.resolve_addr, 2);
	assert_int_equal(c->state, RT_CONN_RESOLVING_ADDR);
	/* past the bound the same event is a failure */
	c->first_try = rt_now_ns() - 61000ULL * 1000000;
	deliver(event(c->id, RDMA_CM_EVENT_REJECTED, 8));
	assert_int_equal(c->state, RT_CONN_FAILED);
	assert_non_null(strstr(c->err.reason, "nothing listening"));
}

static void no_retry_without_wait_server_or_after_established(void **state)
{
	struct rt_conn *a, *b;

	(void)state;
	a = client();
	deliver(event(a->id, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT));
	assert_int_equal(a->state, RT_CONN_FAILED);
	cm->params.wait_server_ms = 60000;
	b = client();
	deliver(event(b->id, RDMA_CM_EVENT_ESTABLISHED, 0));
	deliver(event(b->id, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT));
	assert_int_equal(b->state, RT_CONN_FAILED);
}

/* Found by clang-tidy (clang-analyzer-core.NullDereference): the handler
 * allowed for an id without a connection (its context NULL) in its debug
 * line, then dereferenced it for every event but CONNECT_REQUEST. */
static void events_on_an_id_without_a_connection_are_ignored(void **state)
{
	static const enum rdma_cm_event_type types[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_CONNECT_RESPONSE, RDMA_CM_EVENT_ESTABLISHED,
		RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_MULTICAST_JOIN,
		RDMA_CM_EVENT_ADDR_CHANGE, RDMA_CM_EVENT_TIMEWAIT_EXIT,
		RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_REJECTED,
		RDMA_CM_EVENT_DEVICE_REMOVAL, RDMA_CM_EVENT_MULTICAST_ERROR,
	};
	struct rdma_cm_id *orphan = fake_id();

	(void)state;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		deliver(event(orphan, types[i], 0));
	assert_int_equal(calls.connect + calls.accept + calls.reject +
			 calls.disconnect + calls.resolve_route, 0);
	assert_false(run.err.set);
	free(orphan);
}

/* ---- the loop's work per round is bounded ----------------------------- */

struct counting_goal {
	int calls, want;
};

/* The step counts the rounds; the predicate is true on the want-th:
 * the loop must come back to them that often. */
static void count_round(struct rt_cm *m, void *arg)
{
	(void)m;
	((struct counting_goal *)arg)->calls++;
}

static bool nth_call(const struct rt_cm *m, const void *arg)
{
	const struct counting_goal *g = arg;

	(void)m;
	return g->calls >= g->want;
}

/* Before the bound, the first drain ran until the fake's cap (100,000
 * events) without a look at the predicate. */
static void event_flood_still_reaches_the_predicate(void **state)
{
	struct counting_goal g = { .want = 3 };
	struct rt_wait w = { .done = nth_call, .step = count_round, .arg = &g, .timeout_ms = 2000,
			     .what = "x" };

	(void)state;
	client();
	calls.flood_events = FLOOD_CAP;
	assert_int_equal(write(pipefd[1], "x", 1), 1);
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(g.calls, 3);
	/* two rounds ran between the three checks */
	assert_int_equal(cm->events, 2 * RT_CM_EVENTS_PER_ROUND);
	assert_false(run.err.set);
}

static struct ibv_comp_channel flood_comp;
static int flood_pipe[2];

/* A device whose completion channel always reads as ready, and one
 * connection whose CQ is ours. */
static struct rt_conn *cq_conn(void)
{
	struct rt_conn *c = client();

	assert_int_equal(pipe2(flood_pipe, O_NONBLOCK), 0);
	assert_int_equal(write(flood_pipe[1], "x", 1), 1);
	flood_comp.fd = flood_pipe[0];
	cm->devs[0] = (struct rt_cm_device){ .verbs = &fake_ctx, .pd = &fake_pd,
					    .channel = &flood_comp };
	cm->ndevs = 1;
	c->res.cq = &fake_cq;
	notified = c;
	return c;
}

static void cq_conn_done(struct rt_conn *c)
{
	c->res.cq = NULL; /* not ours to destroy */
	close(flood_pipe[0]);
	close(flood_pipe[1]);
}

static void completion_flood_still_reaches_the_predicate(void **state)
{
	struct counting_goal g = { .want = 3 };
	struct rt_wait w = { .done = nth_call, .step = count_round, .arg = &g, .timeout_ms = 2000,
			     .what = "x" };
	struct rt_conn *c;

	(void)state;
	c = cq_conn();
	calls.flood_notifies = FLOOD_CAP;
	calls.cq_entries = FLOOD_CAP;
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(g.calls, 3);
	/* each round: its budget, less one per notification taken */
	assert_true(c->recvs_done > 0 && c->recvs_done < 2 * RT_CM_WCS_PER_ROUND);
	assert_true(c->cq_backlog);
	cq_conn_done(c);
}

static void notification_flood_on_an_empty_cq_ends_the_round(void **state)
{
	struct counting_goal g = { .want = 2 };
	struct rt_wait w = { .done = nth_call, .step = count_round, .arg = &g, .timeout_ms = 2000,
			     .what = "x" };
	struct rt_conn *c;

	(void)state;
	c = cq_conn();
	calls.flood_notifies = FLOOD_CAP;
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(calls.flood_notifies, FLOOD_CAP - RT_CM_WCS_PER_ROUND);
	cq_conn_done(c);
}

static bool got_all(const struct rt_cm *m, const void *arg)
{
	(void)arg;
	return m->conns[0]->recvs_done == 1000;
}

/* Entries left in a CQ at the end of a round bring no new notification;
 * the next rounds must take them anyway. */
static void cq_left_non_empty_is_polled_without_a_notification(void **state)
{
	struct rt_wait w = { .done = got_all, .timeout_ms = 500, .what = "x" };
	struct rt_conn *c;

	(void)state;
	c = cq_conn();
	calls.flood_notifies = 1;
	calls.cq_entries = 1000;
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_false(c->cq_backlog);
	assert_int_equal(cm->completions, 1000);
	cq_conn_done(c);
}

static bool got_ten(const struct rt_cm *m, const void *arg)
{
	(void)arg;
	return m->conns[0]->recvs_done == 10;
}

/* A CQ whose notification was taken is polled in the next rounds without
 * a re-arm; re-arming after every notification cost a system call each
 * (one host, ucmatose -c 50 -C 20: a re-arm per notification read). */
static void cq_is_not_rearmed_while_the_loop_is_busy(void **state)
{
	struct rt_wait w = { .done = got_ten, .timeout_ms = 500, .what = "x" };
	struct rt_conn *c;

	(void)state;
	c = cq_conn();
	calls.flood_notifies = 1;
	calls.cq_entries = 10;
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(calls.notify_cq, 0);
	assert_true(c->cq_hot);
	cq_conn_done(c);
}

/* Before sleeping, the loop re-arms a hot CQ and polls it again: what
 * landed before the re-arm took effect brings no notification, and a
 * loop that slept on it would wait for nothing. */
static void cq_is_rearmed_and_polled_again_before_a_sleep(void **state)
{
	struct rt_wait w = { .done = got_ten, .timeout_ms = 500, .what = "x" };
	struct rt_conn *c;
	char b;

	(void)state;
	c = cq_conn();
	calls.flood_notifies = 1;
	calls.cq_entries = 4;
	calls.cq_entries_at_notify = 6;
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(calls.notify_cq, 1);
	assert_false(c->cq_hot);
	assert_int_equal(cm->ncq_active, 0); /* cold: no longer looked at */
	assert_false(c->cq_listed);
	assert_int_equal(c->recvs_done, 10);
	/* idle and armed: the next wait sleeps, with no re-arm */
	assert_int_equal(read(flood_pipe[0], &b, 1), 1);
	w.timeout_ms = 50;
	w.done = never;
	assert_int_equal(rt_cm_run(cm, &w), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_TIMEOUT);
	assert_int_equal(calls.notify_cq, 1);
	cq_conn_done(c);
}

/* A completion channel that poll does not find readable is not read:
 * rounds woken by CM events alone would pay a failing read each. */
static void a_channel_poll_finds_idle_is_not_read(void **state)
{
	struct rt_wait w = { .done = got_all, .timeout_ms = 100, .what = "x" };
	struct rt_conn *c;
	char b;

	(void)state;
	c = cq_conn();
	assert_int_equal(read(flood_pipe[0], &b, 1), 1); /* idle now */
	calls.flood_notifies = 5;
	assert_int_equal(rt_cm_run(cm, &w), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_TIMEOUT);
	assert_int_equal(calls.flood_notifies, 5);
	cq_conn_done(c);
}

/* A peer that sends its last messages and disconnects at once: the
 * DISCONNECTED event is read before the CQs in the same round, and more
 * completions are queued than one round's budget. The applet must see
 * every one of them counted when it hears of the disconnect. */
static uint64_t recvs_at_disconnect;
static void count_at_disconnect(struct rt_conn *c) { recvs_at_disconnect = c->recvs_done; }
static const struct rt_cm_hooks hooks_disconnect = {
	.setup = hook_setup,
	.failed = hook_failed,
	.disconnected = count_at_disconnect,
};

static bool conn0_disconnected(const struct rt_cm *m, const void *arg)
{
	(void)arg;
	return m->conns[0]->state == RT_CONN_DISCONNECTED;
}

static void completions_before_a_disconnect_are_counted_first(void **state)
{
	struct rt_wait w = { .done = conn0_disconnected, .timeout_ms = 2000, .what = "x" };
	struct rt_conn *c;

	(void)state;
	cm->hooks = &hooks_disconnect;
	c = cq_conn();
	c->state = RT_CONN_ESTABLISHED;
	recvs_at_disconnect = 0;
	calls.flood_notifies = 1;
	calls.cq_entries = 3 * RT_CM_WCS_PER_ROUND;
	script[script_len++] = event(c->id, RDMA_CM_EVENT_DISCONNECTED, 0);
	assert_int_equal(write(pipefd[1], "x", 1), 1);
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(recvs_at_disconnect, 3 * RT_CM_WCS_PER_ROUND);
	cq_conn_done(c);
}

/* ---- spinning waits ----------------------------------------------------- */

/* A spinning wait sweeps every CQ itself: the completions are taken with
 * no notification read (the one pending stays unread) and no re-arm. A
 * sleeping wait would find this CQ neither hot nor backlogged, and would
 * take the notification first. */
static void spinning_wait_polls_without_notifications_or_rearms(void **state)
{
	struct rt_wait w = { .done = got_ten, .timeout_ms = 500, .spin = true,
			     .what = "x" };
	struct rt_conn *c;

	(void)state;
	c = cq_conn();
	calls.flood_notifies = 1;
	calls.cq_entries = 10;
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(c->recvs_done, 10);
	assert_int_equal(calls.flood_notifies, 1);
	assert_int_equal(calls.notify_cq, 0);
	cq_conn_done(c);
}

/* A peer's disconnect ends a spinning wait while completions still
 * stream in (so the wait never idles into a sleep): the CM channel is
 * looked at every RT_SPIN_LOOK_ROUNDS rounds. */
static void count_rounds(struct rt_cm *m, void *arg)
{
	(void)m;
	++*(unsigned *)arg;
}

static void spinning_wait_still_reads_cm_events(void **state)
{
	unsigned rounds = 0;
	struct rt_wait w = { .done = conn0_disconnected, .step = count_rounds,
			     .arg = &rounds, .timeout_ms = 500, .spin = true,
			     .what = "x" };
	struct rt_conn *c;

	(void)state;
	c = cq_conn();
	c->state = RT_CONN_ESTABLISHED;
	calls.cq_entries = 1 << 24;
	script[script_len++] = event(c->id, RDMA_CM_EVENT_DISCONNECTED, 0);
	assert_int_equal(write(pipefd[1], "x", 1), 1);
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(script_pos, 1);
	/* checked before each round, and once more after the look */
	assert_int_equal(rounds, RT_SPIN_LOOK_ROUNDS + 1);
	cq_conn_done(c);
}

/* Idle for RT_SPIN_IDLE_US, a spinning wait sleeps as any other: it
 * re-arms the hot CQ first, and its bound still ends it. */
static void spinning_wait_sleeps_once_idle(void **state)
{
	struct rt_wait w = { .done = never, .timeout_ms = 50, .spin = true,
			     .what = "x" };
	struct rt_conn *c;

	(void)state;
	c = cq_conn();
	rt_conn_cq_hot(c);
	assert_int_equal(rt_cm_run(cm, &w), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_TIMEOUT);
	assert_int_equal(calls.notify_cq, 1);
	assert_false(c->cq_hot);
	cq_conn_done(c);
}

/* A round looks only at the listed CQs (hot or backlogged), each listed
 * once; a released connection leaves the list and its pending retry
 * with it, so no later round touches freed memory. */
static void released_connection_leaves_the_round(void **state)
{
	struct rt_conn *c, *other;
	int next = -1;

	(void)state;
	cm->params.wait_server_ms = 60000;
	other = client();
	deliver(event(other->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	deliver(event(other->id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	deliver(event(other->id, RDMA_CM_EVENT_REJECTED, 8));
	c = cq_conn();
	rt_conn_cq_hot(c);
	rt_conn_cq_hot(c);
	rt_conn_cq_hot(other);
	assert_int_equal(cm->ncq_active, 2);
	assert_int_equal(cm->retries_pending, 1);
	rt_cm_release(cm, other);
	assert_int_equal(cm->ncq_active, 1);
	assert_ptr_equal(cm->cq_active[0], c);
	assert_int_equal(cm->retries_pending, 0);
	assert_int_equal(rt_cm_retry_due(cm, &next), 0);
	assert_int_equal(next, -1);
	cq_conn_done(c);
}

/* ---- no half-built shared state ---------------------------------------- */

static void half_opened_device_is_not_counted(void **state)
{
	struct ibv_context dev;
	struct rt_cm_device *d;

	(void)state;
	calls.fail_channel = true;
	assert_null(rt_cm_device(cm, &dev));
	assert_int_equal(errno, EMFILE);
	assert_int_equal(cm->ndevs, 0);
	assert_int_equal(calls.dealloc_pd, 1);
	calls.fail_channel = false;
	calls.fail_query = true;
	assert_null(rt_cm_device(cm, &dev));
	assert_int_equal(cm->ndevs, 0);
	assert_int_equal(calls.dealloc_pd, 2);
	assert_int_equal(calls.destroy_comp, 1);
	/* a later connection on the device gets a whole one */
	calls.fail_query = false;
	d = rt_cm_device(cm, &dev);
	assert_non_null(d);
	assert_ptr_equal(d->pd, &fake_pd);
	assert_ptr_equal(d->channel, &fake_comp);
	assert_int_equal(d->attr.max_qp_rd_atom, 2);
	assert_int_equal(cm->ndevs, 1);
	assert_ptr_equal(rt_cm_device(cm, &dev), d);
}

static void silent_setup_failure_fails_the_client(void **state)
{
	struct rt_conn *c;

	(void)state;
	calls.setup_result = -2;
	c = client();
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	deliver(event(c->id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	assert_int_equal(calls.connect, 0);
	assert_int_equal(c->state, RT_CONN_FAILED);
	assert_string_equal(c->err.reason, "connection setup failed");
	assert_int_equal(cm->failures_pending, 1);
}

static void silent_setup_failure_fails_and_rejects_the_request(void **state)
{
	struct rt_conn *l;
	struct rdma_cm_event *ev;

	(void)state;
	calls.setup_result = -2;
	l = listener();
	ev = event(fake_id(), RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	ev->listen_id = l->id;
	deliver(ev);
	assert_int_equal(calls.accept, 0);
	assert_int_equal(calls.reject, 1);
	assert_int_equal(cm->conns[1]->state, RT_CONN_FAILED);
	assert_string_equal(cm->conns[1]->err.reason, "connection setup failed");
}

static void failed_accept_rejects(void **state)
{
	struct rt_conn *l;
	struct rdma_cm_event *ev;

	(void)state;
	calls.fail_accept = true;
	l = listener();
	ev = event(fake_id(), RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	ev->listen_id = l->id;
	deliver(ev);
	assert_int_equal(calls.accept, 1);
	assert_int_equal(calls.reject, 1);
	assert_int_equal(cm->conns[1]->state, RT_CONN_FAILED);
	assert_non_null(strstr(cm->conns[1]->err.reason, "rdma_accept"));
}

static void failed_migration_keeps_the_old_channel_and_frees_the_new(void **state)
{
	struct rdma_event_channel *old = cm->ch;

	(void)state;
	client();
	client();
	client();
	calls.fail_migrate_at = 3; /* the third id refuses */
	assert_int_equal(rt_cm_migrate(cm), -1);
	assert_non_null(strstr(run.err.reason, "rdma_migrate_id 192.0.2.1:7471"));
	assert_int_equal(calls.live_channels, 1);
	assert_ptr_equal(cm->ch, old);
	for (size_t i = 0; i < cm->nconns; i++)
		assert_true(cm->conns[i]->id->channel == NULL ||
			    cm->conns[i]->id->channel == old);
}

/* Rejected and finished clients of a server must not stay allocated
 * until exit; live ones, unreported failures and the listener stay. */
static void release_finished_keeps_what_is_live(void **state)
{
	struct rt_conn *l, *done, *failed, *unreported, *live;

	(void)state;
	l = listener();
	done = client();
	failed = client();
	unreported = client();
	live = client();
	done->state = RT_CONN_DISCONNECTED;
	rt_conn_fail(failed, RT_EXIT_FAIL, "rejected");
	failed->failure_reported = true;
	rt_conn_fail(unreported, RT_EXIT_FAIL, "not yet reported");
	live->state = RT_CONN_ESTABLISHED;
	rt_cm_release_finished(cm);
	assert_int_equal(cm->nconns, 3);
	assert_int_equal(calls.destroy_id, 2);
	for (size_t i = 0; i < cm->nconns; i++)
		assert_true(cm->conns[i] == l || cm->conns[i] == unreported ||
			    cm->conns[i] == live);
}

static int steps;

static void count_step(struct rt_cm *m, void *arg)
{
	(void)m, (void)arg;
	steps++;
}

static bool after_two_steps(const struct rt_cm *m, const void *arg)
{
	(void)m, (void)arg;
	return steps == 2;
}

/* The wait's work runs before each check, so predicates need none. */
static void step_runs_before_each_check(void **state)
{
	struct rt_wait w = { .done = after_two_steps, .step = count_step,
			     .timeout_ms = 1000, .tick_ms = 1, .what = "x" };

	(void)state;
	steps = 0;
	client();
	assert_int_equal(rt_cm_run(cm, &w), 0);
	assert_int_equal(steps, 2);
}

/* ---- datagram port spaces (udaddy): SIDR instead of a connection ------- */

static void ud_client_keeps_the_sidr_reply(void **state)
{
	static char pdata[8];
	struct rdma_cm_event *ev;
	struct rt_conn *c;

	(void)state;
	cm->params.ps = RDMA_PS_UDP;
	c = client();
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	deliver(event(c->id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	assert_int_equal(calls.connect, 1);
	ev = event(c->id, RDMA_CM_EVENT_ESTABLISHED, 0);
	ev->param.ud.qp_num = 0x1234;
	ev->param.ud.qkey = 0x01234567;
	ev->param.ud.ah_attr.dlid = 7;
	ev->param.ud.private_data = pdata; /* gone with the event */
	ev->param.ud.private_data_len = sizeof(pdata);
	deliver(ev);
	assert_int_equal(c->state, RT_CONN_ESTABLISHED);
	assert_int_equal(rt_conn_ud(c)->qp_num, 0x1234);
	assert_int_equal(rt_conn_ud(c)->qkey, 0x01234567);
	assert_int_equal(rt_conn_ud(c)->ah_attr.dlid, 7);
	assert_null(rt_conn_ud(c)->private_data);
	assert_int_equal(rt_conn_ud(c)->private_data_len, 0);
}

static void tcp_established_leaves_the_ud_param_alone(void **state)
{
	struct rdma_cm_event *ev;
	struct rt_conn *c;

	(void)state;
	c = client();
	ev = event(c->id, RDMA_CM_EVENT_ESTABLISHED, 0);
	ev->param.ud.qp_num = 0x1234; /* the union's other reading */
	deliver(ev);
	assert_int_equal(rt_conn_ud(c)->qp_num, 0);
}

/* A SIDR server gets no ESTABLISHED event: the accept is the end. */
static void ud_server_is_established_at_accept(void **state)
{
	struct rt_conn *c;

	(void)state;
	cm->params.ps = RDMA_PS_UDP;
	c = accepted(listener());
	assert_int_equal(calls.accept, 1);
	assert_int_equal(c->state, RT_CONN_ESTABLISHED);
	assert_int_equal(calls.established, 1);
	assert_true(rt_cm_all_established(cm, &(unsigned){ 1 }));
}

static void ud_failed_accept_is_not_established(void **state)
{
	struct rt_conn *c;

	(void)state;
	cm->params.ps = RDMA_PS_UDP;
	calls.fail_accept = true;
	c = accepted(listener());
	assert_int_equal(c->state, RT_CONN_FAILED);
	assert_int_equal(calls.established, 0);
	assert_int_equal(calls.reject, 1);
}

/* UD has no DREQ: destroying sends none (it would only fail). */
static void ud_destroy_sends_no_disconnect(void **state)
{
	struct rt_conn *c;

	(void)state;
	cm->params.ps = RDMA_PS_UDP;
	c = client();
	deliver(event(c->id, RDMA_CM_EVENT_ESTABLISHED, 0));
	accepted(listener());
	rt_cm_destroy(cm);
	cm = NULL;
	assert_int_equal(calls.disconnect, 0);
}

/* --tos: set on the id before the route is resolved, which is when the
 * kernel puts it into the path (traffic class; RoCE: the IP TOS byte). */
static void tos_is_set_before_the_route(void **state)
{
	struct rt_conn *c;

	(void)state;
	cm->params.tos = 106;
	c = client();
	assert_int_equal(calls.tos_sets, 0); /* the address is not resolved yet */
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	assert_int_equal(calls.resolve_route, 1);
	assert_int_equal(calls.tos_sets_at_route, 1);
	assert_int_equal(calls.tos, 106);
}

/* No --tos: the option is never set, so the CM's default stays. */
static void no_tos_sets_no_option(void **state)
{
	struct rt_conn *c;

	(void)state;
	c = client();
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	assert_int_equal(calls.resolve_route, 1);
	assert_int_equal(calls.set_option, 0);
}

static int hook_addr(struct rt_conn *c)
{
	(void)c;
	calls.addr_hook++;
	assert_int_equal(calls.tos_sets, 1); /* the join sees the TOS */
	return 0;
}

/* An applet that takes over at address resolution (mckey's joins) still
 * gets the TOS; an id bound without resolving (mckey -M) gets it too. */
static void tos_reaches_joins(void **state)
{
	static const struct rt_cm_hooks join_hooks = { .addr_resolved = hook_addr };
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(0xc0000202) };
	struct rt_conn *c;

	(void)state;
	cm->hooks = &join_hooks;
	cm->params.tos = 0x6a;
	c = client();
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	assert_int_equal(calls.addr_hook, 1);
	assert_int_equal(calls.resolve_route, 0);
	assert_int_equal(calls.tos, 0x6a);
	cm->params.tos = 32;
	assert_non_null(rt_cm_bind(cm, (struct sockaddr *)&src));
	assert_int_equal(calls.tos_sets, 2);
	assert_int_equal(calls.tos, 32);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_cm, teardown_cm)
	const struct CMUnitTest tests[] = {
		T(client_resolves_sets_tos_and_connects),
		T(resolve_timeout_from_the_params),
		T(failed_setup_never_connects),
		T(gid_addresses_are_copied_at_their_own_length),
		T(server_accepts_with_clipped_resources),
		T(requests_beyond_n_are_refused),
		T(census_names_what_a_wait_expects),
		T(refused_request_is_rejected),
		T(peer_disconnect_is_answered_once),
		T(error_events_name_the_cause),
		T(loop_times_out_with_a_reason),
		T(loop_returns_on_interrupt),
		T(loop_delivers_scripted_events),
		T(failure_hook_decides),
		T(migrate_moves_every_id),
		T(destroy_tells_established_peers),
		T(each_skips_the_listener_and_keeps_creation_order),
		T(all_reached_ignores_failed_connections),
		T(fail_recorded_keeps_the_first_cause),
		T(default_wait_bound_comes_from_the_params),
		T(wait_server_retries_until_the_bound),
		T(no_retry_without_wait_server_or_after_established),
		T(events_on_an_id_without_a_connection_are_ignored),
		T(event_flood_still_reaches_the_predicate),
		T(completion_flood_still_reaches_the_predicate),
		T(notification_flood_on_an_empty_cq_ends_the_round),
		T(cq_left_non_empty_is_polled_without_a_notification),
		T(a_channel_poll_finds_idle_is_not_read),
		T(cq_is_not_rearmed_while_the_loop_is_busy),
		T(cq_is_rearmed_and_polled_again_before_a_sleep),
		T(completions_before_a_disconnect_are_counted_first),
		T(spinning_wait_polls_without_notifications_or_rearms),
		T(spinning_wait_still_reads_cm_events),
		T(spinning_wait_sleeps_once_idle),
		T(released_connection_leaves_the_round),
		T(half_opened_device_is_not_counted),
		T(silent_setup_failure_fails_the_client),
		T(silent_setup_failure_fails_and_rejects_the_request),
		T(failed_accept_rejects),
		T(failed_migration_keeps_the_old_channel_and_frees_the_new),
		T(release_finished_keeps_what_is_live),
		T(step_runs_before_each_check),
		T(ud_client_keeps_the_sidr_reply),
		T(tcp_established_leaves_the_ud_param_alone),
		T(ud_server_is_established_at_accept),
		T(ud_failed_accept_is_not_established),
		T(ud_destroy_sends_no_disconnect),
		T(tos_is_set_before_the_route),
		T(no_tos_sets_no_option),
		T(tos_reaches_joins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
