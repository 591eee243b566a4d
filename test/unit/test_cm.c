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

#include "rdmatest/cm.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"

/* ---- fakes -------------------------------------------------------------- */

struct calls {
	int resolve_addr, resolve_route, connect, accept, reject, disconnect;
	int set_option, destroy_id, migrate, setup, established, failed_hook;
	int resolve_timeout, route_timeout;
	struct rdma_conn_param connect_param, accept_param;
	uint8_t tos;
	int setup_result;
	bool keep_going;
};

static struct calls calls;
static struct rdma_cm_event *script[16];
static size_t script_len, script_pos;
static int pipefd[2];
static struct ibv_comp_channel fake_comp = { .fd = -1 };
static struct ibv_pd fake_pd;

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
	return 0;
}

int __wrap_rdma_set_option(struct rdma_cm_id *id, int level, int name,
			   void *val, size_t len)
{
	(void)id, (void)level, (void)len;
	if (name == RDMA_OPTION_ID_TOS)
		calls.tos = *(uint8_t *)val;
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
	return ch;
}

void __wrap_rdma_destroy_event_channel(struct rdma_event_channel *ch)
{
	free(ch);
}

int __wrap_rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *ch)
{
	id->channel = ch;
	calls.migrate++;
	return 0;
}

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *c) { (void)c; return &fake_pd; }
int __wrap_ibv_dealloc_pd(struct ibv_pd *pd) { (void)pd; return 0; }
struct ibv_comp_channel *__wrap_ibv_create_comp_channel(struct ibv_context *c)
{
	(void)c;
	fake_comp.fd = pipefd[1]; /* never readable from our side */
	return &fake_comp;
}
int __wrap_ibv_destroy_comp_channel(struct ibv_comp_channel *ch) { (void)ch; return 0; }
int __wrap_ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	(void)c;
	memset(a, 0, sizeof(*a));
	a->max_qp_rd_atom = 2;
	a->max_qp_init_rd_atom = 3;
	return 0;
}

/* ---- helpers ------------------------------------------------------------ */

static struct rt_run run;
static struct rt_cm cm;

static int hook_setup(struct rt_conn *c)
{
	calls.setup++;
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
	run.common.timeout_ms = 10000;
	rt_log_init(&run.log, "test", false, true, false);
	memset(&cm, 0, sizeof(cm));
	cm.run = &run;
	cm.params = p;
	cm.hooks = &hooks;
	cm.ch = __wrap_rdma_create_event_channel();
	return 0;
}

static int teardown_cm(void **state)
{
	(void)state;
	rt_cm_destroy(&cm);
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
	rt_cm_handle_event(&cm, &copy);
}

static struct rt_conn *client(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(7471),
				   .sin_addr.s_addr = htonl(0xc0000201) };
	struct rt_conn *c = rt_cm_connect(&cm, NULL, (struct sockaddr *)&dst);

	assert_non_null(c);
	assert_string_equal(c->peer, "192.0.2.1:7471");
	return c;
}

static bool always(struct rt_cm *m, void *a) { (void)m, (void)a; return true; }
static bool never(struct rt_cm *m, void *a) { (void)m, (void)a; return false; }

/* ---- tests -------------------------------------------------------------- */

static void client_resolves_sets_tos_and_connects(void **state)
{
	struct rt_conn *c;

	(void)state;
	cm.params.tos = 0x28;
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
	assert_true(rt_cm_all_established(&cm, &(unsigned){ 1 }));
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

static struct rt_conn *listener(void)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(7471) };

	assert_int_equal(rt_cm_listen(&cm, (struct sockaddr *)&any), 0);
	return cm.listener;
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
	assert_int_equal(cm.nconns, 2);
	c = cm.conns[1];
	assert_true(c->passive);
	assert_int_equal(calls.setup, 1);
	assert_int_equal(calls.accept, 1);
	assert_int_equal(calls.accept_param.responder_resources, 2); /* device max */
	assert_int_equal(calls.accept_param.initiator_depth, 3);
	assert_int_equal(calls.accept_param.rnr_retry_count, 6);
	assert_int_equal(c->state, RT_CONN_ACCEPTING);
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
	assert_int_equal(cm.conns[1]->state, RT_CONN_FAILED);
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
	assert_true(rt_cm_all_closed(&cm, NULL));
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

static void loop_times_out_with_a_reason(void **state)
{
	struct rt_wait w = { .done = never, .timeout_ms = 50, .what = "the peer" };
	uint64_t t0 = rt_now_ns();

	(void)state;
	client();
	assert_int_equal(rt_cm_run(&cm, &w), -1);
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
	assert_int_equal(rt_cm_run(&cm, &w), RT_INTERRUPTED);
	waitpid(pid, NULL, 0);
	assert_false(run.err.set);
	assert_int_equal(rt_interrupt_signal(), SIGINT);
	rt_interrupt_wind_down(&run.err); /* then waits run as before */
	w.timeout_ms = 20;
	assert_int_equal(rt_cm_run(&cm, &w), -1);
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
	assert_int_equal(rt_cm_run(&cm, &w), 0);
	assert_int_equal(c->state, RT_CONN_ESTABLISHED);
	assert_int_equal(cm.events, 3);
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
	assert_int_equal(rt_cm_run(&cm, &w), 0);
	assert_int_equal(calls.failed_hook, 1);
	assert_false(run.err.set);
	calls.keep_going = false;
	c = client();
	rt_conn_fail(c, RT_EXIT_FAIL, "second");
	assert_int_equal(rt_cm_run(&cm, &w), -1);
	assert_int_equal(calls.failed_hook, 2);
	assert_string_equal(run.err.reason, "second");
}

static void migrate_moves_every_id(void **state)
{
	(void)state;
	client();
	client();
	assert_int_equal(rt_cm_migrate(&cm), 0);
	assert_int_equal(calls.migrate, 2);
	assert_ptr_equal(cm.conns[0]->id->channel, cm.ch);
}

static void destroy_tells_established_peers(void **state)
{
	struct rt_conn *c;

	(void)state;
	c = client();
	deliver(event(c->id, RDMA_CM_EVENT_ESTABLISHED, 0));
	client();
	rt_cm_destroy(&cm);
	assert_int_equal(calls.disconnect, 1);
	assert_int_equal(calls.destroy_id, 2);
	cm.ch = __wrap_rdma_create_event_channel(); /* for teardown */
}

static void wait_server_retries_until_the_bound(void **state)
{
	struct rt_conn *c;
	struct rdma_cm_id *first;
	int next = -1;

	(void)state;
	run.common.wait_server_ms = 60000;
	c = client();
	first = c->id;
	deliver(event(c->id, RDMA_CM_EVENT_ADDR_RESOLVED, 0));
	deliver(event(c->id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0));
	deliver(event(c->id, RDMA_CM_EVENT_REJECTED, 8));
	assert_int_equal(c->state, RT_CONN_IDLE); /* not failed: retrying */
	assert_ptr_not_equal(c->id, first);
	assert_ptr_equal(c->id->context, c);
	assert_int_equal(calls.destroy_id, 1);
	assert_int_equal(rt_cm_retry_due(&cm, &next), 0); /* not yet due */
	assert_true(next > 0 && next <= 201);
	c->retry_at = rt_now_ns() - 1;
	assert_int_equal(rt_cm_retry_due(&cm, &next), 1);
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
	run.common.wait_server_ms = 60000;
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

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup_cm, teardown_cm)
	const struct CMUnitTest tests[] = {
		T(client_resolves_sets_tos_and_connects),
		T(failed_setup_never_connects),
		T(server_accepts_with_clipped_resources),
		T(refused_request_is_rejected),
		T(peer_disconnect_is_answered_once),
		T(error_events_name_the_cause),
		T(loop_times_out_with_a_reason),
		T(loop_returns_on_interrupt),
		T(loop_delivers_scripted_events),
		T(failure_hook_decides),
		T(migrate_moves_every_id),
		T(destroy_tells_established_peers),
		T(wait_server_retries_until_the_bound),
		T(no_retry_without_wait_server_or_after_established),
		T(events_on_an_id_without_a_connection_are_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
