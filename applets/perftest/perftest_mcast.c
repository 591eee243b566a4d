/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* -g and -M's rules (perftest_mcast.h). */
#include "perftest/perftest_mcast.h"
#include "perftest/perftest_opts.h"

/* -g: one QP, one direction, no RDMA CM (perftest's rules); then exit 3.
 * Tried in the lab with perftest 25.01 on both ends: its default group
 * (an IPv6 GID) is refused against the RoCE v2 IPv4 GID, and with an
 * IPv4-mapped -M the sender's datagrams never reach the attached QP
 * (ibv_attach_mcast makes no IP multicast join on Soft-RoCE), so both
 * ends hang. rdmatest does not run a test that cannot end. */
int rt_pt_mcast_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		      struct rt_error *err)
{
	if (!p->opt.mcast.on && rt_opt_was_given(tab, "MGID"))
		return rt_fail(err, RT_EXIT_USAGE, "-M (--MGID) needs -g");
	if (!p->opt.mcast.on)
		return 0;
	if (p->t.verb != RT_PT_SEND)
		return rt_fail(err, RT_EXIT_USAGE, "-g (--mcg): multicast is only "
			       "available with the SEND verb (as in perftest)");
	if (p->opt.bidir || p->opt.qps > 1 || p->comm_cm)
		return rt_fail(err, RT_EXIT_USAGE, "-g (--mcg): one QP, one direction, "
			       "no -R or -z (as in perftest)");
	return rt_fail(err, RT_EXIT_ENV, "-g (--mcg): UD multicast by "
		       "ibv_attach_mcast, without an IP multicast join, delivers "
		       "nothing on RoCE (Soft-RoCE drops it; perftest -g hangs "
		       "there too); rdmatest's mckey tests multicast through the "
		       "RDMA CM's join");
}
