/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ucmatose: N RC connections through the RDMA CM, C messages of S bytes
 * each way, then an orderly disconnect.
 *
 * Wire protocol of upstream cmatose (v44), which this follows: the client
 * posts its C receives before connecting (its REQ asks for RNR retry 0);
 * the server, once all N are up, sends C per connection first; the client
 * replies with C after receiving all of them; the server disconnects and
 * the client answers the DREQ. Payloads are opaque upstream; with --verify
 * (rdmatest on both sides) each carries the verification pattern. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"
#include "rdmatest/verify.h"
#include "rdmatest/xfer.h"

#define VERIFY_MAX_BYTES (1ULL << 30)
#define SENDER_SERVER 0x53525652u /* "SRVR" */
#define SENDER_CLIENT 0x434c4e54u /* "CLNT" */

struct ucmatose_cfg {
	struct rt_cm_endpoint ep; /* -s -b -f -P */
	long long conns;
	long long count;
	long long size;
	long long tos;
	long long ack_timeout;
	long long port;
	int migrate;
	int verify;
	int timing;
};

struct ucmatose_ctx {
	struct ucmatose_cfg *cfg;
	struct rt_run *run;
	struct rt_cm *cm;
	bool server;
	unsigned conns;      /* connections this side expects */
	unsigned long count; /* messages per connection, each way */
	uint64_t t_start, t_established, t_data_done;
};

/* One registered buffer: the receive area, then the send area at
 * send_off. One registration instead of two spares a connection two
 * verbs commands (reg and dereg) at each end. */
struct ucmatose_conn {
	struct rt_buf *buf;
	size_t send_off;
};

#define RT_CFG struct ucmatose_cfg

static const struct rt_opt ucmatose_opts[] = {
	RT_OPT_ROWS_CM_ENDPOINT_OF(ep, "tcp", rt_port_spaces_rc),
	RT_OPT_ROW_CONNECTIONS(RT_L(conns), "1", "connections; the server waits for exactly N"),
	{ 'C', "count", RT_OPT_INT, RT_L(count), 0, 1 << 20, "10", "N",
	  "messages per connection in each direction; both sides must match", NULL },
	{ 'S', "size", RT_OPT_SIZE, RT_L(size), 0, 1 << 30, "100", "SIZE",
	  "message size in bytes (0: connect only); both sides must match", NULL },
	RT_OPT_ROW_TOS('t', RT_L(tos), RT_TOS_HELP_CLIENT("its connections'")),
	{ 'a', "ack-timeout", RT_OPT_INT, RT_L(ack_timeout), 0, 31, NULL, "T",
	  "QP ACK timeout exponent (4.096 us * 2^T)", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7471", "PORT", "port", NULL },
	{ 'm', "migrate", RT_OPT_FLAG, RT_I(migrate), 0, 0, NULL, NULL,
	  "move every id to a new event channel before disconnecting", NULL },
	{ 0, "verify", RT_OPT_FLAG, RT_I(verify), 0, 0, NULL, NULL,
	  "fill and check every payload (both sides must be rdmatest with --verify)", NULL },
	{ 0, "timing", RT_OPT_FLAG, RT_I(timing), 0, 0, NULL, NULL,
	  "print the connection-setup timing table (always in --json)", NULL },
	{ 0 },
};

RT_APPLET(ucmatose, "RDMA CM connection test: N RC connections exchanging messages",
	  "[-s server_addr] [-b bind_addr] [-f name|ip|ipv6|gid] [-P tcp|ib] "
	  "[-c connections] [-C message_count] [-S message_size] [-t tos] "
	  "[-a ack_timeout] [-p port] [-m] [--verify] [--timing]",
	  "Without -s it is the server: it waits for -c connections, sends -C "
	  "messages of -S bytes on each, receives as many back and disconnects. "
	  "With -s it is the client. Wire-compatible with rdma-core's ucmatose; "
	  "unlike it, every completion is checked, every wait is bounded by "
	  "--timeout, and a count or size mismatch ends with a clear error.");

/* Receives land in their own slot with --verify, else all in one buffer
 * (payloads are opaque, as upstream). */
static size_t slot(struct ucmatose_ctx *x, uint64_t i)
{
	return x->cfg->verify ? (size_t)(i * (uint64_t)x->cfg->size) : 0;
}

static int setup(struct rt_conn *c)
{
	struct ucmatose_ctx *x = rt_conn_applet(c);
	unsigned long n = x->count ? x->count : 1;
	size_t bytes = (size_t)x->cfg->size * (x->cfg->verify ? n : 1);
	struct rt_res_spec spec = {
		.qp_type = IBV_QPT_RC, .send_depth = (uint32_t)n,
		.recv_depth = (uint32_t)n, .sig_all = true,
	};
	struct ucmatose_conn *u = rt_conn_priv(c, sizeof(*u));
	struct rt_res *res = rt_conn_res(c);

	if (rt_conn_refuse_beyond(c, x->conns) || rt_conn_setup_res(c, &spec))
		return -1;
	u->send_off = bytes;
	u->buf = rt_res_buf(res, 2 * bytes, IBV_ACCESS_LOCAL_WRITE, rt_conn_err(c));
	if (!u->buf)
		return rt_conn_fail_recorded(c);
	for (unsigned long i = 0; i < x->count; i++)
		if (rt_post_recv(res, u->buf, slot(x, i), (size_t)x->cfg->size, i, rt_conn_err(c)))
			return rt_conn_fail_recorded(c);
	return 0;
}

static int check_message(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct ucmatose_ctx *x = rt_conn_applet(c);
	struct ucmatose_conn *u = rt_conn_data(c);
	uint64_t seq = RT_WR_N(wc->wr_id);
	size_t bad = 0;
	enum rt_msg_status st;

	if (wc->byte_len != (uint32_t)x->cfg->size)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: message %llu has %u bytes, "
				    "expected %lld (does the peer's -S match?)", rt_conn_peer(c),
				    (unsigned long long)seq, wc->byte_len, x->cfg->size);
	if (!x->cfg->verify)
		return 0;
	st = rt_msg_check_seq(u->buf->addr + slot(x, seq), wc->byte_len,
			      x->server ? SENDER_CLIENT : SENDER_SERVER, seq, &bad);
	if (st != RT_MSG_OK)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: message %llu: %s at byte %zu "
				    "(is the peer rdmatest with --verify?)", rt_conn_peer(c),
				    (unsigned long long)seq, rt_msg_status_str(st), bad);
	return 0;
}

static int completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	if (RT_WR_KIND(wc->wr_id) == RT_WR_RECV)
		return check_message(c, wc);
	return 0;
}

static int send_all(struct ucmatose_ctx *x, struct rt_conn *c)
{
	struct ucmatose_conn *u = rt_conn_data(c);
	size_t size = (size_t)x->cfg->size;

	for (unsigned long i = 0; i < x->count; i++) {
		if (x->cfg->verify)
			rt_msg_fill(u->buf->addr + u->send_off + slot(x, i), size,
				    x->server ? SENDER_SERVER : SENDER_CLIENT, i);
		if (rt_post_send(rt_conn_res(c), u->buf, u->send_off + slot(x, i), size, i, true,
				 rt_conn_err(c)))
			return rt_conn_fail_recorded(c);
	}
	return 0;
}

/* Not yet set up, or turned away: no messages to count. */
static bool is_data_conn(const struct rt_conn *c)
{
	return rt_conn_state(c) != RT_CONN_FAILED && rt_conn_data(c);
}

static bool counted(const struct rt_cm *cm, enum rt_counter which)
{
	const struct ucmatose_ctx *x = rt_cm_applet(cm);
	const struct rt_conn *c;

	rt_cm_each(cm, c)
		if (is_data_conn(c) && rt_conn_count(c, which) < x->count)
			return false;
	return true;
}

static bool recvs_done(const struct rt_cm *cm, const void *arg)
{
	(void)arg;
	return counted(cm, RT_COUNT_RECVS);
}

static bool sends_done(const struct rt_cm *cm, const void *arg)
{
	(void)arg;
	return counted(cm, RT_COUNT_SENDS);
}

/* A peer that disconnects before finishing ends the wait at once. */
static void fail_early_leavers(struct rt_cm *cm, void *counter)
{
	const struct ucmatose_ctx *x = rt_cm_applet(cm);
	enum rt_counter which = *(const enum rt_counter *)counter;
	struct rt_conn *c;

	rt_cm_each(cm, c) {
		uint64_t n = rt_conn_count(c, which);

		if (is_data_conn(c) && n < x->count &&
		    rt_conn_state(c) == RT_CONN_DISCONNECTED)
			rt_conn_fail(c, RT_EXIT_FAIL, "%s disconnected after %llu of %lu "
				     "messages (does its -C match?)", rt_conn_peer(c),
				     (unsigned long long)n, x->count);
	}
}

static void data_progress(const struct rt_cm *cm, const void *arg, char *buf, size_t len)
{
	const struct ucmatose_ctx *x = rt_cm_applet(cm);
	const struct rt_conn *c;
	uint64_t got = 0, sent = 0;
	unsigned n = 0;

	(void)arg;
	rt_cm_each(cm, c)
		if (is_data_conn(c)) {
			got += rt_conn_count(c, RT_COUNT_RECVS);
			sent += rt_conn_count(c, RT_COUNT_SENDS);
			n++;
		}
	snprintf(buf, len, "%u connections: received %llu and sent %llu of %llu "
		 "messages each way; does the peer's -C/-c match?", n,
		 (unsigned long long)got, (unsigned long long)sent,
		 (unsigned long long)x->count * n);
}

static int wait_for(struct ucmatose_ctx *x, enum rt_counter which, const char *what)
{
	struct rt_wait w = { .done = which == RT_COUNT_RECVS ? recvs_done : sends_done,
			     .step = fail_early_leavers, .arg = &which, .spin = true,
			     .what = what, .progress = data_progress };

	return rt_cm_run(x->cm, &w);
}

static int send_to_all(struct ucmatose_ctx *x)
{
	struct rt_conn *c;

	rt_cm_each(x->cm, c)
		if (is_data_conn(c) && send_all(x, c))
			return -1;
	return 0;
}

static int exchange(struct ucmatose_ctx *x)
{
	const struct rt_log *log = &x->run->log;

	rt_error_phase(&x->run->err, "transfer");
	if (x->server) {
		rt_say(log, "initiating data transfers");
		if (send_to_all(x))
			return -1;
		rt_say(log, "completing sends");
		if (wait_for(x, RT_COUNT_SENDS, "send completions"))
			return -1;
	}
	rt_say(log, "receiving data transfers");
	if (wait_for(x, RT_COUNT_RECVS, "the peer's messages"))
		return -1;
	if (!x->server) {
		rt_say(log, "sending replies");
		if (send_to_all(x))
			return -1;
		if (wait_for(x, RT_COUNT_SENDS, "reply completions"))
			return -1;
	}
	rt_say(log, "data transfers complete");
	return 0;
}

static bool extra_request_only(struct rt_conn *c)
{
	const struct ucmatose_ctx *x = rt_conn_applet(c);

	return rt_conn_beyond(c, x->conns);
}

static const struct rt_cm_hooks hooks = {
	.setup = setup,
	.completion = completion,
	.failed = extra_request_only,
};

static int connect_all(struct ucmatose_ctx *x)
{
	struct ucmatose_cfg *cfg = x->cfg;
	struct rt_addr_query q = rt_addr_query_cm(&cfg->ep, cfg->port);

	rt_error_phase(&x->run->err, x->server ? "listen" : "resolve-addr");
	return rt_cm_start(x->cm, &q, x->conns, &x->run->err);
}

static int wait_established(struct ucmatose_ctx *x)
{
	struct rt_wait first = { .done = rt_cm_any_conn,
				 .timeout_ms = rt_run_accept_bound(x->run),
				 .what = "a first client" };
	struct rt_wait all = { .done = rt_cm_all_established, .arg = &x->conns,
			       .what = "all connections to be established",
			       .progress = rt_cm_expected_progress };

	rt_error_phase(&x->run->err, "connect");
	if (x->server && x->conns && rt_cm_run(x->cm, &first))
		return -1;
	if (rt_cm_run(x->cm, &all))
		return -1;
	x->t_established = rt_now_ns();
	return 0;
}

static int disconnect_all(struct ucmatose_ctx *x)
{
	struct rt_wait w = { .done = rt_cm_all_closed,
			     .what = x->server ? "the clients to disconnect"
					       : "the server to disconnect" };

	if (x->cfg->migrate) {
		rt_say(&x->run->log, "migrating to new event channel");
		if (rt_cm_migrate(x->cm))
			return -1;
	}
	rt_error_phase(&x->run->err, "disconnect");
	if (x->server) {
		struct rt_conn *c;

		rt_say(&x->run->log, "cmatose: disconnecting");
		rt_cm_each(x->cm, c)
			if (is_data_conn(c))
				rt_conn_disconnect(c);
	}
	if (rt_cm_run(x->cm, &w))
		return -1;
	if (x->server)
		rt_say(&x->run->log, "disconnected");
	return 0;
}

static void report(struct ucmatose_ctx *x)
{
	struct rt_json *j = &x->run->results;
	struct rt_steps steps;
	const struct rt_conn *c;
	uint64_t bytes = 0, msgs = 0;
	double data_s = (double)(x->t_data_done - x->t_established) / 1e9;

	rt_steps_init(&steps, rt_step_names, RT_STEP_COUNT);
	rt_cm_each(x->cm, c) {
		const uint64_t *ns = rt_conn_step_ns(c);

		if (!is_data_conn(c))
			continue;
		for (int s = 0; s < RT_STEP_COUNT; s++)
			if (ns[s])
				rt_steps_add(&steps, (size_t)s, ns[s]);
		msgs += rt_conn_count(c, RT_COUNT_RECVS) + rt_conn_count(c, RT_COUNT_SENDS);
	}
	bytes = msgs * (uint64_t)x->cfg->size;
	if (x->cfg->timing)
		rt_steps_print(x->run->log.human, &steps);
	rt_json_kv_string(j, "role", x->server ? "server" : "client");
	rt_json_kv_uint(j, "connections", x->conns);
	rt_json_kv_uint(j, "messages", msgs);
	rt_json_kv_uint(j, "bytes", bytes);
	rt_json_kv_bool(j, "verified", x->cfg->verify && x->cfg->size > 0);
	rt_json_kv_double(j, "connect_seconds", (double)(x->t_established - x->t_start) / 1e9);
	rt_json_kv_double(j, "transfer_seconds", x->t_data_done ? data_s : 0);
	rt_json_key(j, "setup_us");
	rt_steps_json(j, &steps);
	rt_steps_free(&steps);
}

static int run_test(struct ucmatose_ctx *x)
{
	struct rt_cm_params p = {
		.ps = (enum rdma_port_space)x->cfg->ep.ps,
		.tos = rt_cm_tos_opt(&x->run->tabs[0], x->cfg->tos),
		.ack_timeout = -1, .accept_rnr_retry = 7,
		/* as upstream: RNR retry 0 makes the server's sends fail fast
		 * when a receive is missing, instead of retrying forever */
		.conn = { .responder_resources = 1, .initiator_depth = 1,
			  .retry_count = 5, .rnr_retry_count = 0 },
		.timeout_ms = x->run->common.timeout_ms,
		.wait_server_ms = x->run->common.wait_server_ms,
	};

	if (rt_opt_was_given(&x->run->tabs[0], "ack-timeout"))
		p.ack_timeout = (int)x->cfg->ack_timeout;
	rt_say(&x->run->log, "cmatose: starting %s", x->server ? "server" : "client");
	x->cm = rt_cm_create(&p, &hooks, x, &x->run->log, &x->run->err);
	if (!x->cm || connect_all(x))
		return -1;
	if (!x->server)
		rt_say(&x->run->log, "cmatose: connecting");
	if (wait_established(x) || (x->count && exchange(x)))
		return -1;
	x->t_data_done = rt_now_ns();
	if (disconnect_all(x))
		return -1;
	report(x);
	rt_say(&x->run->log, "test complete");
	rt_say(&x->run->log, "return status 0");
	return 0;
}

static int ucmatose_main(struct rt_run *run, void *cfgp)
{
	struct ucmatose_cfg *cfg = cfgp;
	struct ucmatose_ctx x = { .cfg = cfg, .run = run, .server = !cfg->ep.dst,
				  .conns = (unsigned)cfg->conns,
				  .count = cfg->size ? (unsigned long)cfg->count : 0,
				  .t_start = rt_now_ns() };
	int rc;

	if (cfg->verify && (uint64_t)cfg->count * (uint64_t)cfg->size > VERIFY_MAX_BYTES)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--verify needs -C x -S "
			       "buffers per connection: %lld x %lld is over 1 GiB",
			       cfg->count, cfg->size);
	if (cfg->conns == 0) /* as upstream: nothing to do */
		return 0;
	rc = run_test(&x);
	rt_cm_destroy(x.cm);
	return rc;
}
