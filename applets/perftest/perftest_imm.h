/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* --write_with_imm: ib_write_bw and ib_write_lat write with
 * RDMA WRITE with immediate, as perftest 25.01 does, so that the receiver
 * learns of each message from a receive completion instead of from memory.
 *
 * What perftest 25.01 does (its sources, 25.01.0-0.80), and so this:
 *   - the option turns the write test's verb into WRITE_IMM, in write_bw
 *     and write_lat only (perftest_parameters.c, parser: "Write_with_imm
 *     can only be used with write_lat and write_bw tests"); the other
 *     ib_* applets refuse it by name (exit 2).
 *   - the sender's work requests are the write test's (the same remote
 *     addresses, inline, -Q, -l) with opcode IBV_WR_RDMA_WRITE_WITH_IMM
 *     and immediate 0 (perftest_resources.c, ctx_set_send_wqes: the WR is
 *     zeroed; post_send_method: ibv_wr_rdma_write_imm(..., 0)).
 *   - the receiver posts receives without a buffer ("Write w/imm
 *     completions have zero receive buffer length", ctx_set_recv_wqes):
 *     -r per QP (default 512), clipped to -n, made even outside -a, and
 *     with -c UC left at 512 min(-n, 16000) (force_dependecies, as the
 *     send tests); and re-posts while more are due (run_iter_bw_server,
 *     run_iter_lat_write_imm). ib_write_bw takes -r and --recv_post_list
 *     with it; ib_write_lat posts perftest's 512.
 *   - ib_write_bw's sequence becomes ib_send_bw's (write_bw.c): per size
 *     the receives, a barrier that lets the sender start, the run, with -a
 *     a barrier after it (and then -b's report exchange); no report goes
 *     to the server, which prints its own row (what it received, no peak);
 *     --run_infinitely: both sides print rows, the sender ends at SIGINT,
 *     the receiver at the sender's close. --perform_warm_up does nothing,
 *     said on stderr ("Warm up not supported for WRITE_IMM verb").
 *   - ib_write_lat's ping-pong is the write one, each side waiting for a
 *     receive completion instead of the last byte; per size the receives
 *     and a barrier before the run (write_lat.c).
 *
 * Every receive completion is checked: opcode IBV_WC_RECV_RDMA_WITH_IMM,
 * IBV_WC_WITH_IMM set, immediate 0 and byte_len -s; anything else ends
 * the run with exit 1 naming what came. Data as in the write tests: BW
 * the first message of every QP after the run (an rdmatest sender's
 * pattern), latency the last byte of every message (the sender's count,
 * perftest's too).
 *
 * Refused (exit 2): --run_infinitely with -b (perftest exits 1: "not
 * supported in SEND or WRITE_IMM Bidirectional BW test"); -b with -D,
 * which ib_send_bw refuses for the same reason (a timed receiver ends at
 * the peer's next channel message, which a sending peer does not send
 * while it still receives); --unsolicited_write stays refused (EFA only).
 *
 * Memory: the receive queues hold at most -r work requests per QP (at
 * most 16384; 512 in ib_write_lat), without buffers; the receive CQ
 * -r × -q entries. Nothing else is allocated. */
#ifndef RDMATEST_PERFTEST_IMM_H
#define RDMATEST_PERFTEST_IMM_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

/* perftest's immediate, in network order on the wire (it is 0). */
#define RT_PT_IMM_DATA 0u
/* perftest's receive depth of the latency test (DEF_RX_SEND). */
#define RT_PT_IMM_LAT_RX 512u

/* The row's config (struct rt_pt_cfg's `imm`; the run reads it as
 * struct rt_pt_params's `opt.imm`, and rt_pt_receives says from it that
 * the test posts receives). */
struct rt_pt_imm_cfg {
	int write_imm;
};

/* The row of ib_write_bw and ib_write_lat. */
#define RT_PT_OPT_WRITE_IMM \
	{ 0, "write_with_imm", RT_OPT_FLAG, RT_I(imm.write_imm), 0, 0, NULL, NULL, \
	  "write with RDMA WRITE with immediate (immediate 0), as perftest 25.01: " \
	  "the receiver posts receives and counts their completions, checking " \
	  "each one's opcode, immediate and length (exit 1 otherwise); give it on " \
	  "both sides. ib_write_bw refuses it with -b and -D, or with -b and an " \
	  "endless run (exit 2)", \
	  NULL }

/* The option's rules and the latency test's receive depth; called by
 * rt_pt_params_init after -D's and before -c's, which set the UC depth
 * (exit 2 naming the combination). */
struct rt_pt_params;
int rt_pt_imm_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		    struct rt_error *err);

/* A successful receive completion of a write with immediate of `size`
 * bytes: 0, or exit 1 naming what came instead (from `peer`). */
int rt_pt_imm_wc_check(const struct ibv_wc *wc, uint64_t size, const char *peer,
		       struct rt_error *err);

#endif
