/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* gpu-probe: what GPUDirect RDMA would find on this host, through the
 * same code rdmatest uses (core/gpumem.c, pcitopo.c, pciacs.c, iommu.c):
 * the PCIe relations of GPUs and RDMA devices, ACS on the bridges
 * between each RDMA device and its nearest GPU, the IOMMU mode, and per
 * GPU API a driver load, an allocation, a pattern copied there and back,
 * a dma-buf export and the peer memory module. Never installed; run by
 * scripts/gpu-probe (docs/dev/gpu.md). Links no RDMA library, so that a
 * host with only a C compiler can build it.
 *
 *   gpu-probe [--api cuda|hip] [--gpu N|BUSID] [--sysfs DIR] [--cmdline FILE]
 *
 * Exit 0 when every GPU opened passed allocation, copy and dma-buf
 * export; 3 when no GPU could be opened (with both APIs tried, one
 * vendor's driver missing is expected) or a step found the host lacking;
 * 1 when a copied pattern came back wrong; 2 for bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/gpumem.h"
#include "rdmatest/iommu.h"
#include "rdmatest/pciacs.h"
#include "rdmatest/pcitopo.h"

#define PROBE_LEN ((size_t)1 << 20) /* the pattern's size: 1 MiB */

struct probe {
	const char *sysfs, *cmdline, *gpu;
	int apis[2], n_apis;
	int opened;
	struct rt_pcitopo topo;
	int exit_code;
};

/* The driver's bus id ("0000:3B:00.0", "00000000:3b:00.0") as numbers. */
static unsigned long bus_key(const char *id)
{
	unsigned dom, bus, dev, fn;

	if (sscanf(id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return (unsigned long)-1;
	return (unsigned long)dom << 16 | bus << 8 | dev << 3 | fn;
}

/* The RDMA device nearest the GPU at bus_id, or -1. */
static int nearest_rdma(const struct rt_pcitopo *t, const char *bus_id, enum rt_pci_rel *rel)
{
	int gpu = -1, best = -1;

	for (int i = 0; i < t->n_gpu && gpu < 0; i++)
		if (bus_key(t->gpu[i].name) == bus_key(bus_id))
			gpu = i;
	for (int i = 0; gpu >= 0 && i < t->n_rdma; i++) {
		enum rt_pci_rel r = rt_pci_relation(&t->gpu[gpu], &t->rdma[i]);

		if (best < 0 || r < *rel) {
			best = i;
			*rel = r;
		}
	}
	return best;
}

static void worse(struct probe *p, int code)
{
	if (p->exit_code == 0 || (code == RT_EXIT_FAIL && p->exit_code != RT_EXIT_USAGE))
		p->exit_code = code;
}

static void print_gpus(const struct rt_pcitopo *t)
{
	printf("gpus: %d%s\n", t->n_gpu, t->truncated ? " (list truncated)" : "");
	for (int i = 0; i < t->n_gpu; i++) {
		const struct rt_pci_func *g = &t->gpu[i];

		printf("gpu %d: %s vendor 0x%04x numa %d link %.1f GT/s x%d of %.1f GT/s x%d%s\n",
		       i, g->name, g->vendor, g->numa_node, g->link.cur_gts, g->link.cur_width,
		       g->link.max_gts, g->link.max_width,
		       rt_pci_link_degraded(&g->link) ? " DEGRADED" : "");
	}
}

static void print_acs(const struct probe *p, const struct rt_pci_func *a,
		      const struct rt_pci_func *b)
{
	struct rt_acs_route r;

	if (rt_pci_acs_route(p->sysfs, a, b, &r))
		printf("  acs: P2P redirected at %s (ACSCtl 0x%04x): traffic goes through the root complex\n",
		       r.redirect_at, r.redirect_ctrl);
	else if (r.unreadable)
		printf("  acs: %d of %d bridges unreadable (config space needs root)\n",
		       r.unreadable, r.bridges);
	else
		printf("  acs: no redirect on %d bridges\n", r.bridges);
}

static void print_rdma(const struct probe *p)
{
	const struct rt_pcitopo *t = &p->topo;

	printf("rdma devices: %d\n", t->n_rdma);
	for (int i = 0; i < t->n_rdma; i++) {
		enum rt_pci_rel rel = RT_PCI_SYS;
		int g = rt_pcitopo_nearest_gpu(t, i, &rel);

		printf("rdma %s: numa %d", t->rdma[i].name, t->rdma[i].numa_node);
		for (int j = 0; j < t->n_gpu; j++)
			printf(" gpu%d=%s", j, rt_pci_rel_name(rt_pci_relation(&t->rdma[i], &t->gpu[j])));
		if (g < 0) {
			printf("; no GPU\n");
			continue;
		}
		printf("; nearest gpu %d (%s)%s\n", g, rt_pci_rel_name(rel),
		       rel > RT_PCI_PXB ? ": farther than PXB, GPUDirect will be slow" : "");
		print_acs(p, &t->rdma[i], &t->gpu[g]);
	}
}

static void print_topology(struct probe *p)
{
	struct rt_error err = { 0 };
	struct rt_iommu io;

	if (rt_pcitopo_scan(&p->topo, p->sysfs, &err)) {
		printf("topology: %s\n", err.reason);
		return;
	}
	print_gpus(&p->topo);
	print_rdma(p);
	rt_iommu_read(p->sysfs, p->cmdline, NULL, &io);
	printf("iommu: %s (%d units, %d groups%s)\n", rt_iommu_mode_name(io.mode), io.units,
	       io.groups, io.cmdline_pt ? ", iommu=pt" : "");
	for (int i = 0; i < p->topo.n_gpu; i++) {
		rt_iommu_read(p->sysfs, p->cmdline, p->topo.gpu[i].name, &io);
		printf("iommu gpu %d: %s%s%s\n", i, rt_iommu_mode_name(io.mode),
		       io.domain_type[0] ? ", domain " : "", io.domain_type);
	}
}

/* Allocation, a pattern there and back, dma-buf export: one line each. */
static void exercise(struct probe *p, struct rt_gpumem *g)
{
	struct rt_error err = { 0 };
	struct rt_gpumem_buf *b;
	unsigned char *out = malloc(PROBE_LEN), *in = calloc(1, PROBE_LEN);

	if (!out || !in || rt_gpumem_alloc(g, PROBE_LEN, &b, &err)) {
		printf("  alloc: FAIL %s\n", err.set ? err.reason : "host memory");
		worse(p, err.set ? err.exit_code : RT_EXIT_FAIL);
		goto out;
	}
	printf("  alloc: ok, %zu bytes at 0x%llx\n", b->alloc_len, (unsigned long long)b->addr);
	for (size_t i = 0; i < PROBE_LEN; i++)
		out[i] = (unsigned char)(i * 131 + (i >> 12));
	if (rt_gpumem_to_dev(g, b, 0, out, PROBE_LEN, &err) ||
	    rt_gpumem_to_host(g, b, 0, in, PROBE_LEN, &err)) {
		printf("  copy: FAIL %s\n", err.reason);
		worse(p, err.exit_code);
	} else if (memcmp(in, out, PROBE_LEN) != 0) {
		printf("  copy: FAIL the pattern came back different\n");
		worse(p, RT_EXIT_FAIL);
	} else {
		printf("  copy: ok, %zu bytes there and back\n", (size_t)PROBE_LEN);
	}
	memset(&err, 0, sizeof(err));
	if (rt_gpumem_export_dmabuf(g, b, &err)) {
		printf("  dmabuf: FAIL %s\n", err.reason);
		worse(p, err.exit_code);
	} else {
		printf("  dmabuf: ok, fd %d\n", b->dmabuf_fd);
	}
out:
	free(out);
	free(in);
}

static void probe_api(struct probe *p, enum rt_gpu_api api)
{
	struct rt_error err = { 0 };
	struct rt_gpumem g;

	enum rt_pci_rel rel = RT_PCI_SYS;
	int nic;

	if (rt_gpumem_open(&g, api, p->gpu, &err)) {
		printf("%s: %s\n", rt_gpu_api_name(api), err.reason);
		/* trying both APIs, one vendor's driver is expected missing */
		if (p->n_apis == 1)
			worse(p, err.exit_code);
		return;
	}
	p->opened++;
	printf("%s: gpu %d %s \"%s\"\n", rt_gpu_api_name(api), g.index, g.bus_id, g.name);
	exercise(p, &g);
	printf("  peer memory: %s %s\n", rt_gpumem_peermem_module(api),
	       rt_gpumem_peermem_loaded(p->sysfs, api) ? "loaded" : "not loaded");
	nic = nearest_rdma(&p->topo, g.bus_id, &rel);
	if (nic < 0 && p->topo.n_rdma > 0)
		nic = 0; /* the GPU is not in the scan: any device will do */
	if (nic >= 0)
		/* scripts/gpu-probe runs the loopback each such line names */
		printf("  rdma: %s (%s)\nloopback: %s --use_%s=%d\n",
		       p->topo.rdma[nic].name, rt_pci_rel_name(rel), p->topo.rdma[nic].name,
		       api == RT_GPU_HIP ? "rocm" : "cuda", g.index);
	else
		printf("  rdma: no RDMA device with a PCI function here\n");
	rt_gpumem_close(&g);
}

static int parse_args(struct probe *p, int argc, char **argv)
{
	enum rt_gpu_api api;

	/* options come in pairs: the name, then its value */
	for (int i = 1; i < argc; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			return -1;
		if (!strcmp(argv[i], "--api") && rt_gpu_api_parse(v, &api) == 0)
			p->apis[0] = (int)api, p->n_apis = 1;
		else if (!strcmp(argv[i], "--gpu"))
			p->gpu = v;
		else if (!strcmp(argv[i], "--sysfs"))
			p->sysfs = v;
		else if (!strcmp(argv[i], "--cmdline"))
			p->cmdline = v;
		else
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct probe p = {
		.sysfs = "/sys", .cmdline = "/proc/cmdline",
		.apis = { RT_GPU_CUDA, RT_GPU_HIP }, .n_apis = 2,
	};

	if (parse_args(&p, argc, argv)) {
		fprintf(stderr, "usage: gpu-probe [--api cuda|hip] [--gpu N|BUSID] [--sysfs DIR] [--cmdline FILE]\n");
		return RT_EXIT_USAGE;
	}
	print_topology(&p);
	for (int i = 0; i < p.n_apis; i++)
		probe_api(&p, (enum rt_gpu_api)p.apis[i]);
	if (!p.opened)
		worse(&p, RT_EXIT_ENV);
	printf("verdict: %s\n", rt_exit_name(p.exit_code));
	return p.exit_code;
}
