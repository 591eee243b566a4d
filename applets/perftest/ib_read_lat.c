/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ib_read_lat: perftest 4.5's RDMA READ latency test, wire-compatible
 * with it: the client reads -s bytes from the server's buffer, one READ
 * at a time; the server waits in the close (applets/perftest/perftest_lat.c). */
#include "rdmatest/applet.h"
#include "perftest/perftest_lat.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt ib_read_lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PTL_OPT_QP, RT_PT_OPT_SIZE("2"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPTS_RUN, RT_PT_OPTS_LAT,
	RT_PT_OPTS_RATE, RT_PT_OPTS_MCG,
	RT_PT_OPTS_RES, RT_PT_OPTS_GPU,
	RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_LAT, RT_PT_OPT_CYCLES,
	RT_PT_OPT_VECTOR, RT_PT_OPT_PAYLOAD, RT_PT_OPT_FLOW_LABEL, RT_PT_OPT_NULL_MR,
	RT_PT_OPT_NO_LOCK, { 0 },
};

RT_PTL_APPLET(ib_read_lat, RT_PT_READ, rt_ptl_read_session,
	      "RDMA READ latency, wire-compatible with perftest 4.5's ib_read_lat",
	      "[-d dev] [-i port] [-s size | -a] [-n iters | -D secs] [-x gid] "
	      "[-o outs] [-p port] [--out_json] [--limit_lat usec] [HOST]",
	      "Without HOST it waits for one client, which then reads from its "
	      "buffer while it waits in the close exchange; with HOST it connects "
	      "and issues one RDMA READ of -s bytes at a time, as perftest 4.5 "
	      "does, so either side may be perftest's ib_read_lat. Prints "
	      "perftest's table (a sample is one READ) and after it, per size, the "
	      "true maximum and p50 to p99.99 of every sample. Unlike perftest "
	      "every wait is bounded (the server's wait for the client's run by "
	      "--timeout plus the duration, or plus 5 s per size and 1 ms and 1 MB/s "
	      "per message, a dead client found at once or by TCP keepalive), "
	      "a peer that dies is named, --out_json and --json are valid JSON "
	      "with every row of -a, and --limit_lat/--limit_lat_max exit 1 above a "
	      "threshold. " RT_PT_REFUSED_DOC)
