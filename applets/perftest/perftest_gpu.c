/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ib_* applets' GPU memory (perftest_gpu.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perftest/perftest_conn.h"
#include "perftest/perftest_gpu.h"
#include "perftest/perftest_imm.h"
#include "rdmatest/json.h"
#include "rdmatest/util.h"

/* ---- the command line ----------------------------------------------------- */

static int touch_rule(const struct rt_pt_params *p, bool cuda, struct rt_error *err)
{
	const char *t = p->opt.gpu.gpu_touch;

	if (!t)
		return 0;
	if (!cuda)
		return rt_fail(err, RT_EXIT_USAGE, "--gpu_touch needs --use_cuda (perftest: "
			       "GPU touch is not supported for this MEMORY_TYPE)");
	if (!p->opt.res.odp)
		return rt_fail(err, RT_EXIT_USAGE, "--gpu_touch needs --odp (perftest: GPU "
			       "touch is only supported for ODP MR)");
	if (strcasecmp(t, "once") && strcasecmp(t, "infinite"))
		return rt_fail(err, RT_EXIT_USAGE, "--gpu_touch '%s': once or infinite", t);
	return rt_fail(err, RT_EXIT_ENV, "--gpu_touch runs a GPU kernel over the buffer "
		       "(perftest's CUDA runtime plugin); rdmatest loads the CUDA driver "
		       "API only and runs no GPU kernels: use perftest built with the CUDA "
		       "runtime");
}

/* perftest's: managed and host memory only through ODP MRs, and never
 * as a dma-buf ("CUDA Memory type is not supported with no odp MR or with
 * dmabuf"); 2 and 3 it has not implemented. */
static int mem_type_rule(struct rt_pt_params *p, bool cuda, const struct rt_opt_table *tab,
			 struct rt_error *err)
{
	long long t = p->opt.gpu.cuda_mem_type;

	if (!rt_opt_was_given(tab, "cuda_mem_type"))
		return 0;
	if (!cuda)
		return rt_fail(err, RT_EXIT_USAGE, "--cuda_mem_type needs --use_cuda "
			       "(perftest: CUDA MEM TYPE cannot be used without CUDA)");
	if (t == RT_PT_CUDA_HOSTALLOC || t == RT_PT_CUDA_HOSTREGISTER)
		return rt_fail(err, RT_EXIT_USAGE, "--cuda_mem_type %lld: 0 (device), 1 "
			       "(managed) or 4 (malloc); perftest has not implemented %lld "
			       "either", t, t);
	if (t != RT_PT_CUDA_DEVICE && (!p->opt.res.odp || p->opt.gpu.cuda_dmabuf))
		return rt_fail(err, RT_EXIT_USAGE, "--cuda_mem_type %lld needs --odp and "
			       "no --use_cuda_dmabuf (the RDMA device reaches %s memory "
			       "through On-Demand Paging, as perftest)", t,
			       t == RT_PT_CUDA_MANAGED ? "managed" : "host");
	p->gpu.mem = (enum rt_pt_cuda_mem)t;
	return 0;
}

static int dmabuf_rules(struct rt_pt_params *p, bool cuda, bool rocm, struct rt_error *err)
{
	const struct rt_pt_gpu_cfg *g = &p->opt.gpu;

	if (g->cuda_dmabuf && !cuda)
		return rt_fail(err, RT_EXIT_USAGE, "--use_cuda_dmabuf needs --use_cuda or "
			       "--use_cuda_bus_id (perftest: CUDA DMA-BUF cannot be used "
			       "without CUDA)");
	if (g->rocm_dmabuf && !rocm)
		return rt_fail(err, RT_EXIT_USAGE, "--use_rocm_dmabuf needs --use_rocm "
			       "(perftest: ROCm DMA-BUF cannot be used without ROCm)");
	if (g->cuda_pcie_mapping && !g->cuda_dmabuf)
		return rt_fail(err, RT_EXIT_USAGE, "--use_cuda_pcie_mapping needs "
			       "--use_cuda_dmabuf (perftest: CUDA PCIe mapping requires "
			       "DMA-BUF)");
	p->gpu.path = g->cuda_dmabuf || g->rocm_dmabuf ? RT_GPUREG_DMABUF : RT_GPUREG_AUTO;
	p->gpu.pcie_mapping = g->cuda_pcie_mapping;
	return 0;
}

/* What GPU memory cannot take here: another memory, an MR per QP, inline
 * data, the polling write latency test. */
static int memory_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
			struct rt_error *err)
{
	const struct rt_pt_res_cfg *r = &p->opt.res;

	if (r->mmap_file || r->hugepages)
		return rt_fail(err, RT_EXIT_USAGE, "%s and GPU memory exclude each other: "
			       "the buffer is the GPU's (perftest: Can't use multiple "
			       "memory types)", r->mmap_file ? "--mmap" : "--use_hugepages");
	if (r->mr_per_qp)
		return rt_fail(err, RT_EXIT_USAGE, "--mr_per_qp with GPU memory: rdmatest "
			       "registers the GPU buffer as one MR");
	if (p->t.kind == RT_PT_LAT && p->t.verb == RT_PT_WRITE && !p->opt.imm.write_imm)
		return rt_fail(err, RT_EXIT_USAGE, "ib_write_lat polls its buffer for the "
			       "peer's write, which GPU memory does not let the CPU do: add "
			       "--write_with_imm (as perftest)");
	if (rt_opt_was_given(tab, "inline_size") && p->opt.inline_size > 0 &&
	    p->opt.size <= p->opt.inline_size)
		return rt_fail(err, RT_EXIT_USAGE, "-I %lld: messages of %llu bytes would "
			       "go inline, which the CPU copies from GPU memory it cannot "
			       "read (perftest refuses it too); -I 0", p->opt.inline_size,
			       (unsigned long long)p->opt.size);
	p->opt.inline_size = 0;
	return 0;
}

int rt_pt_gpu_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		    struct rt_error *err)
{
	const struct rt_pt_gpu_cfg *g = &p->opt.gpu;
	bool by_index = rt_opt_was_given(tab, "use_cuda");
	bool cuda = by_index || g->cuda_bus_id, rocm = rt_opt_was_given(tab, "use_rocm");

	if (cuda && rocm)
		return rt_fail(err, RT_EXIT_USAGE, "--use_cuda and --use_rocm exclude each "
			       "other (perftest: Can't use multiple memory types)");
	if (by_index && g->cuda_bus_id)
		return rt_fail(err, RT_EXIT_USAGE, "--use_cuda and --use_cuda_bus_id both "
			       "name the GPU: give one");
	if (dmabuf_rules(p, cuda, rocm, err) || mem_type_rule(p, cuda, tab, err) ||
	    touch_rule(p, cuda, err))
		return -1;
	if (!cuda && !rocm)
		return 0;
	p->gpu.on = true;
	p->gpu.api = cuda ? RT_GPU_CUDA : RT_GPU_HIP;
	if (g->cuda_bus_id)
		snprintf(p->gpu.which, sizeof(p->gpu.which), "%s", g->cuda_bus_id);
	else
		snprintf(p->gpu.which, sizeof(p->gpu.which), "%lld", cuda ? g->cuda : g->rocm);
	return memory_rules(p, tab, err);
}

/* ---- the buffer -------------------------------------------------------------- */

static int alloc_gpu(struct rt_pt_conn *c, size_t len, struct rt_error *err)
{
	struct rt_pt_mem *m = &c->mem;

	if (c->p->gpu.mem == RT_PT_CUDA_MANAGED)
		return rt_gpumem_alloc_managed(m->gpu, len, &m->gbuf, err);
	return rt_gpumem_alloc(m->gpu, len, &m->gbuf, err);
}

/* Managed memory goes to the RDMA device through ODP, as host memory
 * does; device memory through gpureg's dma-buf or peer memory. The one
 * MR's place (m->mrs[0]) is perftest_res.c's. */
static int register_gpu(struct rt_pt_conn *c, int access, struct rt_error *err)
{
	struct rt_pt_mem *m = &c->mem;

	if (m->gbuf->managed) {
		m->mrs[0] = ibv_reg_mr(c->d.pd, m->addr, m->len, access);
		if (!m->mrs[0])
			return rt_fail_errno(err, RT_EXIT_ENV, errno, "ibv_reg_mr of %zu "
					     "bytes of managed GPU memory on %s with ODP",
					     m->len, c->d.name);
		return 0;
	}
	m->gbuf->pcie_mapping = c->p->gpu.pcie_mapping;
	m->mrs[0] = rt_gpureg_mr(c->d.pd, m->gpu, m->gbuf, access, c->p->gpu.path, "/sys",
				 &m->path, err);
	return m->mrs[0] ? 0 : -1;
}

int rt_pt_gpu_open(struct rt_pt_conn *c)
{
	struct rt_pt_mem *m = &c->mem;

	if (!c->p->gpu.on)
		return 0;
	m->gpu = rt_xcalloc(1, sizeof(*m->gpu));
	return rt_gpumem_open(m->gpu, c->p->gpu.api, c->p->gpu.which, &c->run->err);
}

int rt_pt_gpu_mem_alloc(struct rt_pt_conn *c, size_t len, int access)
{
	struct rt_pt_mem *m = &c->mem;
	struct rt_error *err = &c->run->err;

	if (alloc_gpu(c, len, err))
		return -1;
	m->addr = (uint8_t *)(uintptr_t)m->gbuf->addr;
	m->len = len;
	m->kind = RT_PT_MEM_GPU;
	m->mirror = rt_xcalloc(1, len);
	if (rt_gpumem_to_dev(m->gpu, m->gbuf, 0, m->mirror, len, err))
		return -1;
	return register_gpu(c, access, err);
}

void rt_pt_gpu_mem_free(struct rt_pt_conn *c)
{
	struct rt_pt_mem *m = &c->mem;

	if (!m->gpu)
		return;
	rt_gpumem_close(m->gpu); /* after the MRs: rt_pt_mem_free's order */
	free(m->gpu);
	free(m->mirror);
	m->gpu = NULL;
	m->gbuf = NULL;
	m->mirror = NULL;
}

uint8_t *rt_pt_mem_view(struct rt_pt_conn *c, const uint8_t *at, size_t len, bool pull)
{
	struct rt_pt_mem *m = &c->mem;
	size_t off = (size_t)(at - m->addr);

	if (m->kind != RT_PT_MEM_GPU)
		return (uint8_t *)at;
	if (pull && rt_gpumem_to_host(m->gpu, m->gbuf, off, m->mirror + off, len,
				      &c->run->err))
		return NULL;
	return m->mirror + off;
}

int rt_pt_mem_push(struct rt_pt_conn *c, const uint8_t *at, size_t len)
{
	struct rt_pt_mem *m = &c->mem;
	size_t off = (size_t)(at - m->addr);

	if (m->kind != RT_PT_MEM_GPU)
		return 0;
	return rt_gpumem_to_dev(m->gpu, m->gbuf, off, m->mirror + off, len, &c->run->err);
}

static const char *how(const struct rt_pt_mem *m)
{
	return !m->gbuf ? "host memory (malloc), ODP" :
	       m->gbuf->managed ? "managed memory, ODP" :
	       m->path == RT_GPUREG_DMABUF ? "dma-buf" : "peer memory";
}

void rt_pt_gpu_json(const struct rt_pt_conn *c, struct rt_json *j)
{
	const struct rt_pt_mem *m = &c->mem;

	if (!m->gpu)
		return;
	rt_json_key(j, "gpu");
	rt_json_object_begin(j);
	rt_json_kv_string(j, "api", rt_gpu_api_name(m->gpu->api));
	rt_json_kv_int(j, "index", m->gpu->index);
	rt_json_kv_string(j, "bus_id", m->gpu->bus_id);
	rt_json_kv_string(j, "name", m->gpu->name);
	rt_json_kv_string(j, "memory", how(m));
	rt_json_kv_bool(j, "pcie_mapping", m->gbuf && m->gbuf->pcie_mapping);
	rt_json_object_end(j);
}

void rt_pt_gpu_describe(const struct rt_pt_conn *c, char *buf, size_t len)
{
	const struct rt_pt_mem *m = &c->mem;

	snprintf(buf, len, "%s GPU %d (%s %s), %s%s", rt_gpu_api_name(m->gpu->api),
		 m->gpu->index, m->gpu->bus_id, m->gpu->name, how(m),
		 m->gbuf && m->gbuf->pcie_mapping ? " mapped through PCIe" : "");
}
