/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A message channel over one RDMA CM connection (cmchan.h). */
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/cm.h"
#include "rdmatest/cmchan.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

struct rt_cmchan {
	struct rt_run *run;
	struct rt_cm *cm;
	struct rt_cmchan_conn one; /* the one connection, once set up */
	size_t msg_max;
	bool pending;           /* a message sits in `in`, not taken yet */
	uint32_t pending_len;
	uint64_t sends_before;  /* the send count before the send waited for */
};

int rt_cmchan_conn_setup(struct rt_conn *c, size_t msg_max, uint32_t max_inline,
			 struct rt_cmchan_conn *one)
{
	struct rt_res_spec spec = { .qp_type = IBV_QPT_RC, .send_depth = 1,
				    .recv_depth = 1, .max_inline = max_inline,
				    .sig_all = true };
	struct rt_res *r;

	if (rt_conn_refuse_beyond(c, 1) || rt_conn_setup_res(c, &spec))
		return -1;
	r = rt_conn_res(c);
	one->in = rt_res_buf(r, msg_max, IBV_ACCESS_LOCAL_WRITE, rt_conn_err(c));
	one->out = one->in ? rt_res_buf(r, msg_max, IBV_ACCESS_LOCAL_WRITE,
					rt_conn_err(c)) : NULL;
	/* the receive is posted before the connect or accept, as the peer
	 * may send the moment it is established */
	if (!one->out || rt_post_recv(r, one->in, 0, msg_max, 0, rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	one->conn = c;
	return 0;
}

bool rt_cmchan_extra_request(struct rt_conn *c)
{
	return rt_conn_beyond(c, 1);
}

static int setup(struct rt_conn *c)
{
	struct rt_cmchan *ch = rt_conn_applet(c);

	ch->pending = false;
	return rt_cmchan_conn_setup(c, ch->msg_max, 0, &ch->one);
}

static int completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct rt_cmchan *ch = rt_conn_applet(c);

	if (RT_WR_KIND(wc->wr_id) == RT_WR_RECV) {
		ch->pending = true;
		ch->pending_len = wc->byte_len;
	}
	return 0;
}

static const struct rt_cm_hooks hooks = {
	.setup = setup,
	.completion = completion,
	.failed = rt_cmchan_extra_request,
};

static bool gone(const struct rt_cmchan *ch)
{
	enum rt_conn_state s = rt_conn_state(ch->one.conn);

	return s == RT_CONN_FAILED || s == RT_CONN_DISCONNECTED;
}

static bool message_in(const struct rt_cm *cm, const void *unused)
{
	const struct rt_cmchan *ch = rt_cm_applet(cm);

	(void)unused;
	return ch->pending || gone(ch);
}

static bool sent(const struct rt_cm *cm, const void *unused)
{
	const struct rt_cmchan *ch = rt_cm_applet(cm);

	(void)unused;
	return rt_conn_count(ch->one.conn, RT_COUNT_SENDS) > ch->sends_before || gone(ch);
}

/* A wait that ended with the peer gone is that peer's failure. */
static int peer_left(struct rt_cmchan *ch, const char *before)
{
	if (rt_conn_state(ch->one.conn) == RT_CONN_FAILED)
		return -1; /* the reactor recorded why */
	return rt_fail(&ch->run->err, RT_EXIT_FAIL, "%s disconnected before %s",
		       rt_conn_peer(ch->one.conn), before);
}

static int establish(struct rt_cmchan *ch, const struct rt_cmchan_spec *s)
{
	struct rt_addr_query q = { .node = s->server ? s->server : s->source,
				   .src = s->server ? s->source : NULL, .port = s->port,
				   .ps = RDMA_PS_TCP, .format = RT_FMT_NAME,
				   .passive = !s->server, .what = "the server address" };
	unsigned one = 1;
	struct rt_wait first = { .done = rt_cm_any_conn, .what = "a client",
				 .timeout_ms = rt_run_accept_bound(ch->run) };
	struct rt_wait up = { .done = rt_cm_all_established, .arg = &one,
			      .what = "the RDMA CM connection",
			      .progress = rt_cm_expected_progress };

	rt_error_phase(&ch->run->err, s->server ? "resolve-addr" : "listen");
	if (rt_cm_start(ch->cm, &q, 1, &ch->run->err))
		return -1;
	rt_error_phase(&ch->run->err, "connect");
	if (!s->server && rt_cm_run(ch->cm, &first))
		return -1;
	if (rt_cm_run(ch->cm, &up))
		return -1;
	/* one client: the port is free again for the tool's next listener */
	if (!s->server)
		rt_cm_unlisten(ch->cm);
	return ch->one.conn && rt_conn_state(ch->one.conn) == RT_CONN_ESTABLISHED ? 0 :
	       peer_left(ch, "the connection was established");
}

struct rt_cmchan *rt_cmchan_open(struct rt_run *run, const struct rt_cmchan_spec *s)
{
	const struct rt_common *k = &run->common;
	struct rt_cm_params p = {
		.ps = RDMA_PS_TCP, .tos = -1, .ack_timeout = s->ack_timeout,
		.accept_rnr_retry = 7, .backlog = 1,
		.conn = { .retry_count = s->retry_count, .rnr_retry_count = 7 },
		.timeout_ms = k->timeout_ms,
		.wait_server_ms = k->wait_server_ms ? k->wait_server_ms : k->timeout_ms,
	};
	struct rt_cmchan *ch;

	if (!s->msg_max || s->msg_max > RT_CMCHAN_MSG_MAX) {
		rt_fail(&run->err, RT_EXIT_FAIL, "RDMA CM channel: message size %zu out "
			"of 1..%d", s->msg_max, RT_CMCHAN_MSG_MAX);
		return NULL;
	}
	ch = rt_xcalloc(1, sizeof(*ch));
	ch->run = run;
	ch->msg_max = s->msg_max;
	ch->cm = rt_cm_create(&p, &hooks, ch, &run->log, &run->err);
	if (ch->cm && !establish(ch, s))
		return ch;
	rt_cmchan_close(ch);
	return NULL;
}

int rt_cmchan_send(struct rt_cmchan *ch, const void *buf, size_t len)
{
	struct rt_wait w = { .done = sent, .what = "the send completion" };
	int rc;

	if (!len || len > ch->msg_max)
		return rt_fail(&ch->run->err, RT_EXIT_FAIL, "RDMA CM channel: a %zu-byte "
			       "message (1..%zu)", len, ch->msg_max);
	if (gone(ch))
		return peer_left(ch, "a message could be sent");
	memcpy(ch->one.out->addr, buf, len);
	ch->sends_before = rt_conn_count(ch->one.conn, RT_COUNT_SENDS);
	if (rt_post_send(rt_conn_res(ch->one.conn), ch->one.out, 0, len, 0, true,
			 rt_conn_err(ch->one.conn)))
		return rt_conn_fail_recorded(ch->one.conn);
	if ((rc = rt_cm_run(ch->cm, &w)))
		return rc;
	return rt_conn_count(ch->one.conn, RT_COUNT_SENDS) > ch->sends_before ? 0 :
	       peer_left(ch, "the message was sent");
}

int rt_cmchan_await(struct rt_cmchan *ch, long long max_ms, const char *what)
{
	struct rt_wait w = { .done = message_in, .what = what,
			     .timeout_ms = max_ms < 0 ? RT_WAIT_UNBOUNDED : max_ms };
	int rc;

	if (!ch->pending && (rc = rt_cm_run(ch->cm, &w)))
		return rc;
	return ch->pending ? 0 : peer_left(ch, what);
}

static bool looked(const struct rt_cm *cm, const void *looks)
{
	return message_in(cm, NULL) || *(const unsigned *)looks > 1;
}

static void look(struct rt_cm *cm, void *looks)
{
	(void)cm;
	(*(unsigned *)looks)++;
}

int rt_cmchan_peek(struct rt_cmchan *ch)
{
	unsigned looks = 0;
	/* one round of the reactor, its poll bounded by the 1 ms tick */
	struct rt_wait w = { .done = looked, .arg = &looks, .step = look,
			     .tick_ms = 1, .what = "the peer's next message" };
	int rc = ch->pending ? 0 : rt_cm_run(ch->cm, &w);

	if (rc)
		return rc;
	return ch->pending || gone(ch) ? 1 : 0;
}

int rt_cmchan_recv(struct rt_cmchan *ch, void *buf, size_t len)
{
	int rc = rt_cmchan_await(ch, RT_WAIT_STEP_BOUND, "the peer's next message");

	if (rc)
		return rc;
	if (ch->pending_len != len)
		return rt_fail(&ch->run->err, RT_EXIT_FAIL, "%s sent a %u-byte message "
			       "where %zu bytes were due: it walks another exchange "
			       "(another test, option or version)", rt_conn_peer(ch->one.conn),
			       ch->pending_len, len);
	memcpy(buf, ch->one.in->addr, len);
	ch->pending = false;
	if (rt_post_recv(rt_conn_res(ch->one.conn), ch->one.in, 0, ch->msg_max, 0,
			 rt_conn_err(ch->one.conn)))
		return rt_conn_fail_recorded(ch->one.conn);
	return 0;
}

const char *rt_cmchan_peer(const struct rt_cmchan *ch)
{
	return rt_conn_peer(ch->one.conn);
}

const struct sockaddr *rt_cmchan_local(const struct rt_cmchan *ch)
{
	return rdma_get_local_addr(rt_conn_id(ch->one.conn));
}

const struct sockaddr *rt_cmchan_remote(const struct rt_cmchan *ch)
{
	return rdma_get_peer_addr(rt_conn_id(ch->one.conn));
}

void rt_cmchan_close(struct rt_cmchan *ch)
{
	if (!ch)
		return;
	rt_cm_destroy(ch->cm);
	free(ch);
}
