/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the fake CUDA and HIP drivers share: "device memory" that is host
 * memory, the GPUs the environment describes, failure injection, and a
 * real dma-buf from udmabuf where the kernel has it.
 *
 *   RT_FAKE_GPUS      comma list of PCI bus ids, one per GPU (unset: one
 *                     GPU, 0000:3b:00.0; empty: none)
 *   RT_FAKE_GPU_FAIL  comma list of: init (the driver does not start),
 *                     alloc (out of memory), dmabuf (the GPU reports no
 *                     dma-buf support), pcie (CUDA: a driver before 12.8,
 *                     which knows no PCIe mapping of a dma-buf)
 *
 * A driver is process-wide by nature, so the fake keeps its table of
 * allocations in the library, as a real driver does; the tests read
 * fake_gpu_live() to check that everything was given back. */
#ifndef RDMATEST_FAKE_GPU_H
#define RDMATEST_FAKE_GPU_H

#include <stdbool.h>
#include <stddef.h>

#define FAKE_GPU_MAX 16     /* GPUs the environment may describe */
#define FAKE_GPU_MAX_ALLOCS 64

/* Number of GPUs; bus id of GPU i into buf (false when i is out of range). */
int fake_gpu_count(void);
bool fake_gpu_bus_id(int i, char *buf, size_t len);
/* Index of the GPU with this bus id ("3b:00.0" matches 0000:3b:00.0), or -1. */
int fake_gpu_by_bus_id(const char *bus_id);
bool fake_gpu_fails(const char *what);

void *fake_gpu_alloc(size_t len);
bool fake_gpu_free(void *p);
/* True when [p, p+len) lies in one live allocation. */
bool fake_gpu_inside(const void *p, size_t len);
/* A dma-buf of len bytes from /dev/udmabuf; -1 when there is none. */
int fake_gpu_dmabuf(size_t len);

/* For the tests: allocations plus contexts not yet given back. */
int fake_gpu_live(void);
void fake_gpu_ctx(int delta);

#endif
