/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The names a test goes by (perftest_name.h). */
#include <stdio.h>

#include "perftest/perftest_name.h"
#include "perftest/perftest_opts.h"

const char *rt_pt_verb_name(enum rt_pt_verb v)
{
	static const char *const names[] = { "Send", "RDMA_Write", "RDMA_Read",
					     "Atomic" };

	return names[v];
}

void rt_pt_test_name(char *buf, size_t len, const struct rt_pt_params *p)
{
	bool cas = p->opt.atomic_type == RT_PT_CMP_SWAP;
	const char *atomic = p->t.verb != RT_PT_ATOMIC ? "" :
			     cas ? "CMP_AND_SWAP " : "FETCH_AND_ADD ";

	/* perftest 25.01 names the verb "RDMA_Write_imm" */
	snprintf(buf, len, "%s%s %s%s%s%s Test", rt_pt_verb_name(p->t.verb),
		 p->opt.imm.write_imm ? "_imm" : "", atomic,
		 p->opt.bidir ? "Bidirectional " : "",
		 p->opt.post_list > 1 ? "Post List " : "",
		 p->t.kind == RT_PT_BW ? "BW" : "Latency");
}
