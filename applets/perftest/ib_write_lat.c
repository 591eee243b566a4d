/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ib_write_lat: perftest 4.5's RDMA WRITE latency test, wire-compatible
 * with it: each side writes -s bytes into the other's buffer and spins on
 * the last byte, which carries the message count (applets/perftest/perftest_lat.c). */
#include "rdmatest/applet.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_lat.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt ib_write_lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PTL_OPT_QP, RT_PT_OPT_SIZE("2"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPT_INLINE("0"), RT_PT_OPTS_RUN,
	RT_PT_OPTS_LAT,
	RT_PT_OPTS_RATE, RT_PT_OPTS_MCG,
	RT_PT_OPTS_RES, RT_PT_OPTS_GPU,
	RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_LAT, RT_PT_OPT_CYCLES,
	RT_PT_OPT_FLOW_LABEL, RT_PT_OPT_NO_LOCK, RT_PT_OPT_WRITE_IMM, { 0 },
};

RT_PTL_APPLET(ib_write_lat, RT_PT_WRITE, rt_ptl_write_session,
	      "RDMA WRITE latency, wire-compatible with perftest 4.5's ib_write_lat",
	      "[-d dev] [-i port] [-s size | -a] [-n iters | -D secs] [-x gid] "
	      "[-p port] [--out_json] [--limit_lat usec] [HOST]",
	      "Without HOST it waits for one client; with HOST it connects to that "
	      "server. Both sides RDMA-WRITE -s bytes into each other's buffer in "
	      "turn (the server first) and spin on the last byte, which carries the "
	      "message count, exactly as perftest 4.5 does, so either side may be "
	      "perftest's ib_write_lat. With --write_with_imm each side waits for "
	      "the peer's write's receive completion instead, checks it and then "
	      "the last byte, as perftest 25.01's. Prints perftest's table (t_min, t_max, "
	      "t_typical, t_avg, t_stdev, 99% and 99.9%, one way, with its two "
	      "largest samples dropped) and after it, per size, the true maximum and "
	      "p50 to p99.99 of every sample. Unlike perftest every wait is bounded "
	      "by --timeout, a peer that dies is named, the client can wait for the "
	      "server, --out_json and --json are valid JSON with every row of -a, "
	      "and --limit_lat/--limit_lat_max exit 1 above a threshold. " RT_PT_REFUSED_DOC)
