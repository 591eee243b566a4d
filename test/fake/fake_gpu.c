/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/udmabuf.h>

#include "fake_gpu.h"

struct fake_alloc {
	void *p;
	size_t len;
};

/* The driver's own process-wide tables (see fake_gpu.h). */
static struct fake_alloc allocs[FAKE_GPU_MAX_ALLOCS];
static int contexts;

/* Entry i of a comma list into buf; false past the end. */
static bool list_item(const char *list, int i, char *buf, size_t len)
{
	const char *p = list;

	for (; i > 0 && p; i--) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p || !*p)
		return false;
	size_t n = strcspn(p, ",");
	if (n == 0 || n >= len)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

static const char *gpu_list(void)
{
	const char *s = getenv("RT_FAKE_GPUS");

	return s ? s : "0000:3b:00.0";
}

int fake_gpu_count(void)
{
	char id[32];
	int n = 0;

	while (n < FAKE_GPU_MAX && list_item(gpu_list(), n, id, sizeof(id)))
		n++;
	return n;
}

bool fake_gpu_bus_id(int i, char *buf, size_t len)
{
	return i >= 0 && i < fake_gpu_count() && list_item(gpu_list(), i, buf, len);
}

int fake_gpu_by_bus_id(const char *bus_id)
{
	char id[32];

	for (int i = 0; i < fake_gpu_count(); i++) {
		if (!fake_gpu_bus_id(i, id, sizeof(id)))
			continue;
		size_t n = strlen(id), m = strlen(bus_id);
		/* "3b:00.0" is short for "0000:3b:00.0" */
		if (!strcasecmp(id, bus_id) || (m < n && !strcasecmp(id + n - m, bus_id) &&
						 id[n - m - 1] == ':'))
			return i;
	}
	return -1;
}

bool fake_gpu_fails(const char *what)
{
	const char *s = getenv("RT_FAKE_GPU_FAIL");
	char item[32];

	for (int i = 0; s && list_item(s, i, item, sizeof(item)); i++)
		if (!strcmp(item, what))
			return true;
	return false;
}

void *fake_gpu_alloc(size_t len)
{
	for (int i = 0; i < FAKE_GPU_MAX_ALLOCS; i++) {
		if (allocs[i].p)
			continue;
		allocs[i].p = calloc(1, len);
		allocs[i].len = len;
		return allocs[i].p;
	}
	return NULL;
}

bool fake_gpu_free(void *p)
{
	for (int i = 0; i < FAKE_GPU_MAX_ALLOCS; i++) {
		if (p && allocs[i].p == p) {
			free(p);
			allocs[i].p = NULL;
			return true;
		}
	}
	return false;
}

bool fake_gpu_inside(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;

	for (int i = 0; i < FAKE_GPU_MAX_ALLOCS; i++) {
		uintptr_t b = (uintptr_t)allocs[i].p;

		if (allocs[i].p && a >= b && a - b <= allocs[i].len &&
		    len <= allocs[i].len - (a - b))
			return true;
	}
	return false;
}

/* The kernel's udmabuf driver turns a sealed memfd into a dma-buf
 * (linux/udmabuf.h): the same kind of descriptor a GPU driver exports. */
int fake_gpu_dmabuf(size_t len)
{
	struct udmabuf_create c;
	int dev, mem, fd = -1;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	mem = memfd_create("fake-gpu", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (mem >= 0 && ftruncate(mem, (off_t)len) == 0 &&
	    fcntl(mem, F_ADD_SEALS, F_SEAL_SHRINK) == 0) {
		memset(&c, 0, sizeof(c));
		c.memfd = (uint32_t)mem;
		c.flags = UDMABUF_FLAGS_CLOEXEC;
		c.size = len;
		fd = ioctl(dev, UDMABUF_CREATE, &c);
	}
	if (mem >= 0)
		close(mem);
	close(dev);
	return fd;
}

int fake_gpu_live(void)
{
	int n = contexts;

	for (int i = 0; i < FAKE_GPU_MAX_ALLOCS; i++)
		n += allocs[i].p != NULL;
	return n;
}

void fake_gpu_ctx(int delta)
{
	contexts += delta;
}
