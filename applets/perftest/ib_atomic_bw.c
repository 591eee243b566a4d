/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ib_atomic_bw: 8-byte atomics (FETCH_AND_ADD or CMP_AND_SWAP) over RC,
 * wire-compatible with perftest 4.5's ib_atomic_bw ("6.06" on the wire):
 * ib_read_bw's TCP exchange on port 18515 and table, with the atomics'
 * fetched values checked (applets/perftest/perftest_bw.c, perftest_atomic.h). */
#include "rdmatest/applet.h"
#include "perftest/perftest_bw.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt ib_atomic_bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPTS_ATOMIC, RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPTS_TIMING, RT_PT_OPTS_BW,
	RT_PT_OPTS_RATE, RT_PT_OPTS_MCG,
	RT_PT_OPTS_RES, RT_PT_OPTS_GPU, RT_PT_OPTS_RES_BW,
	RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_BW,
	RT_PT_OPT_VECTOR, RT_PT_OPT_PAYLOAD, RT_PT_OPT_FLOW_LABEL, RT_PT_OPT_NO_LOCK, { 0 },
};

RT_PT_APPLET(ib_atomic_bw, RT_PT_ATOMIC, RT_PT_BW, rt_pt_bw_rdma_session,
	     "8-byte atomics bandwidth over verbs, as perftest's ib_atomic_bw",
	     "[-d dev] [-i port] [-p tcp-port] [-A FETCH_AND_ADD|CMP_AND_SWAP] "
	     "[-n iters | -D sec] [-q qps] [-o outs] [-x gid] [--out_json] [HOST]",
	     "Without HOST it waits for one client; with HOST it connects to that "
	     "server (retrying while it is not up, for --wait-server or --timeout). "
	     "The client posts -n 8-byte atomics per QP on the server's buffer, -o "
	     "in flight (FETCH_AND_ADD adds 1, CMP_AND_SWAP compares with 0 and "
	     "swaps in 0, as perftest 4.5); the idle server prints the client's "
	     "report, so either side may be perftest's ib_atomic_bw. Both sides "
	     "must run the same -n, -q, -D and -b; -s is 8 and -a refused, as in "
	     "perftest. Prints perftest's information block, address lines and "
	     "table (MB/sec = 2^20 bytes per second). Unlike perftest 4.5, every "
	     "wait is bounded by --timeout, a mismatched peer is named, the GID is "
	     "chosen and named on RoCE, --out_json and --json are valid JSON, -w/-y "
	     "exit 1 naming the figure, and the client checks what its atomics "
	     "fetched (up to 8 QPs): each counter is read before and after the run "
	     "(outside the measurement), so an atomic lost, done twice or fetching "
	     "a wrong value exits 1. " RT_PT_REFUSED_DOC)
