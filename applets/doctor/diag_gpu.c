/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's GPUDirect RDMA checks (diag.h): on a host with a GPU (a
 * display or 3D controller of NVIDIA or AMD on the PCI bus), whether an
 * RDMA device can reach GPU memory (peer memory or dma-buf), how near
 * each RDMA device's nearest GPU is, ACS on the bridges between them,
 * PCIe links trained below their maximum, and the IOMMU mode. A host
 * without a GPU gets no line at all: the checks say nothing there.
 * The topology, ACS and IOMMU come from core (pcitopo.h, pciacs.h,
 * iommu.h); this file only judges. Memory: one struct rt_pcitopo
 * (about 50 KB: at most RT_PCITOPO_MAX GPUs and RDMA devices), allocated
 * for the check and freed after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/diag.h"
#include "doctor/diag_read.h"
#include "rdmatest/iommu.h"
#include "rdmatest/pciacs.h"
#include "rdmatest/pcitopo.h"
#include "rdmatest/util.h"

#define VENDOR_NVIDIA 0x10de
#define VENDOR_AMD 0x1002

/* ib_uverbs registers a dma-buf as an MR (ibv_reg_dmabuf_mr) from Linux
 * 5.12 on: drivers/infiniband/core/umem_dmabuf.c. */
#define DMABUF_MAJOR 5
#define DMABUF_MINOR 12

static int count_vendor(const struct rt_pcitopo *t, unsigned vendor)
{
	int n = 0;

	for (int i = 0; i < t->n_gpu; i++)
		n += t->gpu[i].vendor == vendor;
	return n;
}

/* The running kernel's release, and whether it has dma-buf MRs. */
struct kernel_rel {
	char release[64];
	bool known, dmabuf_mr;
};

/* "6.8.0-49-generic": major and minor; false when it does not start so. */
static bool release_numbers(const char *release, long *major, long *minor)
{
	char *end;

	*major = strtol(release, &end, 10);
	if (end == release || *end != '.')
		return false;
	release = end + 1;
	*minor = strtol(release, &end, 10);
	return end != release;
}

static void kernel_read(const struct rt_diag_env *e, struct kernel_rel *k)
{
	long major = 0, minor = 0;

	k->known = rt_diag_read_at(k->release, sizeof(k->release), "%s/sys/kernel/osrelease",
				   e->proc) &&
		   release_numbers(k->release, &major, &minor);
	if (!k->release[0])
		rt_strlcpy(k->release, "unreadable", sizeof(k->release));
	k->dmabuf_mr = k->known && (major > DMABUF_MAJOR ||
				    (major == DMABUF_MAJOR && minor >= DMABUF_MINOR));
}

static const char *kernel_too_old(const struct kernel_rel *k)
{
	return k->known && !k->dmabuf_mr ? " is older than 5.12" : "";
}

/* NVIDIA exports GPU memory as a dma-buf only from its open kernel
 * modules, whose banner in /proc/driver/nvidia/version says so; the
 * proprietary modules need peer memory (nvidia_peermem). */
static const char *nvidia_flavour(const struct rt_diag_env *e)
{
	char banner[256];

	if (!rt_diag_read_at(banner, sizeof(banner), "%s/driver/nvidia/version", e->proc))
		return "kernel module flavour unknown: no driver/nvidia/version in procfs";
	return strstr(banner, "Open Kernel Module") ? "open kernel module"
						    : "proprietary kernel module";
}

/* The peer memory module loaded, or NULL. nv_peer_mem is the same job's
 * older module, from Mellanox's OFED. */
static const char *nvidia_peermem(const struct rt_diag_env *e)
{
	if (rt_diag_exists(e->sysfs, "module/nvidia_peermem"))
		return "nvidia_peermem";
	return rt_diag_exists(e->sysfs, "module/nv_peer_mem") ? "nv_peer_mem" : NULL;
}

static void memory_nvidia(const struct rt_diag_env *e, struct rt_diag *d, int gpus)
{
	char version[64] = "";
	const char *peermem = nvidia_peermem(e), *flavour = nvidia_flavour(e);
	struct kernel_rel k;

	if (!rt_diag_exists(e->sysfs, "module/nvidia")) {
		rt_diag_add(d, RT_DIAG_WARN, "gpu-memory", "load the NVIDIA driver (modprobe "
			    "nvidia), then nvidia_peermem", "%d NVIDIA GPU%s, but the nvidia "
			    "module is not loaded: no GPU memory to register", gpus,
			    gpus == 1 ? "" : "s");
		return;
	}
	kernel_read(e, &k);
	if (!rt_diag_read_at(version, sizeof(version), "%s/module/nvidia/version", e->sysfs))
		rt_strlcpy(version, "?", sizeof(version));
	if (peermem)
		rt_diag_add(d, RT_DIAG_PASS, "gpu-memory", NULL, "NVIDIA driver %s, peer "
			    "memory module loaded (%s): ibv_reg_mr takes GPU memory", version,
			    peermem);
	else if (k.dmabuf_mr && !strcmp(flavour, "open kernel module"))
		rt_diag_add(d, RT_DIAG_PASS, "gpu-memory", NULL, "NVIDIA driver %s (open kernel "
			    "module), kernel %s: the dma-buf path (ibv_reg_dmabuf_mr); no "
			    "nvidia_peermem. sysfs does not show whether the export works: "
			    "scripts/gpu-probe tries one", version, k.release);
	else
		rt_diag_add(d, RT_DIAG_WARN, "gpu-memory", "load the peer memory module: "
			    "modprobe nvidia_peermem (it ships with the NVIDIA driver); or, for "
			    "dma-buf, a kernel of 5.12 or later with NVIDIA's open kernel modules",
			    "NVIDIA driver %s: no nvidia_peermem, and no dma-buf path (kernel %s%s, "
			    "%s): an RDMA device cannot register GPU memory", version, k.release,
			    kernel_too_old(&k), flavour);
}

/* amdgpu exports GPU memory as a dma-buf; ROCm's out-of-tree peer memory
 * needs a vendor RDMA stack and is not looked for. */
static void memory_amd(const struct rt_diag_env *e, struct rt_diag *d, int gpus)
{
	bool amdgpu = rt_diag_exists(e->sysfs, "module/amdgpu");
	struct kernel_rel k;

	kernel_read(e, &k);
	if (amdgpu && k.dmabuf_mr)
		rt_diag_add(d, RT_DIAG_PASS, "gpu-memory", NULL, "%d AMD GPU%s, amdgpu loaded, "
			    "kernel %s: the dma-buf path (ibv_reg_dmabuf_mr)", gpus,
			    gpus == 1 ? "" : "s", k.release);
	else
		rt_diag_add(d, RT_DIAG_WARN, "gpu-memory", amdgpu ? "boot a kernel of 5.12 or "
			    "later (dma-buf MRs)" : "load the AMD driver: modprobe amdgpu",
			    "%d AMD GPU%s: no dma-buf path (%s, kernel %s%s): an RDMA device "
			    "cannot register GPU memory", gpus, gpus == 1 ? "" : "s",
			    amdgpu ? "amdgpu loaded" : "amdgpu not loaded", k.release,
			    kernel_too_old(&k));
}

/* NCCL uses GPUDirect RDMA only up to PXB by default (NCCL's
 * src/graph/paths.cc, ncclTopoCheckGdr()): from PHB on, the traffic
 * turns in the CPU's root complex or crosses its interconnect, at a
 * fraction of line rate. */
static void nearest(struct rt_diag *d, const struct rt_pcitopo *t, int nic, int gpu,
		    enum rt_pci_rel rel)
{
	const struct rt_pci_func *n = &t->rdma[nic], *g = &t->gpu[gpu];
	const char *route = rel == RT_PCI_PHB ? "through the CPU's root complex" :
			    rel == RT_PCI_NODE ? "across the CPU, between its host bridges" :
						 "across the sockets' interconnect";

	if (rel <= RT_PCI_PXB) {
		rt_diag_add(d, RT_DIAG_PASS, "gpu-nic", NULL, "%s (%s): nearest GPU %s, %s "
			    "(through PCIe switches only, not the CPU)", n->name,
			    n->path[n->depth - 1], g->name, rt_pci_rel_name(rel));
		return;
	}
	rt_diag_add(d, RT_DIAG_WARN, "gpu-nic", "pair each GPU with an RDMA device behind "
		    "its own PCIe switch (NCCL_IB_HCA, mesh's rails), or move the card into a "
		    "slot under a GPU's switch",
		    "%s (%s, NUMA node %d): nearest GPU %s (NUMA node %d) is %s: GPUDirect "
		    "traffic runs %s at a fraction of line rate, and NCCL does not use "
		    "GPUDirect RDMA past PXB", n->name, n->path[n->depth - 1], n->numa_node,
		    g->name, g->numa_node, rt_pci_rel_name(rel), route);
}

/* What the routes between each RDMA device and its nearest GPU showed. */
struct acs_tally {
	int pairs, bridges, unreadable, redirects;
};

static void acs_route(const struct rt_diag_env *e, struct rt_diag *d,
		      const struct rt_pci_func *nic, const struct rt_pci_func *gpu,
		      struct acs_tally *sum)
{
	struct rt_acs_route r;
	char fix[192];
	bool redirects = rt_pci_acs_route(e->sysfs, gpu, nic, &r);

	sum->pairs++;
	sum->bridges += r.bridges;
	sum->unreadable += r.unreadable;
	if (!redirects)
		return;
	sum->redirects++;
	/* ECAP_ACS+6: the ACS Control register (pciacs.h) */
	snprintf(fix, sizeof(fix), "clear it (as root; lost at reboot): setpci -s %s "
		 "ECAP_ACS+6.w=0000, or turn ACS off in the BIOS; keep it where GPUs are "
		 "passed to VMs", r.redirect_at);
	rt_diag_add(d, RT_DIAG_WARN, "gpu-acs", fix, "bridge %s between GPU %s and %s "
		    "redirects peer-to-peer (ACS control 0x%04x): GPUDirect traffic goes up "
		    "to the root complex instead of across the switch", r.redirect_at,
		    gpu->name, nic->name, r.redirect_ctrl);
}

/* One line for the routes that did not warn: clean, or not readable. */
static void acs_summary(struct rt_diag *d, const struct acs_tally *sum)
{
	if (sum->unreadable)
		rt_diag_add(d, RT_DIAG_WARN, "gpu-acs", "run doctor as root: ACS control is in "
			    "config space past the 64 bytes others may read",
			    "ACS not read on %d of %d bridges between %d GPU-NIC pairs",
			    sum->unreadable, sum->bridges, sum->pairs);
	else if (!sum->redirects)
		rt_diag_add(d, RT_DIAG_PASS, "gpu-acs", NULL, "no bridge redirects peer-to-peer "
			    "between %d GPU-NIC pair%s (%d bridges read)", sum->pairs,
			    sum->pairs == 1 ? "" : "s", sum->bridges);
}

/* Each RDMA device's nearest GPU, and ACS on the route between them. */
static void pairs(const struct rt_diag_env *e, struct rt_diag *d, const struct rt_pcitopo *t)
{
	struct acs_tally sum = { 0 };

	for (int i = 0; i < t->n_rdma; i++) {
		enum rt_pci_rel rel;
		int g = rt_pcitopo_nearest_gpu(t, i, &rel);

		if (g < 0)
			continue;
		nearest(d, t, i, g, rel);
		acs_route(e, d, &t->rdma[i], &t->gpu[g], &sum);
	}
	if (sum.pairs)
		acs_summary(d, &sum);
}

/* An idle GPU lowers its link speed to save power and raises it under
 * load, so a GPU's speed below its maximum is named, not judged; its
 * width does not change with load. */
static bool gpu_idle_speed(const struct rt_pci_link *l, bool gpu)
{
	bool narrow = l->max_width > 0 && l->cur_width > 0 && l->cur_width < l->max_width;

	return gpu && !narrow;
}

/* Returns whether it warned. */
static bool link_of(struct rt_diag *d, const struct rt_pci_func *f, bool gpu,
		    char *idle, size_t len)
{
	const struct rt_pci_link *l = &f->link;

	if (!rt_pci_link_degraded(l))
		return false;
	if (gpu_idle_speed(l, gpu)) {
		rt_diag_append(idle, len, "%s%s %.1f of %.1f GT/s", idle[0] ? ", " : "",
			       f->name, l->cur_gts, l->max_gts);
		return false;
	}
	/* a GPU's name is its bus id; an RDMA device's bus id is added */
	rt_diag_add(d, RT_DIAG_WARN, "gpu-link", "reseat the card or move it to a slot of "
		    "its full width; check the slot's BIOS bifurcation and speed settings",
		    "%s %s%s%s%s trained at %.1f GT/s x%d, below its maximum %.1f GT/s x%d",
		    gpu ? "GPU" : "RDMA device", f->name, gpu ? "" : " (",
		    gpu ? "" : f->path[f->depth - 1], gpu ? "" : ")", l->cur_gts, l->cur_width,
		    l->max_gts, l->max_width);
	return true;
}

static void links(struct rt_diag *d, const struct rt_pcitopo *t)
{
	char idle[192] = "";
	int warned = 0;

	for (int i = 0; i < t->n_gpu; i++)
		warned += link_of(d, &t->gpu[i], true, idle, sizeof(idle));
	for (int i = 0; i < t->n_rdma; i++)
		warned += link_of(d, &t->rdma[i], false, idle, sizeof(idle));
	if (warned)
		return;
	rt_diag_add(d, RT_DIAG_PASS, "gpu-link", NULL, "%d GPU%s and %d RDMA device%s at "
		    "their PCIe link's full width%s%s", t->n_gpu, t->n_gpu == 1 ? "" : "s",
		    t->n_rdma, t->n_rdma == 1 ? "" : "s", idle[0] ? "; idle GPUs below full "
		    "speed (they raise it under load): " : " and speed", idle);
}

/* The mode of the first GPU's IOMMU group, as the NIC reaches it. */
static void iommu(const struct rt_diag_env *e, struct rt_diag *d, const struct rt_pcitopo *t)
{
	char cmdline[512];
	struct rt_iommu m;

	snprintf(cmdline, sizeof(cmdline), "%s/cmdline", e->proc);
	rt_iommu_read(e->sysfs, cmdline, t->gpu[0].name, &m);
	if (m.mode == RT_IOMMU_TRANSLATED)
		rt_diag_add(d, RT_DIAG_WARN, "iommu", "add iommu=pt (passthrough) to the kernel "
			    "command line and reboot, unless the host passes devices to VMs",
			    "translated (GPU %s's group: %s; %d IOMMU groups): every peer-to-peer "
			    "mapping goes through the IOMMU, which can cost GPUDirect throughput "
			    "or refuse it", t->gpu[0].name, m.domain_type, m.groups);
	else
		rt_diag_add(d, RT_DIAG_PASS, "iommu", NULL, "%s (%d IOMMU groups%s%s%s)",
			    rt_iommu_mode_name(m.mode), m.groups,
			    m.domain_type[0] ? ", GPU's group: " : "", m.domain_type,
			    m.cmdline_pt ? ", iommu=pt on the command line" : "");
}

void rt_diag_gpu(const struct rt_diag_env *e, struct rt_diag *d)
{
	struct rt_error ignored = { 0 };
	struct rt_pcitopo *t = rt_xcalloc(1, sizeof(*t));
	char more[48] = "";
	int nvidia, amd;

	/* no PCI bus (a container without /sys/bus/pci) or no GPU: nothing */
	if (rt_pcitopo_scan(t, e->sysfs, &ignored) || !t->n_gpu)
		goto out;
	nvidia = count_vendor(t, VENDOR_NVIDIA);
	amd = count_vendor(t, VENDOR_AMD);
	if (t->truncated)
		snprintf(more, sizeof(more), " (more not read: at most %d of each)",
			 RT_PCITOPO_MAX);
	rt_diag_add(d, RT_DIAG_PASS, "gpu", NULL, "%d GPU%s (NVIDIA %d, AMD %d), %d RDMA "
		    "device%s with a PCI function%s", t->n_gpu, t->n_gpu == 1 ? "" : "s",
		    nvidia, amd, t->n_rdma, t->n_rdma == 1 ? "" : "s", more);
	if (nvidia)
		memory_nvidia(e, d, nvidia);
	if (amd)
		memory_amd(e, d, amd);
	pairs(e, d, t);
	links(d, t);
	iommu(e, d, t);
out:
	free(t);
}
