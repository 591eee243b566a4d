/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rdmatest/res.h"
#include "rdmatest/util.h"

static int refused(const struct rt_res *r)
{
	return r->refusal_exit ? r->refusal_exit : RT_EXIT_FAIL;
}

/* An XRC receive QP is the domain's target: no PD, CQ or queue of its
 * own. An XRC send QP sends only. */
static void qp_attr(struct ibv_qp_init_attr_ex *a, struct rt_res *r,
		    const struct rt_res_spec *spec)
{
	memset(a, 0, sizeof(*a));
	a->qp_type = spec->qp_type;
	if (spec->qp_type == IBV_QPT_XRC_RECV) {
		a->comp_mask = IBV_QP_INIT_ATTR_XRCD;
		a->xrcd = r->xrcd;
		return;
	}
	a->send_cq = r->cq;
	a->cap.max_send_wr = spec->send_depth ? spec->send_depth : 1;
	a->cap.max_send_sge = 1;
	a->cap.max_inline_data = spec->max_inline;
	a->sq_sig_all = spec->sig_all;
	a->pd = r->pd;
	a->comp_mask = IBV_QP_INIT_ATTR_PD;
	if (spec->create_flags) {
		a->comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a->create_flags = spec->create_flags;
	}
	if (spec->qp_type == IBV_QPT_XRC_SEND)
		return;
	a->recv_cq = r->rcq ? r->rcq : r->cq;
	/* an SRQ's QP takes no receives of its own */
	a->srq = r->srq;
	a->cap.max_recv_wr = r->srq ? 0 : spec->recv_depth ? spec->recv_depth : 1;
	a->cap.max_recv_sge = r->srq ? 0 : 1;
}

static int create_cm_qp(struct rt_res *r, struct rdma_cm_id *id,
			const struct rt_res_spec *spec, struct rt_error *err)
{
	struct ibv_qp_init_attr_ex a;

	qp_attr(&a, r, spec);
	if (rdma_create_qp_ex(id, &a)) {
		int e = errno;

		if (spec->create_flags && (e == EINVAL || e == EOPNOTSUPP))
			return rt_fail_errno(err, RT_EXIT_ENV, e,
					     "rdma_create_qp with create flags 0x%x "
					     "(the device does not support them)",
					     spec->create_flags);
		return rt_fail_errno(err, refused(r), e, "rdma_create_qp");
	}
	r->qp = id->qp;
	r->id = id;
	r->cap = a.cap;
	return 0;
}

static int qp_refused(struct rt_res *r, const struct ibv_qp_init_attr_ex *a,
		      uint32_t i, uint32_t n, struct rt_error *err)
{
	bool xrc = a->qp_type == IBV_QPT_XRC_SEND || a->qp_type == IBV_QPT_XRC_RECV;

	return rt_fail_errno(err, refused(r), errno, "%s %u of %u (%ssend %u, "
			     "receive %u, inline %u)",
			     xrc ? "ibv_create_qp_ex" : "ibv_create_qp", i + 1, n,
			     !xrc ? "" : a->qp_type == IBV_QPT_XRC_SEND ? "XRC send, "
			     : "XRC receive, ", a->cap.max_send_wr,
			     a->cap.max_recv_wr, a->cap.max_inline_data);
}

int rt_res_add_qps(struct rt_res *r, struct ibv_context *ctx,
		   const struct rt_res_spec *spec, struct rt_error *err)
{
	uint32_t n = spec->qps ? spec->qps : 1, base = r->nqps;
	struct ibv_qp_init_attr_ex a;

	r->qps = rt_xrealloc(r->qps, (base + n) * sizeof(*r->qps));
	for (uint32_t i = 0; i < n; i++) {
		qp_attr(&a, r, spec);
		r->qps[base + i] = ibv_create_qp_ex(ctx, &a);
		if (!r->qps[base + i])
			return qp_refused(r, &a, i, n, err);
		r->nqps++;
		r->cap = a.cap;
	}
	r->qp = r->qps[0];
	return 0;
}

static int create_channels(struct rt_res *r, struct ibv_context *ctx,
			   unsigned which, struct rt_error *err)
{
	if (((which & RT_RES_CHANNEL) && !(r->ch = ibv_create_comp_channel(ctx))) ||
	    ((which & RT_RES_RECV_CHANNEL) && !(r->rch = ibv_create_comp_channel(ctx))))
		return rt_fail_errno(err, refused(r), errno, "ibv_create_comp_channel");
	return 0;
}

static struct ibv_cq *create_cq(struct rt_res *r, struct ibv_context *ctx,
				int depth, void *cq_context,
				struct ibv_comp_channel *channel, int vector,
				struct rt_error *err)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, depth ? depth : 1, cq_context,
					  channel, vector);

	if (!cq)
		rt_fail_errno(err, refused(r), errno, "ibv_create_cq (%d entries)", depth);
	else if (channel && ibv_req_notify_cq(cq, 0))
		rt_fail_errno(err, refused(r), errno, "ibv_req_notify_cq");
	else
		return cq;
	return NULL;
}

static int srq_refused(struct rt_res *r, struct ibv_context *ctx,
		       uint32_t depth, struct rt_error *err)
{
	int e = errno;

	return rt_fail_errno(err, e == EOPNOTSUPP ? RT_EXIT_ENV : refused(r), e,
			     "%s of %u receives on %s", r->xrcd ? "ibv_create_srq_ex "
			     "(XRC)" : "ibv_create_srq", depth,
			     ibv_get_device_name(ctx->device));
}

/* With an XRC domain the SRQ is XRC's, completing on the receive CQ. */
static int create_srq(struct rt_res *r, struct ibv_context *ctx,
		      const struct rt_res_spec *spec, struct rt_error *err)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = spec->srq_depth, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC, .xrcd = r->xrcd,
		.cq = r->rcq ? r->rcq : r->cq, .pd = r->pd,
	};

	if (r->xrcd)
		r->srq = ibv_create_srq_ex(ctx, &a);
	else
		r->srq = ibv_create_srq(r->pd, &(struct ibv_srq_init_attr){
						.attr = a.attr });
	return r->srq ? 0 : srq_refused(r, ctx, spec->srq_depth, err);
}

int rt_res_spec_check(const struct rt_res_spec *spec, bool verbs_only,
		      struct rt_error *err)
{
	if (!verbs_only && (spec->qps > 1 || spec->recv_cq_depth ||
			    spec->srq_depth || spec->own_channels ||
			    spec->qp_type == IBV_QPT_XRC_SEND ||
			    spec->qp_type == IBV_QPT_XRC_RECV))
		return rt_fail(err, RT_EXIT_FAIL, "a CM connection has one RC or UD "
			       "QP on one CQ, with the device's channel");
	if (spec->own_channels && spec->busy_poll)
		return rt_fail(err, RT_EXIT_FAIL, "completion channels for a busy-polled "
			       "CQ");
	if ((spec->own_channels & RT_RES_RECV_CHANNEL) && !spec->recv_cq_depth)
		return rt_fail(err, RT_EXIT_FAIL, "a receive CQ's channel without a "
			       "receive CQ");
	return 0;
}

int rt_res_create_queues(struct rt_res *r, struct ibv_context *ctx,
			 struct ibv_pd *pd, struct ibv_comp_channel *channel,
			 void *cq_context, const struct rt_res_spec *spec,
			 struct rt_error *err)
{
	int depth = (int)(spec->cq_depth ? spec->cq_depth
					 : spec->send_depth + spec->recv_depth);

	r->pd = pd;
	r->refusal_exit = spec->refusal_exit;
	if (spec->busy_poll || spec->own_channels)
		channel = NULL;
	if (create_channels(r, ctx, spec->own_channels, err) ||
	    !(r->cq = create_cq(r, ctx, depth, cq_context,
				r->ch ? r->ch : channel, spec->comp_vector, err)))
		return -1;
	if (spec->recv_cq_depth &&
	    !(r->rcq = create_cq(r, ctx, (int)spec->recv_cq_depth, cq_context,
				 r->rch ? r->rch : channel, spec->comp_vector, err)))
		return -1;
	return spec->srq_depth ? create_srq(r, ctx, spec, err) : 0;
}

int rt_res_create(struct rt_res *r, struct rdma_cm_id *id, struct ibv_pd *pd,
		  struct ibv_comp_channel *channel, void *cq_context,
		  const struct rt_res_spec *spec, struct rt_error *err)
{
	if (rt_res_spec_check(spec, spec->self_managed_qp, err) ||
	    rt_res_create_queues(r, id->verbs, pd, channel, cq_context, spec, err))
		return -1;
	if (spec->self_managed_qp)
		return rt_res_add_qps(r, id->verbs, spec, err);
	return create_cm_qp(r, id, spec, err);
}

int rt_res_create_verbs(struct rt_res *r, struct ibv_context *ctx,
			struct ibv_pd *pd, struct ibv_comp_channel *channel,
			void *cq_context, const struct rt_res_spec *spec,
			struct rt_error *err)
{
	return rt_res_spec_check(spec, true, err) ||
	       rt_res_create_queues(r, ctx, pd, channel, cq_context, spec, err) ||
	       rt_res_add_qps(r, ctx, spec, err) ? -1 : 0;
}

static int reg_fail(size_t len, int e, int exit_code, struct rt_error *err)
{
	struct rlimit rl;

	if ((e == ENOMEM || e == EPERM || e == EAGAIN) &&
	    !getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    geteuid() != 0)
		return rt_fail_errno(err, RT_EXIT_ENV, e,
				     "ibv_reg_mr %zu bytes (memlock limit is %llu "
				     "bytes: raise it with ulimit -l)",
				     len, (unsigned long long)rl.rlim_cur);
	return rt_fail_errno(err, exit_code, e, "ibv_reg_mr %zu bytes", len);
}

/* The page (the pingpongs aligned to it, as upstream), and never less
 * than the 4 KiB the other callers had. */
static size_t page_align(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return page > 4096 ? (size_t)page : 4096;
}

struct rt_buf *rt_res_buf(struct rt_res *r, size_t len, int access,
			  struct rt_error *err)
{
	struct rt_buf *b;

	if (r->nbufs == RT_RES_MAX_BUFS) {
		rt_fail(err, RT_EXIT_FAIL, "more than %d buffers on one connection",
			RT_RES_MAX_BUFS);
		return NULL;
	}
	b = &r->bufs[r->nbufs];
	if (posix_memalign((void **)&b->addr, page_align(), len ? len : 1)) {
		rt_fail(err, RT_EXIT_ENV, "cannot allocate a %zu-byte buffer", len);
		return NULL;
	}
	memset(b->addr, 0, len);
	b->len = len;
	r->nbufs++;
	b->mr = ibv_reg_mr(r->pd, b->addr, len ? len : 1, access);
	if (!b->mr) {
		reg_fail(len, errno, refused(r), err);
		return NULL;
	}
	return b;
}

static void destroy_qps(struct rt_res *r)
{
	if (r->id)
		rdma_destroy_qp(r->id);
	else if (!r->qps && r->qp)
		ibv_destroy_qp(r->qp);
	for (uint32_t i = 0; i < r->nqps; i++)
		if (r->qps[i])
			ibv_destroy_qp(r->qps[i]);
	free(r->qps);
	r->qps = NULL;
	r->nqps = 0;
	r->qp = NULL;
	r->id = NULL;
}

/* QPs before the SRQ and CQs they use, CQs before their channels. */
void rt_res_destroy(struct rt_res *r)
{
	destroy_qps(r);
	if (r->srq)
		ibv_destroy_srq(r->srq);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->rcq)
		ibv_destroy_cq(r->rcq);
	if (r->ch)
		ibv_destroy_comp_channel(r->ch);
	if (r->rch)
		ibv_destroy_comp_channel(r->rch);
	r->srq = NULL;
	r->cq = r->rcq = NULL;
	r->ch = r->rch = NULL;
	for (size_t i = 0; i < r->nbufs; i++) {
		if (r->bufs[i].mr)
			ibv_dereg_mr(r->bufs[i].mr);
		free(r->bufs[i].addr);
	}
	r->nbufs = 0;
}
