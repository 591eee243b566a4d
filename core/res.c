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

static void qp_attr(struct ibv_qp_init_attr_ex *a, struct rt_res *r,
		    const struct rt_res_spec *spec)
{
	memset(a, 0, sizeof(*a));
	a->qp_type = spec->qp_type;
	a->send_cq = r->cq;
	a->recv_cq = r->rcq ? r->rcq : r->cq;
	a->cap.max_send_wr = spec->send_depth ? spec->send_depth : 1;
	a->cap.max_send_sge = 1;
	/* an SRQ's QP takes no receives of its own */
	a->srq = r->srq;
	a->cap.max_recv_wr = r->srq ? 0 : spec->recv_depth ? spec->recv_depth : 1;
	a->cap.max_recv_sge = r->srq ? 0 : 1;
	a->cap.max_inline_data = spec->max_inline;
	a->sq_sig_all = spec->sig_all;
	a->pd = r->pd;
	a->comp_mask = IBV_QP_INIT_ATTR_PD;
	if (spec->create_flags) {
		a->comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a->create_flags = spec->create_flags;
	}
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

static int create_verbs_qps(struct rt_res *r, struct ibv_context *ctx,
			    const struct rt_res_spec *spec, struct rt_error *err)
{
	uint32_t n = spec->qps ? spec->qps : 1;
	struct ibv_qp_init_attr_ex a;

	r->qps = rt_xcalloc(n, sizeof(*r->qps));
	r->nqps = n;
	for (uint32_t i = 0; i < n; i++) {
		qp_attr(&a, r, spec);
		r->qps[i] = ibv_create_qp_ex(ctx, &a);
		if (!r->qps[i])
			return rt_fail_errno(err, refused(r), errno, "ibv_create_qp %u of %u "
					     "(send %u, receive %u, inline %u)", i + 1, n,
					     a.cap.max_send_wr, a.cap.max_recv_wr,
					     spec->max_inline);
		r->cap = a.cap;
	}
	r->qp = r->qps[0];
	return 0;
}

static int create_channels(struct rt_res *r, struct ibv_context *ctx,
			   const struct rt_res_spec *spec, struct rt_error *err)
{
	/* one channel per CQ: each bounded wait takes only its own events */
	if (!(r->ch = ibv_create_comp_channel(ctx)) ||
	    (spec->recv_cq_depth && !(r->rch = ibv_create_comp_channel(ctx))))
		return rt_fail_errno(err, refused(r), errno, "ibv_create_comp_channel");
	return 0;
}

/* A CQ that is not busy-polled is armed, channel or not, as before. */
static struct ibv_cq *create_cq(struct rt_res *r, struct ibv_context *ctx,
				int depth, void *cq_context,
				struct ibv_comp_channel *channel, bool arm,
				struct rt_error *err)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, depth ? depth : 1, cq_context,
					  channel, 0);

	if (!cq)
		rt_fail_errno(err, refused(r), errno, "ibv_create_cq (%d entries)", depth);
	else if (arm && ibv_req_notify_cq(cq, 0))
		rt_fail_errno(err, refused(r), errno, "ibv_req_notify_cq");
	else
		return cq;
	return NULL;
}

static int create_srq(struct rt_res *r, struct ibv_context *ctx,
		      const struct rt_res_spec *spec, struct rt_error *err)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = spec->srq_depth,
						 .max_sge = 1 } };

	r->srq = ibv_create_srq(r->pd, &a);
	if (!r->srq)
		return rt_fail_errno(err, errno == EOPNOTSUPP ? RT_EXIT_ENV : refused(r),
				     errno, "ibv_create_srq of %u receives on %s",
				     spec->srq_depth, ibv_get_device_name(ctx->device));
	return 0;
}

/* Channels, CQs and SRQ: what the QPs are made on. */
static int create_cqs(struct rt_res *r, struct ibv_context *ctx,
		      struct ibv_comp_channel *channel, void *cq_context,
		      const struct rt_res_spec *spec, struct rt_error *err)
{
	int depth = (int)(spec->cq_depth ? spec->cq_depth
					 : spec->send_depth + spec->recv_depth);

	if (spec->busy_poll)
		channel = NULL;
	else if (spec->own_channels && create_channels(r, ctx, spec, err))
		return -1;
	else if (spec->own_channels)
		channel = r->ch;
	r->cq = create_cq(r, ctx, depth, cq_context, channel, !spec->busy_poll, err);
	if (!r->cq)
		return -1;
	if (spec->recv_cq_depth &&
	    !(r->rcq = create_cq(r, ctx, (int)spec->recv_cq_depth, cq_context,
				 spec->busy_poll ? NULL : r->rch, !spec->busy_poll,
				 err)))
		return -1;
	return spec->srq_depth ? create_srq(r, ctx, spec, err) : 0;
}

int rt_res_spec_check(const struct rt_res_spec *spec, bool verbs_only,
		      struct rt_error *err)
{
	if (!verbs_only && (spec->qps > 1 || spec->recv_cq_depth ||
			    spec->srq_depth || spec->own_channels))
		return rt_fail(err, RT_EXIT_FAIL, "a CM connection has one QP on one "
			       "CQ, with the device's channel");
	if (spec->own_channels && spec->busy_poll)
		return rt_fail(err, RT_EXIT_FAIL, "completion channels for a busy-polled "
			       "CQ");
	return 0;
}

int rt_res_create(struct rt_res *r, struct rdma_cm_id *id, struct ibv_pd *pd,
		  struct ibv_comp_channel *channel, void *cq_context,
		  const struct rt_res_spec *spec, struct rt_error *err)
{
	r->pd = pd;
	r->refusal_exit = spec->refusal_exit;
	if (rt_res_spec_check(spec, spec->self_managed_qp, err) ||
	    create_cqs(r, id->verbs, channel, cq_context, spec, err))
		return -1;
	if (spec->self_managed_qp)
		return create_verbs_qps(r, id->verbs, spec, err);
	return create_cm_qp(r, id, spec, err);
}

int rt_res_create_verbs(struct rt_res *r, struct ibv_context *ctx,
			struct ibv_pd *pd, struct ibv_comp_channel *channel,
			void *cq_context, const struct rt_res_spec *spec,
			struct rt_error *err)
{
	r->pd = pd;
	r->refusal_exit = spec->refusal_exit;
	if (rt_res_spec_check(spec, true, err) ||
	    create_cqs(r, ctx, channel, cq_context, spec, err))
		return -1;
	return create_verbs_qps(r, ctx, spec, err);
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

/* At least 4 KiB, the alignment every caller had before pages grew. */
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
