/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A fake libcuda.so.1 for the unit tests: the CUDA Driver API functions
 * core/gpu_cuda.c resolves, with the documented result codes, over host
 * memory (fake_gpu.h). A "device pointer" is a host address. It checks
 * what the real driver would refuse: calls before cuInit, devices out of
 * range, copies outside an allocation, freeing what was not allocated. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../fake_gpu.h"

enum {
	OK = 0,
	INVALID_VALUE = 1,
	OUT_OF_MEMORY = 2,
	NOT_INITIALIZED = 3,
	NO_DEVICE = 100,
	INVALID_DEVICE = 101,
	NOT_SUPPORTED = 801,
};

static int initialized;

#define NEED_INIT() do { if (!initialized) return NOT_INITIALIZED; } while (0)

int cuInit(unsigned flags)
{
	if (flags != 0)
		return INVALID_VALUE;
	if (fake_gpu_fails("init"))
		return NOT_INITIALIZED;
	if (fake_gpu_count() == 0)
		return NO_DEVICE;
	initialized = 1;
	return OK;
}

int cuGetErrorName(int r, const char **name)
{
	switch (r) {
	case OK: *name = "CUDA_SUCCESS"; return OK;
	case INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; return OK;
	case OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return OK;
	case NOT_INITIALIZED: *name = "CUDA_ERROR_NOT_INITIALIZED"; return OK;
	case NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; return OK;
	case INVALID_DEVICE: *name = "CUDA_ERROR_INVALID_DEVICE"; return OK;
	case NOT_SUPPORTED: *name = "CUDA_ERROR_NOT_SUPPORTED"; return OK;
	}
	*name = NULL;
	return INVALID_VALUE;
}

int cuDeviceGetCount(int *n)
{
	NEED_INIT();
	*n = fake_gpu_count();
	return OK;
}

int cuDeviceGet(int *dev, int ordinal)
{
	NEED_INIT();
	if (ordinal < 0 || ordinal >= fake_gpu_count())
		return INVALID_DEVICE;
	*dev = ordinal;
	return OK;
}

int cuDeviceGetByPCIBusId(int *dev, const char *bus_id)
{
	NEED_INIT();
	*dev = fake_gpu_by_bus_id(bus_id);
	return *dev < 0 ? INVALID_DEVICE : OK;
}

int cuDeviceGetPCIBusId(char *buf, int len, int dev)
{
	NEED_INIT();
	return len > 0 && fake_gpu_bus_id(dev, buf, (size_t)len) ? OK : INVALID_DEVICE;
}

int cuDeviceGetName(char *buf, int len, int dev)
{
	NEED_INIT();
	if (dev < 0 || dev >= fake_gpu_count() || len <= 0)
		return INVALID_DEVICE;
	snprintf(buf, (size_t)len, "Fake CUDA GPU %d", dev);
	return OK;
}

int cuDeviceGetAttribute(int *v, int attr, int dev)
{
	NEED_INIT();
	if (dev < 0 || dev >= fake_gpu_count())
		return INVALID_DEVICE;
	if (attr != 124) /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, the one asked */
		return INVALID_VALUE;
	*v = !fake_gpu_fails("dmabuf");
	return OK;
}

int cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
	NEED_INIT();
	if (dev < 0 || dev >= fake_gpu_count())
		return INVALID_DEVICE;
	*ctx = (void *)(uintptr_t)(0x1000 + dev);
	fake_gpu_ctx(1);
	return OK;
}

int cuDevicePrimaryCtxRelease_v2(int dev)
{
	NEED_INIT();
	if (dev < 0 || dev >= fake_gpu_count())
		return INVALID_DEVICE;
	fake_gpu_ctx(-1);
	return OK;
}

int cuCtxSetCurrent(void *ctx)
{
	NEED_INIT();
	(void)ctx;
	return OK;
}

int cuMemAlloc_v2(unsigned long long *p, size_t len)
{
	void *m;

	NEED_INIT();
	if (fake_gpu_fails("alloc"))
		return OUT_OF_MEMORY;
	m = fake_gpu_alloc(len);
	if (!m)
		return OUT_OF_MEMORY;
	*p = (unsigned long long)(uintptr_t)m;
	return OK;
}

/* Managed memory is host memory here, as the fake's device memory is. */
int cuMemAllocManaged(unsigned long long *p, size_t len, unsigned flags)
{
	if (flags != 1)
		return INVALID_VALUE;
	return cuMemAlloc_v2(p, len);
}

int cuMemFree_v2(unsigned long long p)
{
	NEED_INIT();
	return fake_gpu_free((void *)(uintptr_t)p) ? OK : INVALID_VALUE;
}

int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t len)
{
	NEED_INIT();
	if (!fake_gpu_inside((void *)(uintptr_t)dst, len))
		return INVALID_VALUE;
	memcpy((void *)(uintptr_t)dst, src, len);
	return OK;
}

int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t len)
{
	NEED_INIT();
	if (!fake_gpu_inside((void *)(uintptr_t)src, len))
		return INVALID_VALUE;
	memcpy(dst, (void *)(uintptr_t)src, len);
	return OK;
}

int cuMemGetHandleForAddressRange(void *handle, unsigned long long p, size_t len,
				  int type, unsigned long long flags)
{
	int fd;

	NEED_INIT();
	/* flag 1, the PCIe mapping, is CUDA 12.8's: "pcie" fails it as an
	 * older driver does */
	if (type != 1 || flags > 1 || !fake_gpu_inside((void *)(uintptr_t)p, len) ||
	    (flags && fake_gpu_fails("pcie")))
		return INVALID_VALUE;
	if (fake_gpu_fails("dmabuf"))
		return NOT_SUPPORTED;
	fd = fake_gpu_dmabuf(len);
	if (fd < 0)
		return NOT_SUPPORTED;
	memcpy(handle, &fd, sizeof(fd));
	return OK;
}
