/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The last perftest options of issue #40: see perftest_extra.h. */
#include "perftest/perftest_extra.h"
#include "perftest/perftest_opts.h"

int rt_pt_extra_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      const struct rt_opt_table *tab, struct rt_error *err)
{
	p->extra.vector = -1;
	if (!rt_opt_was_given(tab, "vector"))
		return 0;
	if (!p->events)
		return rt_fail(err, RT_EXIT_USAGE, "-X (--vector) needs -e (--events): "
			       "the completion vector is the one events arrive on "
			       "(as perftest)");
	p->extra.vector = (int)c->extra.vector;
	return 0;
}

int rt_pt_comp_vector(const struct rt_pt_params *p, struct ibv_context *ctx,
		      struct rt_error *err)
{
	if (p->extra.vector < 0)
		return 0;
	if (p->extra.vector >= ctx->num_comp_vectors)
		return rt_fail(err, RT_EXIT_ENV, "-X (--vector) %d: %s has %d "
			       "completion vectors (num_comp_vectors), 0 to %d",
			       p->extra.vector, ibv_get_device_name(ctx->device),
			       ctx->num_comp_vectors, ctx->num_comp_vectors - 1);
	return p->extra.vector;
}
