/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <stdio.h>

#include "rdmatest/gpureg.h"

static struct ibv_mr *reg_dmabuf(struct ibv_pd *pd, struct rt_gpumem *g,
				 struct rt_gpumem_buf *b, int access, struct rt_error *err)
{
	struct ibv_mr *mr;

	mr = ibv_reg_dmabuf_mr(pd, 0, b->len, b->addr, b->dmabuf_fd, access);
	if (mr)
		return mr;
	/* a kernel or provider without dma-buf MRs says so with these */
	rt_fail_errno(err, errno == EOPNOTSUPP || errno == ENOSYS || errno == EPROTONOSUPPORT ?
		      RT_EXIT_ENV : RT_EXIT_FAIL, errno,
		      "ibv_reg_dmabuf_mr of %zu bytes of GPU %s memory failed", b->len,
		      g->bus_id);
	return NULL;
}

static struct ibv_mr *reg_peermem(struct ibv_pd *pd, struct rt_gpumem *g,
				  struct rt_gpumem_buf *b, int access, const char *sysfs,
				  const char *dmabuf_why, struct rt_error *err)
{
	const char *mod = rt_gpumem_peermem_module(g->api);
	struct ibv_mr *mr;

	if (!rt_gpumem_peermem_loaded(sysfs, g->api)) {
		rt_fail(err, RT_EXIT_ENV, "%s%speer memory needs the %s module, which is not loaded (modprobe %s)",
			dmabuf_why ? dmabuf_why : "", dmabuf_why ? "; " : "", mod, mod);
		return NULL;
	}
	mr = ibv_reg_mr(pd, (void *)(uintptr_t)b->addr, b->len, access);
	if (!mr)
		rt_fail_errno(err, RT_EXIT_FAIL, errno,
			      "ibv_reg_mr of %zu bytes of GPU %s memory through %s failed",
			      b->len, g->bus_id, mod);
	return mr;
}

struct ibv_mr *rt_gpureg_mr(struct ibv_pd *pd, struct rt_gpumem *g,
			    struct rt_gpumem_buf *b, int access,
			    enum rt_gpureg_path path, const char *sysfs,
			    enum rt_gpureg_path *used, struct rt_error *err)
{
	struct rt_error dmabuf_err = { 0 };
	struct ibv_mr *mr;

	if (path == RT_GPUREG_PEERMEM) {
		mr = reg_peermem(pd, g, b, access, sysfs, NULL, err);
	} else if (rt_gpumem_export_dmabuf(g, b, &dmabuf_err) == 0) {
		path = RT_GPUREG_DMABUF;
		mr = reg_dmabuf(pd, g, b, access, err);
	} else if (path == RT_GPUREG_DMABUF || !rt_gpumem_error_is_env(&dmabuf_err)) {
		rt_error_adopt(err, &dmabuf_err);
		return NULL;
	} else {
		/* AUTO: a GPU without dma-buf export may still have peer memory */
		path = RT_GPUREG_PEERMEM;
		mr = reg_peermem(pd, g, b, access, sysfs, dmabuf_err.reason, err);
	}
	if (mr && used)
		*used = path;
	return mr;
}
