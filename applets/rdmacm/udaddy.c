/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* udaddy: UD QPs whose peers are found through the RDMA CM (a SIDR
 * request and reply instead of a connection), -C datagrams of -S bytes
 * each way per path.
 *
 * Wire behaviour of upstream udaddy (v44), which this follows: UDP port
 * 7174 in the chosen port space; each side posts its receives before the
 * SIDR request (client) or reply (server); the client sends first, each
 * datagram a SEND_WITH_IMM whose immediate data is the sender's QPN in
 * big-endian; the server answers every path only after its datagrams
 * came, to that QPN, through an address handle built from the first
 * receive and its GRH, with its own QP's qkey. Upstream payloads are
 * opaque; ours carry the verify.h header, so an rdmatest receiver counts
 * lost, duplicate and corrupt datagrams, and counts upstream ones unchecked.
 *
 * Unlike upstream, a lost datagram does not hang the receiver: it stops
 * --timeout after the last datagram (or after the paths came up, when none
 * came) and says how many were lost. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmacm/mcast.h"
#include "rdmacm/udflow.h"
#include "rdmacm/udtally.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

#define UDADDY_PORT 7174 /* fixed upstream: there is no option for it */

struct udaddy_cfg {
	struct rt_cm_endpoint ep; /* -s -b -f -P */
	long long paths;
	long long count;
	long long size;
	long long tos;
};

/* Path i's sending lane and receiving side are entries i of the
 * context's tx.lanes and rx. */
struct udaddy_path {
	unsigned i;
	struct ibv_ah *ah;    /* to the peer; ours to destroy */
};

struct udaddy_ctx {
	struct udaddy_cfg *cfg;
	struct rt_run *run;
	struct rt_cm *cm;
	bool server;
	unsigned paths;
	unsigned next;        /* the next path a server request takes */
	struct rt_ud_tx tx;
	struct rt_ud_rx *rx;
	struct rt_ud_flow flow;
};

#define RT_CFG struct udaddy_cfg

static const struct rt_opt udaddy_opts[] = {
	RT_OPT_ROWS_CM_ENDPOINT_OF(ep, "udp", rt_port_spaces_ud),
	{ 'p', "port-space-number", RT_OPT_ENUM, RT_I(ep.ps), 0, 0, "udp", "NUM",
	  "the port space by number, as upstream (0x111 udp, 0x2 ipoib); "
	  "not a port: udaddy always uses UDP port 7174", rt_port_spaces_ud },
	{ 'c', "paths", RT_OPT_INT, RT_L(paths), 1, 1024, "1", "N",
	  "paths (UD QPs); the server waits for exactly N", NULL },
	{ 'C', "count", RT_OPT_INT, RT_L(count), 0, 1 << 20, "10", "N",
	  "datagrams per path in each direction; both sides must match", NULL },
	{ 'S', "size", RT_OPT_SIZE, RT_L(size), 0, 1 << 16, "100", "SIZE",
	  "datagram size in bytes, at most the active MTU; both sides must match", NULL },
	RT_OPT_ROW_TOS('t', RT_L(tos), RT_TOS_HELP_CLIENT("its routes'")),
	{ 0 },
};

RT_APPLET(udaddy, "RDMA CM datagram test: UD QPs resolved by SIDR exchanging datagrams",
	  "[-s server_addr] [-b bind_addr] [-f name|ip|ipv6|gid] [-P udp|ipoib] "
	  "[-p port_space] [-c paths] [-C count] [-S size] [-t tos]",
	  "Without -s it is the server: it waits for -c SIDR requests on UDP "
	  "port 7174, receives -C datagrams of -S bytes on each path and "
	  "replies with as many. With -s it is the client, which sends first. "
	  "Wire-compatible with rdma-core's udaddy; unlike it, every wait is "
	  "bounded by --timeout and lost datagrams are counted and reported.");

/* Route resolved (client) or request arrived (server): the QP, its
 * receives (before the SIDR exchange, as upstream) and its send lane. */
static int setup(struct rt_conn *c)
{
	struct udaddy_ctx *x = rt_conn_applet(c);
	const struct rt_cm_device *d = rt_conn_device(c);
	uint32_t max_wr = d && d->attr.max_qp_wr > 0 ? (uint32_t)d->attr.max_qp_wr : 0;
	uint32_t sq = rt_ud_tx_depth((uint64_t)x->cfg->count, RT_UD_SEND_RING_MAX);
	struct rt_mc_port port;
	struct udaddy_path *p;
	uint32_t ring;
	unsigned i;

	if (x->server && x->next >= x->paths)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: extra request beyond -c %u: "
				    "rejected", rt_conn_peer(c), x->paths);
	if (rt_mc_port_query(rt_conn_id(c), &port, rt_conn_err(c)) ||
	    rt_mc_check_size(x->cfg->size, x->cfg->count, &port, rt_conn_err(c)))
		return rt_conn_fail_recorded(c);
	i = x->server ? x->next++ : rt_conn_index(c);
	p = rt_conn_priv(c, sizeof(*p));
	p->i = i;
	x->tx.lanes[i].owner = c;
	rt_ud_rx_init(&x->rx[i], c, (uint64_t)x->cfg->count, 1, (size_t)x->cfg->size);
	ring = rt_ud_rx_slots(&x->rx[i], (uint64_t)x->cfg->count, x->paths, max_wr);
	if (rt_conn_setup_res(c, &(struct rt_res_spec){ .qp_type = IBV_QPT_UD,
			      .sig_all = true, .send_depth = sq,
			      .recv_depth = RT_MAX(ring, 1) }))
		return -1;
	if (rt_ud_lane_setup(&x->tx, i, rt_conn_res(c), sq, rt_conn_err(c)))
		return rt_conn_hook_result(c, -1, "the send buffer");
	return rt_ud_rx_post(&x->rx[i], ring, x->paths, max_wr);
}

/* Client: the SIDR reply names the server's QPN, qkey and route. */
static void established(struct rt_conn *c)
{
	struct udaddy_ctx *x = rt_conn_applet(c);
	const struct rdma_ud_param *ud = rt_conn_ud(c);
	struct udaddy_path *p = rt_conn_data(c);

	if (x->server || !p)
		return;
	p->ah = ibv_create_ah(rt_conn_res(c)->pd, (struct ibv_ah_attr *)&ud->ah_attr);
	if (!p->ah) {
		rt_conn_fail(c, RT_EXIT_FAIL, "%s: failure creating address handle: %s",
			     rt_conn_peer(c), strerror(errno));
		return;
	}
	rt_ud_lane_ready(&x->tx.lanes[p->i], p->ah, ud->qp_num, ud->qkey);
}

/* Server: the reply goes where the first datagram came from, to the QPN
 * in its immediate data, with our own qkey. */
static int reply_route(struct rt_conn *c, const struct ibv_wc *wc, const uint8_t *grh)
{
	struct udaddy_ctx *x = rt_conn_applet(c);
	struct udaddy_path *p = rt_conn_data(c);
	struct rt_res *res = rt_conn_res(c);
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	if (!(wc->wc_flags & IBV_WC_WITH_IMM))
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: datagram without immediate "
				    "data: no QPN to reply to (is the peer udaddy?)",
				    rt_conn_peer(c));
	if (ibv_query_qp(res->qp, &attr, IBV_QP_QKEY, &init))
		return rt_conn_fail(c, RT_EXIT_FAIL, "ibv_query_qp: %s", strerror(errno));
	p->ah = ibv_create_ah_from_wc(res->pd, (struct ibv_wc *)wc,
				      (struct ibv_grh *)grh, rt_conn_id(c)->port_num);
	if (!p->ah)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: failed to create reply AH: %s",
				    rt_conn_peer(c), strerror(errno));
	rt_ud_lane_ready(&x->tx.lanes[p->i], p->ah, be32toh(wc->imm_data), attr.qkey);
	return 0;
}

static int completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct udaddy_ctx *x = rt_conn_applet(c);
	struct udaddy_path *p = rt_conn_data(c);
	struct rt_ud_rx *q = &x->rx[p->i];
	uint8_t *payload;
	enum rt_mc_class cls;
	uint32_t sender;

	if (RT_WR_KIND(wc->wr_id) != RT_WR_RECV) {
		rt_ud_tx_completed(&x->tx, &x->tx.lanes[p->i], rt_now_ns());
		return 0;
	}
	payload = rt_mc_ring_payload(&q->ring, RT_WR_N(wc->wr_id));
	if (x->server && !p->ah && payload &&
	    reply_route(c, wc, payload - RT_MC_GRH_LEN))
		return -1;
	if (rt_ud_rx_take(q, wc, rt_now_ns(), &cls, &sender))
		return -1;
	if (cls != RT_MC_NEW)
		rt_dbg(&x->run->log, "%s: %s datagram from QPN 0x%x", rt_conn_peer(c),
		       rt_mc_class_str(cls), wc->src_qp);
	return 0;
}

static bool on_failed(struct rt_conn *c)
{
	struct udaddy_ctx *x = rt_conn_applet(c);

	/* a turned-away extra request does not end the server's run */
	return x->server && rt_conn_passive(c) && !rt_conn_data(c);
}

static const struct rt_cm_hooks hooks = {
	.setup = setup,
	.established = established,
	.completion = completion,
	.failed = on_failed,
};

/* ---- the phases ---- */

/* Early paths' datagrams may come while later paths resolve. */
static void refill(struct rt_cm *cm, void *arg)
{
	struct udaddy_ctx *x = rt_cm_applet(cm);

	(void)arg;
	rt_ud_refill_step(cm, &x->flow);
}

static int resolve_all(struct udaddy_ctx *x)
{
	struct udaddy_cfg *cfg = x->cfg;
	struct rt_addr_query q = rt_addr_query_cm(&cfg->ep, UDADDY_PORT);
	struct rt_wait first = { .done = rt_cm_any_conn, .what = "a first client",
				 .timeout_ms = rt_run_accept_bound(x->run) };
	struct rt_wait all = { .done = rt_cm_all_established, .arg = &x->paths,
			       .what = "every path's SIDR exchange", .step = refill,
			       .progress = rt_cm_expected_progress };

	rt_error_phase(&x->run->err, x->server ? "listen" : "resolve-addr");
	if (rt_cm_start(x->cm, &q, x->paths, &x->run->err))
		return -1;
	if (!x->server)
		rt_say(&x->run->log, "udaddy: connecting");
	rt_error_phase(&x->run->err, "connect");
	if (x->server && rt_cm_run(x->cm, &first))
		return -1;
	return rt_cm_run(x->cm, &all);
}

static int send_all(struct udaddy_ctx *x)
{
	struct rt_wait w = { .done = rt_ud_sent, .step = rt_ud_send_step, .arg = &x->flow,
			     .spin = true, .what = "send completions",
			     .progress = rt_ud_send_progress };

	rt_ud_tx_start(&x->tx, rt_now_ns());
	return rt_cm_run(x->cm, &w);
}

static int receive_all(struct udaddy_ctx *x)
{
	long long quiet = x->run->common.timeout_ms;
	struct rt_wait w = { .done = rt_ud_received, .step = rt_ud_refill_step,
			     .arg = &x->flow, .timeout_ms = quiet + 2000,
			     .tick_ms = RT_UD_RX_TICK_MS, .spin = true, .what = "datagrams" };
	uint64_t expected;

	x->flow.t_ready = rt_now_ns();
	x->flow.first_ms = quiet;
	x->flow.quiet_ms = quiet;
	if (rt_cm_run(x->cm, &w))
		return -1;
	if (rt_ud_rx_missing(x->rx, x->paths, &expected) && !rt_ud_rx_received(x->rx, x->paths))
		return rt_fail(&x->run->err, RT_EXIT_TIMEOUT, "no datagram arrived within "
			       "%.3g s (is the peer's -C larger than 0, its -S no larger "
			       "than ours, its port space the same?)", quiet / 1000.0);
	return rt_ud_rx_judge(x->rx, x->paths, quiet, &x->run->err);
}

static int exchange(struct udaddy_ctx *x)
{
	const struct rt_log *log = &x->run->log;

	rt_error_phase(&x->run->err, "transfer");
	if (!x->server) {
		rt_say(log, "initiating data transfers");
		if (send_all(x))
			return -1;
	}
	rt_say(log, "receiving data transfers");
	if (receive_all(x))
		return -1;
	if (x->server) {
		rt_say(log, "sending replies");
		if (send_all(x))
			return -1;
	}
	rt_say(log, "data transfers complete");
	return 0;
}

static void report(struct udaddy_ctx *x, bool human)
{
	struct rt_json *j = &x->run->results;
	struct rt_ud_rx_sum sum = { 0 };
	char line[256];

	for (unsigned i = 0; i < x->paths; i++)
		rt_ud_rx_sum_add(&sum, &x->rx[i], true);
	rt_json_kv_string(j, "role", x->server ? "server" : "client");
	rt_json_kv_uint(j, "paths", x->paths);
	rt_json_kv_uint(j, "sent", rt_ud_tx_completions(&x->tx));
	rt_ud_rx_sum_json(j, &sum, false);
	rt_json_kv_double(j, "transfer_seconds", rt_ud_rx_seconds(x->rx, x->paths));
	if (human && x->cfg->count) {
		rt_ud_rx_sum_str(&sum, x->paths, line, sizeof(line));
		rt_say(&x->run->log, "udaddy: %s", line);
	}
}

static int run_test(struct udaddy_ctx *x)
{
	struct rt_cm_params p = { .ps = (enum rdma_port_space)x->cfg->ep.ps,
				  .tos = rt_cm_tos_opt(&x->run->tabs[0], x->cfg->tos),
				  .ack_timeout = -1,
				  .timeout_ms = x->run->common.timeout_ms,
				  .wait_server_ms = x->run->common.wait_server_ms };
	const struct rt_log *log = &x->run->log;
	int rc;

	rt_say(log, "udaddy: starting %s", x->server ? "server" : "client");
	x->cm = rt_cm_create(&p, &hooks, x, &x->run->log, &x->run->err);
	if (!x->cm || resolve_all(x))
		return -1;
	rc = x->cfg->count ? exchange(x) : 0;
	report(x, !rc);
	if (rc)
		return -1;
	rt_say(log, "test complete");
	rt_say(log, "return status 0");
	return 0;
}

static void teardown(struct udaddy_ctx *x)
{
	/* the lanes hold every path's AH; before the PD goes */
	for (unsigned i = 0; i < x->paths; i++) {
		if (x->tx.lanes[i].ah)
			ibv_destroy_ah(x->tx.lanes[i].ah);
		rt_ud_rx_free(&x->rx[i]);
	}
	rt_cm_destroy(x->cm);
	rt_ud_tx_free(&x->tx);
	free(x->rx);
}

static int udaddy_main(struct rt_run *run, void *cfgp)
{
	struct udaddy_cfg *cfg = cfgp;
	struct udaddy_ctx x = { .cfg = cfg, .run = run, .server = !cfg->ep.dst,
				.paths = (unsigned)cfg->paths };
	int rc;

	rt_ud_tx_init(&x.tx, x.paths, (uint64_t)cfg->count, (size_t)cfg->size, 0);
	x.rx = rt_xcalloc(x.paths, sizeof(*x.rx));
	x.flow = (struct rt_ud_flow){ .tx = &x.tx, .rx = x.rx, .n = x.paths };
	rc = run_test(&x);
	teardown(&x);
	return rc;
}
