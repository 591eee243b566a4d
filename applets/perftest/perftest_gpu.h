/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ib_* applets' GPU memory options, with perftest 25.x's names and
 * meaning: the test's buffer on an NVIDIA GPU (--use_cuda=N,
 * --use_cuda_bus_id=ID) or an AMD one (--use_rocm=N), registered through
 * a dma-buf (--use_cuda_dmabuf, --use_rocm_dmabuf; --use_cuda_pcie_mapping
 * maps it through the GPU's PCIe BAR1) or else through peer memory
 * (ibv_reg_mr on the device address, which the nvidia_peermem module
 * resolves). --cuda_mem_type 1 (managed) and 4 (host malloc) need --odp,
 * as in perftest; --gpu_touch needs CUDA and --odp and then a GPU kernel,
 * which rdmatest does not run (exit 3).
 *
 * The driver is loaded at run time (core's gpumem.h): a dynamically linked
 * rdmatest serves hosts with and without GPUs; the static build exits 3
 * naming the dynamic one. No driver, no such GPU, no dma-buf export, no
 * peer memory module: exit 3, one line naming it.
 *
 * What the host reads or writes of the buffer (the data pattern, the data
 * check, the atomics' values) goes through a host mirror of the same
 * length and a copy by the driver (rt_pt_mem_view, rt_pt_mem_push), never
 * a CPU access to GPU memory. The latency tests' per-message marks are
 * not made in GPU memory: ib_write_lat takes GPU memory with
 * --write_with_imm only (perftest refuses the polling write test too) and
 * checks no bytes there, ib_atomic_lat checks no fetched values.
 *
 * Memory: one GPU buffer of the test's buffer size (perftest_conn.h's
 * bound), one host mirror of that size, one MR (--mr_per_qp is refused
 * with GPU memory). */
#ifndef RDMATEST_PERFTEST_GPU_H
#define RDMATEST_PERFTEST_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"
#include "rdmatest/gpumem.h"
#include "rdmatest/gpureg.h"
#include "rdmatest/opt.h"

/* --cuda_mem_type's values (perftest's cuda_memory.h order). */
enum rt_pt_cuda_mem {
	RT_PT_CUDA_DEVICE = 0,
	RT_PT_CUDA_MANAGED = 1,
	RT_PT_CUDA_HOSTALLOC = 2,    /* perftest has none: refused */
	RT_PT_CUDA_HOSTREGISTER = 3, /* perftest has none: refused */
	RT_PT_CUDA_MALLOC = 4,
};

/* The table's fields (struct rt_pt_cfg's `gpu`). */
struct rt_pt_gpu_cfg {
	long long cuda, rocm;   /* device ordinals; given: rt_opt_was_given */
	const char *cuda_bus_id;
	long long cuda_mem_type;
	const char *gpu_touch;  /* once or infinite */
	int cuda_dmabuf, cuda_pcie_mapping, rocm_dmabuf;
};

/* What the rules derive (struct rt_pt_params's `gpu`). */
struct rt_pt_gpu {
	bool on;
	enum rt_gpu_api api;
	char which[40];             /* gpumem's GPU name: an ordinal or a bus id */
	enum rt_gpureg_path path;   /* AUTO, or DMABUF when asked */
	enum rt_pt_cuda_mem mem;
	bool pcie_mapping;
};

#define RT_PT_OPTS_GPU \
	{ 0, "use_cuda", RT_OPT_INT, RT_L(gpu.cuda), 0, 1023, NULL, "N", \
	  "the buffer in the memory of CUDA GPU N (GPUDirect RDMA), through " \
	  "libcuda.so.1 loaded at run time (the dynamic build only: the static " \
	  "one exits 3); registered by dma-buf where the GPU exports one, else " \
	  "by peer memory (nvidia_peermem); no driver, GPU or path: exit 3", NULL }, \
	{ 0, "use_cuda_bus_id", RT_OPT_STRING, RT_S(gpu.cuda_bus_id), 0, 0, NULL, \
	  "ID", "as --use_cuda, the GPU named by its PCI bus id (0000:3b:00.0)", \
	  NULL }, \
	{ 0, "use_cuda_dmabuf", RT_OPT_FLAG, RT_I(gpu.cuda_dmabuf), 0, 0, NULL, NULL, \
	  "with --use_cuda: register by dma-buf only (ibv_reg_dmabuf_mr), never " \
	  "peer memory; a GPU, driver or RDMA device without it exits 3", NULL }, \
	{ 0, "use_cuda_pcie_mapping", RT_OPT_FLAG, RT_I(gpu.cuda_pcie_mapping), 0, 0, \
	  NULL, NULL, "with --use_cuda_dmabuf: the dma-buf maps the GPU memory " \
	  "through its PCIe BAR1 (CUDA 12.8 and later; older drivers exit 3)", NULL }, \
	{ 0, "cuda_mem_type", RT_OPT_INT, RT_L(gpu.cuda_mem_type), 0, 4, "0", "TYPE", \
	  "with --use_cuda: 0 device memory, 1 managed memory, 4 host memory " \
	  "(malloc); 1 and 4 need --odp and no dma-buf, as in perftest (2 and 3 " \
	  "perftest has not implemented either: exit 2)", NULL }, \
	{ 0, "gpu_touch", RT_OPT_STRING, RT_S(gpu.gpu_touch), 0, 0, NULL, \
	  "once|infinite", "perftest's GPU kernel touching the buffer during an " \
	  "ODP test: with --use_cuda and --odp; rdmatest runs no GPU kernels " \
	  "(exit 3: use perftest built with the CUDA runtime)", NULL }, \
	{ 0, "use_rocm", RT_OPT_INT, RT_L(gpu.rocm), 0, 1023, NULL, "N", \
	  "the buffer in the memory of ROCm GPU N, through libamdhip64.so " \
	  "loaded at run time (the dynamic build only); dma-buf where exported, " \
	  "else peer memory (amdgpu); no driver, GPU or path: exit 3", NULL }, \
	{ 0, "use_rocm_dmabuf", RT_OPT_FLAG, RT_I(gpu.rocm_dmabuf), 0, 0, NULL, NULL, \
	  "with --use_rocm: register by dma-buf only", NULL }

struct rt_pt_params;
struct rt_pt_cfg;
struct rt_pt_conn;

/* The combination rules (exit 2 naming the option, perftest's where it
 * has one; --gpu_touch exit 3 once its own rules pass). They also make
 * the inline size 0 with GPU memory (the CPU copies inline data), or
 * refuse a -I that the message size fits. */
int rt_pt_gpu_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		    struct rt_error *err);
/* Loads the driver and opens the GPU (c->mem.gpu) when p->gpu.on: once
 * the RDMA device is open, before any peer is reached, so that a host
 * without the driver or the GPU fails at once. */
int rt_pt_gpu_open(struct rt_pt_conn *c);
/* The test's buffer in GPU memory (device or managed) and its one MR
 * (c->mem, whose one MR place the caller made);
 * `access` as rt_pt_mem_alloc's. Zeroed. Released by rt_pt_gpu_mem_free. */
int rt_pt_gpu_mem_alloc(struct rt_pt_conn *c, size_t len, int access);
void rt_pt_gpu_mem_free(struct rt_pt_conn *c);
/* The host's view of [at, at + len) of the test's buffer: the buffer
 * itself in host memory; for GPU memory the mirror's bytes, copied from
 * the GPU first when `pull`. NULL (c->run->err set) when the copy fails. */
uint8_t *rt_pt_mem_view(struct rt_pt_conn *c, const uint8_t *at, size_t len, bool pull);
/* After writing into a view: the mirror's bytes to the GPU (nothing for
 * host memory). */
int rt_pt_mem_push(struct rt_pt_conn *c, const uint8_t *at, size_t len);
struct rt_json;
/* The results' "gpu" object (api, index, bus_id, name, memory: how the
 * RDMA device reaches it, pcie_mapping), when a GPU is open. */
void rt_pt_gpu_json(const struct rt_pt_conn *c, struct rt_json *j);
/* The info block's line ("CUDA GPU 0 (0000:3b:00.0 NAME), dma-buf"). */
void rt_pt_gpu_describe(const struct rt_pt_conn *c, char *buf, size_t len);

#endif
