/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The bandwidth tests' engine and sequences (ib_write_bw, ib_read_bw,
 * ib_send_bw), wire-compatible with perftest 4.5 (perftest's *_bw.c and
 * perftest_communication.c):
 * the message sequence of each test and role, the posting loop (Q QPs,
 * -t sends in flight per QP, -l per post call, one signalled completion
 * every -Q), the remote and local addresses walking through the cycle
 * buffer as perftest's do, -n iterations or -D seconds (warm-up and
 * cool-down margins left out), -a sizes 2 B .. 8 MiB, -b both ways.
 *
 * Every wait is bounded by --timeout: a send that does not complete, a
 * receive that does not come (ib_send_bw's server counts -n × -q of them,
 * perftest waits 120 s), a peer that does not answer on the channel.
 *
 * Data check (free of cost for the measurement: done after each run):
 * the side whose buffer received data compares the first message of every
 * QP with rdmatest's pattern when the peer is rdmatest (its first 8 bytes
 * say so), and fails when nothing arrived at all; perftest's random bytes
 * are reported as not checked. Messages below 8 bytes are not checked.
 *
 * Memory: per QP four counters; with the peak measured, two time stamps
 * per message, at most RT_PT_PEAK_MAX messages (beyond it the peak is
 * not measured, as with -N); the -l work requests once. */
#ifndef RDMATEST_PERFTEST_BW_H
#define RDMATEST_PERFTEST_BW_H

#include "perftest/perftest_run.h"

#define RT_PT_PEAK_MAX 32768u /* the window search is quadratic */

/* The sequences, as rt_pt_session_fn: write and read share theirs
 * (perftest_bw_run.c). */
int rt_pt_bw_rdma_session(struct rt_pt_conn *c, struct rt_pt_out *o);
int rt_pt_bw_send_session(struct rt_pt_conn *c, struct rt_pt_out *o);

/* The engine (perftest_bw.c). One measured run of one size: the receives
 * posted first, then, when barrier_before, the barrier that lets the peer
 * send, then the run; r gets this side's figures and sent (NULL, or one
 * per QP) the messages each QP posted. */
int rt_pt_bw_measure(struct rt_pt_conn *c, uint64_t size, struct rt_pt_bw_report *r,
		     bool barrier_before, uint64_t *sent);
/* --perform_warm_up (write and read, on the sending sides): tx-depth
 * messages of the size, outside the measurement; 0 at once otherwise. */
int rt_pt_bw_warm_up(struct rt_pt_conn *c, uint64_t size);

/* --run_infinitely (the sender of every test; the receiver of the send
 * test): runs until SIGINT, calling fn with the figures of each -D period
 * as it ends (perftest's row of that period); fn's failure ends it (-1).
 * At SIGINT the sender stops posting, takes every completion within
 * --timeout and returns 1; the send test's receiver returns 1 when the
 * channel turns readable (the sender closed it). With -b both sides
 * send, each row counts both directions (twice this side's, as perftest),
 * and a side whose peer closed the channel (looked at after each row)
 * returns 2 at once. -1 with the error set otherwise. Memory: a bounded
 * run's, no peak stamps. */
typedef int rt_pt_bw_row_fn(void *ctx, const struct rt_pt_bw_report *r);
int rt_pt_bw_infinite(struct rt_pt_conn *c, uint64_t size, rt_pt_bw_row_fn *fn,
		      void *ctx);

/* Offset of message k (0-based, per QP) in a QP's area: perftest walks
 * by round_up(size, line) and wraps after the cycle buffer, when
 * size <= cycle / 2 and no post list is used; otherwise 0. The number of
 * places a QP's messages go to is rt_pt_msg_places (1 when they do not
 * walk): message k goes to place k % places. */
unsigned rt_pt_msg_places(uint64_t size, uint32_t cycle, uint32_t line,
			  unsigned post_list);
uint64_t rt_pt_msg_offset(uint64_t k, uint64_t size, uint32_t cycle,
			  uint32_t line, unsigned post_list);

/* The bandwidth applets' synopsis, and their help around what each
 * moves (WHAT) and checks (CHECK). */
#define RT_PT_BW_SYNOPSIS                                                        \
	"[-d dev] [-i port] [-p tcp-port] [-s size | -a] [-n iters | -D sec] "   \
	"[-q qps] [-x gid] [-b] [--report_gbits] [--out_json] [HOST]"
#define RT_PT_BW_HELP(what, check)                                               \
	"Without HOST it waits for one client; with HOST it connects to that "   \
	"server (retrying while it is not up, for --wait-server or --timeout). " \
	what " Both sides must run the same test with the same -s, -n, -q, -a, " \
	"-D and -b, as with perftest. Prints perftest's information block, "      \
	"address lines and table (MB/sec = 2^20 bytes per second). Unlike "       \
	"perftest 4.5, every wait is bounded by --timeout, a mismatched peer is " \
	"named, the GID is chosen and named on RoCE, --out_json and --json are "  \
	"valid JSON with every row of an -a sweep, -w/-y exit 1 naming the "      \
	"figure, and " check ". " RT_PT_REFUSED_DOC

#endif
