/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Verbs resources of one connection, from a small spec. Destruction
 * accepts half-built state, so a failed setup simply returns and the
 * owner's single destroy call cleans up. */
#ifndef RDMATEST_RES_H
#define RDMATEST_RES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rdmatest/error.h"

/* The completion channels r makes and owns: one per CQ, so that each
 * bounded wait takes only its own CQ's events. A CQ on a channel is armed. */
enum {
	RT_RES_CHANNEL = 1,      /* r->ch, of r->cq */
	RT_RES_RECV_CHANNEL = 2, /* r->rch, of r->rcq */
};

struct rt_res_spec {
	enum ibv_qp_type qp_type; /* IBV_QPT_RC or IBV_QPT_UD (UC, XRC: verbs only) */
	uint32_t send_depth, recv_depth;
	uint32_t cq_depth;        /* 0: send_depth + recv_depth */
	uint32_t max_inline;
	bool sig_all;             /* every send is signaled */
	bool self_managed_qp;     /* the applet drives INIT/RTR/RTS itself */
	uint32_t create_flags;    /* e.g. IBV_QP_CREATE_BLOCK_SELF_MCAST_LB */
	bool busy_poll;           /* no completion channel: the caller polls */
	/* The verbs-only path (rt_res_create_verbs) also makes these: */
	uint32_t qps;             /* QPs on the CQ(s), r->qps; 0 means 1 */
	uint32_t recv_cq_depth;   /* > 0: receives complete on r->rcq of this depth */
	uint32_t srq_depth;       /* > 0: the QPs receive from r->srq of this depth */
	unsigned own_channels;    /* RT_RES_CHANNEL, RT_RES_RECV_CHANNEL */
	int comp_vector;          /* the CQs' completion vector (0: the first) */
	int refusal_exit;         /* the exit status when the device refuses a
				   * CQ, QP, SRQ, channel or MR; 0: RT_EXIT_FAIL */
};

struct rt_buf {
	uint8_t *addr;
	size_t len;
	struct ibv_mr *mr;
};

#define RT_RES_MAX_BUFS 4

struct rt_res {
	struct ibv_pd *pd;  /* the device's shared PD, not owned */
	struct ibv_xrcd *xrcd; /* not owned; set before creating, the SRQ and
				* QPs are XRC */
	struct ibv_comp_channel *ch, *rch; /* spec.own_channels: cq's, rcq's */
	struct ibv_cq *cq;  /* sends, and receives unless rcq */
	struct ibv_cq *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;  /* the only QP, or qps[0] */
	struct ibv_qp **qps; /* the verbs-only path's nqps QPs, in creation order */
	uint32_t nqps;
	struct ibv_qp_cap cap; /* what the device granted the last QP */
	int refusal_exit;
	struct rdma_cm_id *id; /* set when the CM owns the QP (rdma_create_qp) */
	struct rt_buf bufs[RT_RES_MAX_BUFS];
	size_t nbufs;
};

/* Creates CQ and QP on the id's device. `pd` and `channel` come from the
 * device (see rt_cm_device); channel may be NULL for busy polling. */
int rt_res_create(struct rt_res *r, struct rdma_cm_id *id, struct ibv_pd *pd,
		  struct ibv_comp_channel *channel, void *cq_context,
		  const struct rt_res_spec *spec, struct rt_error *err);
/* The same without the CM (vconn.h): rt_res_create_queues, then
 * rt_res_add_qps. */
int rt_res_create_verbs(struct rt_res *r, struct ibv_context *ctx,
			struct ibv_pd *pd, struct ibv_comp_channel *channel,
			void *cq_context, const struct rt_res_spec *spec,
			struct rt_error *err);
/* The channels, CQs and SRQ of the spec on ctx; `channel` serves a CQ
 * the spec gives no channel of r's own, NULL for none. */
int rt_res_create_queues(struct rt_res *r, struct ibv_context *ctx,
			 struct ibv_pd *pd, struct ibv_comp_channel *channel,
			 void *cq_context, const struct rt_res_spec *spec,
			 struct rt_error *err);
/* spec->qps (0: 1) more self-managed QPs of spec->qp_type on r's CQs and
 * SRQ, appended to r->qps. */
int rt_res_add_qps(struct rt_res *r, struct ibv_context *ctx,
		   const struct rt_res_spec *spec, struct rt_error *err);
/* 0, or exit 1 naming what a spec asks that its path cannot make. */
int rt_res_spec_check(const struct rt_res_spec *spec, bool verbs_only,
		      struct rt_error *err);
/* Allocates and registers a buffer owned by r (zero-filled, page-aligned). */
struct rt_buf *rt_res_buf(struct rt_res *r, size_t len, int access,
			  struct rt_error *err);
void rt_res_destroy(struct rt_res *r);

#endif
