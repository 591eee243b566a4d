/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* NVIDIA GPUs through the CUDA Driver API, resolved from libcuda.so.1 at
 * run time. The few types, constants and prototypes used are declared
 * here from their documented ABI (the CUDA Driver API reference): no
 * CUDA header is needed to build. As perftest's src/cuda_memory.c,
 * cuda_memory_init(), does, the device's primary context is retained
 * and made current rather than a context of our own created. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudrv.h"
#include "rdmatest/util.h"

/* CUresult values (CUDA Driver API reference, "Data types": CUresult). */
enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_NOT_SUPPORTED = 801,
};
/* CUdevice_attribute: CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED (CUDA 11.7). */
enum { CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124 };
/* CUmemRangeHandleType: CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD. */
enum { CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 1 };
/* CUmemRangeFlags (CUDA 12.8): the dma-buf maps through the PCIe BAR1. */
enum { CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE = 1 };
/* CUmemAttach_flags: CU_MEM_ATTACH_GLOBAL, reachable from every stream. */
enum { CU_MEM_ATTACH_GLOBAL = 1 };

typedef int cu_result;
typedef int cu_device;
typedef void *cu_context;             /* CUcontext: an opaque pointer */
typedef unsigned long long cu_devptr; /* CUdeviceptr (the _v2 ABI) */

struct cuda_fns {
	cu_result (*init)(unsigned flags);
	cu_result (*error_name)(cu_result r, const char **name);
	cu_result (*device_count)(int *n);
	cu_result (*device_get)(cu_device *d, int ordinal);
	cu_result (*device_by_bus_id)(cu_device *d, const char *bus_id);
	cu_result (*device_bus_id)(char *buf, int len, cu_device d);
	cu_result (*device_name)(char *buf, int len, cu_device d);
	cu_result (*device_attr)(int *v, int attr, cu_device d);
	cu_result (*ctx_retain)(cu_context *c, cu_device d);
	cu_result (*ctx_release)(cu_device d);
	cu_result (*ctx_set_current)(cu_context c);
	cu_result (*mem_alloc)(cu_devptr *p, size_t len);
	cu_result (*mem_alloc_managed)(cu_devptr *p, size_t len, unsigned flags);
	cu_result (*mem_free)(cu_devptr p);
	cu_result (*htod)(cu_devptr dst, const void *src, size_t len);
	cu_result (*dtoh)(void *dst, cu_devptr src, size_t len);
	/* CUDA 11.7 and later; NULL on older drivers (no dma-buf) */
	cu_result (*range_handle)(void *handle, cu_devptr p, size_t len, int type,
				  unsigned long long flags);
};

struct rt_gpu_drv {
	void *dl;
	struct cuda_fns fn;
	cu_device dev;
	bool ctx_retained;
};

/* Each function under the names drivers export, newest first: the
 * versioned names (_v2) replaced the plain ones in CUDA 3.2 and 11.0
 * (cuda.h maps the plain names onto them). */
struct cuda_sym {
	size_t off;
	const char *names[3];
	bool optional;
};

#define SYM(field, ...) { offsetof(struct cuda_fns, field), { __VA_ARGS__ }, false }
#define OPT(field, ...) { offsetof(struct cuda_fns, field), { __VA_ARGS__ }, true }
static const struct cuda_sym cuda_syms[] = {
	SYM(init, "cuInit"),
	SYM(error_name, "cuGetErrorName"),
	SYM(device_count, "cuDeviceGetCount"),
	SYM(device_get, "cuDeviceGet"),
	SYM(device_by_bus_id, "cuDeviceGetByPCIBusId"),
	SYM(device_bus_id, "cuDeviceGetPCIBusId"),
	SYM(device_name, "cuDeviceGetName"),
	SYM(device_attr, "cuDeviceGetAttribute"),
	SYM(ctx_retain, "cuDevicePrimaryCtxRetain"),
	SYM(ctx_release, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
	SYM(ctx_set_current, "cuCtxSetCurrent"),
	SYM(mem_alloc, "cuMemAlloc_v2", "cuMemAlloc"),
	SYM(mem_alloc_managed, "cuMemAllocManaged"),
	SYM(mem_free, "cuMemFree_v2", "cuMemFree"),
	SYM(htod, "cuMemcpyHtoD_v2", "cuMemcpyHtoD"),
	SYM(dtoh, "cuMemcpyDtoH_v2", "cuMemcpyDtoH"),
	OPT(range_handle, "cuMemGetHandleForAddressRange"),
};

static const char *const cuda_libs[] = { "libcuda.so.1", NULL };

static int resolve(void *dl, struct cuda_fns *fn, struct rt_error *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(cuda_syms); i++) {
		const struct cuda_sym *s = &cuda_syms[i];
		void *p = NULL;

		for (size_t k = 0; k < ARRAY_SIZE(s->names) && s->names[k] && !p; k++)
			p = dlsym(dl, s->names[k]);
		if (!p && !s->optional)
			return rt_fail(err, RT_EXIT_ENV,
				       "libcuda.so.1 has no %s: the NVIDIA driver is too old or not a CUDA driver",
				       s->names[0]);
		/* function and object pointers share a representation on
		 * every POSIX system: dlsym(3) relies on it */
		memcpy((char *)fn + s->off, &p, sizeof(p));
	}
	return 0;
}

static const char *cu_name(const struct rt_gpu_drv *d, cu_result r)
{
	const char *name = NULL;

	if (d->fn.error_name && d->fn.error_name(r, &name) == CUDA_SUCCESS && name)
		return name;
	return "unknown CUDA error";
}

/* One line naming the call and the driver's error; out of memory and
 * unsupported are the host's limits (exit 3), the rest a failure. */
static int cu_fail(const struct rt_gpu_drv *d, cu_result r, const char *call,
		   struct rt_error *err)
{
	int cls = (r == CUDA_ERROR_OUT_OF_MEMORY || r == CUDA_ERROR_NOT_SUPPORTED ||
		   r == CUDA_ERROR_NO_DEVICE) ? RT_EXIT_ENV : RT_EXIT_FAIL;

	return rt_fail(err, cls, "CUDA %s failed: %s (%d)", call, cu_name(d, r), r);
}

static int pick_device(struct rt_gpu_drv *d, const struct rt_gpu_sel *sel,
		       struct rt_error *err)
{
	int n = 0;
	cu_result r = d->fn.device_count(&n);

	if (r != CUDA_SUCCESS && r != CUDA_ERROR_NO_DEVICE)
		return cu_fail(d, r, "cuDeviceGetCount", err);
	if (r == CUDA_ERROR_NO_DEVICE || n <= 0)
		return rt_fail(err, RT_EXIT_ENV, "no CUDA GPU on this host (libcuda.so.1 loaded, cuDeviceGetCount: 0)");
	if (sel->bus_id) {
		r = d->fn.device_by_bus_id(&d->dev, sel->bus_id);
		if (r != CUDA_SUCCESS)
			return rt_fail(err, RT_EXIT_ENV, "no CUDA GPU at PCI bus id %s (%d GPUs here): %s",
				       sel->bus_id, n, cu_name(d, r));
		return 0;
	}
	if (sel->index >= n)
		return rt_fail(err, RT_EXIT_ENV, "no CUDA GPU %d: this host has %d (0..%d)",
			       sel->index, n, n - 1);
	r = d->fn.device_get(&d->dev, sel->index);
	return r == CUDA_SUCCESS ? 0 : cu_fail(d, r, "cuDeviceGet", err);
}

/* The ordinal of d->dev, for the context's index field. */
static int device_ordinal(struct rt_gpu_drv *d)
{
	int n = 0;
	cu_device x;

	if (d->fn.device_count(&n) != CUDA_SUCCESS)
		return -1;
	for (int i = 0; i < n; i++)
		if (d->fn.device_get(&x, i) == CUDA_SUCCESS && x == d->dev)
			return i;
	return -1;
}

static void describe(struct rt_gpu_drv *d, struct rt_gpumem *g)
{
	g->index = device_ordinal(d);
	if (d->fn.device_bus_id(g->bus_id, (int)sizeof(g->bus_id), d->dev) != CUDA_SUCCESS)
		g->bus_id[0] = '\0';
	if (d->fn.device_name(g->name, (int)sizeof(g->name), d->dev) != CUDA_SUCCESS)
		g->name[0] = '\0';
	g->bus_id[sizeof(g->bus_id) - 1] = '\0';
	g->name[sizeof(g->name) - 1] = '\0';
}

static void cuda_close(struct rt_gpu_drv *d)
{
	if (!d)
		return;
	if (d->ctx_retained) {
		(void)d->fn.ctx_set_current(NULL);
		(void)d->fn.ctx_release(d->dev);
	}
	dlclose(d->dl);
	free(d);
}

static int start(struct rt_gpu_drv *d, const struct rt_gpu_sel *sel,
		 struct rt_gpumem *g, struct rt_error *err)
{
	cu_context ctx = NULL;
	cu_result r;

	if (resolve(d->dl, &d->fn, err))
		return -1;
	r = d->fn.init(0);
	if (r == CUDA_ERROR_NO_DEVICE)
		return rt_fail(err, RT_EXIT_ENV, "no CUDA GPU on this host (cuInit: %s)",
			       cu_name(d, r));
	if (r != CUDA_SUCCESS)
		return rt_fail(err, RT_EXIT_ENV, "the CUDA driver does not start (cuInit: %s, %d)",
			       cu_name(d, r), r);
	if (pick_device(d, sel, err))
		return -1;
	r = d->fn.ctx_retain(&ctx, d->dev);
	if (r != CUDA_SUCCESS)
		return cu_fail(d, r, "cuDevicePrimaryCtxRetain", err);
	d->ctx_retained = true;
	r = d->fn.ctx_set_current(ctx);
	if (r != CUDA_SUCCESS)
		return cu_fail(d, r, "cuCtxSetCurrent", err);
	describe(d, g);
	return 0;
}

static struct rt_gpu_drv *cuda_open(void *dl, const struct rt_gpu_sel *sel,
				    struct rt_gpumem *g, struct rt_error *err)
{
	struct rt_gpu_drv *d = rt_xcalloc(1, sizeof(*d));

	d->dl = dl;
	if (start(d, sel, g, err)) {
		cuda_close(d);
		return NULL;
	}
	return d;
}

static int cuda_alloc(struct rt_gpu_drv *d, size_t len, uint64_t *addr,
		      struct rt_error *err)
{
	cu_devptr p = 0;
	cu_result r = d->fn.mem_alloc(&p, len);

	if (r != CUDA_SUCCESS)
		return rt_fail(err, r == CUDA_ERROR_OUT_OF_MEMORY ? RT_EXIT_ENV : RT_EXIT_FAIL,
			       "cannot allocate %zu bytes of GPU memory (cuMemAlloc: %s)",
			       len, cu_name(d, r));
	*addr = p;
	return 0;
}

static int cuda_alloc_managed(struct rt_gpu_drv *d, size_t len, uint64_t *addr,
			      struct rt_error *err)
{
	cu_devptr p = 0;
	cu_result r = d->fn.mem_alloc_managed(&p, len, CU_MEM_ATTACH_GLOBAL);

	if (r != CUDA_SUCCESS)
		return rt_fail(err, r == CUDA_ERROR_OUT_OF_MEMORY ? RT_EXIT_ENV : RT_EXIT_FAIL,
			       "cannot allocate %zu bytes of managed GPU memory "
			       "(cuMemAllocManaged: %s)", len, cu_name(d, r));
	*addr = p;
	return 0;
}

static void cuda_free(struct rt_gpu_drv *d, uint64_t addr)
{
	(void)d->fn.mem_free((cu_devptr)addr);
}

static int cuda_to_dev(struct rt_gpu_drv *d, uint64_t dst, const void *src, size_t len,
		       struct rt_error *err)
{
	cu_result r = d->fn.htod((cu_devptr)dst, src, len);

	return r == CUDA_SUCCESS ? 0 : cu_fail(d, r, "cuMemcpyHtoD", err);
}

static int cuda_to_host(struct rt_gpu_drv *d, void *dst, uint64_t src, size_t len,
			struct rt_error *err)
{
	cu_result r = d->fn.dtoh(dst, (cu_devptr)src, len);

	return r == CUDA_SUCCESS ? 0 : cu_fail(d, r, "cuMemcpyDtoH", err);
}

static int cuda_export(struct rt_gpu_drv *d, uint64_t addr, size_t len, bool pcie,
		       int *fd, struct rt_error *err)
{
	int supported = 0;
	cu_result r;

	if (!d->fn.range_handle)
		return rt_fail(err, RT_EXIT_ENV,
			       "the CUDA driver does not support dma-buf export (no cuMemGetHandleForAddressRange: it needs CUDA 11.7 or later)");
	r = d->fn.device_attr(&supported, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, d->dev);
	if (r != CUDA_SUCCESS || !supported)
		return rt_fail(err, RT_EXIT_ENV,
			       "this GPU or its driver does not support dma-buf export (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0: it needs NVIDIA's open kernel modules and Linux 5.12 or later)");
	r = d->fn.range_handle(fd, (cu_devptr)addr, len, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
			       pcie ? CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE : 0);
	/* drivers before 12.8 know no flags and call the value invalid */
	if (pcie && (r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_NOT_SUPPORTED))
		return rt_fail(err, RT_EXIT_ENV,
			       "this GPU or its driver cannot map a dma-buf through PCIe "
			       "(cuMemGetHandleForAddressRange with the PCIe mapping flag: "
			       "%s; it needs CUDA 12.8 or later)", cu_name(d, r));
	if (r == CUDA_ERROR_NOT_SUPPORTED)
		return rt_fail(err, RT_EXIT_ENV,
			       "this GPU or its driver does not support dma-buf export (cuMemGetHandleForAddressRange: %s)",
			       cu_name(d, r));
	return r == CUDA_SUCCESS ? 0 : cu_fail(d, r, "cuMemGetHandleForAddressRange", err);
}

const struct rt_gpu_ops rt_gpu_cuda_ops = {
	.api = "CUDA",
	.libs = cuda_libs,
	.open = cuda_open,
	.close = cuda_close,
	.alloc = cuda_alloc,
	.alloc_managed = cuda_alloc_managed,
	.free = cuda_free,
	.to_dev = cuda_to_dev,
	.to_host = cuda_to_host,
	.export_dmabuf = cuda_export,
};
