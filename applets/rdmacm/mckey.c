/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mckey: UD QPs joined to a multicast group through the RDMA CM; the
 * sender sends -C datagrams per QP to the group, receivers count them.
 *
 * Wire behaviour of upstream mckey (v44), which this follows: every
 * datagram is a SEND_WITH_IMM of -S bytes to QPN 0xFFFFFF with the qkey
 * and address handle of the join event, the immediate data being the
 * sender's QPN in big-endian; receivers post receives of -S plus the
 * 40-byte GRH before joining. Upstream payloads are opaque; ours carry the
 * verify.h header and pattern, so receivers count each sender's datagrams
 * by sequence number (lost, duplicate, out of order) and check every byte,
 * while datagrams of upstream senders are counted unchecked.
 *
 * Unlike upstream, nothing waits unbounded: a receiver stops --timeout
 * after the last datagram (or after joining, when none came) and says
 * what was lost; the sender waits for its send completions. Every id
 * leaves the group on every exit path. */
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

/* After its last send completion a sender waits this long at most for its
 * own datagrams to come back to its QPs (the loopback report). */
#define LOOPBACK_LINGER_MS 300

struct mckey_cfg {
	const char *group;
	const char *mgid;
	int sender;
	const char *src;
	long long qps;
	long long count;
	long long size;
	int ps;
	int send_only;
	int block_lb;
	long long senders;
	long long rate;
	long long settle_ms;
	long long tos;
};

/* A QP's sending lane and receiving side are entries i of the
 * context's tx.lanes and rx, shared with the core. */
struct mckey_qp {
	struct rt_mc_member m;
	unsigned i;
	uint64_t looped;      /* our own datagrams that came back */
	uint64_t t_join, t_joined;
};

struct mckey_ctx {
	struct mckey_cfg *cfg;
	struct rt_run *run;
	struct rt_cm *cm;
	struct sockaddr_storage group, src;
	char group_text[64];
	struct rt_mc_port port; /* of the first id set up */
	unsigned nqps;
	struct rt_ud_tx tx;   /* senders: the paced sender over the QPs */
	struct rt_ud_rx *rx;  /* per QP: its receives and their tally */
	struct rt_ud_flow flow; /* both, for the waits' steps */
	uint64_t t_wait_end;
};

#define RT_CFG struct mckey_cfg

static const struct rt_opt mckey_opts[] = {
	{ 'm', "group", RT_OPT_ADDR, RT_S(group), 0, 0, NULL, "ADDR",
	  "IP multicast group to join (0.0.0.0: let the InfiniBand SA assign one)", NULL },
	{ 'M', "mgid", RT_OPT_STRING, RT_S(mgid), 0, 0, NULL, "GID",
	  "unmapped (AF_IB) multicast GID to join instead, e.g. ff0e::1 (0: "
	  "SA-assigned); needs -b", NULL },
	{ 's', "sender", RT_OPT_FLAG, RT_I(sender), 0, 0, NULL, NULL,
	  "send (the client role); without it, receive (the server role)", NULL },
	{ 'b', "bind", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "local address: the RDMA device and port to join on", NULL },
	{ 'c', "qps", RT_OPT_INT, RT_L(qps), 1, 1024, "1", "N",
	  "QPs (CM ids), each joined to the group", NULL },
	{ 'C', "count", RT_OPT_INT, RT_L(count), 0, 1 << 20, "10", "N",
	  "datagrams each sender QP sends; receivers expect as many from each sender", NULL },
	{ 'S', "size", RT_OPT_SIZE, RT_L(size), 0, RT_MC_MAX_MTU, "100", "SIZE",
	  "datagram size in bytes, at most the path MTU; both sides must match", NULL },
	{ 'p', "port-space", RT_OPT_ENUM, RT_I(ps), 0, 0, "udp", "PS",
	  "RDMA port space; both sides must match", rt_port_spaces_ud },
	{ 'o', "send-only", RT_OPT_FLAG, RT_I(send_only), 0, 0, NULL, NULL,
	  "senders: join as a send-only full member (the QP is not attached and "
	  "receives nothing)", NULL },
	{ 'l', "block-loopback", RT_OPT_FLAG, RT_I(block_lb), 0, 0, NULL, NULL,
	  "block multicast loopback (QP create flag BLOCK_SELF_MCAST_LB; needs "
	  "device support)", NULL },
	{ 0, "senders", RT_OPT_INT, RT_L(senders), 0, 65536, NULL, "N",
	  "receivers: sender QPs to expect (the total of the senders' -c): the "
	  "first N heard; a sender heard beyond them is a stranger, counted "
	  "unverified and named when the expected ones fall short. Without "
	  "it (or 0), each sender heard must send -C", NULL },
	{ 0, "rate", RT_OPT_INT, RT_L(rate), 0, 10000000, "0", "N",
	  "senders: at most N datagrams per second in all (0: as fast as the "
	  "send queues allow)", NULL },
	{ 0, "settle", RT_OPT_SECONDS, RT_L(settle_ms), 0, 60000, "1", "SEC",
	  "senders: wait SEC after joining before sending, for switches to be "
	  "programmed (upstream waits 3)", NULL },
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP("each QP's join:")),
	{ 0 },
};

RT_APPLET(mckey, "RDMA CM multicast test: UD QPs joined to a group, datagrams counted",
	  "-m group_addr | -M mgid -b bind_addr [-s] [-b bind_addr] [-c qps] "
	  "[-C count] [-S size] [-p udp|ipoib] [-o] [-l] [--senders N] "
	  "[--rate N] [--settle SEC] [--tos TOS]",
	  "Without -s it receives: it joins the group with -c QPs, prints the "
	  "joined line once the receives are posted, and counts the datagrams "
	  "of every sender, by sequence number when the sender is rdmatest "
	  "(lost, duplicate, out of order; every byte checked). It ends when "
	  "each QP has -C datagrams from every sender it heard (and from "
	  "--senders senders, when given), or --timeout after the last "
	  "datagram (exit 1: datagrams lost, the cause named: a receive ring "
	  "that overflowed, loss on the way, or a sender that stopped), or "
	  "when nothing came within --accept-timeout (or --timeout) of "
	  "joining (exit 124). Memory is bounded whatever the group carries: each QP "
	  "posts at most 4096 receives of -S+40 bytes (at most 8 MiB per QP "
	  "and 64 MiB for all QPs) and tracks at most 256 senders (under "
	  "50 KiB); datagrams of further senders count as unverified. "
	  "With -s it sends -C datagrams per QP after --settle, waits for their "
	  "completions and reports how many came back to its own QPs. "
	  "Wire-compatible with rdma-core's mckey; start receivers first.");

static struct mckey_qp *qp_of(const struct rt_conn *c)
{
	return rt_conn_data(c);
}

/* ---- setup and join ---- */

/* Datagrams a QP's receive ring is sized for. A receiver told the
 * senders (--senders) expects -C from each; one that was not cannot know
 * how many will come, and takes what the memory ceiling allows. A
 * sender's first QP sees its own datagrams come back (loopback); its
 * other QPs post no receives, so the device drops their copies instead of
 * the sender checking -c times as many. */
static uint64_t ring_want(const struct mckey_ctx *x, const struct mckey_qp *q)
{
	uint64_t count = (uint64_t)x->cfg->count;

	if (x->cfg->sender)
		return q->i ? 0 : count * x->nqps;
	return x->cfg->senders ? count * (uint64_t)x->cfg->senders : UINT64_MAX;
}

/* Receives are posted before the join (as upstream), so nothing that
 * arrives after the joined line is dropped for want of a buffer. */
static int setup_qp(struct rt_conn *c, const struct rt_mc_port *port, uint32_t max_wr)
{
	struct mckey_ctx *x = rt_conn_applet(c);
	struct mckey_qp *q = qp_of(c);
	uint32_t ring = rt_ud_rx_slots(&x->rx[q->i], ring_want(x, q), x->nqps, max_wr);
	uint32_t sq = x->cfg->sender ? rt_ud_tx_depth((uint64_t)x->cfg->count, RT_UD_SEND_RING_MAX) : 1;
	struct rt_res_spec spec = { .qp_type = IBV_QPT_UD, .sig_all = true,
				    .send_depth = sq, .recv_depth = RT_MAX(ring, 1) };

	if (x->cfg->block_lb)
		spec.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	if (rt_conn_setup_res(c, &spec)) {
		struct rt_error *e = rt_conn_err(c);

		if (x->cfg->block_lb && e->exit_code == RT_EXIT_ENV && e->err_no)
			snprintf(e->reason, sizeof(e->reason), "-l: %s cannot "
				 "block multicast loopback (QP create flag "
				 "BLOCK_SELF_MCAST_LB): %s", port->dev, strerror(e->err_no));
		return -1;
	}
	if (x->cfg->sender && rt_ud_lane_setup(&x->tx, q->i, rt_conn_res(c), sq, rt_conn_err(c)))
		return rt_conn_hook_result(c, -1, "the send buffer");
	return rt_ud_rx_post(&x->rx[q->i], ring, x->nqps, max_wr);
}

/* The reactor's addr_resolved hook (and called directly for -M, which
 * has nothing to resolve): check the port, build the QP, join. */
static int on_addr(struct rt_conn *c)
{
	struct mckey_ctx *x = rt_conn_applet(c);
	struct mckey_qp *q = qp_of(c);
	const struct rt_cm_device *d = rt_conn_device(c);
	struct rt_error *e = rt_conn_err(c);
	struct rt_mc_port port;

	rt_error_phase(e, "setup");
	if (rt_mc_port_query(rt_conn_id(c), &port, e) ||
	    rt_mc_check_size(x->cfg->size, x->cfg->count, &port, e) ||
	    rt_mc_check_group((struct sockaddr *)&x->group, &port, e) ||
	    (d && rt_mc_check_qps(x->nqps, x->cfg->send_only,
				  d->attr.max_mcast_qp_attach, &port, e)))
		return rt_conn_hook_result(c, -1, "checking the port");
	if (!x->port.dev[0])
		x->port = port;
	if (setup_qp(c, &port, d && d->attr.max_qp_wr > 0 ? (uint32_t)d->attr.max_qp_wr : 0))
		return -1;
	q->t_join = rt_now_ns();
	return rt_mc_join(c, &q->m);
}

static int on_joined(struct rt_conn *c)
{
	struct mckey_ctx *x = rt_conn_applet(c);
	struct mckey_qp *q = qp_of(c);
	const struct rt_log *log = &x->run->log;

	q->t_joined = rt_now_ns();
	if (rt_mc_on_join(c, &q->m))
		return -1;
	if (x->cfg->sender)
		rt_ud_lane_ready(&x->tx.lanes[q->i], q->m.ah, q->m.qpn, q->m.qkey);
	rt_say(log, "mckey: joined dgid: %s mlid 0x%x sl %d", q->m.dgid, q->m.mlid, q->m.sl);
	rt_log_flush(log);
	rt_error_phase(rt_conn_err(c), "transfer");
	return 0;
}

/* ---- datagrams ---- */

static int on_completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct mckey_ctx *x = rt_conn_applet(c);
	struct mckey_qp *q = qp_of(c);
	enum rt_mc_class cls;
	uint32_t sender;

	if (RT_WR_KIND(wc->wr_id) != RT_WR_RECV) {
		rt_ud_tx_completed(&x->tx, &x->tx.lanes[q->i], rt_now_ns());
		return 0;
	}
	if (rt_ud_rx_take(&x->rx[q->i], wc, rt_now_ns(), &cls, &sender))
		return -1;
	if (cls != RT_MC_NEW)
		rt_dbg(&x->run->log, "%s: %s datagram from QPN 0x%x", rt_conn_peer(c),
		       rt_mc_class_str(cls), wc->src_qp);
	if (cls != RT_MC_FOREIGN && x->cfg->sender && rt_ud_tx_own(&x->tx, sender))
		q->looped++;
	return 0;
}

/* Ends when every datagram came back to the first QP, or at the end of
 * the linger (always so with -o or -l). */
static bool loopback_done(const struct rt_cm *cm, const void *arg)
{
	const struct mckey_ctx *x = rt_cm_applet(cm);

	(void)arg;
	if (x->nqps && qp_of(x->rx[0].conn)->looped >= x->tx.posted)
		return true;
	return rt_now_ns() >= x->t_wait_end;
}

/* The first datagram may take as long as --accept-timeout (when given),
 * each later one --timeout. */
static long long first_wait_ms(const struct mckey_ctx *x)
{
	const struct rt_common *co = &x->run->common;

	return co->accept_timeout_ms > 0 ? co->accept_timeout_ms : co->timeout_ms;
}

static bool clock_done(const struct rt_cm *cm, const void *arg)
{
	const struct mckey_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return rt_now_ns() >= x->t_wait_end;
}

static bool joins_done(const struct rt_cm *cm, const void *flow)
{
	const struct mckey_ctx *x = rt_cm_applet(cm);

	(void)flow;
	return rt_cm_all_established(cm, &x->nqps);
}

/* A wait the predicate ends itself (by the clock); the reactor's own
 * bound is only a backstop. Every wait reposts receives each round. */
static int wait_ticking(struct mckey_ctx *x, bool (*done)(const struct rt_cm *, const void *),
			long long bound_ms, long long tick_ms, const char *what)
{
	struct rt_wait w = { .done = done, .step = rt_ud_refill_step, .arg = &x->flow,
			     .timeout_ms = bound_ms + 2000, .tick_ms = tick_ms, .what = what };

	return rt_cm_run(x->cm, &w);
}

/* ---- the two roles ---- */

static int send_all(struct mckey_ctx *x)
{
	struct rt_wait w = { .done = rt_ud_sent, .step = rt_ud_send_step, .arg = &x->flow,
			     .spin = true, .what = "send completions",
			     .progress = rt_ud_send_progress,
			     .tick_ms = rt_ud_tx_tick_ms(x->cfg->rate) };

	x->t_wait_end = rt_deadline_after_ms(x->cfg->settle_ms);
	if (x->nqps && wait_ticking(x, clock_done, x->cfg->settle_ms, 10, "the settle time"))
		return -1;
	rt_say(&x->run->log, "initiating data transfers");
	rt_error_phase(&x->run->err, "transfer");
	rt_ud_tx_start(&x->tx, rt_now_ns());
	if (rt_cm_run(x->cm, &w))
		return -1;
	x->t_wait_end = rt_deadline_after_ms(LOOPBACK_LINGER_MS);
	return wait_ticking(x, loopback_done, LOOPBACK_LINGER_MS, 10, "loopback datagrams");
}

static int judge_rx(struct mckey_ctx *x)
{
	uint64_t expected;

	if (rt_ud_rx_missing(x->rx, x->nqps, &expected) && !rt_ud_rx_received(x->rx, x->nqps))
		return rt_fail(&x->run->err, RT_EXIT_TIMEOUT, "no datagram arrived within "
			       "%.3g s of joining %s (is the sender running, started after "
			       "this receiver joined, on the same group and port space, "
			       "with a -S no larger than ours?)",
			       first_wait_ms(x) / 1000.0, x->group_text);
	return rt_ud_rx_judge(x->rx, x->nqps, x->run->common.timeout_ms, &x->run->err);
}

static int receive_all(struct mckey_ctx *x)
{
	long long bound = RT_MAX(first_wait_ms(x), x->run->common.timeout_ms);

	rt_say(&x->run->log, "receiving data transfers");
	rt_error_phase(&x->run->err, "transfer");
	x->flow.t_ready = rt_now_ns();
	x->flow.first_ms = first_wait_ms(x);
	x->flow.quiet_ms = x->run->common.timeout_ms;
	if (wait_ticking(x, rt_ud_received, bound, RT_UD_RX_TICK_MS, "datagrams"))
		return -1;
	return 0;
}

/* ---- report ---- */

static void qp_json(struct rt_json *j, struct mckey_ctx *x, unsigned i)
{
	struct rt_conn *c = x->rx[i].conn;
	struct mckey_qp *q = qp_of(c);

	rt_json_object_begin(j);
	rt_json_kv_uint(j, "qpn", rt_conn_res(c)->qp ? rt_conn_res(c)->qp->qp_num : 0);
	rt_json_kv_bool(j, "joined", q->m.joined);
	rt_json_kv_double(j, "join_us", q->t_joined ? (double)(q->t_joined - q->t_join) / 1e3 : 0);
	if (x->cfg->sender) {
		rt_json_kv_uint(j, "sender_id", x->tx.lanes[i].sender_id);
		rt_json_kv_uint(j, "sent", x->tx.lanes[i].completed);
		rt_json_kv_uint(j, "looped_back", q->looped);
	}
	rt_ud_rx_json(j, &x->rx[i], !x->cfg->sender);
	rt_json_object_end(j);
}

/* The first joined QP's join: every QP joined the same group. */
static void join_json(struct rt_json *j, struct mckey_ctx *x)
{
	for (unsigned i = 0; i < x->nqps; i++)
		if (qp_of(x->rx[i].conn)->m.joined) {
			rt_mc_member_json(j, &qp_of(x->rx[i].conn)->m);
			return;
		}
}

static void totals(struct mckey_ctx *x, bool human)
{
	struct rt_json *j = &x->run->results;
	struct rt_ud_rx_sum sum = { 0 };
	uint64_t looped = 0;
	char line[256];

	for (unsigned i = 0; i < x->nqps; i++) {
		rt_ud_rx_sum_add(&sum, &x->rx[i], !x->cfg->sender);
		looped += qp_of(x->rx[i].conn)->looped;
	}
	rt_json_key(j, "totals");
	rt_json_object_begin(j);
	if (x->cfg->sender) {
		rt_json_kv_uint(j, "sent", rt_ud_tx_completions(&x->tx));
		rt_json_kv_uint(j, "looped_back", looped);
	}
	rt_ud_rx_sum_json(j, &sum, false);
	rt_json_object_end(j);
	/* Sender: first post to last send completion; receiver: first to
	 * last datagram, over all QPs. */
	rt_json_kv_double(j, "transfer_seconds", x->cfg->sender ? rt_ud_tx_seconds(&x->tx)
				 : rt_ud_rx_seconds(x->rx, x->nqps));
	if (human && x->cfg->sender) {
		rt_say(&x->run->log, "mckey: sent %llu datagrams on %u QP%s; %llu of them "
		       "came back (loopback to the first QP)",
		       (unsigned long long)rt_ud_tx_completions(&x->tx), x->nqps,
		       x->nqps == 1 ? "" : "s", (unsigned long long)looped);
	} else if (human) {
		rt_ud_rx_sum_str(&sum, x->nqps, line, sizeof(line));
		rt_say(&x->run->log, "mckey: %s", line);
	}
}

static void report(struct mckey_ctx *x, bool human)
{
	struct rt_json *j = &x->run->results;

	rt_json_kv_string(j, "role", x->cfg->sender ? "sender" : "receiver");
	rt_json_kv_string(j, "group", x->group_text);
	rt_mc_port_json(j, &x->port);
	join_json(j, x);
	rt_json_key(j, "qps");
	rt_json_array_begin(j);
	for (unsigned i = 0; i < x->nqps; i++)
		qp_json(j, x, i);
	rt_json_array_end(j);
	totals(x, human);
}

/* ---- setup of the ids ---- */

static struct rt_conn *add_qp(struct mckey_ctx *x, unsigned i)
{
	struct sockaddr *src = x->cfg->src ? (struct sockaddr *)&x->src : NULL;
	struct rt_conn *c = x->cfg->mgid ? rt_cm_bind(x->cm, src)
					 : rt_cm_connect(x->cm, src, (struct sockaddr *)&x->group);
	struct mckey_qp *q;

	if (!c)
		return NULL;
	q = rt_conn_priv(c, sizeof(*q));
	q->m.group = x->group;
	q->m.send_only = x->cfg->send_only;
	q->i = i;
	x->tx.lanes[i].owner = c;
	rt_ud_rx_init(&x->rx[i], c, (uint64_t)x->cfg->count,
		      x->cfg->sender ? x->nqps : (uint64_t)x->cfg->senders,
		      (size_t)x->cfg->size);
	rt_conn_set_peer(c, "group %.46s id %hu", x->group_text, (unsigned short)i);
	return c;
}

static int join_all(struct mckey_ctx *x)
{
	struct rt_wait w = { .done = joins_done, .step = rt_ud_refill_step, .arg = &x->flow,
			     .what = "the multicast joins" };

	rt_error_phase(&x->run->err, "join");
	rt_say(&x->run->log, "mckey: joining");
	for (unsigned i = 0; i < x->nqps; i++) {
		struct rt_conn *c = add_qp(x, i);

		if (!c)
			return -1;
		/* -M: bound, nothing to resolve; the reactor reports a failure */
		if (x->cfg->mgid && rt_conn_state(c) != RT_CONN_FAILED)
			rt_conn_hook_result(c, on_addr(c), "joining failed");
	}
	return rt_cm_run(x->cm, &w);
}

/* Every id leaves, whatever happened; only a failed leave on the success
 * path is reported. */
static int leave_all(struct mckey_ctx *x, struct rt_error *err)
{
	int rc = 0;

	for (unsigned i = 0; i < x->nqps; i++) {
		struct rt_conn *c = x->rx[i].conn;

		if (c && rt_mc_leave(c, &qp_of(c)->m, err))
			rc = -1;
	}
	return rc;
}

static void teardown(struct mckey_ctx *x)
{
	leave_all(x, NULL);
	for (unsigned i = 0; i < x->nqps; i++)
		rt_ud_rx_free(&x->rx[i]);
	rt_cm_destroy(x->cm);
	rt_ud_tx_free(&x->tx);
	free(x->rx);
}

static bool on_failed(struct rt_conn *c)
{
	const struct mckey_cfg *cfg = ((const struct mckey_ctx *)rt_conn_applet(c))->cfg;

	rt_mc_explain_resolve(c, (enum rdma_port_space)cfg->ps, cfg->src != NULL);
	if (qp_of(c))
		rt_mc_explain_failure(c, &qp_of(c)->m);
	return false;
}

static const struct rt_cm_hooks hooks = {
	.addr_resolved = on_addr,
	.joined = on_joined,
	.completion = on_completion,
	.failed = on_failed,
};

static int run_test(struct mckey_ctx *x)
{
	struct rt_cm_params p = { .ps = (enum rdma_port_space)x->cfg->ps,
				  .tos = rt_cm_tos_opt(&x->run->tabs[0], x->cfg->tos),
				  .ack_timeout = -1,
				  .timeout_ms = x->run->common.timeout_ms };
	const struct rt_log *log = &x->run->log;
	int rc;

	rt_say(log, "mckey: starting %s", x->cfg->sender ? "client" : "server");
	x->cm = rt_cm_create(&p, &hooks, x, &x->run->log, &x->run->err);
	if (!x->cm || join_all(x))
		return -1;
	rc = x->cfg->sender ? send_all(x) : receive_all(x);
	if (rc) {
		report(x, false);
		return -1;
	}
	rc = x->cfg->sender ? 0 : judge_rx(x);
	if (!rc)
		rt_say(log, "data transfers complete");
	report(x, true);
	if (rc)
		return -1;
	rt_error_phase(&x->run->err, "leave");
	if (leave_all(x, &x->run->err))
		return -1;
	rt_say(log, "test complete");
	rt_say(log, "return status 0");
	return 0;
}

/* ---- options ---- */

static int check_cfg(struct mckey_ctx *x)
{
	struct mckey_cfg *cfg = x->cfg;
	struct rt_error *e = &x->run->err;
	struct sockaddr_ib sib;

	if (!cfg->group == !cfg->mgid)
		return rt_fail(e, RT_EXIT_USAGE, cfg->group
			       ? "-m and -M both name a group: give one"
			       : "no group: give -m ADDR (IP multicast) or -M GID (with -b)");
	if (cfg->mgid && !cfg->src)
		return rt_fail(e, RT_EXIT_USAGE, "-M (unmapped multicast) needs -b: "
			       "the id must be bound to a local address of an RDMA device");
	if (cfg->send_only && !cfg->sender)
		return rt_fail(e, RT_EXIT_USAGE, "-o (send-only member) is for senders "
			       "(-s): a send-only member receives nothing");
	if (cfg->src && rt_mc_parse_local(cfg->src, "-b", &x->src, e))
		return -1;
	if (cfg->group)
		return rt_mc_parse_group(cfg->group, "-m", &x->group, e) ? -1 : 0;
	if (rt_mc_parse_gid(cfg->mgid, &sib))
		return rt_fail(e, RT_EXIT_USAGE, "-M %s: not a multicast GID (IPv6 "
			       "notation starting with ff, e.g. ff0e::1, or 0 for "
			       "an SA-assigned group)", cfg->mgid);
	memcpy(&x->group, &sib, sizeof(sib));
	return 0;
}

static int mckey_main(struct rt_run *run, void *cfgp)
{
	struct mckey_cfg *cfg = cfgp;
	struct mckey_ctx x = { .cfg = cfg, .run = run, .nqps = (unsigned)cfg->qps };
	int rc;

	if (check_cfg(&x))
		return -1;
	rt_addr_host_str((struct sockaddr *)&x.group, x.group_text, sizeof(x.group_text));
	rt_ud_tx_init(&x.tx, x.nqps, (uint64_t)cfg->count, (size_t)cfg->size, cfg->rate);
	x.rx = rt_xcalloc(x.nqps, sizeof(*x.rx));
	x.flow = (struct rt_ud_flow){ .tx = &x.tx, .rx = x.rx, .n = x.nqps };
	rc = run_test(&x);
	teardown(&x);
	return rc;
}
