/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* -O (--dualport) and --report-per-port of the bandwidth tests, with
 * perftest 25.01's wire behaviour (its facts, read from src/perftest_parameters.c, perftest_resources.c and
 * perftest_communication.c):
 *
 * - -O doubles -q (force_dependecies: num_of_qps *= 2) and runs on ports
 *   1 and 2 (the 'O' case sets ib_port 1, ib_port2 2): the first half of
 *   the QPs on port 1, the second half on port 2 (ctx_modify_qp_to_init,
 *   ctx_modify_qp_to_rtr: i % Q < Q / 2). Each QP's key record carries
 *   the LID and GID of its own port (set_up_connection); the peer's
 *   record of QP i is the remote end of this side's QP i.
 * - Port 2 must be ACTIVE (set_link_layer: "Port number 2 state is ...");
 *   its GID: -x's index on both ports, else on IB none (LID only), on
 *   RoCE the best of its table by get_best_gid_index's walk.
 * - Refused, as perftest refuses them: latency tests ("Dual-port mode
 *   only supports BW tests", by the latency tables' lack of the row),
 *   multicast, -R ("doesn't support Dual Port with rdma_cm").
 *   --report-per-port needs -O and -D ("report per port feature work only
 *   with Duration and Dualport").
 * - --report-per-port: the completions of the sample window counted by
 *   the port of their QP (run_iter_bw, run_iter_bw_server, run_iter_bi:
 *   iters_per_port[port_by_qp[qp]]); each port's BW and message rate over
 *   the same window as the total (print_report_bw); the row and header
 *   are REPORT_FMT_PER_PORT and RESULT_FMT_PER_PORT; the BW report
 *   exchange then carries the four per-port doubles after the five usual
 *   fields (xchg_bw_reports), so both sides must give it, as perftest.
 *
 * rdmatest adds: a device with one port exits 3 naming its port count;
 * port 2 inactive or of another link layer than port 1 exits 3 naming
 * port 2; -i other than 1 with -O is refused (perftest's -O silently
 * resets it, or is reset by a later -i); --report-per-port with
 * --run_infinitely is refused (perftest counts no port there).
 *
 * Not run on a two-port device: Soft-RoCE has one port per device, and
 * rdmatest has never run on RDMA hardware. The port choice, the GID
 * choice, the arithmetic and the wire form are unit-tested, and the
 * device steps against a fake two-port device (its verbs queries
 * replaced); the QPs' transitions and traffic on port 2 follow perftest
 * untested.
 *
 * Memory: nothing is allocated here; port 2 is a view of the open device
 * (its context and PD), closed with it. */
#ifndef RDMATEST_PERFTEST_DUAL_H
#define RDMATEST_PERFTEST_DUAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perftest/perftest_wire.h"
#include "rdmatest/error.h"
#include "rdmatest/opt.h"
#include "rdmatest/vconn.h"

#define RT_PT_DUAL_PORT2 2u

/* The rows' config (struct rt_pt_cfg's `dual`; the run reads it as
 * struct rt_pt_params's `opt.dual`). */
struct rt_pt_dual_cfg {
	int on;       /* -O */
	int per_port; /* --report-per-port */
};

/* -O, in the bandwidth tests' resource rows (perftest_res.h). */
#define RT_PT_OPT_DUALPORT \
	{ 'O', "dualport", RT_OPT_FLAG, RT_I(dual.on), 0, 0, NULL, NULL, \
	  "run on ports 1 and 2, as perftest: -q is doubled, the first half of " \
	  "the QPs on port 1, the second on port 2, each QP's record with its " \
	  "port's LID and GID (port 2's: -x's index, else on RoCE perftest's " \
	  "best of its table). A device with one port (Soft-RoCE) exits 3 " \
	  "naming its port count; port 2 not ACTIVE or of another link layer " \
	  "exits 3 naming it; -R and -i other than 1 exit 2. Not yet run on " \
	  "a two-port device", NULL }

/* --report-per-port, in the bandwidth tests' reporting rows
 * (perftest_runctl.h). */
#define RT_PT_OPT_PER_PORT \
	{ 0, "report-per-port", RT_OPT_FLAG, RT_I(dual.per_port), 0, 0, NULL, NULL, \
	  "needs -O and -D, as perftest: each port's BW and message rate over " \
	  "the sample window in four more columns (BW_Port1 ... in the JSON " \
	  "rows); both sides must give it (the report exchange carries them); " \
	  "not with --run_infinitely. A device with one port exits 3", NULL }


/* struct rt_pt_conn's `dual`: port 2 and its local end. */
struct rt_pt_dual {
	bool on;
	struct rt_vdev d2;      /* c->d's context and PD, port 2's attributes */
	struct rt_vaddr local2; /* LID, GID and its index on port 2 */
	bool gid_auto2;         /* the GID was chosen, not given with -x */
};

struct rt_pt_params;
struct rt_pt_conn;

/* Which port QP i of qps runs on: 0 (port 1) or 1 (port 2). Without dual
 * port always 0; with it the first half is 0, the second 1. */
unsigned rt_pt_dual_slot(unsigned i, unsigned qps, bool dual);

/* A GID table entry as get_best_gid_index weighs it. */
struct rt_pt_gid_cand {
	bool valid;   /* readable and not empty */
	bool v4;      /* an IPv4-mapped value */
	bool roce_v2; /* RoCE v2 (else v1 or IB) */
};
/* perftest's walk: starting at entry 0, each later entry replaces the
 * current one when it is IPv4-mapped and the current is not (IPv6 with
 * --ipv6 the other way), or, otherwise, when it is RoCE v2 and the
 * current is not. Entries not valid are passed over (perftest skips them
 * on a failed query). -1 when none is valid. */
int rt_pt_dual_best_gid(const struct rt_pt_gid_cand *e, unsigned n, bool ipv6);

/* The figures of each port: msgs[k] messages of port k over the window's
 * elapsed_ns, as the total's (bw_port, rate_port of r). */
void rt_pt_dual_figures(struct rt_pt_bw_report *r, uint64_t size,
			const uint64_t msgs[2], uint64_t elapsed_ns, bool gbits);
/* -b: the peer's per-port figures added to a's. */
void rt_pt_dual_sum(struct rt_pt_bw_report *a, const struct rt_pt_bw_report *b);
/* perftest's per-port header, dashed line and row (no newline). */
const char *rt_pt_dual_header(bool gbits);
#define RT_PT_DUAL_LINE "-------------------------------------------------------------------------------------------------------------------------------------------------------------------"
void rt_pt_dual_row(char *buf, size_t len, const struct rt_pt_bw_report *r);

/* The rules above (exit 2 naming the option) and -q doubled; called by
 * rt_pt_params_init after the rows' own rules. */
int rt_pt_dual_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		     struct rt_error *err);
/* Once the device is open: two ports, port 2 ACTIVE and of port 1's link
 * layer (exit 3 naming them); fills c->dual.d2. */
int rt_pt_dual_device(struct rt_pt_conn *c);
/* Once port 1's local end is chosen: port 2's (c->dual.local2). */
int rt_pt_dual_path(struct rt_pt_conn *c);
/* The port QP i runs on, and its local end. */
const struct rt_vdev *rt_pt_dual_dev(const struct rt_pt_conn *c, unsigned i);
const struct rt_vaddr *rt_pt_dual_local(const struct rt_pt_conn *c, unsigned i);
/* --report-per-port: the four per-port doubles each way after the BW
 * report's fields, in perftest's order (port 1's BW and rate, port 2's). */
int rt_pt_dual_report_xchg(struct rt_pt_chan *o, bool client,
			   const struct rt_pt_bw_report *mine,
			   struct rt_pt_bw_report *theirs, struct rt_error *err);

#endif
