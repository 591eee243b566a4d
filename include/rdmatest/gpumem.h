/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* GPU memory for RDMA buffers, the same to its callers whatever the GPU:
 * open one GPU (by index or PCI bus id), allocate device memory, copy
 * between it and the host (pattern checks, atomics' values), export a
 * buffer as a dma-buf for ibv_reg_dmabuf_mr (gpureg.h), free, close.
 *
 * The driver library (CUDA's libcuda.so.1, ROCm's libamdhip64.so) is
 * loaded at run time with dlopen: one dynamically linked binary serves
 * hosts with and without a GPU. A static build cannot load a glibc
 * driver and refuses to open.
 *
 * Errors: every failure is recorded once in the rt_error with exit class
 * RT_EXIT_ENV (3) when the host lacks what is needed (a static build, no
 * driver library, no such GPU, no dma-buf support, no peer memory module,
 * device memory exhausted), RT_EXIT_USAGE (2) for a malformed GPU name,
 * RT_EXIT_FAIL (1) for a driver call that fails on a GPU that opened
 * (a copy); callers pass the return code up and need no mapping of
 * their own. rt_gpumem_error_is_env() is the test a caller that wants to
 * fall back to host memory asks. */
#ifndef RDMATEST_GPUMEM_H
#define RDMATEST_GPUMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"

enum rt_gpu_api {
	RT_GPU_CUDA, /* NVIDIA: libcuda.so.1, the CUDA Driver API */
	RT_GPU_HIP,  /* AMD: libamdhip64.so, the HIP runtime API */
};

/* Buffers one open GPU holds at once: a test tool registers one or two
 * (data, atomics' results) per connection. */
#define RT_GPUMEM_MAX_BUFS 16
/* The largest buffer: perftest's largest message times its deepest
 * queue is far below it. */
#define RT_GPUMEM_MAX_LEN ((size_t)16 << 30)
/* Allocations are whole multiples of this: dma-buf export takes ranges
 * aligned to the host page size (CUDA Driver API reference,
 * cuMemGetHandleForAddressRange), and 64 KiB is a multiple of every
 * host page size Linux uses on x86_64, arm64 and ppc64le. */
#define RT_GPUMEM_ALIGN ((size_t)64 << 10)

struct rt_gpumem_buf {
	bool used;
	uint64_t addr;   /* the device address: what RDMA registers */
	size_t len;      /* as asked */
	size_t alloc_len; /* rounded up to RT_GPUMEM_ALIGN */
	int dmabuf_fd;   /* -1 until exported; closed by rt_gpumem_free */
	bool managed;    /* managed memory: the host reaches it at addr too */
	bool pcie_mapping; /* set before the export: the dma-buf maps the
			    * memory through the GPU's PCIe BAR1 (CUDA 12.8) */
};

struct rt_gpu_drv; /* the vendor's function table and device state */
struct rt_gpu_ops;

struct rt_gpumem {
	enum rt_gpu_api api;
	const struct rt_gpu_ops *ops;
	struct rt_gpu_drv *drv; /* NULL when closed */
	int index;         /* the device ordinal */
	char bus_id[32];   /* "0000:3b:00.0", as the driver spells it */
	char name[96];     /* the driver's device name */
	struct rt_gpumem_buf bufs[RT_GPUMEM_MAX_BUFS];
};

/* "cuda" or "hip" (also "rocm", "amd", "nvidia"); -1 otherwise. */
int rt_gpu_api_parse(const char *s, enum rt_gpu_api *api);
const char *rt_gpu_api_name(enum rt_gpu_api api);
/* The driver library's file name ("libcuda.so.1"), for messages. */
const char *rt_gpu_api_lib(enum rt_gpu_api api);

/* Loads the driver and opens one GPU: `which` is NULL or "" (GPU 0), a
 * decimal index, or a PCI bus id ("0000:3b:00.0", "3b:00.0"). On
 * failure nothing is left open and g is closed. */
int rt_gpumem_open(struct rt_gpumem *g, enum rt_gpu_api api, const char *which,
		   struct rt_error *err);
/* Frees every buffer (closing their dma-bufs), releases the device and
 * unloads the driver. Safe on a closed or zeroed context. */
void rt_gpumem_close(struct rt_gpumem *g);

/* Device memory of len bytes (1 .. RT_GPUMEM_MAX_LEN), in *out. */
int rt_gpumem_alloc(struct rt_gpumem *g, size_t len, struct rt_gpumem_buf **out,
		    struct rt_error *err);
/* The same in managed memory (CUDA's cuMemAllocManaged): one address for
 * the CPU and the GPU, pages moving on demand, which an RDMA device
 * reaches only through On-Demand Paging. A vendor without it here: exit 3. */
int rt_gpumem_alloc_managed(struct rt_gpumem *g, size_t len, struct rt_gpumem_buf **out,
			    struct rt_error *err);
void rt_gpumem_free(struct rt_gpumem *g, struct rt_gpumem_buf *b);
/* Copies within the buffer's bounds (off + len <= b->len). */
int rt_gpumem_to_dev(struct rt_gpumem *g, struct rt_gpumem_buf *b, size_t off,
		     const void *src, size_t len, struct rt_error *err);
int rt_gpumem_to_host(struct rt_gpumem *g, const struct rt_gpumem_buf *b, size_t off,
		      void *dst, size_t len, struct rt_error *err);
/* The buffer's whole allocation as a dma-buf, in b->dmabuf_fd (the
 * buffer keeps it: rt_gpumem_free closes it). A GPU or driver without
 * dma-buf export: exit 3, "does not support dma-buf export". */
int rt_gpumem_export_dmabuf(struct rt_gpumem *g, struct rt_gpumem_buf *b,
			    struct rt_error *err);

/* The kernel module through which the RDMA core reaches this API's GPU
 * memory by its device address (peer memory, gpureg.h):
 * "nvidia_peermem" or "amdgpu"; and whether it is loaded, that is
 * SYSFS/module/<name> exists (sysfs is "/sys", or a test's tree). */
const char *rt_gpumem_peermem_module(enum rt_gpu_api api);
bool rt_gpumem_peermem_loaded(const char *sysfs, enum rt_gpu_api api);

/* True when the recorded failure is the host's (exit class 3). */
bool rt_gpumem_error_is_env(const struct rt_error *err);

#endif
