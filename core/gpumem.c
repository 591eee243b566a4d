/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* GPU memory, vendor-neutral: loads the driver, keeps the bounded table
 * of buffers and checks every copy against its buffer; the vendor files
 * (gpu_cuda.c, gpu_hip.c) only call their driver. */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "gpudrv.h"
#include "rdmatest/gpumem.h"
#include "rdmatest/util.h"

static const struct rt_gpu_ops *ops_of(enum rt_gpu_api api)
{
	return api == RT_GPU_HIP ? &rt_gpu_hip_ops : &rt_gpu_cuda_ops;
}

int rt_gpu_api_parse(const char *s, enum rt_gpu_api *api)
{
	if (!strcasecmp(s, "cuda") || !strcasecmp(s, "nvidia")) {
		*api = RT_GPU_CUDA;
		return 0;
	}
	if (!strcasecmp(s, "hip") || !strcasecmp(s, "rocm") || !strcasecmp(s, "amd")) {
		*api = RT_GPU_HIP;
		return 0;
	}
	return -1;
}

const char *rt_gpu_api_name(enum rt_gpu_api api)
{
	return ops_of(api)->api;
}

const char *rt_gpu_api_lib(enum rt_gpu_api api)
{
	return ops_of(api)->libs[0];
}

const char *rt_gpumem_peermem_module(enum rt_gpu_api api)
{
	return api == RT_GPU_HIP ? "amdgpu" : "nvidia_peermem";
}

bool rt_gpumem_peermem_loaded(const char *sysfs, enum rt_gpu_api api)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/module/%s", sysfs, rt_gpumem_peermem_module(api));
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool rt_gpumem_error_is_env(const struct rt_error *err)
{
	return err->set && err->exit_code == RT_EXIT_ENV;
}

/* A PCI bus id: [domain:]bus:device.function in hex, as lspci and the
 * drivers print it; the driver itself checks that it names a GPU. */
static bool looks_like_bus_id(const char *s)
{
	size_t colons = 0, dots = 0;

	for (const char *p = s; *p; p++) {
		if (*p == ':')
			colons++;
		else if (*p == '.')
			dots++;
		else if (!isxdigit((unsigned char)*p))
			return false;
	}
	return colons >= 1 && colons <= 2 && dots == 1 && strlen(s) < 32;
}

static int parse_which(const char *which, struct rt_gpu_sel *sel, struct rt_error *err)
{
	char *end;
	long v;

	sel->index = 0;
	sel->bus_id = NULL;
	if (!which || !*which)
		return 0;
	if (strchr(which, ':')) {
		if (!looks_like_bus_id(which))
			return rt_fail(err, RT_EXIT_USAGE,
				       "GPU '%s' is neither an index nor a PCI bus id (0000:3b:00.0)", which);
		sel->bus_id = which;
		return 0;
	}
	errno = 0;
	v = strtol(which, &end, 10);
	if (errno || *end || end == which || v < 0 || v > INT_MAX)
		return rt_fail(err, RT_EXIT_USAGE,
			       "GPU '%s' is neither an index nor a PCI bus id (0000:3b:00.0)", which);
	sel->index = (int)v;
	return 0;
}

#if RT_STATIC
static void *load_driver(const struct rt_gpu_ops *ops, struct rt_error *err)
{
	rt_fail(err, RT_EXIT_ENV,
		"GPU memory needs the dynamically linked rdmatest: this static build cannot load %s (use the dynamic build, or the Debian package)",
		ops->libs[0]);
	return NULL;
}
#else
static void *load_driver(const struct rt_gpu_ops *ops, struct rt_error *err)
{
	char why[160] = "not found";

	for (const char *const *l = ops->libs; *l; l++) {
		void *dl = dlopen(*l, RTLD_NOW | RTLD_LOCAL);
		const char *e;

		if (dl)
			return dl;
		/* the first name's reason; the next dlopen frees dlerror's text */
		e = dlerror();
		if (l == ops->libs && e)
			rt_strlcpy(why, e, sizeof(why));
	}
	rt_fail(err, RT_EXIT_ENV, "cannot load %s, the %s driver library (%s): is the %s driver installed?",
		ops->libs[0], ops->api, why, ops == &rt_gpu_hip_ops ? "ROCm" : "NVIDIA");
	return NULL;
}
#endif

int rt_gpumem_open(struct rt_gpumem *g, enum rt_gpu_api api, const char *which,
		   struct rt_error *err)
{
	struct rt_gpu_sel sel;
	void *dl;

	memset(g, 0, sizeof(*g));
	g->api = api;
	g->ops = ops_of(api);
	g->index = -1;
	if (parse_which(which, &sel, err))
		return -1;
	dl = load_driver(g->ops, err);
	if (!dl)
		return -1;
	g->drv = g->ops->open(dl, &sel, g, err);
	return g->drv ? 0 : -1;
}

void rt_gpumem_close(struct rt_gpumem *g)
{
	if (!g->drv)
		return;
	for (size_t i = 0; i < RT_GPUMEM_MAX_BUFS; i++)
		if (g->bufs[i].used)
			rt_gpumem_free(g, &g->bufs[i]);
	g->ops->close(g->drv);
	g->drv = NULL;
}

static int alloc(struct rt_gpumem *g, size_t len, bool managed,
		 struct rt_gpumem_buf **out, struct rt_error *err)
{
	struct rt_gpumem_buf *b = NULL;

	if (len == 0 || len > RT_GPUMEM_MAX_LEN)
		return rt_fail(err, RT_EXIT_USAGE, "GPU buffer of %zu bytes: the size must be 1 to %zu",
			       len, RT_GPUMEM_MAX_LEN);
	for (size_t i = 0; i < RT_GPUMEM_MAX_BUFS && !b; i++)
		if (!g->bufs[i].used)
			b = &g->bufs[i];
	if (!b)
		return rt_fail(err, RT_EXIT_FAIL, "more than %d GPU buffers at once",
			       RT_GPUMEM_MAX_BUFS);
	if (managed && !g->ops->alloc_managed)
		return rt_fail(err, RT_EXIT_ENV, "managed GPU memory is offered for CUDA only, "
			       "not %s", g->ops->api);
	b->alloc_len = (len + RT_GPUMEM_ALIGN - 1) / RT_GPUMEM_ALIGN * RT_GPUMEM_ALIGN;
	if ((managed ? g->ops->alloc_managed : g->ops->alloc)(g->drv, b->alloc_len, &b->addr,
							      err))
		return -1;
	b->used = true;
	b->len = len;
	b->dmabuf_fd = -1;
	b->managed = managed;
	*out = b;
	return 0;
}

int rt_gpumem_alloc(struct rt_gpumem *g, size_t len, struct rt_gpumem_buf **out,
		    struct rt_error *err)
{
	return alloc(g, len, false, out, err);
}

int rt_gpumem_alloc_managed(struct rt_gpumem *g, size_t len, struct rt_gpumem_buf **out,
			    struct rt_error *err)
{
	return alloc(g, len, true, out, err);
}

void rt_gpumem_free(struct rt_gpumem *g, struct rt_gpumem_buf *b)
{
	if (!b || !b->used)
		return;
	if (b->dmabuf_fd >= 0)
		close(b->dmabuf_fd);
	g->ops->free(g->drv, b->addr);
	memset(b, 0, sizeof(*b));
	b->dmabuf_fd = -1;
}

static int in_bounds(const struct rt_gpumem_buf *b, size_t off, size_t len,
		     struct rt_error *err)
{
	if (!b->used || off > b->len || len > b->len - off)
		return rt_fail(err, RT_EXIT_FAIL,
			       "GPU copy of %zu bytes at offset %zu outside a buffer of %zu",
			       len, off, b->used ? b->len : 0);
	return 0;
}

int rt_gpumem_to_dev(struct rt_gpumem *g, struct rt_gpumem_buf *b, size_t off,
		     const void *src, size_t len, struct rt_error *err)
{
	if (in_bounds(b, off, len, err))
		return -1;
	return len ? g->ops->to_dev(g->drv, b->addr + off, src, len, err) : 0;
}

int rt_gpumem_to_host(struct rt_gpumem *g, const struct rt_gpumem_buf *b, size_t off,
		      void *dst, size_t len, struct rt_error *err)
{
	if (in_bounds(b, off, len, err))
		return -1;
	return len ? g->ops->to_host(g->drv, dst, b->addr + off, len, err) : 0;
}

int rt_gpumem_export_dmabuf(struct rt_gpumem *g, struct rt_gpumem_buf *b,
			    struct rt_error *err)
{
	int fd = -1;

	if (!b->used)
		return rt_fail(err, RT_EXIT_FAIL, "dma-buf export of a freed GPU buffer");
	if (b->dmabuf_fd >= 0)
		return 0;
	if (g->ops->export_dmabuf(g->drv, b->addr, b->alloc_len, b->pcie_mapping, &fd, err))
		return -1;
	if (fd < 0)
		return rt_fail(err, RT_EXIT_FAIL, "the %s driver exported no dma-buf descriptor",
			       g->ops->api);
	b->dmabuf_fd = fd;
	return 0;
}
