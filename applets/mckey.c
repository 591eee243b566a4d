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
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmatest/mcast.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"
#include "rdmatest/verify.h"
#include "rdmatest/xfer.h"

#define SEND_RING_MAX 128 /* sends in flight per QP */
/* After its last send completion a sender waits this long at most for its
 * own datagrams to come back to its QPs (the loopback report). */
#define LOOPBACK_LINGER_MS 300
#define RX_TICK_MS 50

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
};

struct mckey_qp {
	struct rt_mc_member m;
	struct rt_mc_ring rx; /* receives, reposted once per reactor round */
	struct rt_buf *send;
	uint32_t sq;          /* send slots */
	uint32_t sender_id;   /* in our datagrams' header */
	uint64_t posted;      /* sends posted */
	uint64_t looped;      /* our own datagrams that came back */
	struct rt_mc_tally tally;
	uint64_t t_join, t_joined, t_first_rx, t_last_rx, t_sent;
};

struct mckey_ctx {
	struct mckey_cfg *cfg;
	struct rt_run *run;
	struct rt_cm cm;
	struct sockaddr_storage group, src;
	char group_text[64];
	struct rt_mc_port port; /* of the first id set up */
	unsigned nqps;
	uint64_t rx_total, t_ready, t_last_rx, t_send0, t_wait_end;
	uint64_t sent_total;
	size_t next_qp;       /* round robin of the sender */
	uint32_t id_base;     /* our sender ids: id_base + QP index */
};

#define I(f) RT_OFF_INT(struct mckey_cfg, f)
#define L(f) RT_OFF_LL(struct mckey_cfg, f)
#define S(f) RT_OFF_STR(struct mckey_cfg, f)

static const struct rt_opt mckey_opts[] = {
	{ 'm', "group", RT_OPT_ADDR, S(group), 0, 0, NULL, "ADDR",
	  "IP multicast group to join (0.0.0.0: let the InfiniBand SA assign one)", NULL },
	{ 'M', "mgid", RT_OPT_STRING, S(mgid), 0, 0, NULL, "GID",
	  "unmapped (AF_IB) multicast GID to join instead, e.g. ff0e::1 (0: "
	  "SA-assigned); needs -b", NULL },
	{ 's', "sender", RT_OPT_FLAG, I(sender), 0, 0, NULL, NULL,
	  "send (the client role); without it, receive (the server role)", NULL },
	{ 'b', "bind", RT_OPT_ADDR, S(src), 0, 0, NULL, "ADDR",
	  "local address: the RDMA device and port to join on", NULL },
	{ 'c', "qps", RT_OPT_INT, L(qps), 1, 1024, "1", "N",
	  "QPs (CM ids), each joined to the group", NULL },
	{ 'C', "count", RT_OPT_INT, L(count), 0, 1 << 20, "10", "N",
	  "datagrams each sender QP sends; receivers expect as many from each sender", NULL },
	{ 'S', "size", RT_OPT_SIZE, L(size), 0, RT_MC_MAX_MTU, "100", "SIZE",
	  "datagram size in bytes, at most the path MTU; both sides must match", NULL },
	{ 'p', "port-space", RT_OPT_ENUM, I(ps), 0, 0, "udp", "PS",
	  "RDMA port space; both sides must match", rt_port_spaces_ud },
	{ 'o', "send-only", RT_OPT_FLAG, I(send_only), 0, 0, NULL, NULL,
	  "senders: join as a send-only full member (the QP is not attached and "
	  "receives nothing)", NULL },
	{ 'l', "block-loopback", RT_OPT_FLAG, I(block_lb), 0, 0, NULL, NULL,
	  "block multicast loopback (QP create flag BLOCK_SELF_MCAST_LB; needs "
	  "device support)", NULL },
	{ 0, "senders", RT_OPT_INT, L(senders), 0, 65536, NULL, "N",
	  "receivers: sender QPs to expect (the total of the senders' -c); without "
	  "it (or 0), each sender heard must send -C", NULL },
	{ 0, "rate", RT_OPT_INT, L(rate), 0, 10000000, "0", "N",
	  "senders: at most N datagrams per second in all (0: as fast as the "
	  "send queues allow)", NULL },
	{ 0, "settle", RT_OPT_SECONDS, L(settle_ms), 0, 60000, "1", "SEC",
	  "senders: wait SEC after joining before sending, for switches to be "
	  "programmed (upstream waits 3)", NULL },
	{ 0 },
};

static struct mckey_ctx *ctx_of(struct rt_conn *c)
{
	return c->cm->applet;
}

static struct mckey_qp *qp_of(struct rt_conn *c)
{
	return c->priv;
}

static uint64_t ms_ns(long long ms)
{
	return (uint64_t)ms * 1000000u;
}

static size_t slot_len(const struct mckey_ctx *x)
{
	return (size_t)x->cfg->size + RT_MC_GRH_LEN;
}

/* ---- setup and join ---- */

/* Datagrams a QP's receive ring is sized for. A receiver told the
 * senders (--senders) expects -C from each; one that was not cannot know
 * how many will come, and takes what the memory ceiling allows. A
 * sender's first QP sees its own datagrams come back (loopback); its
 * other QPs post no receives, so the device drops their copies instead of
 * the sender checking -c times as many. */
static uint64_t ring_want(const struct mckey_ctx *x, const struct rt_conn *c)
{
	uint64_t count = (uint64_t)x->cfg->count;

	if (x->cfg->sender)
		return c->index ? 0 : count * x->nqps;
	return x->cfg->senders ? count * (uint64_t)x->cfg->senders : UINT64_MAX;
}

/* Receives are posted before the join (as upstream), so nothing that
 * arrives after the joined line is dropped for want of a buffer. */
static int setup_qp(struct rt_conn *c, const struct rt_mc_port *port, uint32_t max_wr)
{
	struct mckey_ctx *x = ctx_of(c);
	struct mckey_qp *q = qp_of(c);
	uint64_t count = (uint64_t)x->cfg->count, want = ring_want(x, c);
	uint32_t ring = want ? rt_mc_ring_slots(want, x->nqps, slot_len(x), max_wr) : 0;
	struct rt_res_spec spec = { .qp_type = IBV_QPT_UD, .sig_all = true };

	q->tally.ring = ring;
	q->tally.ring_max = rt_mc_ring_slots(UINT64_MAX, x->nqps, slot_len(x), max_wr);
	q->sq = x->cfg->sender ? (uint32_t)RT_MAX(RT_MIN(count, SEND_RING_MAX), 1) : 1;
	spec.send_depth = q->sq;
	spec.recv_depth = RT_MAX(ring, 1);
	if (x->cfg->block_lb)
		spec.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	if (rt_conn_setup_res(c, &spec)) {
		if (x->cfg->block_lb && c->err.exit_code == RT_EXIT_ENV && c->err.err_no)
			snprintf(c->err.reason, sizeof(c->err.reason), "-l: %s cannot "
				 "block multicast loopback (QP create flag "
				 "BLOCK_SELF_MCAST_LB): %s", port->dev, strerror(c->err.err_no));
		return -1;
	}
	if (x->cfg->sender && !(q->send = rt_res_buf(&c->res, q->sq * (size_t)x->cfg->size,
						     IBV_ACCESS_LOCAL_WRITE, &c->err)))
		return rt_conn_fail(c, c->err.exit_code, "%s", c->err.reason);
	return ring ? rt_mc_ring_init(&q->rx, c, ring, slot_len(x)) : 0;
}

/* Reposts what the last reactor round consumed; every wait's step hook
 * calls it, so a ring never waits longer than a round. */
static void refill_all(struct mckey_ctx *x)
{
	for (size_t i = 0; i < x->cm.nconns; i++) {
		struct rt_conn *c = x->cm.conns[i];

		if (qp_of(c) && qp_of(c)->rx.npending && c->state != RT_CONN_FAILED)
			rt_mc_ring_refill(&qp_of(c)->rx, c);
	}
}

/* The reactor's addr_resolved hook (and called directly for -M, which
 * has nothing to resolve): check the port, build the QP, join. */
static int on_addr(struct rt_conn *c)
{
	struct mckey_ctx *x = ctx_of(c);
	struct mckey_qp *q = qp_of(c);
	struct rt_cm_device *d = c->id->verbs ? rt_cm_device(c->cm, c->id->verbs) : NULL;
	struct rt_mc_port port;

	rt_strlcpy(c->err.phase, "setup", sizeof(c->err.phase));
	if (rt_mc_port_query(c->id, &port, &c->err) ||
	    rt_mc_check_size(x->cfg->size, x->cfg->count, &port, &c->err) ||
	    rt_mc_check_group((struct sockaddr *)&x->group, &port, &c->err) ||
	    (d && rt_mc_check_qps(x->nqps, x->cfg->send_only,
				  d->attr.max_mcast_qp_attach, &port, &c->err)))
		return rt_conn_fail(c, c->err.exit_code, "%s", c->err.reason);
	if (!x->port.dev[0])
		x->port = port;
	if (setup_qp(c, &port, d && d->attr.max_qp_wr > 0 ? (uint32_t)d->attr.max_qp_wr : 0))
		return -1;
	q->t_join = rt_now_ns();
	return rt_mc_join(c, &q->m);
}

static int on_joined(struct rt_conn *c)
{
	struct mckey_qp *q = qp_of(c);
	const struct rt_log *log = &c->cm->run->log;

	q->t_joined = rt_now_ns();
	if (rt_mc_on_join(c, &q->m))
		return -1;
	rt_say(log, "mckey: joined dgid: %s mlid 0x%x sl %d", q->m.dgid, q->m.mlid, q->m.sl);
	rt_log_flush(log);
	rt_strlcpy(c->err.phase, "transfer", sizeof(c->err.phase));
	return 0;
}

/* ---- datagrams ---- */

static bool own_sender(const struct mckey_ctx *x, uint32_t id)
{
	return x->cfg->sender && (uint32_t)(id - x->id_base) < x->nqps;
}

static int on_recv(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct mckey_ctx *x = ctx_of(c);
	struct mckey_qp *q = qp_of(c);
	uint64_t slot = RT_WR_N(wc->wr_id), now = rt_now_ns();
	uint8_t *payload = rt_mc_ring_payload(&q->rx, slot);
	size_t got = wc->byte_len > RT_MC_GRH_LEN ? wc->byte_len - RT_MC_GRH_LEN : 0;
	uint32_t sender;
	enum rt_mc_class cls;

	if (!payload)
		return rt_conn_fail(c, RT_EXIT_FAIL, "receive completion of unknown slot %llu",
				    (unsigned long long)slot);
	cls = rt_mc_tally_add(&q->tally, payload, RT_MIN(got, q->rx.slot_len - RT_MC_GRH_LEN),
			      wc->src_qp, &sender);
	if (rt_mc_ring_take(&q->rx, (uint32_t)slot))
		rt_mc_tally_dry(&q->tally);
	if (cls != RT_MC_NEW)
		rt_dbg(&x->run->log, "%s: %s datagram from QPN 0x%x", c->peer,
		       rt_mc_class_str(cls), wc->src_qp);
	if (cls != RT_MC_FOREIGN && own_sender(x, sender))
		q->looped++;
	x->rx_total++;
	x->t_last_rx = q->t_last_rx = now;
	if (!q->t_first_rx)
		q->t_first_rx = now;
	return 0;
}

static int on_completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct mckey_qp *q = qp_of(c);

	if (RT_WR_KIND(wc->wr_id) == RT_WR_RECV)
		return on_recv(c, wc);
	if (c->sends_done == (uint64_t)ctx_of(c)->cfg->count)
		q->t_sent = rt_now_ns();
	return 0;
}

static int post_one(struct mckey_ctx *x, struct rt_conn *c)
{
	struct mckey_qp *q = qp_of(c);
	size_t size = (size_t)x->cfg->size, off = (size_t)(q->posted % q->sq) * size;

	rt_msg_fill(q->send->addr + off, size, q->sender_id, q->posted);
	if (rt_post_ud_send(&c->res, q->send, off, size, q->m.ah, q->m.qpn, q->m.qkey,
			    htobe32(c->res.qp->qp_num), q->posted, true, &c->err))
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s", c->err.reason);
	q->posted++;
	x->sent_total++;
	return 0;
}

static bool can_post(struct mckey_ctx *x, struct rt_conn *c)
{
	struct mckey_qp *q = qp_of(c);

	return q && c->state == RT_CONN_ESTABLISHED &&
	       q->posted < (uint64_t)x->cfg->count && q->posted - c->sends_done < q->sq;
}

/* Posts what the rate allows now, one QP after the other, so receivers
 * see the senders interleaved rather than in bursts per QP. */
static void post_due(struct mckey_ctx *x)
{
	double secs = (double)(rt_now_ns() - x->t_send0) / 1e9;
	uint64_t allowed = x->cfg->rate ? (uint64_t)(secs * (double)x->cfg->rate) + 1
					: UINT64_MAX;
	size_t n = x->cm.nconns, idle = 0;

	while (x->sent_total < allowed && n && idle < n) {
		struct rt_conn *c = x->cm.conns[x->next_qp++ % n];

		if (!can_post(x, c)) {
			idle++;
			continue;
		}
		idle = 0;
		if (post_one(x, c))
			return;
	}
}

static bool sends_done(struct rt_cm *cm, void *arg)
{
	struct mckey_ctx *x = cm->applet;

	(void)arg;
	for (size_t i = 0; i < cm->nconns; i++)
		if (cm->conns[i]->sends_done < (uint64_t)x->cfg->count)
			return false;
	return true;
}

/* Ends when every datagram came back to the first QP, or at the end of
 * the linger (always so with -o or -l). */
static bool loopback_done(struct rt_cm *cm, void *arg)
{
	struct mckey_ctx *x = cm->applet;

	(void)arg;
	if (cm->nconns && qp_of(cm->conns[0])->looped >= x->sent_total)
		return true;
	return rt_now_ns() >= x->t_wait_end;
}

static bool rx_complete(struct mckey_ctx *x)
{
	for (size_t i = 0; i < x->cm.nconns; i++)
		if (rt_mc_tally_missing(&qp_of(x->cm.conns[i])->tally))
			return false;
	return true;
}

/* The first datagram may take as long as --accept-timeout (when given),
 * each later one --timeout. */
static long long first_wait_ms(const struct mckey_ctx *x)
{
	const struct rt_common *co = &x->run->common;

	return co->accept_timeout_ms > 0 ? co->accept_timeout_ms : co->timeout_ms;
}

static bool rx_done(struct rt_cm *cm, void *arg)
{
	struct mckey_ctx *x = cm->applet;
	uint64_t now = rt_now_ns();

	(void)arg;
	if (rx_complete(x))
		return true;
	if (!x->rx_total)
		return now - x->t_ready >= ms_ns(first_wait_ms(x));
	return now - x->t_last_rx >= ms_ns(x->run->common.timeout_ms);
}

static bool clock_done(struct rt_cm *cm, void *arg)
{
	struct mckey_ctx *x = cm->applet;

	(void)arg;
	return rt_now_ns() >= x->t_wait_end;
}

static bool joins_done(struct rt_cm *cm, void *want)
{
	return rt_cm_all_established(cm, want);
}

/* Step hooks: the work a wait does each round, before its predicate. */
static void refill_step(struct rt_cm *cm, void *arg)
{
	(void)arg;
	refill_all(cm->applet);
}

static void send_step(struct rt_cm *cm, void *arg)
{
	refill_all(cm->applet);
	post_due(cm->applet);
	(void)arg;
}

static void tx_progress(struct rt_cm *cm, void *arg, char *buf, size_t len)
{
	struct mckey_ctx *x = cm->applet;
	uint64_t done = 0;

	(void)arg;
	for (size_t i = 0; i < cm->nconns; i++)
		done += cm->conns[i]->sends_done;
	snprintf(buf, len, "%llu of %llu send completions",
		 (unsigned long long)done, (unsigned long long)x->cfg->count * x->nqps);
}

/* A wait the predicate ends itself (by the clock); the reactor's own
 * bound is only a backstop. */
static int wait_ticking(struct mckey_ctx *x, bool (*done)(struct rt_cm *, void *),
			long long bound_ms, long long tick_ms, const char *what)
{
	struct rt_wait w = { .done = done, .step = refill_step, .timeout_ms = bound_ms + 2000,
			     .tick_ms = tick_ms, .what = what };

	return rt_cm_run(&x->cm, &w);
}

/* ---- the two roles ---- */

static int send_all(struct mckey_ctx *x)
{
	struct rt_wait w = { .done = sends_done, .step = send_step, .timeout_ms = x->run->common.timeout_ms,
			     .what = "send completions", .progress = tx_progress };

	if (x->cfg->rate)
		w.tick_ms = RT_MAX(1, RT_MIN(100, 1000 / x->cfg->rate));
	x->t_wait_end = rt_now_ns() + ms_ns(x->cfg->settle_ms);
	if (x->nqps && wait_ticking(x, clock_done, x->cfg->settle_ms, 10, "the settle time"))
		return -1;
	rt_say(&x->run->log, "initiating data transfers");
	rt_error_phase(&x->run->err, "transfer");
	x->t_send0 = rt_now_ns();
	if (rt_cm_run(&x->cm, &w))
		return -1;
	x->t_wait_end = rt_now_ns() + ms_ns(LOOPBACK_LINGER_MS);
	return wait_ticking(x, loopback_done, LOOPBACK_LINGER_MS, 10, "loopback datagrams");
}

static uint64_t total_missing(struct mckey_ctx *x, uint64_t *expected)
{
	uint64_t missing = 0;

	*expected = 0;
	for (size_t i = 0; i < x->cm.nconns; i++) {
		struct rt_mc_tally *t = &qp_of(x->cm.conns[i])->tally;
		missing += rt_mc_tally_missing(t);
		*expected += rt_mc_tally_expected(t);
	}
	return missing;
}

/* Why datagrams are missing: an overrun QP's hint first (it explains
 * the loss of the others too), else the first short QP's. */
static const char *shortfall_hint(struct mckey_ctx *x, char *buf, size_t len)
{
	struct rt_mc_tally *first = NULL;

	for (size_t i = 0; i < x->cm.nconns; i++) {
		struct rt_mc_tally *t = &qp_of(x->cm.conns[i])->tally;

		if (rt_mc_tally_overrun(t))
			return rt_mc_tally_hint(t, buf, len);
		if (!first && rt_mc_tally_missing(t))
			first = t;
	}
	return first ? rt_mc_tally_hint(first, buf, len) : NULL;
}

static int judge_rx(struct mckey_ctx *x)
{
	struct rt_error *e = &x->run->err;
	uint64_t expected, missing = total_missing(x, &expected);

	for (size_t i = 0; i < x->cm.nconns; i++) {
		struct rt_mc_tally *t = &qp_of(x->cm.conns[i])->tally;

		if (t->corrupt)
			return rt_fail(e, RT_EXIT_FAIL, "QP %zu: %llu corrupt datagrams, "
				       "first: %s", i, (unsigned long long)t->corrupt, t->problem);
		if (t->wrong_size)
			return rt_fail(e, RT_EXIT_FAIL, "QP %zu: %s (does the sender's -S "
				       "match?)", i, t->problem);
	}
	if (!missing)
		return 0;
	if (!x->rx_total)
		return rt_fail(e, RT_EXIT_TIMEOUT, "no datagram arrived within %.3g s of "
			       "joining %s (is the sender running, started after this "
			       "receiver joined, on the same group and port space, with "
			       "a -S no larger than ours?)",
			       first_wait_ms(x) / 1000.0, x->group_text);
	char buf[224];
	const char *hint = shortfall_hint(x, buf, sizeof(buf));

	return rt_fail(e, RT_EXIT_FAIL, "lost %llu of %llu datagrams: none arrived "
		       "for %.3g s after the last one (%s)",
		       (unsigned long long)missing, (unsigned long long)expected,
		       x->run->common.timeout_ms / 1000.0, hint ? hint :
		       "dropped on the way, or a sender stopped");
}

static int receive_all(struct mckey_ctx *x)
{
	long long bound = RT_MAX(first_wait_ms(x), x->run->common.timeout_ms);

	rt_say(&x->run->log, "receiving data transfers");
	rt_error_phase(&x->run->err, "transfer");
	x->t_ready = rt_now_ns();
	if (wait_ticking(x, rx_done, bound, RX_TICK_MS, "datagrams"))
		return -1;
	return 0;
}

/* ---- report ---- */

struct totals {
	uint64_t sent, received, distinct, lost, dup, ooo, foreign, corrupt, looped;
};

static void qp_json(struct rt_json *j, struct mckey_ctx *x, struct rt_conn *c,
		    struct totals *t)
{
	struct mckey_qp *q = qp_of(c);
	struct rt_mc_tally *ty = &q->tally;
	uint64_t lost = x->cfg->sender ? 0 : rt_mc_tally_missing(ty);

	rt_json_object_begin(j);
	rt_json_kv_uint(j, "qpn", c->res.qp ? c->res.qp->qp_num : 0);
	rt_json_kv_bool(j, "joined", q->m.joined);
	rt_json_kv_double(j, "join_us", q->t_joined ? (double)(q->t_joined - q->t_join) / 1e3 : 0);
	if (x->cfg->sender) {
		rt_json_kv_uint(j, "sender_id", q->sender_id);
		rt_json_kv_uint(j, "sent", c->sends_done);
		rt_json_kv_uint(j, "looped_back", q->looped);
	}
	rt_json_kv_uint(j, "received", ty->received);
	rt_json_kv_uint(j, "distinct", ty->distinct);
	rt_json_kv_uint(j, "lost", lost);
	rt_json_kv_uint(j, "duplicates", ty->duplicates);
	rt_json_kv_uint(j, "out_of_order", ty->out_of_order);
	rt_json_kv_uint(j, "late", ty->late);
	rt_json_kv_uint(j, "beyond_count", ty->beyond);
	rt_json_kv_uint(j, "unverified", ty->foreign);
	rt_json_kv_uint(j, "untracked", ty->untracked);
	rt_json_kv_uint(j, "corrupt", ty->corrupt);
	rt_json_kv_uint(j, "wrong_size", ty->wrong_size);
	rt_json_kv_uint(j, "senders_seen", ty->nsnd);
	rt_json_kv_uint(j, "receive_ring", q->rx.slots);
	rt_json_kv_uint(j, "ring_ran_dry", q->rx.dry);
	rt_json_kv_uint(j, "overrun", x->cfg->sender ? 0 : rt_mc_tally_overrun(ty));
	rt_json_kv_double(j, "receive_seconds", q->t_first_rx
			  ? (double)(q->t_last_rx - q->t_first_rx) / 1e9 : 0);
	rt_json_object_end(j);
	*t = (struct totals){ t->sent + c->sends_done, t->received + ty->received,
			      t->distinct + ty->distinct, t->lost + lost,
			      t->dup + ty->duplicates, t->ooo + ty->out_of_order,
			      t->foreign + ty->foreign, t->corrupt + ty->corrupt,
			      t->looped + q->looped };
}

static void join_json(struct rt_json *j, struct mckey_ctx *x)
{
	for (size_t i = 0; i < x->cm.nconns; i++) {
		struct rt_mc_member *m = &qp_of(x->cm.conns[i])->m;

		if (!m->joined)
			continue;
		rt_json_key(j, "join");
		rt_json_object_begin(j);
		rt_json_kv_string(j, "dgid", m->dgid);
		rt_json_kv_uint(j, "mlid", m->mlid);
		rt_json_kv_uint(j, "sl", m->sl);
		rt_json_kv_uint(j, "qkey", m->qkey);
		rt_json_kv_uint(j, "remote_qpn", m->qpn);
		rt_json_object_end(j);
		return;
	}
}

static void totals_json(struct rt_json *j, const struct totals *t, bool sender)
{
	rt_json_key(j, "totals");
	rt_json_object_begin(j);
	if (sender) {
		rt_json_kv_uint(j, "sent", t->sent);
		rt_json_kv_uint(j, "looped_back", t->looped);
	}
	rt_json_kv_uint(j, "received", t->received);
	rt_json_kv_uint(j, "lost", t->lost);
	rt_json_kv_uint(j, "duplicates", t->dup);
	rt_json_kv_uint(j, "out_of_order", t->ooo);
	rt_json_kv_uint(j, "unverified", t->foreign);
	rt_json_kv_uint(j, "corrupt", t->corrupt);
	rt_json_object_end(j);
}

static void say_totals(struct mckey_ctx *x, const struct totals *t)
{
	const char *s = x->nqps == 1 ? "" : "s";
	char extra[96] = "";

	if (x->cfg->sender) {
		rt_say(&x->run->log, "mckey: sent %llu datagrams on %u QP%s; %llu of them "
		       "came back (loopback to the first QP)", (unsigned long long)t->sent,
		       x->nqps, s, (unsigned long long)t->looped);
		return;
	}
	if (t->foreign || t->corrupt)
		snprintf(extra, sizeof(extra), ", %llu unverified, %llu corrupt",
			 (unsigned long long)t->foreign, (unsigned long long)t->corrupt);
	rt_say(&x->run->log, "mckey: received %llu datagrams on %u QP%s: %llu lost, "
	       "%llu duplicate, %llu out of order%s", (unsigned long long)t->received,
	       x->nqps, s, (unsigned long long)t->lost, (unsigned long long)t->dup,
	       (unsigned long long)t->ooo, extra);
}

/* Sender: first post to last send completion; receiver: first to last
 * datagram, over all QPs. */
static double transfer_seconds(struct mckey_ctx *x)
{
	uint64_t first = x->cfg->sender ? x->t_send0 : 0, last = 0;

	for (size_t i = 0; i < x->cm.nconns; i++) {
		struct mckey_qp *q = qp_of(x->cm.conns[i]);
		uint64_t end = x->cfg->sender ? q->t_sent : q->t_last_rx;

		if (!x->cfg->sender && q->t_first_rx && (!first || q->t_first_rx < first))
			first = q->t_first_rx;
		last = RT_MAX(last, end);
	}
	return first && last > first ? (double)(last - first) / 1e9 : 0;
}

static void report(struct mckey_ctx *x, bool human)
{
	struct rt_json *j = &x->run->results;
	struct totals t = { 0 };

	rt_json_kv_string(j, "role", x->cfg->sender ? "sender" : "receiver");
	rt_json_kv_string(j, "group", x->group_text);
	rt_json_kv_string(j, "device", x->port.dev[0] ? x->port.dev : NULL);
	rt_json_kv_uint(j, "port", x->port.port);
	rt_json_kv_int(j, "active_mtu", x->port.mtu);
	rt_json_kv_string(j, "link_layer", !x->port.dev[0] ? NULL
				   : x->port.ethernet ? "ethernet" : "infiniband");
	join_json(j, x);
	rt_json_key(j, "qps");
	rt_json_array_begin(j);
	for (size_t i = 0; i < x->cm.nconns; i++)
		qp_json(j, x, x->cm.conns[i], &t);
	rt_json_array_end(j);
	totals_json(j, &t, x->cfg->sender);
	rt_json_kv_double(j, "transfer_seconds", transfer_seconds(x));
	if (human)
		say_totals(x, &t);
}

/* ---- setup of the ids ---- */

/* Random, so that senders on different hosts (whose QPNs often agree)
 * differ; consecutive per QP, so that "is it ours" is one comparison. */
static uint32_t random_id_base(void)
{
	uint32_t id;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id))
		id = (uint32_t)(rt_now_ns() ^ ((uint64_t)getpid() << 16));
	return id;
}

static struct rt_conn *add_qp(struct mckey_ctx *x, unsigned i)
{
	struct sockaddr *src = x->cfg->src ? (struct sockaddr *)&x->src : NULL;
	struct rt_conn *c = x->cfg->mgid ? rt_cm_bind(&x->cm, src)
					 : rt_cm_connect(&x->cm, src, (struct sockaddr *)&x->group);
	struct mckey_qp *q;

	if (!c)
		return NULL;
	q = rt_conn_priv(c, sizeof(*q));
	q->m.group = x->group;
	q->m.send_only = x->cfg->send_only;
	q->sender_id = x->id_base + i;
	rt_mc_tally_init(&q->tally, (uint64_t)x->cfg->count,
			 x->cfg->sender ? x->nqps : (uint64_t)x->cfg->senders,
			 (size_t)x->cfg->size);
	snprintf(c->peer, sizeof(c->peer), "group %.46s id %hu", x->group_text,
		 (unsigned short)i);
	return c;
}

static int join_all(struct mckey_ctx *x)
{
	struct rt_wait w = { .done = joins_done, .step = refill_step, .arg = &x->nqps,
			     .timeout_ms = x->run->common.timeout_ms,
			     .what = "the multicast joins" };

	rt_error_phase(&x->run->err, "join");
	rt_say(&x->run->log, "mckey: joining");
	for (unsigned i = 0; i < x->nqps; i++) {
		struct rt_conn *c = add_qp(x, i);

		if (!c)
			return -1;
		/* -M: bound, nothing to resolve; the reactor reports a failure */
		if (x->cfg->mgid && c->state != RT_CONN_FAILED)
			rt_conn_hook_result(c, on_addr(c), "joining failed");
	}
	return rt_cm_run(&x->cm, &w);
}

/* Every id leaves, whatever happened; only a failed leave on the success
 * path is reported. */
static int leave_all(struct mckey_ctx *x, struct rt_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < x->cm.nconns; i++) {
		struct rt_conn *c = x->cm.conns[i];

		if (qp_of(c) && rt_mc_leave(c, &qp_of(c)->m, err))
			rc = -1;
	}
	return rc;
}

static void teardown(struct mckey_ctx *x)
{
	leave_all(x, NULL);
	for (size_t i = 0; i < x->cm.nconns; i++) {
		struct rt_conn *c = x->cm.conns[i];

		if (c->priv) {
			rt_mc_tally_free(&qp_of(c)->tally);
			rt_mc_ring_free(&qp_of(c)->rx);
		}
	}
	rt_cm_destroy(&x->cm);
}

/* What a failed address resolution of a group most likely means. */
static void explain_resolve(struct rt_conn *c)
{
	struct mckey_ctx *x = ctx_of(c);
	const char *hint = NULL;
	size_t n = strlen(c->err.reason);

	if (strcmp(c->err.phase, "resolve-addr"))
		return;
	if (x->cfg->ps == RDMA_PS_IPOIB && strstr(c->err.reason, strerror(EINVAL))) {
		hint = " (port space ipoib needs InfiniBand; on RoCE use -p udp)";
		c->err.exit_code = RT_EXIT_ENV;
	} else if (!x->cfg->src) {
		hint = " (no route to the group: give -b with a local address "
		       "of the RDMA device)";
	}
	if (hint && n < sizeof(c->err.reason))
		snprintf(c->err.reason + n, sizeof(c->err.reason) - n, "%s", hint);
}

static bool on_failed(struct rt_conn *c)
{
	explain_resolve(c);
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
				  .tos = -1, .ack_timeout = -1 };
	const struct rt_log *log = &x->run->log;
	int rc;

	rt_say(log, "mckey: starting %s", x->cfg->sender ? "client" : "server");
	if (rt_cm_init(&x->cm, x->run, &p, &hooks, x) || join_all(x))
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
	struct mckey_ctx x = { .cfg = cfg, .run = run, .nqps = (unsigned)cfg->qps,
				 .id_base = random_id_base() };
	int rc;

	if (check_cfg(&x))
		return -1;
	rt_mc_addr_str((struct sockaddr *)&x.group, x.group_text, sizeof(x.group_text));
	rc = run_test(&x);
	teardown(&x);
	return rc;
}

const struct rt_applet applet_mckey = {
	.name = "mckey",
	.summary = "RDMA CM multicast test: UD QPs joined to a group, datagrams counted",
	.synopsis = "-m group_addr | -M mgid -b bind_addr [-s] [-b bind_addr] [-c qps] "
		    "[-C count] [-S size] [-p udp|ipoib] [-o] [-l] [--senders N] "
		    "[--rate N] [--settle SEC]",
	.description =
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
		"Wire-compatible with rdma-core's mckey; start receivers first.",
	.opts = mckey_opts,
	.cfg_size = sizeof(struct mckey_cfg),
	.main = mckey_main,
};
