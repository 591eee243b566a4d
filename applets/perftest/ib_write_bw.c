/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ib_write_bw: RDMA WRITE bandwidth over RC without the RDMA CM, wire-compatible
 * with perftest 4.5 (Debian 12's, "6.06" on the wire): its TCP exchange
 * on port 18515, its message sequence, its table (applets/perftest/perftest_bw.c). */
#include "rdmatest/applet.h"
#include "perftest/perftest_bw.h"
#include "perftest/perftest_imm.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt ib_write_bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("5000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"),
	RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW,
	RT_PT_OPTS_RATE, RT_PT_OPTS_MCG,
	RT_PT_OPTS_RES, RT_PT_OPTS_GPU, RT_PT_OPTS_RES_BW,
	RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_BW, RT_PT_OPT_PAYLOAD, RT_PT_OPT_FLOW_LABEL, RT_PT_OPT_NULL_MR,
	RT_PT_OPT_NO_LOCK, RT_PT_OPT_WRITE_IMM, { 0 },
};

RT_PT_APPLET(ib_write_bw, RT_PT_WRITE, RT_PT_BW, rt_pt_bw_rdma_session,
	     "RDMA WRITE bandwidth over verbs, as perftest's ib_write_bw",
	     RT_PT_BW_SYNOPSIS,
	     RT_PT_BW_HELP("The client writes -n messages of -s bytes per QP into the server's"
			   " buffer; the idle server prints the client's report (with"
			   " --write_with_imm it counts the writes' receive completions and"
			   " prints its own row, as perftest 25.01).",
			   "the server checks the first message of every QP written by an "
			   "rdmatest client"),
	     .examples = "On the server, host A:\n"
			 "ib_write_bw -d mlx5_0\n"
			 "\n"
			 "On the client: 64 KiB writes to A, then every size from 2 B to 8 MiB:\n"
			 "ib_write_bw -d mlx5_0 A\n"
			 "ib_write_bw -d mlx5_0 -a A\n"
			 "\n"
			 "Ten seconds with 4 QPs, in Gb/s, with a floor for a script "
			 "(exit 1 below it):\n"
			 "ib_write_bw -D 10 -q 4 --report_gbits --limit_bw 90 A\n"
			 "\n"
			 "GPUDirect RDMA: both buffers on the GPU at bus id 18:00.0 (the "
			 "dynamically linked rdmatest; docs/gpudirect.md):\n"
			 "ib_write_bw -d mlx5_0 --use_cuda_bus_id=18:00.0 --report_gbits\n"
			 "ib_write_bw -d mlx5_0 --use_cuda_bus_id=18:00.0 --report_gbits A")
