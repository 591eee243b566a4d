/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The PCIe topology of GPUs and RDMA devices, read from sysfs: each
 * function's path of bridges from its root port, its NUMA node and link,
 * and the relation of two functions in the words of `nvidia-smi topo -m`
 * (which NCCL's and the vendors' guides use: a GPU's NIC should be PIX
 * or PXB). The sysfs root is a parameter ("/sys", or a test's tree).
 * Reading only; nothing is allocated: a scan fills the caller's struct. */
#ifndef RDMATEST_PCITOPO_H
#define RDMATEST_PCITOPO_H

#include <stdbool.h>

#include "rdmatest/error.h"

/* Functions on one path, root port to the device: a switch costs two
 * (its upstream and downstream port); real hosts nest two or three. */
#define RT_PCI_MAX_DEPTH 16
#define RT_PCI_BDF_LEN 16     /* "0000:3b:00.0" and its NUL */
#define RT_PCITOPO_MAX 64     /* GPUs, and RDMA devices, one scan keeps */

/* Nearest first, so that a smaller value is a better pairing. */
enum rt_pci_rel {
	RT_PCI_SELF, /* the same function ("X") */
	RT_PCI_PIX,  /* through at most one PCIe switch */
	RT_PCI_PXB,  /* through several switches, not the host bridge */
	RT_PCI_PHB,  /* through one host bridge (root complex) */
	RT_PCI_NODE, /* between host bridges of one NUMA node */
	RT_PCI_SYS,  /* between NUMA nodes (the sockets' interconnect) */
};

/* Link speeds in GT/s (0: unknown), widths in lanes (0: unknown). */
struct rt_pci_link {
	double cur_gts, max_gts;
	int cur_width, max_width;
};

struct rt_pci_func {
	char name[64];  /* the RDMA device's name, or the GPU's bus id */
	char root[32];  /* its host bridge: "pci0000:00" */
	char path[RT_PCI_MAX_DEPTH][RT_PCI_BDF_LEN]; /* root port first, itself last */
	int depth;      /* entries in path */
	int numa_node;  /* -1: unknown */
	unsigned vendor, class_code;
	struct rt_pci_link link;
};

struct rt_pcitopo {
	struct rt_pci_func gpu[RT_PCITOPO_MAX];   /* by bus id */
	struct rt_pci_func rdma[RT_PCITOPO_MAX];  /* by name, naturally: mlx5_2 before mlx5_10 */
	int n_gpu, n_rdma;
	bool truncated; /* more than RT_PCITOPO_MAX of either */
};

/* The function that the sysfs link SYSFS/rel names ("bus/pci/devices/
 * 0000:3b:00.0", "class/infiniband/mlx5_0/device"), called `name`. Not
 * a PCI function (a software device such as rxe): exit 3. */
int rt_pci_func_at(const char *sysfs, const char *rel, const char *name,
		   struct rt_pci_func *f, struct rt_error *err);
int rt_pci_rdma_func(const char *sysfs, const char *ibdev, struct rt_pci_func *f,
		     struct rt_error *err);
/* A display (0x0300) or 3D (0x0302) controller of NVIDIA or AMD. */
bool rt_pci_is_gpu(unsigned vendor, unsigned class_code);

/* Every GPU and every PCI RDMA device (software devices left out), each
 * list sorted. Fails (exit 3) only when SYSFS has no PCI bus at all. */
int rt_pcitopo_scan(struct rt_pcitopo *t, const char *sysfs, struct rt_error *err);

/* Both functions' NUMA nodes unknown count as one node (a host that
 * does not report nodes has one). */
enum rt_pci_rel rt_pci_relation(const struct rt_pci_func *a, const struct rt_pci_func *b);
const char *rt_pci_rel_name(enum rt_pci_rel r); /* "PIX", ... "X" */
/* The GPU nearest RDMA device `rdma` (the first by bus id among equals)
 * and the relation in *rel; -1 when there is no GPU. */
int rt_pcitopo_nearest_gpu(const struct rt_pcitopo *t, int rdma, enum rt_pci_rel *rel);
/* The link trained below the function's own maximum speed or width (a
 * card in a narrower slot, a lane or a speed lost to signal trouble). */
bool rt_pci_link_degraded(const struct rt_pci_link *l);

#endif
