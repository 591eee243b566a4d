/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Registering GPU memory (gpumem.h) for RDMA, by either of the two paths
 * the kernel offers:
 *  - dma-buf: the GPU driver exports the buffer as a dma-buf and
 *    ibv_reg_dmabuf_mr registers it (Linux 5.12 and later);
 *  - peer memory: ibv_reg_mr on the device address, which the RDMA core
 *    resolves through a peer-memory client module (NVIDIA's
 *    nvidia_peermem; the ROCm amdgpu driver's own).
 * The MR's addresses are the GPU buffer's device addresses in both. */
#ifndef RDMATEST_GPUREG_H
#define RDMATEST_GPUREG_H

#include <stdbool.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/gpumem.h"

enum rt_gpureg_path {
	RT_GPUREG_AUTO,    /* dma-buf where the driver exports one, else peer memory */
	RT_GPUREG_DMABUF,  /* perftest's --use_cuda_dmabuf / --use_rocm_dmabuf */
	RT_GPUREG_PEERMEM,
};

/* Registers the whole buffer b with `access` on pd. On success the MR
 * (ibv_dereg_mr releases it; the buffer's dma-buf stays with the
 * buffer) and, in *used, the path taken. On failure NULL with err set:
 * exit 3 when the host lacks the path (no dma-buf export, the peer
 * memory module not loaded, a kernel without dma-buf MRs). */
struct ibv_mr *rt_gpureg_mr(struct ibv_pd *pd, struct rt_gpumem *g,
			    struct rt_gpumem_buf *b, int access,
			    enum rt_gpureg_path path, const char *sysfs,
			    enum rt_gpureg_path *used, struct rt_error *err);

#endif
