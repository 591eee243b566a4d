/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between core/gpumem.c and the vendor files (gpu_cuda.c, gpu_hip.c):
 * what each vendor's loaded driver must do. gpumem.c keeps the buffer
 * table and the bounds; a vendor file only calls its driver and names
 * the driver's error. Private to core. */
#ifndef RDMATEST_GPUDRV_H
#define RDMATEST_GPUDRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"
#include "rdmatest/gpumem.h"

/* Which GPU to open: by ordinal, or (bus_id not NULL) by PCI bus id. */
struct rt_gpu_sel {
	int index;
	const char *bus_id;
};

struct rt_gpu_ops {
	const char *api;         /* "CUDA", "HIP" for messages */
	const char *const *libs; /* file names dlopen tries, NULL-terminated */
	/* Resolves the driver's functions from the loaded library `dl`,
	 * initialises it and opens the GPU: the new state owns `dl` and is
	 * released by close (which also dlcloses). On failure it closes
	 * `dl` itself and returns NULL with err set. Fills g->index,
	 * g->bus_id and g->name. */
	struct rt_gpu_drv *(*open)(void *dl, const struct rt_gpu_sel *sel,
				   struct rt_gpumem *g, struct rt_error *err);
	void (*close)(struct rt_gpu_drv *d);
	int (*alloc)(struct rt_gpu_drv *d, size_t len, uint64_t *addr,
		     struct rt_error *err);
	/* Managed (unified) memory, the CPU's and the GPU's at one address;
	 * NULL where rdmatest does not offer it for this vendor. */
	int (*alloc_managed)(struct rt_gpu_drv *d, size_t len, uint64_t *addr,
			     struct rt_error *err);
	void (*free)(struct rt_gpu_drv *d, uint64_t addr);
	int (*to_dev)(struct rt_gpu_drv *d, uint64_t dst, const void *src, size_t len,
		      struct rt_error *err);
	int (*to_host)(struct rt_gpu_drv *d, void *dst, uint64_t src, size_t len,
		       struct rt_error *err);
	/* pcie: the dma-buf maps the GPU memory through the PCIe BAR1
	 * (CUDA's CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE) */
	int (*export_dmabuf)(struct rt_gpu_drv *d, uint64_t addr, size_t len, bool pcie,
			     int *fd, struct rt_error *err);
};

extern const struct rt_gpu_ops rt_gpu_cuda_ops;
extern const struct rt_gpu_ops rt_gpu_hip_ops;

#endif
