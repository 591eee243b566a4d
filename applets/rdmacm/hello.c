/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The one-message exchanges (hello.h). Order as upstream: each side posts
 * its receive before it connects or accepts; the client sends first; with
 * a reply the server answers after the client's message arrived; both
 * sides then disconnect. Every wait is bounded by --timeout, and a peer
 * that leaves early ends the wait at once. */
#include <stdio.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/cm.h"
#include "rdmatest/cmchan.h"
#include "rdmacm/hello.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

const struct rt_enum rt_hello_transports[] = {
	{ "r", RT_HELLO_RC, "RC (reliable connected)" },
	{ "x", RT_HELLO_XRC, "XRC (extended reliable connected)" },
	{ NULL, 0, NULL },
};

int rt_hello_refuse_xrc(struct rt_run *run, int transport)
{
	if (transport != RT_HELLO_XRC)
		return 0;
	return rt_fail(&run->err, RT_EXIT_USAGE, "-c x (XRC) is not supported by "
		       "rdmatest: only RC (-c r); XRC over the RDMA CM also needs a "
		       "device with XRC, which rxe and siw lack");
}

struct hello {
	const struct rt_hello_spec *spec;
	struct rt_run *run;
	struct rt_cm *cm;
	struct rt_cmchan_conn one; /* the one data connection */
};

static int setup(struct rt_conn *c)
{
	struct hello *h = rt_conn_applet(c);

	return rt_cmchan_conn_setup(c, RT_HELLO_BYTES, RT_HELLO_BYTES, &h->one);
}

static int completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	if (RT_WR_KIND(wc->wr_id) == RT_WR_RECV && wc->byte_len != RT_HELLO_BYTES)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: message of %u bytes, expected "
				    "%d (is the peer rdma_client/rdma_server?)",
				    rt_conn_peer(c), wc->byte_len, RT_HELLO_BYTES);
	return 0;
}

static const struct rt_cm_hooks hooks = {
	.setup = setup,
	.completion = completion,
	.failed = rt_cmchan_extra_request,
};

/* The peer answers only what it received: on the client, which sends
 * first, the server's reply says our message was delivered, whether or
 * not the send's completion has been taken yet (the reply and the peer's
 * disconnect can come first). The server's receive came before its own
 * send and says nothing of it: the server waits for its send's completion
 * (taking the receive for it once let the server disconnect before its
 * reply went out, "sent":0 in a passing run). */
static bool done_count(const struct hello *h, enum rt_counter which)
{
	return rt_conn_count(h->one.conn, which) >= 1 ||
	       (which == RT_COUNT_SENDS && !h->spec->server &&
		rt_conn_count(h->one.conn, RT_COUNT_RECVS) >= 1);
}

static bool counted(const struct rt_cm *cm, const void *which)
{
	const struct hello *h = rt_cm_applet(cm);

	return h->one.conn && (rt_conn_state(h->one.conn) == RT_CONN_FAILED ||
			   done_count(h, *(const enum rt_counter *)which));
}

/* The peer disconnected before our message arrived or went out. */
static void fail_early_leaver(struct rt_cm *cm, void *which)
{
	const struct hello *h = rt_cm_applet(cm);

	if (h->one.conn && rt_conn_state(h->one.conn) == RT_CONN_DISCONNECTED &&
	    !done_count(h, *(const enum rt_counter *)which))
		rt_conn_fail(h->one.conn, RT_EXIT_FAIL, "%s disconnected before the %s",
			     rt_conn_peer(h->one.conn),
			     *(enum rt_counter *)which == RT_COUNT_RECVS
				     ? "message arrived" : "message was sent");
}

static int wait_count(struct hello *h, enum rt_counter which, const char *what)
{
	struct rt_wait w = { .done = counted, .arg = &which, .step = fail_early_leaver,
			     .what = what };

	return rt_cm_run(h->cm, &w);
}

static int send_one(struct hello *h)
{
	memset(h->one.out->addr, 0, RT_HELLO_BYTES); /* what upstream sends */
	if (rt_post_send(rt_conn_res(h->one.conn), h->one.out, 0, RT_HELLO_BYTES, 0, true,
			 rt_conn_err(h->one.conn)))
		return rt_conn_fail_recorded(h->one.conn);
	return wait_count(h, RT_COUNT_SENDS, "the send completion");
}

static int connect_one(struct hello *h)
{
	const struct rt_hello_spec *s = h->spec;
	struct rt_addr_query q = { .node = s->node, .port = s->port, .ps = RDMA_PS_TCP,
				   .format = RT_FMT_NAME, .passive = s->server,
				   .what = "-s" };
	unsigned one = 1;
	struct rt_wait first = { .done = rt_cm_any_conn, .what = "a client",
				 .timeout_ms = rt_run_accept_bound(h->run) };
	struct rt_wait up = { .done = rt_cm_all_established, .arg = &one,
			      .what = "the connection", .progress = rt_cm_expected_progress };

	rt_error_phase(&h->run->err, s->server ? "listen" : "resolve-addr");
	if (rt_cm_start(h->cm, &q, 1, &h->run->err))
		return -1;
	rt_error_phase(&h->run->err, "connect");
	if (s->server && rt_cm_run(h->cm, &first))
		return -1;
	return rt_cm_run(h->cm, &up);
}

static int exchange(struct hello *h)
{
	const struct rt_hello_spec *s = h->spec;

	rt_error_phase(&h->run->err, "transfer");
	if (!s->server && send_one(h))
		return -1;
	if ((s->server || s->reply) && wait_count(h, RT_COUNT_RECVS, s->server ? "the client's message"
						    : "the server's reply"))
		return -1;
	return s->server && s->reply ? send_one(h) : 0;
}

static int finish(struct hello *h)
{
	struct rt_wait w = { .done = rt_cm_all_closed, .what = "the disconnect" };

	rt_error_phase(&h->run->err, "disconnect");
	rt_conn_disconnect(h->one.conn);
	return rt_cm_run(h->cm, &w);
}

int rt_hello_run(struct rt_run *run, const struct rt_hello_spec *spec)
{
	/* rdma_connect(id, NULL) as upstream: retries 7, RNR retries 7 */
	struct rt_cm_params p = { .ps = RDMA_PS_TCP, .tos = spec->tos, .ack_timeout = -1,
				  .accept_rnr_retry = 7,
				  .conn = { .responder_resources = 1, .initiator_depth = 1,
					    .retry_count = 7, .rnr_retry_count = 7 },
				  .timeout_ms = run->common.timeout_ms,
				  .wait_server_ms = run->common.wait_server_ms };
	struct hello h = { .spec = spec, .run = run };
	int rc;

	rt_say(&run->log, "%s: start", spec->prog);
	h.cm = rt_cm_create(&p, &hooks, &h, &run->log, &run->err);
	rc = h.cm && !connect_one(&h) && !exchange(&h) && !finish(&h) ? 0 : -1;
	rt_json_kv_string(&run->results, "role", spec->server ? "server" : "client");
	rt_json_kv_uint(&run->results, "received", h.one.conn ? rt_conn_count(h.one.conn, RT_COUNT_RECVS) : 0);
	rt_json_kv_uint(&run->results, "sent", h.one.conn ? rt_conn_count(h.one.conn, RT_COUNT_SENDS) : 0);
	rt_cm_destroy(h.cm);
	if (!rc)
		rt_say(&run->log, "%s: end 0", spec->prog);
	return rc;
}
