/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* --write_with_imm's rules and its receive check: see perftest_imm.h. */
#include <arpa/inet.h>

#include "perftest/perftest_imm.h"
#include "perftest/perftest_opts.h"

int rt_pt_imm_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		    struct rt_error *err)
{
	if (!p->opt.imm.write_imm)
		return 0;
	if (p->opt.bidir && rt_opt_was_given(tab, "run_infinitely"))
		return rt_fail(err, RT_EXIT_USAGE, "--write_with_imm: --run_infinitely "
			       "and -b exclude each other (as in perftest)");
	if (p->opt.bidir && p->opt.duration)
		return rt_fail(err, RT_EXIT_USAGE, "--write_with_imm: -b with -D is not "
			       "supported by rdmatest (as in ib_send_bw: a timed receiver "
			       "ends at the peer's next channel message)");
	if (p->t.kind == RT_PT_LAT)
		p->opt.rx_depth = RT_PT_IMM_LAT_RX;
	return 0;
}

/* What a receive completion that is not one of perftest's writes with
 * immediate was. */
static const char *wc_opcode_name(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_RECV:
		return "a SEND's receive (does the peer run a send test?)";
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return "RDMA WRITE with immediate";
	default:
		return "not a receive";
	}
}

int rt_pt_imm_wc_check(const struct ibv_wc *wc, uint64_t size, const char *peer,
		       struct rt_error *err)
{
	if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM)
		return rt_fail(err, RT_EXIT_FAIL, "--write_with_imm: a receive completion "
			       "with opcode %d, %s, not IBV_WC_RECV_RDMA_WITH_IMM (from %s)",
			       (int)wc->opcode, wc_opcode_name(wc->opcode), peer);
	if (!(wc->wc_flags & IBV_WC_WITH_IMM))
		return rt_fail(err, RT_EXIT_FAIL, "--write_with_imm: a receive completion "
			       "of %s without IBV_WC_WITH_IMM: no immediate came", peer);
	if (ntohl(wc->imm_data) != RT_PT_IMM_DATA)
		return rt_fail(err, RT_EXIT_FAIL, "--write_with_imm: %s's immediate is "
			       "%#x, not perftest's %#x", peer, ntohl(wc->imm_data),
			       RT_PT_IMM_DATA);
	if (wc->byte_len != size)
		return rt_fail(err, RT_EXIT_FAIL, "--write_with_imm: %s wrote %u bytes, "
			       "this side runs %llu-byte messages (-s or -a differs)", peer,
			       wc->byte_len, (unsigned long long)size);
	return 0;
}
