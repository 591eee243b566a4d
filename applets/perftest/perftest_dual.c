/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* -O (--dualport) and --report-per-port (perftest_dual.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "perftest/perftest_conn.h"
#include "perftest/perftest_dual.h"
#include "perftest/perftest_report.h"
#include "rdmatest/util.h"

/* ---- pure parts --------------------------------------------------------------- */

unsigned rt_pt_dual_slot(unsigned i, unsigned qps, bool dual)
{
	if (!dual || !qps)
		return 0;
	return i % qps < qps / 2 ? 0 : 1;
}

/* Whether `rival` replaces `cur` in get_best_gid_index's walk. */
static bool better_gid(const struct rt_pt_gid_cand *cur,
		       const struct rt_pt_gid_cand *rival, bool ipv6)
{
	if (rival->v4 && !cur->v4 && !ipv6)
		return true;
	if (!rival->v4 && cur->v4 && ipv6)
		return true;
	/* perftest weighs the RoCE versions whatever the families are */
	return rival->roce_v2 && !cur->roce_v2;
}

int rt_pt_dual_best_gid(const struct rt_pt_gid_cand *e, unsigned n, bool ipv6)
{
	int best = -1;

	for (unsigned i = 0; i < n; i++) {
		if (!e[i].valid)
			continue;
		if (best < 0 || better_gid(&e[best], &e[i], ipv6))
			best = (int)i;
	}
	return best;
}

void rt_pt_dual_figures(struct rt_pt_bw_report *r, uint64_t size,
			const uint64_t msgs[2], uint64_t elapsed_ns, bool gbits)
{
	for (int k = 0; k < 2; k++) {
		struct rt_pt_bw_report one;

		rt_pt_bw_figures(&one, size, msgs[k], elapsed_ns, 0, gbits);
		r->bw_port[k] = one.bw_avg;
		r->rate_port[k] = one.msg_rate;
	}
}

void rt_pt_dual_sum(struct rt_pt_bw_report *a, const struct rt_pt_bw_report *b)
{
	for (int k = 0; k < 2; k++) {
		a->bw_port[k] += b->bw_port[k];
		a->rate_port[k] += b->rate_port[k];
	}
}

const char *rt_pt_dual_header(bool gbits)
{
	return gbits ? " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]"
		       "   MsgRate[Mpps]   BW Port1[Gb/sec]   MsgRate Port1[Mpps]"
		       "   BW Port2[Gb/sec]   MsgRate Port2[Mpps]"
		     : " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]"
		       "   MsgRate[Mpps]   BW Port1[MB/sec]   MsgRate Port1[Mpps]"
		       "   BW Port2[MB/sec]   MsgRate Port2[Mpps]";
}

void rt_pt_dual_row(char *buf, size_t len, const struct rt_pt_bw_report *r)
{
	snprintf(buf, len, " %-7" PRIu64 "    %-10" PRIu64 "     %-7.2f            "
		 "%-7.2f\t\t   %-7.6f        %-7.2f            %-7.6f              "
		 "%-7.2f            %-7.6f", r->size, r->iters, r->bw_peak, r->bw_avg,
		 r->msg_rate, r->bw_port[0], r->rate_port[0], r->bw_port[1],
		 r->rate_port[1]);
}

/* ---- the rules ------------------------------------------------------------------ */

static int per_port_rules(const struct rt_pt_params *p, struct rt_error *err)
{
	if (!p->opt.dual.per_port)
		return 0;
	if (!p->opt.duration || !p->opt.dual.on)
		return rt_fail(err, RT_EXIT_USAGE, "--report-per-port needs -D and -O "
			       "(as perftest: per port, in a timed run)");
	if (p->opt.ctl.run_inf)
		return rt_fail(err, RT_EXIT_USAGE, "--report-per-port and --run_infinitely "
			       "exclude each other: perftest counts the ports in a -D "
			       "run's window only");
	return 0;
}

int rt_pt_dual_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		     struct rt_error *err)
{
	if (per_port_rules(p, err))
		return -1;
	if (!p->opt.dual.on)
		return 0;
	if (p->opt.mcast.on)
		return rt_fail(err, RT_EXIT_USAGE, "-O (--dualport) and -g (--mcg) exclude "
			       "each other (as in perftest)");
	if (rt_opt_was_given(tab, "ib-port") && p->opt.ib_port != 1)
		return rt_fail(err, RT_EXIT_USAGE, "-O (--dualport) runs on ports 1 and "
			       "2: -i %lld does not go with it (perftest's -O sets -i "
			       "to 1)", p->opt.ib_port);
	p->opt.ib_port = 1;
	p->opt.qps *= 2; /* at most 2 x RT_PT_MAX_QPS; the buffer's bound follows */
	return 0;
}

/* ---- the device ------------------------------------------------------------------ */

/* perftest's set_link_layer for ib_port2, and one link layer for both. */
static int port2(struct rt_pt_conn *c)
{
	struct rt_vdev *d2 = &c->dual.d2;
	int e;

	*d2 = c->d;
	d2->port = RT_PT_DUAL_PORT2;
	e = ibv_query_port(c->d.ctx, RT_PT_DUAL_PORT2, &d2->attr);
	if (e)
		return rt_fail_errno(&c->run->err, RT_EXIT_ENV, e, "-O (--dualport): "
				     "ibv_query_port %u on %s", RT_PT_DUAL_PORT2, c->d.name);
	if (d2->attr.state != IBV_PORT_ACTIVE)
		return rt_fail(&c->run->err, RT_EXIT_ENV, "-O (--dualport): %s port %u "
			       "is %s, not ACTIVE", c->d.name, RT_PT_DUAL_PORT2,
			       ibv_port_state_str(d2->attr.state));
	if (d2->attr.link_layer != c->d.attr.link_layer)
		return rt_fail(&c->run->err, RT_EXIT_ENV, "-O (--dualport): %s port %u "
			       "is %s, port %u is %s: both ports must be of one link "
			       "layer", c->d.name, RT_PT_DUAL_PORT2,
			       rt_link_layer_name(d2->attr.link_layer), c->d.port,
			       rt_link_layer_name(c->d.attr.link_layer));
	return 0;
}

int rt_pt_dual_device(struct rt_pt_conn *c)
{
	struct ibv_device_attr a;

	if (!c->p->opt.dual.on)
		return 0;
	if (ibv_query_device(c->d.ctx, &a))
		return rt_fail_errno(&c->run->err, RT_EXIT_ENV, errno,
				     "ibv_query_device on %s", c->d.name);
	if (a.phys_port_cnt < 2)
		return rt_fail(&c->run->err, RT_EXIT_ENV, "-O (--dualport): %s has %u "
			       "port, a dual-port run needs two", c->d.name,
			       (unsigned)a.phys_port_cnt);
	if (port2(c))
		return -1;
	c->dual.on = true;
	return 0;
}

/* get_best_gid_index over port 2's table. */
static int best_gid2(const struct rt_pt_conn *c)
{
	const struct rt_vdev *d = &c->dual.d2;
	struct rt_pt_gid_cand e[256];
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	unsigned n = (unsigned)RT_MIN(RT_MAX(d->attr.gid_tbl_len, 0), 256);

	for (unsigned i = 0; i < n; i++) {
		struct ibv_gid_entry g;
		static const union ibv_gid zero;

		e[i] = (struct rt_pt_gid_cand){ 0 };
		if (ibv_query_gid_ex(d->ctx, d->port, i, &g, 0) ||
		    !memcmp(&g.gid, &zero, sizeof(zero)))
			continue;
		e[i] = (struct rt_pt_gid_cand){
			.valid = true, .v4 = !memcmp(g.gid.raw, v4, sizeof(v4)),
			.roce_v2 = g.gid_type == IBV_GID_TYPE_ROCE_V2,
		};
	}
	return rt_pt_dual_best_gid(e, n, c->p->opt.res.ipv6);
}

int rt_pt_dual_path(struct rt_pt_conn *c)
{
	struct rt_pt_dual *x = &c->dual;
	int idx = (int)c->p->opt.gid_index;

	if (!x->on)
		return 0;
	x->gid_auto2 = idx < 0 && x->d2.attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (x->gid_auto2 && (idx = best_gid2(c)) < 0)
		return rt_fail(&c->run->err, RT_EXIT_ENV, "-O (--dualport): %s port %u "
			       "has no GID", c->d.name, RT_PT_DUAL_PORT2);
	return rt_vdev_local(&x->d2, "/sys", idx, NULL, &x->local2, &c->run->err);
}

const struct rt_vdev *rt_pt_dual_dev(const struct rt_pt_conn *c, unsigned i)
{
	return rt_pt_dual_slot(i, c->p->opt.qps, c->dual.on) ? &c->dual.d2 : &c->d;
}

const struct rt_vaddr *rt_pt_dual_local(const struct rt_pt_conn *c, unsigned i)
{
	return rt_pt_dual_slot(i, c->p->opt.qps, c->dual.on) ? &c->dual.local2 :
	       &c->spec.local;
}

/* ---- the report exchange ----------------------------------------------------------- */

static int xchg_double(struct rt_pt_chan *o, bool client, double mine, double *theirs,
		       struct rt_error *err)
{
	uint8_t out[8], in[8];
	uint64_t bits;

	memcpy(&bits, &mine, sizeof(bits));
	rt_put_be64(out, bits);
	if (rt_pt_xchg(o, client, out, in, sizeof(out), err))
		return -1;
	bits = rt_get_be64(in);
	memcpy(theirs, &bits, sizeof(*theirs));
	if (!isfinite(*theirs) || *theirs < 0)
		return rt_fail(err, RT_EXIT_FAIL, "%s: per-port report: a figure is not "
			       "finite and >= 0 (does it run --report-per-port too?)",
			       rt_pt_peer(o));
	return 0;
}

int rt_pt_dual_report_xchg(struct rt_pt_chan *o, bool client,
			   const struct rt_pt_bw_report *mine,
			   struct rt_pt_bw_report *theirs, struct rt_error *err)
{
	for (int k = 0; k < 2; k++)
		if (xchg_double(o, client, mine->bw_port[k], &theirs->bw_port[k], err) ||
		    xchg_double(o, client, mine->rate_port[k], &theirs->rate_port[k], err))
			return -1;
	return 0;
}
