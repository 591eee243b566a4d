/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ib_send_lat: perftest 4.5's SEND latency test, wire-compatible with
 * it: a ping-pong of -s-byte SENDs, the client first, receives re-posted
 * while more are due (applets/perftest/perftest_lat.c). */
#include "rdmatest/applet.h"
#include "perftest/perftest_lat.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt ib_send_lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PTL_OPT_QP, RT_PT_OPT_SIZE("2"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_LAT,
	RT_PT_OPTS_RATE, RT_PT_OPTS_MCG,
	RT_PT_OPTS_RES, RT_PT_OPTS_GPU, RT_PT_OPT_SRQ,
	RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_LAT, RT_PT_OPT_CYCLES,
	RT_PT_OPT_VECTOR, RT_PT_OPT_PAYLOAD, RT_PT_OPT_FLOW_LABEL, RT_PT_OPT_NO_LOCK, { 0 },
};

RT_PTL_APPLET(ib_send_lat, RT_PT_SEND, rt_ptl_send_session,
	      "SEND latency, wire-compatible with perftest 4.5's ib_send_lat",
	      "[-d dev] [-i port] [-s size | -a] [-n iters | -D secs] [-x gid] "
	      "[-r rx-depth] [-e] [-p port] [--out_json] [--limit_lat usec] [HOST]",
	      "Without HOST it waits for one client; with HOST it connects to that "
	      "server. The sides bounce SENDs of -s bytes, the client first, with "
	      "receives posted before a barrier for each size, exactly as perftest "
	      "4.5 does, so either side may be perftest's ib_send_lat. Prints "
	      "perftest's table (one way: half a round trip, its two largest "
	      "samples dropped) and after it, per size, the true maximum and p50 to "
	      "p99.99 of every sample. Unlike perftest every wait is bounded by "
	      "--timeout, a peer that dies is named, a different -s is a named "
	      "receive error, --out_json and --json are valid JSON with every row "
	      "of -a, and --limit_lat/--limit_lat_max exit 1 above a threshold. " RT_PT_REFUSED_DOC)
