/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The rate limiter of the ib_* tests (perftest_rate.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perftest/perftest_conn.h"
#include "perftest/perftest_rate.h"
#include "rdmatest/util.h"

const struct rt_enum rt_pt_rate_units[] = {
	{ "g", RT_PT_RATE_GBPS, "Gb/s (10^9 bit)" },
	{ "M", RT_PT_RATE_MIBPS, "MiB/s (2^20 bytes)" },
	{ "p", RT_PT_RATE_PPS, "messages per second" },
	{ NULL, 0, NULL },
};

const struct rt_enum rt_pt_rate_types[] = {
	{ "OFF", RT_PT_RATE_OFF, "none (the default: --rate_limit alone asks for HW)" },
	{ "SW", RT_PT_RATE_SW, "software pacing" },
	{ "HW", RT_PT_RATE_HW, "the device's per-QP rate limit" },
	{ "PP", RT_PT_RATE_PP, "raw Ethernet packet pacing (refused)" },
	{ NULL, 0, NULL },
};

/* ---- options -------------------------------------------------------------- */

/* The rate limiter (perftest's parser and ctx_connect). */
static int rate_parse(struct rt_pt_params *p, const struct rt_opt_table *tab,
		      struct rt_error *err)
{
	struct rt_pt_rate_cfg *k = &p->opt.rate;
	char *end;

	p->rate_type_given = rt_opt_was_given(tab, "rate_limit_type");
	if (k->limit && p->rate_type_given && k->type == RT_PT_RATE_OFF)
		return rt_fail(err, RT_EXIT_USAGE, "--rate_limit with --rate_limit_type "
			       "OFF: give SW or HW, or neither");
	if (k->limit) {
		errno = 0;
		p->rate_limit = strtod(k->limit, &end);
		if (errno || end == k->limit || *end || !isfinite(p->rate_limit) ||
		    p->rate_limit <= 0)
			return rt_fail(err, RT_EXIT_USAGE, "--rate_limit '%s': not a number "
				       "above 0", k->limit);
		/* given alone, perftest asks for the device's limit */
		if (k->type == RT_PT_RATE_OFF)
			k->type = RT_PT_RATE_HW;
	}
	if (rt_opt_was_given(tab, "burst_size") && k->burst_size > 0 &&
	    k->type == RT_PT_RATE_OFF)
		return rt_fail(err, RT_EXIT_USAGE, "--burst_size needs the rate limiter "
			       "(--rate_limit): bursts are its (as in perftest)");
	if (k->burst_size <= 0)
		k->burst_size = p->opt.tx_depth;
	if (rt_opt_was_given(tab, "typical_pkt_size") && k->typical_pkt_size &&
	    k->type != RT_PT_RATE_PP)
		return rt_fail(err, RT_EXIT_USAGE, "--typical_pkt_size is for the PP rate "
			       "limiter only (as in perftest)");
	return 0;
}

int rt_pt_rate_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		     struct rt_error *err)
{
	if (rate_parse(p, tab, err))
		return -1;
	switch (p->opt.rate.type) {
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
	    (p->t.verb == RT_PT_SEND && p->opt.bidir))
		return rt_fail(err, RT_EXIT_USAGE, "the rate limiter runs in the write, "
			       "read and one-way send BW tests only (as in perftest)");
	if (p->opt.rate.type == RT_PT_RATE_HW && p->comm_cm)
		return rt_fail(err, RT_EXIT_USAGE, "the HW rate limit (--rate_limit "
			       "without --rate_limit_type SW) is not available with -R or "
			       "-z (as in perftest)");
	if (p->opt.rate.type == RT_PT_RATE_HW && p->opt.rate.units == RT_PT_RATE_PPS)
		return rt_fail(err, RT_EXIT_USAGE, "--rate_units p: the HW rate limit "
			       "takes bits per second, not packets (give --rate_limit_type "
			       "SW, as in perftest)");
	return 0;
}

/* ---- the device's limit ----------------------------------------------------- */

/* The device's per-QP limit in kb/s. */
static uint32_t hw_kbps(const struct rt_pt_params *p)
{
	double bps = p->opt.rate.units == RT_PT_RATE_MIBPS ? p->rate_limit * 8 * 1048576 :
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
	a.max_burst_sz = c->p->opt.rate.burst_size;
	for (unsigned i = 0; i < c->p->opt.qps; i++) {
		rc = ibv_modify_qp_rate_limit(c->qp[i], &a);
		if (rc)
			return rt_fail_errno(&c->run->err, RT_EXIT_ENV, rc, "--rate_limit: "
					     "the rate limit of QP 0x%06x (%u kb/s)",
					     c->qp[i]->qp_num, a.rate_limit);
	}
	return 0;
}

int rt_pt_rate_up(struct rt_pt_conn *c, bool sends)
{
	c->pace_sw = c->p->opt.rate.type == RT_PT_RATE_SW;
	if (sends && c->p->opt.rate.type == RT_PT_RATE_HW)
		return hw_rate(c);
	return 0;
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
	double pps = rt_pt_rate_pps(p->rate_limit, p->opt.rate.units, size);

	*pc = (struct rt_pt_pacer){ .on = c->pace_sw && pps > 0,
				    .burst = RT_MAX(p->opt.rate.burst_size, 1),
				    .next_ns = now_ns };
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
