/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_srq_pingpong's additions to the ping-pong family (pingpong.h):
 * num_qp RC QPs whose receives come from one shared receive queue, the
 * block of 256 address records each side sends (unused ones are the
 * all-zero record), and the loop whose counts are global over the QPs:
 * -n is the total number of messages each way, as rdma-core v44's
 * libibverbs/examples/srq_pingpong.c counts them.
 *
 * Memory: the loop owns no allocation; its buffer is the caller's
 * registered region of RT_PP_SRQ_BUF_LEN(size) bytes, and its per-QP state
 * is fixed (RT_PP_SRQ_MAX_QP entries, about 4 KiB). */
#ifndef RDMATEST_PINGPONG_SRQ_H
#define RDMATEST_PINGPONG_SRQ_H

#include "ibverbs/pingpong.h"

#define RT_PP_SRQ_MAX_QP 256 /* records per block, whatever -q is */
#define RT_PP_SRQ_BLOCK (RT_PP_SRQ_MAX_QP * RT_PP_REC_LEN)
#define RT_PP_SRQ_BUF_LEN(size) (3 * (size_t)(size))

/* The block: d[0..n-1] as records, the rest the all-zero record. */
void rt_pp_srq_block_encode(char *block, const struct rt_pp_dest *d, unsigned n);
/* Parses all 256 records (untrusted); the peer's QPs are the records
 * before the first with QPN 0. Fewer or more of them than n is exit 1
 * naming both -q values (upstream fails on a zero QPN, or leaves QPs
 * unconnected). d receives the first n. */
int rt_pp_srq_block_decode(const char *block, unsigned n, struct rt_pp_dest *d,
			   const char *who, struct rt_error *err);

struct rt_pp_srq_loop {
	/* set by the caller */
	struct ibv_qp **qp;
	unsigned num_qp;
	struct ibv_srq *srq;
	struct rt_cqwait *cqw;
	struct ibv_mr *mr;   /* covers buf */
	uint8_t *buf;        /* RT_PP_SRQ_BUF_LEN(size): the one receive area
			      * (every receive lands there, as upstream's),
			      * the send area (-c) and the expected bytes */
	size_t size;
	unsigned rx_depth;
	uint64_t iters;      /* total over all QPs */
	bool client;
	bool check;
	unsigned send_flags; /* IBV_SEND_INLINE when the QPs take size inline */
	size_t page;
	const char *peer;
	/* results */
	uint64_t sent, received, elapsed_us;
	struct rt_hist rtt;
	int content;         /* RT_PP_PEER_* as in pingpong.h */
	/* per QP */
	uint8_t pending[RT_PP_SRQ_MAX_QP];
	uint64_t t_send[RT_PP_SRQ_MAX_QP];
};

/* Posts rx_depth receives to the SRQ; before the exchange. */
int rt_pp_srq_post_receives(struct rt_pp_srq_loop *l, struct rt_error *err);
/* The client sends one message on every QP, then each QP sends again
 * when its send completed and an answer arrived, while fewer than iters
 * sends completed over all QPs (so sends may overshoot by num_qp - 1, as
 * upstream's). With check every side sends one pattern (0 at page
 * starts, as upstream's -c marks) in every message: the receive area is
 * shared, so a message must not differ from the one before it. An
 * upstream peer echoes its buffer, which holds this side's pattern or its
 * first fill: each byte must be one of the two. */
int rt_pp_srq_run(struct rt_pp_srq_loop *l, struct rt_error *err);
void rt_pp_srq_print_result(const struct rt_pp_srq_loop *l, char *buf, size_t len);

struct rt_run;

/* The options as given; the applet's option table writes into it
 * directly (field names as pingpong_opts.h expects). */
struct rt_pp_srq_params {
	const char *server;   /* NULL: serve one client */
	const char *dev;      /* NULL: the first device */
	long long port, ib_port, size, num_qp, rx_depth, iters, sl, gid_index;
	int mtu, events, odp, chk;
};

/* The whole run of ibv_srq_pingpong (applets/ibverbs/pingpong_srq_run.c). */
int rt_pp_srq_session(struct rt_run *run, const struct rt_pp_srq_params *p);

#endif
