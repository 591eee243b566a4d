/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mesh --gpu's GPU memory (meshgpu.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/meshgpu.h"
#include "mesh/meshtest.h"
#include "rdmatest/util.h"

#define CHUNK ((size_t)RT_MESH_BW_CHUNK)
#define LAND (CHUNK * RT_MESH_RAILS_MAX)
#define WINDOW (CHUNK * RT_MESH_BW_WINDOW)
#define WIN_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

uint8_t rt_mesh_gpu_byte(uint32_t round, size_t i)
{
	/* varies within a chunk and from round to round, so that a stale
	 * window (a write that never landed) reads back wrong */
	return (uint8_t)((i * 131u + (i >> 8) * 7u + (size_t)round * 29u + 1u) & 0xffu);
}

void rt_mesh_gpu_pick(const struct rt_pcitopo *t, const char *dev, unsigned rail, char *bus,
		      size_t len, uint8_t *rel)
{
	enum rt_pci_rel r;
	int gpu = -1;

	for (int i = 0; i < t->n_rdma && gpu < 0; i++)
		if (!strcmp(t->rdma[i].name, dev))
			gpu = rt_pcitopo_nearest_gpu(t, i, &r);
	*rel = gpu >= 0 ? (uint8_t)(RT_MESH_GPU_REL0 + r) : RT_MESH_GPU_UNKNOWN;
	if (gpu < 0 && t->n_gpu > 0)
		gpu = (int)(rail % (unsigned)t->n_gpu);
	rt_strlcpy(bus, gpu >= 0 ? t->gpu[gpu].name : "", len);
}

/* The driver's spelling of a bus id ("00000000:3B:00.0") as the
 * kernel's ("0000:3b:00.0"), which fits the HELLO's field. */
static void bus_kernel(const char *in, char *out, size_t len)
{
	const char *colon = strchr(in, ':');
	size_t i = 0;

	if (colon && colon - in > 4 && strchr(colon + 1, ':'))
		in = colon - 4;
	for (; in[i] && i + 1 < len; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	out[i] = '\0';
}

static struct ibv_context *open_dev(const char *name, struct rt_error *err)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		rt_fail(err, RT_EXIT_ENV, "cannot open RDMA device %s", name);
	return ctx;
}

/* Each buffer registered once on the rail's device, as the tests will:
 * the host's registration path is proven before any pair starts. */
static int try_register(struct rt_mesh_gpu_rail *r, const char *dev, struct rt_error *err)
{
	struct rt_gpumem_buf *bufs[] = { r->src, r->land, r->win };
	struct ibv_context *ctx = open_dev(dev, err);
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	int rc = ctx && !pd ? rt_fail(err, RT_EXIT_ENV, "cannot allocate a PD on %s", dev) : 0;

	for (size_t i = 0; pd && !rc && i < ARRAY_SIZE(bufs); i++) {
		struct ibv_mr *mr = rt_gpureg_mr(pd, &r->g, bufs[i], WIN_ACCESS, RT_GPUREG_AUTO,
						 r->sysfs, NULL, err);

		rc = mr ? ibv_dereg_mr(mr) : -1;
	}
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	return ctx ? rc : -1;
}

static int alloc_bufs(struct rt_mesh_gpu_rail *r, struct rt_error *err)
{
	uint8_t *zero;
	int rc;

	if (rt_gpumem_alloc(&r->g, CHUNK, &r->src, err) ||
	    rt_gpumem_alloc(&r->g, LAND, &r->land, err) ||
	    rt_gpumem_alloc(&r->g, WINDOW, &r->win, err))
		return -1;
	/* device memory comes uninitialised: nothing of another user's is read back */
	zero = rt_xcalloc(1, WINDOW);
	rc = rt_gpumem_to_dev(&r->g, r->win, 0, zero, WINDOW, err) ||
	     rt_gpumem_to_dev(&r->g, r->src, 0, zero, CHUNK, err) ? -1 : 0;
	free(zero);
	return rc;
}

static int open_rail(struct rt_mesh_gpu *m, const struct rt_pcitopo *t,
		     struct rt_mesh_rail *rail, struct rt_error *err)
{
	struct rt_mesh_gpu_rail *r = &m->r[rail->rail];
	char bus[RT_PCI_BDF_LEN];

	rt_mesh_gpu_pick(t, rail->dev, rail->rail, bus, sizeof(bus), &rail->gpu_rel);
	if (rt_gpumem_open(&r->g, m->api, bus[0] ? bus : NULL, err))
		return -1;
	r->open = true;
	r->sysfs = m->sysfs;
	bus_kernel(r->g.bus_id, rail->gpu, sizeof(rail->gpu));
	if (!rail->gpu[0]) /* a driver that names no bus id: the field still says GPU */
		snprintf(rail->gpu, sizeof(rail->gpu), "index %d", r->g.index);
	return alloc_bufs(r, err) || try_register(r, rail->dev, err) ? -1 : 0;
}

int rt_mesh_gpu_open(struct rt_mesh_gpu *m, enum rt_gpu_api api, const char *sysfs,
		     struct rt_mesh_rail *rails, unsigned n, struct rt_error *err)
{
	struct rt_pcitopo *t = rt_xcalloc(1, sizeof(*t));
	struct rt_error scan = { 0 };
	int rc = 0;

	memset(m, 0, sizeof(*m));
	m->api = api;
	m->sysfs = sysfs;
	if (!n)
		rc = rt_fail(err, RT_EXIT_ENV, "--gpu: this host has no rail (no RDMA port) "
			     "to put GPU buffers behind");
	/* no PCI bus in sysfs is a tree without GPUs: the fallback rule */
	(void)rt_pcitopo_scan(t, sysfs, &scan);
	for (unsigned i = 0; i < n && !rc; i++) {
		struct rt_error e = { 0 };

		if (open_rail(m, t, &rails[i], &e))
			rc = rt_fail(err, e.exit_code, "--gpu: rail %u (%s): %s", rails[i].rail,
				     rails[i].dev, e.reason);
	}
	free(t);
	if (rc)
		rt_mesh_gpu_close(m);
	return rc;
}

void rt_mesh_gpu_close(struct rt_mesh_gpu *m)
{
	for (unsigned i = 0; i < RT_MESH_RAILS_MAX; i++)
		if (m->r[i].open)
			rt_gpumem_close(&m->r[i].g); /* frees its buffers too */
	memset(m->r, 0, sizeof(m->r));
}

struct rt_mesh_gpu_rail *rt_mesh_gpu_rail_of(struct rt_mesh_gpu *m,
					     const struct rt_mesh_rail *rails, unsigned n,
					     const char *dev, unsigned port)
{
	for (unsigned i = 0; i < n; i++)
		if (rails[i].port == port && !strcmp(rails[i].dev, dev) &&
		    m->r[rails[i].rail].open)
			return &m->r[rails[i].rail];
	return NULL;
}

static int reg(struct rt_mesh_gpu_rail *r, struct rt_gpumem_buf *b, size_t off, size_t len,
	       struct ibv_pd *pd, int access, struct rt_buf *out, struct rt_error *err)
{
	/* the MR covers the whole buffer; the connection's rt_buf starts at
	 * its slot, so that offset 0 is the slot's first byte */
	out->mr = rt_gpureg_mr(pd, &r->g, b, access, RT_GPUREG_AUTO, r->sysfs, NULL, err);
	out->addr = (uint8_t *)(uintptr_t)(b->addr + off);
	out->len = len;
	return out->mr ? 0 : -1;
}

static int fill(struct rt_mesh_gpu_conn *c, uint32_t round, struct rt_error *err)
{
	uint8_t *host = rt_xcalloc(1, CHUNK);
	int rc;

	rc = rt_gpumem_to_dev(&c->rail->g, c->rail->land, c->land_off, host, CHUNK, err);
	for (size_t i = 0; i < CHUNK; i++)
		host[i] = rt_mesh_gpu_byte(round, i);
	rc = rc ? rc : rt_gpumem_to_dev(&c->rail->g, c->rail->src, 0, host, CHUNK, err);
	free(host);
	return rc;
}

int rt_mesh_gpu_conn_open(struct rt_mesh_gpu_conn *c, struct rt_mesh_gpu_rail *r,
			  struct ibv_pd *pd, bool active, unsigned slot, uint32_t round,
			  struct rt_error *err)
{
	memset(c, 0, sizeof(*c));
	c->rail = r;
	c->land_off = (size_t)(slot % RT_MESH_RAILS_MAX) * CHUNK;
	if (!active)
		return reg(r, r->win, 0, WINDOW, pd, WIN_ACCESS, &c->bw, err);
	if (reg(r, r->src, 0, CHUNK, pd, IBV_ACCESS_LOCAL_WRITE, &c->bw, err) ||
	    reg(r, r->land, c->land_off, CHUNK, pd, IBV_ACCESS_LOCAL_WRITE, &c->land, err))
		return -1;
	return fill(c, round, err);
}

void rt_mesh_gpu_conn_close(struct rt_mesh_gpu_conn *c)
{
	if (c->bw.mr)
		ibv_dereg_mr(c->bw.mr);
	if (c->land.mr)
		ibv_dereg_mr(c->land.mr);
	c->bw.mr = c->land.mr = NULL;
}

/* The first byte of host[0..len) that is not the round's pattern, or len. */
static size_t first_wrong(const uint8_t *host, size_t len, uint32_t round)
{
	size_t i = 0;

	while (i < len && host[i] == rt_mesh_gpu_byte(round, i))
		i++;
	return i;
}

int rt_mesh_gpu_check(const struct rt_mesh_gpu_conn *c, uint32_t round, size_t len,
		      struct rt_error *err)
{
	uint8_t *host = rt_xcalloc(1, CHUNK);
	size_t i;
	int rc;

	if (len > CHUNK)
		len = CHUNK;
	rc = rt_gpumem_to_host(&c->rail->g, c->rail->land, c->land_off, host, len, err);
	i = rc ? len : first_wrong(host, len, round);
	if (i < len)
		rc = rt_fail(err, RT_EXIT_FAIL, "GPU %s data check: byte %zu read back "
			     "0x%02x, 0x%02x written", c->rail->g.bus_id, i, host[i],
			     rt_mesh_gpu_byte(round, i));
	free(host);
	return rc;
}
