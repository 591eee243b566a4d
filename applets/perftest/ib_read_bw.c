/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ib_read_bw: RDMA READ bandwidth over RC without the RDMA CM, wire-compatible
 * with perftest 4.5 (Debian 12's, "6.06" on the wire): its TCP exchange
 * on port 18515, its message sequence, its table (applets/perftest/perftest_bw.c). */
#include "rdmatest/applet.h"
#include "perftest/perftest_bw.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt ib_read_bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW,
	RT_PT_OPTS_RATE, RT_PT_OPTS_MCG,
	RT_PT_OPTS_RES, RT_PT_OPTS_GPU, RT_PT_OPTS_RES_BW,
	RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_BW,
	RT_PT_OPT_VECTOR, RT_PT_OPT_PAYLOAD, RT_PT_OPT_FLOW_LABEL, RT_PT_OPT_NULL_MR,
	RT_PT_OPT_NO_LOCK, { 0 },
};

RT_PT_APPLET(ib_read_bw, RT_PT_READ, RT_PT_BW, rt_pt_bw_rdma_session,
	     "RDMA READ bandwidth over verbs, as perftest's ib_read_bw",
	     RT_PT_BW_SYNOPSIS,
	     RT_PT_BW_HELP("The client reads -n messages of -s bytes per QP from the server's "
			   "buffer, -o at a time; the idle server prints the client's report.",
			   "the client checks the first message of every QP read from an "
			   "rdmatest server"))
