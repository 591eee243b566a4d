/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A fake libamdhip64.so for the unit tests: the HIP runtime functions
 * core/gpu_hip.c resolves, with the documented result codes, over host
 * memory (fake_gpu.h). HIP keeps a current device; copies and
 * allocations are checked as in the fake CUDA driver. */
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

int hipInit(unsigned flags)
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

const char *hipGetErrorName(int e)
{
	switch (e) {
	case OK: return "hipSuccess";
	case INVALID_VALUE: return "hipErrorInvalidValue";
	case OUT_OF_MEMORY: return "hipErrorOutOfMemory";
	case NOT_INITIALIZED: return "hipErrorNotInitialized";
	case NO_DEVICE: return "hipErrorNoDevice";
	case INVALID_DEVICE: return "hipErrorInvalidDevice";
	case NOT_SUPPORTED: return "hipErrorNotSupported";
	}
	return "hipErrorUnknown";
}

int hipGetDeviceCount(int *n)
{
	NEED_INIT();
	*n = fake_gpu_count();
	return OK;
}

int hipDeviceGetByPCIBusId(int *dev, const char *bus_id)
{
	NEED_INIT();
	*dev = fake_gpu_by_bus_id(bus_id);
	return *dev < 0 ? INVALID_DEVICE : OK;
}

int hipDeviceGetPCIBusId(char *buf, int len, int dev)
{
	NEED_INIT();
	return len > 0 && fake_gpu_bus_id(dev, buf, (size_t)len) ? OK : INVALID_DEVICE;
}

int hipDeviceGetName(char *buf, int len, int dev)
{
	NEED_INIT();
	if (dev < 0 || dev >= fake_gpu_count() || len <= 0)
		return INVALID_DEVICE;
	snprintf(buf, (size_t)len, "Fake HIP GPU %d", dev);
	return OK;
}

int hipSetDevice(int dev)
{
	NEED_INIT();
	return dev >= 0 && dev < fake_gpu_count() ? OK : INVALID_DEVICE;
}

int hipMalloc(void **p, size_t len)
{
	NEED_INIT();
	if (fake_gpu_fails("alloc"))
		return OUT_OF_MEMORY;
	*p = fake_gpu_alloc(len);
	return *p ? OK : OUT_OF_MEMORY;
}

int hipFree(void *p)
{
	NEED_INIT();
	return fake_gpu_free(p) ? OK : INVALID_VALUE;
}

int hipMemcpy(void *dst, const void *src, size_t len, int kind)
{
	NEED_INIT();
	if (kind == 1 && fake_gpu_inside(dst, len))
		memcpy(dst, src, len);
	else if (kind == 2 && fake_gpu_inside(src, len))
		memcpy(dst, src, len);
	else
		return INVALID_VALUE;
	return OK;
}

int hipMemGetHandleForAddressRange(void *handle, void *p, size_t len, int type,
				   unsigned long long flags)
{
	int fd;

	NEED_INIT();
	if (type != 1 || flags != 0 || !fake_gpu_inside(p, len))
		return INVALID_VALUE;
	if (fake_gpu_fails("dmabuf"))
		return NOT_SUPPORTED;
	fd = fake_gpu_dmabuf(len);
	if (fd < 0)
		return NOT_SUPPORTED;
	memcpy(handle, &fd, sizeof(fd));
	return OK;
}
