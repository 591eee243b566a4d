/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* UC and UD of the ib_* tests (perftest_ud.h). */
#include <stdlib.h>

#include "perftest/perftest_conn.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_ud.h"
#include "rdmatest/util.h"

/* ---- options -------------------------------------------------------------- */

const struct rt_enum rt_pt_conns[] = {
	{ "RC", RT_PT_RC, "reliable connection" },
	{ "UC", RT_PT_UC, "unreliable connection: send and write tests" },
	{ "UD", RT_PT_UD, "unreliable datagram: send tests, at most the MTU" },
	{ "XRC", RT_PT_XRC, "refused: rdmatest has no XRC test (ibv_xsrq_pingpong)" },
	{ "DC", RT_PT_DC, "refused: mlx5 only (mlx5dv)" },
	{ "SRD", RT_PT_SRD, "refused: EFA only (efadv)" },
	{ NULL, 0, NULL },
};

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

	switch (p->opt.ud.conn) {
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
		if (p->opt.rdma_cm)
			return rt_fail(err, RT_EXIT_USAGE, "-c UC and -R exclude each other: "
				       "the RDMA CM has no UC (as in perftest)");
		return 0;
	case RT_PT_UD:
		if (v != RT_PT_SEND)
			return rt_fail(err, RT_EXIT_USAGE, "-c UD: a UD connection is only "
				       "possible with the SEND verb (as in perftest)");
		if (p->opt.rdma_cm)
			return rt_fail(err, RT_EXIT_USAGE, "-c UD with -R is not supported by "
				       "rdmatest (its UD QPs connect from the exchanged "
				       "records: use -z for the exchange over the RDMA CM)");
		return 0;
	default:
		return 0;
	}
}

int rt_pt_ud_rules(struct rt_pt_params *p, struct rt_error *err)
{
	if (conn_rules(p, err))
		return -1;
	/* UC and UD post every receive up front when -r was left alone */
	if ((p->opt.ud.conn == RT_PT_UC || p->opt.ud.conn == RT_PT_UD) && !p->opt.duration &&
	    rt_pt_receives(p) && p->opt.rx_depth == 512)
		p->opt.rx_depth = RT_MIN(p->opt.iters, (long long)RT_PT_UC_MAX_RX);
	return 0;
}

/* ---- the connection ---------------------------------------------------------- */

void rt_pt_ud_clip(struct rt_pt_conn *c, struct rt_pt_params *p)
{
	uint64_t mtu = (uint64_t)rt_mtu_bytes(c->sys.mtu);

	if (p->opt.ud.conn != RT_PT_UD || !mtu || (uint64_t)p->opt.size <= mtu)
		return;
	if (p->opt.all)
		rt_say(&c->run->log, " Max msg size in UD is MTU %llu\n"
		       " Changing to this MTU", (unsigned long long)mtu);
	p->opt.size = (long long)mtu;
}

uint32_t rt_pt_ud_grh(const struct rt_pt_conn *c)
{
	return c->p->opt.ud.conn == RT_PT_UD ? RT_PT_UD_GRH : 0;
}

static int make_ahs(struct rt_pt_conn *c)
{
	struct rt_vqp_spec s = c->spec;

	c->ah = rt_xcalloc(c->p->opt.qps, sizeof(*c->ah));
	for (unsigned i = 0; i < c->p->opt.qps; i++) {
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

int rt_pt_ud_up(struct rt_pt_conn *c, bool sends)
{
	if (!sends || c->p->opt.ud.conn != RT_PT_UD || c->ah)
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
	for (unsigned i = 0; c->ah && i < c->p->opt.qps; i++)
		if (c->ah[i])
			(void)ibv_destroy_ah(c->ah[i]);
	free(c->ah);
	c->ah = NULL;
}
