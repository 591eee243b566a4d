/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* AMD GPUs through the HIP runtime API, resolved from libamdhip64.so at
 * run time. The few types, constants and prototypes used are declared
 * here from their documented ABI (the HIP runtime API reference, ROCm
 * documentation): no ROCm header is needed to build. HIP keeps the
 * current device per thread, so opening is hipSetDevice, as perftest's
 * src/rocm_memory.c, rocm_memory_init(), does. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "gpudrv.h"
#include "rdmatest/util.h"

/* hipError_t values. */
enum {
	HIP_SUCCESS = 0,
	HIP_ERROR_OUT_OF_MEMORY = 2,
	HIP_ERROR_NO_DEVICE = 100,
	HIP_ERROR_NOT_SUPPORTED = 801,
};
/* hipMemcpyKind. */
enum { HIP_MEMCPY_HOST_TO_DEVICE = 1, HIP_MEMCPY_DEVICE_TO_HOST = 2 };
/* hipMemRangeHandleType: hipMemRangeHandleTypeDmaBufFd. */
enum { HIP_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 1 };

typedef int hip_error;

struct hip_fns {
	hip_error (*init)(unsigned flags);
	const char *(*error_name)(hip_error e);
	hip_error (*device_count)(int *n);
	hip_error (*device_by_bus_id)(int *dev, const char *bus_id);
	hip_error (*device_bus_id)(char *buf, int len, int dev);
	hip_error (*device_name)(char *buf, int len, int dev);
	hip_error (*set_device)(int dev);
	hip_error (*malloc)(void **p, size_t len);
	hip_error (*free)(void *p);
	hip_error (*memcpy)(void *dst, const void *src, size_t len, int kind);
	/* NULL in runtimes that lack it (no dma-buf export) */
	hip_error (*range_handle)(void *handle, void *p, size_t len, int type,
				  unsigned long long flags);
};

struct rt_gpu_drv {
	void *dl;
	struct hip_fns fn;
	int dev;
};

struct hip_sym {
	size_t off;
	const char *name;
	bool optional;
};

#define SYM(field, name) { offsetof(struct hip_fns, field), name, false }
static const struct hip_sym hip_syms[] = {
	SYM(init, "hipInit"),
	SYM(error_name, "hipGetErrorName"),
	SYM(device_count, "hipGetDeviceCount"),
	SYM(device_by_bus_id, "hipDeviceGetByPCIBusId"),
	SYM(device_bus_id, "hipDeviceGetPCIBusId"),
	SYM(device_name, "hipDeviceGetName"),
	SYM(set_device, "hipSetDevice"),
	SYM(malloc, "hipMalloc"),
	SYM(free, "hipFree"),
	SYM(memcpy, "hipMemcpy"),
	{ offsetof(struct hip_fns, range_handle), "hipMemGetHandleForAddressRange", true },
};

/* The development link first, then the sonames of ROCm 6 and 5. */
static const char *const hip_libs[] = {
	"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5", NULL
};

static int resolve(void *dl, struct hip_fns *fn, struct rt_error *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(hip_syms); i++) {
		void *p = dlsym(dl, hip_syms[i].name);

		if (!p && !hip_syms[i].optional)
			return rt_fail(err, RT_EXIT_ENV,
				       "libamdhip64.so has no %s: the ROCm runtime is too old",
				       hip_syms[i].name);
		/* function and object pointers share a representation on
		 * every POSIX system: dlsym(3) relies on it */
		memcpy((char *)fn + hip_syms[i].off, &p, sizeof(p));
	}
	return 0;
}

static const char *hip_name(const struct rt_gpu_drv *d, hip_error e)
{
	const char *name = d->fn.error_name ? d->fn.error_name(e) : NULL;

	return name ? name : "unknown HIP error";
}

static int hip_fail(const struct rt_gpu_drv *d, hip_error e, const char *call,
		    struct rt_error *err)
{
	int cls = (e == HIP_ERROR_OUT_OF_MEMORY || e == HIP_ERROR_NOT_SUPPORTED ||
		   e == HIP_ERROR_NO_DEVICE) ? RT_EXIT_ENV : RT_EXIT_FAIL;

	return rt_fail(err, cls, "HIP %s failed: %s (%d)", call, hip_name(d, e), e);
}

static int pick_device(struct rt_gpu_drv *d, const struct rt_gpu_sel *sel,
		       struct rt_error *err)
{
	int n = 0;
	hip_error e = d->fn.device_count(&n);

	if (e == HIP_ERROR_NO_DEVICE || (e == HIP_SUCCESS && n <= 0))
		return rt_fail(err, RT_EXIT_ENV, "no AMD GPU on this host (libamdhip64.so loaded, hipGetDeviceCount: 0)");
	if (e != HIP_SUCCESS)
		return hip_fail(d, e, "hipGetDeviceCount", err);
	if (sel->bus_id) {
		e = d->fn.device_by_bus_id(&d->dev, sel->bus_id);
		if (e != HIP_SUCCESS)
			return rt_fail(err, RT_EXIT_ENV, "no AMD GPU at PCI bus id %s (%d GPUs here): %s",
				       sel->bus_id, n, hip_name(d, e));
		return 0;
	}
	if (sel->index >= n)
		return rt_fail(err, RT_EXIT_ENV, "no AMD GPU %d: this host has %d (0..%d)",
			       sel->index, n, n - 1);
	d->dev = sel->index;
	return 0;
}

static void hip_close(struct rt_gpu_drv *d)
{
	if (!d)
		return;
	dlclose(d->dl);
	free(d);
}

static int start(struct rt_gpu_drv *d, const struct rt_gpu_sel *sel,
		 struct rt_gpumem *g, struct rt_error *err)
{
	hip_error e;

	if (resolve(d->dl, &d->fn, err))
		return -1;
	e = d->fn.init(0);
	if (e == HIP_ERROR_NO_DEVICE)
		return rt_fail(err, RT_EXIT_ENV, "no AMD GPU on this host (hipInit: %s)",
			       hip_name(d, e));
	if (e != HIP_SUCCESS)
		return rt_fail(err, RT_EXIT_ENV, "the ROCm runtime does not start (hipInit: %s, %d)",
			       hip_name(d, e), e);
	if (pick_device(d, sel, err))
		return -1;
	e = d->fn.set_device(d->dev);
	if (e != HIP_SUCCESS)
		return hip_fail(d, e, "hipSetDevice", err);
	g->index = d->dev;
	if (d->fn.device_bus_id(g->bus_id, (int)sizeof(g->bus_id), d->dev) != HIP_SUCCESS)
		g->bus_id[0] = '\0';
	if (d->fn.device_name(g->name, (int)sizeof(g->name), d->dev) != HIP_SUCCESS)
		g->name[0] = '\0';
	g->bus_id[sizeof(g->bus_id) - 1] = '\0';
	g->name[sizeof(g->name) - 1] = '\0';
	return 0;
}

static struct rt_gpu_drv *hip_open(void *dl, const struct rt_gpu_sel *sel,
				   struct rt_gpumem *g, struct rt_error *err)
{
	struct rt_gpu_drv *d = rt_xcalloc(1, sizeof(*d));

	d->dl = dl;
	if (start(d, sel, g, err)) {
		hip_close(d);
		return NULL;
	}
	return d;
}

static int hip_alloc(struct rt_gpu_drv *d, size_t len, uint64_t *addr,
		     struct rt_error *err)
{
	void *p = NULL;
	hip_error e = d->fn.malloc(&p, len);

	if (e != HIP_SUCCESS)
		return rt_fail(err, e == HIP_ERROR_OUT_OF_MEMORY ? RT_EXIT_ENV : RT_EXIT_FAIL,
			       "cannot allocate %zu bytes of GPU memory (hipMalloc: %s)",
			       len, hip_name(d, e));
	*addr = (uint64_t)(uintptr_t)p;
	return 0;
}

static void hip_free(struct rt_gpu_drv *d, uint64_t addr)
{
	(void)d->fn.free((void *)(uintptr_t)addr);
}

static int hip_to_dev(struct rt_gpu_drv *d, uint64_t dst, const void *src, size_t len,
		      struct rt_error *err)
{
	hip_error e = d->fn.memcpy((void *)(uintptr_t)dst, src, len, HIP_MEMCPY_HOST_TO_DEVICE);

	return e == HIP_SUCCESS ? 0 : hip_fail(d, e, "hipMemcpy to the GPU", err);
}

static int hip_to_host(struct rt_gpu_drv *d, void *dst, uint64_t src, size_t len,
		       struct rt_error *err)
{
	hip_error e = d->fn.memcpy(dst, (const void *)(uintptr_t)src, len,
				   HIP_MEMCPY_DEVICE_TO_HOST);

	return e == HIP_SUCCESS ? 0 : hip_fail(d, e, "hipMemcpy from the GPU", err);
}

static int hip_export(struct rt_gpu_drv *d, uint64_t addr, size_t len, bool pcie,
		      int *fd, struct rt_error *err)
{
	hip_error e;

	if (pcie)
		return rt_fail(err, RT_EXIT_USAGE, "a dma-buf mapped through PCIe is a "
			       "CUDA option; HIP has none");
	if (!d->fn.range_handle)
		return rt_fail(err, RT_EXIT_ENV,
			       "the ROCm runtime does not support dma-buf export (this libamdhip64.so has no hipMemGetHandleForAddressRange)");
	e = d->fn.range_handle(fd, (void *)(uintptr_t)addr, len,
			       HIP_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (e == HIP_ERROR_NOT_SUPPORTED)
		return rt_fail(err, RT_EXIT_ENV,
			       "this GPU or its driver does not support dma-buf export (hipMemGetHandleForAddressRange: %s)",
			       hip_name(d, e));
	return e == HIP_SUCCESS ? 0 : hip_fail(d, e, "hipMemGetHandleForAddressRange", err);
}

const struct rt_gpu_ops rt_gpu_hip_ops = {
	.api = "HIP",
	.libs = hip_libs,
	.open = hip_open,
	.close = hip_close,
	.alloc = hip_alloc,
	.free = hip_free,
	.to_dev = hip_to_dev,
	.to_host = hip_to_host,
	.export_dmabuf = hip_export,
};
