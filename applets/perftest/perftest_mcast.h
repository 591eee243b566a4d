/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* -g (--mcg) and -M (--MGID), UD multicast of the send tests: perftest's
 * rules (its perftest_parameters.c, parser(): send tests, one QP, one
 * direction, no -R or -z), and then exit 3: a QP attached to a group by
 * ibv_attach_mcast, with no IP multicast join, receives nothing on RoCE
 * (perftest -g hangs on Soft-RoCE for that reason).
 *
 * Memory: nothing is allocated here. */
#ifndef RDMATEST_PERFTEST_MCAST_H
#define RDMATEST_PERFTEST_MCAST_H

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

/* The rows' config (struct rt_pt_cfg's `mcast`; the run reads it as
 * struct rt_pt_params's `opt.mcast`). */
struct rt_pt_mcast_cfg {
	const char *mgid; /* -M */
	int on;           /* -g */
};

/* Multicast, the send tests (UD). */
#define RT_PT_OPTS_MCG \
	{ 'g', "mcg", RT_OPT_FLAG, RT_I(mcast.on), 0, 0, NULL, NULL, \
	  "send tests: UD multicast; exit 3: a QP attached to a group without " \
	  "an IP multicast join receives nothing on RoCE (perftest -g hangs on " \
	  "Soft-RoCE); one QP, not with -b, -R or -z (exit 2, as perftest)", NULL }, \
	{ 'M', "MGID", RT_OPT_STRING, RT_S(mcast.mgid), 0, 0, NULL, "GID", \
	  "-g's group (needs -g)", NULL }

struct rt_pt_params;

/* The rules above, then exit 3 for -g; called by rt_pt_params_init. */
int rt_pt_mcast_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		      struct rt_error *err);

#endif
