/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ib_atomic_lat: perftest 4.5's atomic latency test, wire-compatible
 * with it: ib_read_lat's sequence, the client issuing one 8-byte atomic
 * at a time on the server's buffer and checking every value it fetches
 * (applets/perftest/perftest_lat.c, perftest_atomic.h). */
#include "rdmatest/applet.h"
#include "perftest/perftest_lat.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt ib_atomic_lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PTL_OPT_QP, RT_PT_OPTS_ATOMIC, RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPTS_TIMING, RT_PT_OPTS_LAT,
	RT_PT_OPTS_RATE, RT_PT_OPTS_MCG,
	RT_PT_OPTS_RES, RT_PT_OPTS_GPU,
	RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_LAT, RT_PT_OPT_CYCLES,
	RT_PT_OPT_VECTOR, RT_PT_OPT_PAYLOAD, RT_PT_OPT_FLOW_LABEL, RT_PT_OPT_NO_LOCK, { 0 },
};

RT_PTL_APPLET(ib_atomic_lat, RT_PT_ATOMIC, rt_ptl_read_session,
	      "8-byte atomics latency, wire-compatible with perftest 4.5's ib_atomic_lat",
	      "[-d dev] [-i port] [-A FETCH_AND_ADD|CMP_AND_SWAP] [-n iters | -D secs] "
	      "[-x gid] [-o outs] [-p port] [--out_json] [--limit_lat usec] [HOST]",
	      "Without HOST it waits for one client, which then issues its atomics "
	      "on its buffer while it waits in the close exchange; with HOST it "
	      "connects and issues one 8-byte atomic at a time (FETCH_AND_ADD adds "
	      "1, CMP_AND_SWAP compares with 0 and swaps in 0, as perftest 4.5), so "
	      "either side may be perftest's ib_atomic_lat. -s is 8 and -a refused, "
	      "as in perftest. Prints perftest's table (a sample is one atomic) and "
	      "after it the true maximum and p50 to p99.99 of every sample. Unlike "
	      "perftest the client checks every value it fetches (FETCH_AND_ADD: "
	      "each one more than the last; CMP_AND_SWAP: all the same) and exits 1 "
	      "naming the first wrong one, every wait is bounded (as ib_read_lat's), "
	      "a peer that dies is named, --out_json and --json are valid JSON, and "
	      "--limit_lat/--limit_lat_max exit 1 above a threshold. " RT_PT_REFUSED_DOC)
