#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rdmatest/res.h"

static void qp_attr(struct ibv_qp_init_attr_ex *a, struct rt_res *r,
		    const struct rt_res_spec *spec)
{
	memset(a, 0, sizeof(*a));
	a->qp_type = spec->qp_type;
	a->send_cq = r->cq;
	a->recv_cq = r->cq;
	a->cap.max_send_wr = spec->send_depth ? spec->send_depth : 1;
	a->cap.max_recv_wr = spec->recv_depth ? spec->recv_depth : 1;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
	a->cap.max_inline_data = spec->max_inline;
	a->sq_sig_all = spec->sig_all;
	a->pd = r->pd;
	a->comp_mask = IBV_QP_INIT_ATTR_PD;
	if (spec->create_flags) {
		a->comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
		a->create_flags = spec->create_flags;
	}
}

/* id is NULL on the verbs-only path: then the QP is always self-managed. */
static int create_qp(struct rt_res *r, struct ibv_context *ctx,
		     struct rdma_cm_id *id, const struct rt_res_spec *spec,
		     struct rt_error *err)
{
	struct ibv_qp_init_attr_ex a;

	qp_attr(&a, r, spec);
	if (spec->self_managed_qp || !id) {
		r->qp = ibv_create_qp_ex(ctx, &a);
		if (!r->qp)
			return rt_fail_errno(err, RT_EXIT_FAIL, errno, "ibv_create_qp");
		return 0;
	}
	if (rdma_create_qp_ex(id, &a)) {
		int e = errno;

		if (spec->create_flags && (e == EINVAL || e == EOPNOTSUPP))
			return rt_fail_errno(err, RT_EXIT_ENV, e,
					     "rdma_create_qp with create flags 0x%x "
					     "(the device does not support them)",
					     spec->create_flags);
		return rt_fail_errno(err, RT_EXIT_FAIL, e, "rdma_create_qp");
	}
	r->qp = id->qp;
	r->id = id;
	return 0;
}

static int create(struct rt_res *r, struct ibv_context *ctx,
		  struct rdma_cm_id *id, struct ibv_pd *pd,
		  struct ibv_comp_channel *channel, void *cq_context,
		  const struct rt_res_spec *spec, struct rt_error *err)
{
	int depth = (int)(spec->cq_depth ? spec->cq_depth
					 : spec->send_depth + spec->recv_depth);

	r->pd = pd;
	r->cq = ibv_create_cq(ctx, depth ? depth : 1, cq_context,
			      spec->busy_poll ? NULL : channel, 0);
	if (!r->cq)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno,
				     "ibv_create_cq (%d entries)", depth);
	if (!spec->busy_poll && ibv_req_notify_cq(r->cq, 0))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "ibv_req_notify_cq");
	return create_qp(r, ctx, id, spec, err);
}

int rt_res_create(struct rt_res *r, struct rdma_cm_id *id, struct ibv_pd *pd,
		  struct ibv_comp_channel *channel, void *cq_context,
		  const struct rt_res_spec *spec, struct rt_error *err)
{
	return create(r, id->verbs, id, pd, channel, cq_context, spec, err);
}

int rt_res_create_verbs(struct rt_res *r, struct ibv_context *ctx,
			struct ibv_pd *pd, struct ibv_comp_channel *channel,
			void *cq_context, const struct rt_res_spec *spec,
			struct rt_error *err)
{
	return create(r, ctx, NULL, pd, channel, cq_context, spec, err);
}

static int reg_fail(size_t len, int e, struct rt_error *err)
{
	struct rlimit rl;

	if ((e == ENOMEM || e == EPERM || e == EAGAIN) &&
	    !getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    geteuid() != 0)
		return rt_fail_errno(err, RT_EXIT_ENV, e,
				     "ibv_reg_mr %zu bytes (memlock limit is %llu "
				     "bytes: raise it with ulimit -l)",
				     len, (unsigned long long)rl.rlim_cur);
	return rt_fail_errno(err, RT_EXIT_FAIL, e, "ibv_reg_mr %zu bytes", len);
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
	if (posix_memalign((void **)&b->addr, 4096, len ? len : 1)) {
		rt_fail(err, RT_EXIT_ENV, "cannot allocate a %zu-byte buffer", len);
		return NULL;
	}
	memset(b->addr, 0, len);
	b->len = len;
	r->nbufs++;
	b->mr = ibv_reg_mr(r->pd, b->addr, len ? len : 1, access);
	if (!b->mr) {
		reg_fail(len, errno, err);
		return NULL;
	}
	return b;
}

void rt_res_destroy(struct rt_res *r)
{
	if (r->id)
		rdma_destroy_qp(r->id);
	else if (r->qp)
		ibv_destroy_qp(r->qp);
	r->qp = NULL;
	r->id = NULL;
	if (r->cq)
		ibv_destroy_cq(r->cq);
	r->cq = NULL;
	for (size_t i = 0; i < r->nbufs; i++) {
		if (r->bufs[i].mr)
			ibv_dereg_mr(r->bufs[i].mr);
		free(r->bufs[i].addr);
	}
	r->nbufs = 0;
}
