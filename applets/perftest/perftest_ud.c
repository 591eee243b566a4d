/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* UC, UD and the rate limiter of the ib_* tests (perftest_ud.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perftest/perftest_imm.h"
#include "perftest/perftest_ud.h"
#include "rdmatest/util.h"

/* ---- options -------------------------------------------------------------- */

enum ibv_qp_type rt_pt_qp_type(enum rt_pt_conn_type t)
{
	return t == RT_PT_UD ? IBV_QPT_UD : t == RT_PT_UC ? IBV_QPT_UC : IBV_QPT_RC;
}

const char *rt_pt_conn_name(enum rt_pt_conn_type t)
{
	return t == RT_PT_UD ? "UD" : t == RT_PT_UC ? "UC" : "RC";
}

/* perftest's -c rules (its parser exits 1 with these reasons). */
static int conn_rules(const struct rt_pt_params *p, struct rt_error *err)
{
	enum rt_pt_verb v = p->t.verb;

	switch (p->conn) {
	case RT_PT_XRC:
		return rt_fail(err, RT_EXIT_USAGE, "-c XRC is not supported by rdmatest's "
			       "ib_* tests (ibv_xsrq_pingpong has XRC)");
	case RT_PT_DC:
		return rt_fail(err, RT_EXIT_USAGE, "-c DC is not supported by rdmatest: "
			       "needs mlx5's Dynamically Connected transport (mlx5dv)");
	case RT_PT_SRD:
		return rt_fail(err, RT_EXIT_USAGE, "-c SRD is not supported by rdmatest: "
			       "needs EFA's Scalable Reliable Datagram (efadv)");
	case RT_PT_UC:
		if (v == RT_PT_READ || v == RT_PT_ATOMIC)
			return rt_fail(err, RT_EXIT_USAGE, "-c UC: a UC connection is not "
				       "possible with READ or atomic verbs (as in perftest)");
		/* -z only carries the exchange: the QPs connect by hand */
		if (p->rdma_cm)
			return rt_fail(err, RT_EXIT_USAGE, "-c UC and -R exclude each other: "
				       "the RDMA CM has no UC (as in perftest)");
		return 0;
	case RT_PT_UD:
		if (v != RT_PT_SEND)
			return rt_fail(err, RT_EXIT_USAGE, "-c UD: a UD connection is only "
				       "possible with the SEND verb (as in perftest)");
		if (p->rdma_cm)
			return rt_fail(err, RT_EXIT_USAGE, "-c UD with -R is not supported by "
				       "rdmatest (its UD QPs connect from the exchanged "
				       "records: use -z for the exchange over the RDMA CM)");
		return 0;
	default:
		return 0;
	}
}

/* -g: one QP, one direction, no RDMA CM (perftest's rules); then exit 3.
 * Tried in the lab with perftest 25.01 on both ends: its default group
 * (an IPv6 GID) is refused against the RoCE v2 IPv4 GID, and with an
 * IPv4-mapped -M the sender's datagrams never reach the attached QP
 * (ibv_attach_mcast makes no IP multicast join on Soft-RoCE), so both
 * ends hang. rdmatest does not run a test that cannot end. */
static int mcg_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		     const struct rt_opt_table *tab, struct rt_error *err)
{
	p->mcg = c->mcg;
	if (!p->mcg && rt_opt_was_given(tab, "MGID"))
		return rt_fail(err, RT_EXIT_USAGE, "-M (--MGID) needs -g");
	if (!p->mcg)
		return 0;
	if (p->t.verb != RT_PT_SEND)
		return rt_fail(err, RT_EXIT_USAGE, "-g (--mcg): multicast is only "
			       "available with the SEND verb (as in perftest)");
	if (p->bidir || p->qps > 1 || p->comm_cm)
		return rt_fail(err, RT_EXIT_USAGE, "-g (--mcg): one QP, one direction, "
			       "no -R or -z (as in perftest)");
	return rt_fail(err, RT_EXIT_ENV, "-g (--mcg): UD multicast by "
		       "ibv_attach_mcast, without an IP multicast join, delivers "
		       "nothing on RoCE (Soft-RoCE drops it; perftest -g hangs "
		       "there too); rdmatest's mckey tests multicast through the "
		       "RDMA CM's join");
}

/* The rate limiter (perftest's parser and ctx_connect). */
static int rate_parse(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      const struct rt_opt_table *tab, struct rt_error *err)
{
	char *end;

	p->rate_type = (enum rt_pt_rate_type)c->rate_type;
	p->rate_type_given = rt_opt_was_given(tab, "rate_limit_type");
	if (c->rate_limit && p->rate_type_given && p->rate_type == RT_PT_RATE_OFF)
		return rt_fail(err, RT_EXIT_USAGE, "--rate_limit with --rate_limit_type "
			       "OFF: give SW or HW, or neither");
	p->rate_units = (enum rt_pt_rate_unit)c->rate_units;
	if (c->rate_limit) {
		errno = 0;
		p->rate_limit = strtod(c->rate_limit, &end);
		if (errno || end == c->rate_limit || *end || !isfinite(p->rate_limit) ||
		    p->rate_limit <= 0)
			return rt_fail(err, RT_EXIT_USAGE, "--rate_limit '%s': not a number "
				       "above 0", c->rate_limit);
		/* given alone, perftest asks for the device's limit */
		if (p->rate_type == RT_PT_RATE_OFF)
			p->rate_type = RT_PT_RATE_HW;
	}
	if (rt_opt_was_given(tab, "burst_size") && c->burst_size > 0 &&
	    p->rate_type == RT_PT_RATE_OFF)
		return rt_fail(err, RT_EXIT_USAGE, "--burst_size needs the rate limiter "
			       "(--rate_limit): bursts are its (as in perftest)");
	p->burst_size = c->burst_size > 0 ? (unsigned)c->burst_size : p->tx_depth;
	if (rt_opt_was_given(tab, "typical_pkt_size") && c->typical_pkt_size &&
	    p->rate_type != RT_PT_RATE_PP)
		return rt_fail(err, RT_EXIT_USAGE, "--typical_pkt_size is for the PP rate "
			       "limiter only (as in perftest)");
	return 0;
}

static int rate_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      const struct rt_opt_table *tab, struct rt_error *err)
{
	if (rate_parse(p, c, tab, err))
		return -1;
	switch (p->rate_type) {
	case RT_PT_RATE_OFF:
		return 0;
	case RT_PT_RATE_PP:
		return rt_fail(err, RT_EXIT_USAGE, "--rate_limit_type PP: packet pacing "
			       "of raw Ethernet QPs, and rdmatest has no raw Ethernet "
			       "test (perftest refuses it for other QPs too)");
	default:
		break;
	}
	if (p->rate_limit <= 0)
		return rt_fail(err, RT_EXIT_USAGE, "--rate_limit_type needs --rate_limit");
	if (p->t.kind != RT_PT_BW || p->t.verb == RT_PT_ATOMIC ||
	    (p->t.verb == RT_PT_SEND && p->bidir))
		return rt_fail(err, RT_EXIT_USAGE, "the rate limiter runs in the write, "
			       "read and one-way send BW tests only (as in perftest)");
	if (p->rate_type == RT_PT_RATE_HW && p->comm_cm)
		return rt_fail(err, RT_EXIT_USAGE, "the HW rate limit (--rate_limit "
			       "without --rate_limit_type SW) is not available with -R or "
			       "-z (as in perftest)");
	if (p->rate_type == RT_PT_RATE_HW && p->rate_units == RT_PT_RATE_PPS)
		return rt_fail(err, RT_EXIT_USAGE, "--rate_units p: the HW rate limit "
			       "takes bits per second, not packets (give --rate_limit_type "
			       "SW, as in perftest)");
	return 0;
}

int rt_pt_ud_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		   const struct rt_opt_table *tab, struct rt_error *err)
{
	if (conn_rules(p, err) || mcg_rules(p, c, tab, err) ||
	    rate_rules(p, c, tab, err))
		return -1;
	/* UC and UD post every receive up front when -r was left alone */
	if ((p->conn == RT_PT_UC || p->conn == RT_PT_UD) && !p->duration &&
	    rt_pt_receives(p) && p->rx_depth == 512)
		p->rx_depth = (unsigned)RT_MIN(p->iters, (uint64_t)RT_PT_UC_MAX_RX);
	return 0;
}

/* ---- the connection ---------------------------------------------------------- */

void rt_pt_ud_clip(struct rt_pt_conn *c, struct rt_pt_params *p)
{
	uint64_t mtu = (uint64_t)rt_mtu_bytes(c->sys.mtu);

	if (p->conn != RT_PT_UD || !mtu || p->size <= mtu)
		return;
	if (p->all)
		rt_say(&c->run->log, " Max msg size in UD is MTU %llu\n"
		       " Changing to this MTU", (unsigned long long)mtu);
	p->size = mtu;
}

uint32_t rt_pt_ud_grh(const struct rt_pt_conn *c)
{
	return c->p->conn == RT_PT_UD ? RT_PT_UD_GRH : 0;
}

static int make_ahs(struct rt_pt_conn *c)
{
	struct rt_vqp_spec s = c->spec;

	c->ah = rt_xcalloc(c->p->qps, sizeof(*c->ah));
	for (unsigned i = 0; i < c->p->qps; i++) {
		s.remote.lid = c->theirs[i].lid;
		s.remote.gid = c->theirs[i].gid;
		s.flow_label = rt_pt_flow_label(c->p, i);
		s.local = *rt_pt_dual_local(c, i); /* -O: QP i's port */
		c->ah[i] = rt_vqp_ah(rt_pt_dual_dev(c, i), &s, &c->run->err);
		if (!c->ah[i])
			return -1;
	}
	return 0;
}

/* The device's per-QP limit in kb/s. */
static uint32_t hw_kbps(const struct rt_pt_params *p)
{
	double bps = p->rate_units == RT_PT_RATE_MIBPS ? p->rate_limit * 8 * 1048576 :
		     p->rate_limit * 1e9;

	return (uint32_t)RT_MIN(bps / 1000, (double)UINT32_MAX);
}

static bool has_pacing(const struct rt_pt_conn *c)
{
	struct ibv_device_attr_ex a;

	memset(&a, 0, sizeof(a));
	return !ibv_query_device_ex(c->d.ctx, NULL, &a) &&
	       a.packet_pacing_caps.qp_rate_limit_max > 0;
}

/* HW: packet pacing on each sending QP; without it, exit 3 when HW was
 * asked for by name, software pacing (said so) when it was implied. */
static int hw_rate(struct rt_pt_conn *c)
{
	struct ibv_qp_rate_limit_attr a = { .rate_limit = hw_kbps(c->p) };
	int rc;

	if (!has_pacing(c)) {
		if (c->p->rate_type_given)
			return rt_fail(&c->run->err, RT_EXIT_ENV, "--rate_limit_type HW: "
				       "%s has no per-QP rate limit (packet pacing, "
				       "packet_pacing_caps.qp_rate_limit_max 0); use "
				       "--rate_limit_type SW", c->d.name);
		rt_say(&c->run->log, " %s has no HW rate limit (packet pacing): "
		       "pacing in software instead", c->d.name);
		c->pace_sw = true;
		return 0;
	}
	a.max_burst_sz = c->p->burst_size;
	for (unsigned i = 0; i < c->p->qps; i++) {
		rc = ibv_modify_qp_rate_limit(c->qp[i], &a);
		if (rc)
			return rt_fail_errno(&c->run->err, RT_EXIT_ENV, rc, "--rate_limit: "
					     "the rate limit of QP 0x%06x (%u kb/s)",
					     c->qp[i]->qp_num, a.rate_limit);
	}
	return 0;
}

int rt_pt_ud_up(struct rt_pt_conn *c, bool sends)
{
	c->pace_sw = c->p->rate_type == RT_PT_RATE_SW;
	if (sends && c->p->rate_type == RT_PT_RATE_HW && hw_rate(c))
		return -1;
	if (!sends || c->p->conn != RT_PT_UD || c->ah)
		return 0;
	return make_ahs(c);
}

void rt_pt_ud_wr(const struct rt_pt_conn *c, unsigned qp, struct ibv_send_wr *w)
{
	if (!c->ah)
		return;
	w->wr.ud.ah = c->ah[qp];
	w->wr.ud.remote_qpn = c->theirs[qp].qpn;
	w->wr.ud.remote_qkey = RT_PT_QKEY;
}

void rt_pt_ud_destroy(struct rt_pt_conn *c)
{
	for (unsigned i = 0; c->ah && i < c->p->qps; i++)
		if (c->ah[i])
			(void)ibv_destroy_ah(c->ah[i]);
	free(c->ah);
	c->ah = NULL;
}

/* ---- the software rate limiter --------------------------------------------- */

double rt_pt_rate_pps(double rate, enum rt_pt_rate_unit u, uint64_t size)
{
	double s = (double)(size ? size : 1);

	switch (u) {
	case RT_PT_RATE_MIBPS:
		return rate * 1048576 / s;
	case RT_PT_RATE_PPS:
		return rate;
	default:
		return rate * 1e9 / (s * 8);
	}
}

void rt_pt_pacer_init(struct rt_pt_pacer *pc, const struct rt_pt_conn *c,
		      uint64_t size, uint64_t now_ns)
{
	const struct rt_pt_params *p = c->p;
	double pps = rt_pt_rate_pps(p->rate_limit, p->rate_units, size);

	*pc = (struct rt_pt_pacer){ .on = c->pace_sw && pps > 0,
				    .burst = RT_MAX(p->burst_size, 1u), .next_ns = now_ns };
	if (pc->on)
		pc->gap_ns = (uint64_t)(1e9 * pc->burst / pps);
}

bool rt_pt_pacer_may(struct rt_pt_pacer *pc, uint64_t now_ns)
{
	if (!pc->on || pc->left)
		return true;
	if (now_ns < pc->next_ns)
		return false;
	pc->next_ns += pc->gap_ns;
	pc->left = pc->burst;
	return true;
}

void rt_pt_pacer_sent(struct rt_pt_pacer *pc, unsigned n)
{
	if (pc->on)
		pc->left = pc->left > n ? pc->left - n : 0;
}

bool rt_pt_pacer_holds(const struct rt_pt_pacer *pc, uint64_t now_ns)
{
	return pc->on && !pc->left && now_ns < pc->next_ns;
}

void rt_pt_pacer_nap(const struct rt_pt_pacer *pc, uint64_t now_ns)
{
	uint64_t ns;
	struct timespec ts;

	if (!rt_pt_pacer_holds(pc, now_ns))
		return;
	/* the schedule is absolute: a late wake-up shortens the next gap */
	ns = RT_MIN(pc->next_ns - now_ns, (uint64_t)RT_PT_PACER_NAP_NS);
	ts = (struct timespec){ 0, (long)ns };
	(void)nanosleep(&ts, NULL);
}
