/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The libibverbs ping-pong family (ibv_rc/uc/ud/srq_pingpong), the parts
 * the applets share: the 52-byte text record "LLLL:QQQQQQ:PPPPPP:<GID>"
 * and its exchange over the TCP channel (oob.h) in upstream's order, and
 * the loop that bounces `iters` messages each way with rx_depth receives
 * kept posted. The wire is rdma-core v44's
 * (libibverbs/examples/rc_pingpong.c, pp_client_exch_dest()).
 *
 * Memory: the loop owns no allocation; its buffer is the caller's
 * registered region of RT_PP_BUF_LEN(size) bytes. */
#ifndef RDMATEST_PINGPONG_H
#define RDMATEST_PINGPONG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/cqwait.h"
#include "rdmatest/error.h"
#include "rdmatest/oob.h"
#include "ibverbs/pingpong_opts.h"
#include "rdmatest/opt.h"
#include "rdmatest/stats.h"

#define RT_PP_REC_LEN 52 /* 4+1+6+1+6+1+32 characters and a NUL */
#define RT_PP_DONE_LEN 5 /* "done" and its NUL */
#define RT_PP_GRH 40     /* a UD receive starts with room for the GRH */
#define RT_PP_BUF_LEN(size) (3 * (RT_PP_GRH + (size_t)(size)))

struct rt_pp_dest {
	uint16_t lid;
	uint32_t qpn, psn; /* 24 bits each */
	union ibv_gid gid;
};

/* The record as upstream writes it: lower-case hex, the GID's 16 bytes
 * as 32 digits, NUL at the end. */
void rt_pp_rec_encode(char out[RT_PP_REC_LEN], const struct rt_pp_dest *d);
/* Parses untrusted bytes: exactly 52, the layout above, every field in
 * range. A bad record is exit 1 naming the field; `who` names the peer. */
int rt_pp_rec_decode(const char *in, size_t len, struct rt_pp_dest *d,
		     const char *who, struct rt_error *err);
/* The GID as upstream prints it (inet_ntop), "::" when zero. */
void rt_pp_gid_str(const union ibv_gid *gid, char *buf, size_t len);

/* Called by the server between reading the client's records and
 * replying: it moves its QPs to RTS there, as upstream does, because the
 * upstream client sends as soon as it has the reply. */
typedef int rt_pp_ready_fn(void *arg, const char *theirs, size_t len,
			   struct rt_error *err);

/* Trades len bytes of records each way (52, or 256 * 52 for srq) in
 * upstream's order: the client writes, the server reads, calls ready,
 * writes; the client reads and writes "done"; the server reads the 5
 * bytes. Every step is bounded by the channel's timeout. */
int rt_pp_exchange(struct rt_oob *o, bool client, const char *mine,
		   char *theirs, size_t len, rt_pp_ready_fn *ready, void *arg,
		   struct rt_error *err);

/* The ping-pong loop of one QP. */
struct rt_pp_loop {
	/* set by the caller */
	struct ibv_qp *qp;
	struct rt_cqwait *cqw;
	struct ibv_mr *mr;  /* covers buf */
	uint8_t *buf;       /* RT_PP_BUF_LEN(size) bytes: receive area (where
			     * sends come from without -c, as upstream's one
			     * buffer), send area, expected bytes (-c) */
	size_t size;        /* -s */
	size_t grh;         /* RT_PP_GRH for UD, else 0 */
	unsigned rx_depth;  /* receives kept posted (-r) */
	uint64_t iters;     /* -n */
	bool client;        /* the client sends first */
	struct ibv_ah *ah;  /* UD: the peer's address, QPN and qkey */
	uint32_t remote_qpn, qkey;
	bool check;         /* -c: verify every received byte (see below) */
	size_t page;        /* the page size upstream's -c marks */
	const char *peer;   /* for errors */
	/* results */
	uint64_t sent, received, elapsed_us;
	struct rt_hist rtt; /* client: send to the answer's arrival, ns */
	int content;        /* -c: what the peer turned out to send */
};

enum { RT_PP_PEER_UNKNOWN, RT_PP_PEER_RDMATEST, RT_PP_PEER_UPSTREAM };

/* Posts the first rx_depth receives; call before the exchange, so that
 * the peer's first message finds one. */
int rt_pp_post_receives(struct rt_pp_loop *l, struct rt_error *err);
/* Runs the exchanges. With check, each side sends a pattern (rdmatest's
 * verify.h pattern, with a 0 at every page start, as upstream's -c
 * writes) and every received message must be either that pattern from the
 * peer or, from an upstream peer (which sends whatever its one buffer
 * last received), the message this side sent last, or an upstream
 * client's first message (0x7b with the page-start zeros). A failure names
 * the message and byte; a short wait names how far the run got. */
int rt_pp_run(struct rt_pp_loop *l, struct rt_error *err);

/* Upstream's two result lines, its arithmetic: bytes = size * iters * 2,
 * Mbit/s = bytes * 8 / us, usec/iter a full round trip. */
void rt_pp_print_result(const struct rt_pp_loop *l, char *buf, size_t len);

/* ---- one whole run of rc, uc or ud (applets/ibverbs/pingpong_run.c) ---------------- */

struct rt_run;

/* The configuration of the rc, uc and ud applets: each applet's option
 * table lists the rows below that upstream's tool has. */
struct rt_pp_cfg {
	const char *server, *dev;
	long long port, ib_port, size, rx_depth, iters, sl, gid_index;
	int mtu, events, chk;
	int odp, iodp, prefetch, ts, dm, new_send; /* rc only */
};

/* Runs the applet: rc's unsupported options are exit 3 naming the
 * capability; then the device, the TCP exchange, the loop, upstream's
 * lines and the --json results. */
int rt_pp_main(struct rt_run *run, const struct rt_pp_cfg *cfg,
	       enum ibv_qp_type type);

/* RT_APPLET for a ping-pong of QP type `type`: the applet's main is
 * rt_pp_main. */
#define RT_PP_APPLET(n, type, summary_, synopsis_, description_)             \
	RT_APPLET(n, summary_, synopsis_, description_, .long_prefixes = true); \
	static int n##_main(struct rt_run *run, void *cfg)                   \
	{                                                                    \
		return rt_pp_main(run, cfg, (type));                         \
	}

#endif
