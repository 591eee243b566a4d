/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The UC and UD transports of the ib_* tests (-c), as perftest has them
 * (src/perftest_parameters.c, src/perftest_resources.c):
 *
 *   UC  send and write tests; the QPs connect as RC's do, without the
 *       acknowledgement attributes; a lost message is not resent.
 *   UD  send tests; a message is at most the MTU (a larger -s is lowered
 *       to it; -a stops there); each receive has 40 more bytes in front
 *       for the GRH; a sender reaches the peer's QP through an address
 *       handle built from its exchanged LID/GID, with its QPN and Q_Key
 *       0x11111111. The key records are the RC ones, unchanged, so
 *       perftest 4.5 and 25.01 interoperate both ways.
 *   With UC and UD, -r left at 512 becomes -n (at most 16000) outside -D,
 *   so that every receive is posted before the run.
 *   The rate limiter is perftest_rate.h's, multicast perftest_mcast.h's.
 *
 * Memory: one address handle per QP on the sending sides of UD. */
#ifndef RDMATEST_PERFTEST_UD_H
#define RDMATEST_PERFTEST_UD_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

/* -c: RC, UC (send and write tests), UD (send tests); the other words
 * perftest knows are refused by name (rt_pt_conns). */
enum rt_pt_conn_type { RT_PT_RC, RT_PT_UC, RT_PT_UD, RT_PT_XRC, RT_PT_DC, RT_PT_SRD };
extern const struct rt_enum rt_pt_conns[];    /* -c: RC, UC, UD; XRC, DC, SRD refused */
/* UD: the receive buffer's room for the GRH, as perftest's UD_ADDITION;
 * UD and multicast QPs use perftest's Q_Key. */
#define RT_PT_UD_GRH 40u
#define RT_PT_QKEY 0x11111111u
/* UC and UD receive depth when -r is left at 512: -n, at most this
 * (perftest's UC_MAX_RX), so that every receive is posted up front. */
#define RT_PT_UC_MAX_RX 16000u

/* The row's config (struct rt_pt_cfg's `ud`; the run reads it as
 * struct rt_pt_params's `opt.ud`). */
struct rt_pt_ud_cfg {
	int conn; /* -c: enum rt_pt_conn_type */
};

/* -c, in the connection rows of every test (perftest_opts.h). */
#define RT_PT_OPT_CONNECTION \
	{ 'c', "connection", RT_OPT_ENUM, RT_I(ud.conn), 0, 0, "RC", "TYPE", \
	  "connection type: RC; UC (send and write tests); UD (send tests: a " \
	  "message is at most the MTU, -s above it is lowered to it)", rt_pt_conns }

struct rt_pt_params;
struct rt_pt_conn;

/* -c's rules, perftest's (UD send only, UC not for read and atomic, UC
 * not with -R), and the UC/UD receive depth; exit 2 naming the option. */
int rt_pt_ud_rules(struct rt_pt_params *p, struct rt_error *err);
/* The verbs QP type of -c. */
enum ibv_qp_type rt_pt_qp_type(enum rt_pt_conn_type t);
/* "RC", "UC", "UD". */
const char *rt_pt_conn_name(enum rt_pt_conn_type t);

/* After the handshake: a UD message size above the agreed MTU is lowered
 * to it (perftest's "Max msg size in UD is MTU"; printed with -a). */
void rt_pt_ud_clip(struct rt_pt_conn *c, struct rt_pt_params *p);
/* Bytes in front of a receive (the GRH of UD), 0 otherwise. */
uint32_t rt_pt_ud_grh(const struct rt_pt_conn *c);
/* After the QPs are up: UD sending sides make their address handles. */
int rt_pt_ud_up(struct rt_pt_conn *c, bool sends);
/* A UD send's destination (nothing for RC and UC). */
void rt_pt_ud_wr(const struct rt_pt_conn *c, unsigned qp, struct ibv_send_wr *w);
void rt_pt_ud_destroy(struct rt_pt_conn *c);

#endif
