/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A fake sysfs tree modelled on an 8-GPU, 8-NIC training host, for
 * test_pcitopo, test_pciacs and doctor's test_diag_gpu. Two sockets (NUMA nodes 0 and 1), each
 * with two host bridges; each host bridge has one root port leading to
 * a two-level PCIe switch: the first level's two downstream ports each
 * hold a second-level switch with one GPU and one NIC. So GPU n and
 * mlx5_n share a switch (PIX), GPU 2h and mlx5_(2h+1) share only the
 * first level (PXB), bridges of one socket are NODE apart and the two
 * sockets SYS. Also: a front-end NIC, mlx5_10, on a second root port of
 * host bridge 0 (PHB to GPUs 0 and 1), the BMC's display controller
 * (ASPEED, not a GPU), a software RDMA device (rxe0, no PCI function),
 * GPU 3 trained at x8 of x16, and ACS redirecting peer-to-peer on the
 * downstream port above GPU 5. Bridges have an AER capability at 0x100
 * and (downstream and root ports) ACS at 0x148, as Broadcom switches
 * lay them out; switch upstream ports have none.
 *
 * Bus numbers of host bridge h (base H = 0x40 h): root port H:01.0,
 * first-level upstream (H+1):00.0, its downstream ports (H+2):0k.0,
 * second-level upstream (H+3+4k):00.0, its downstream ports
 * (H+4+4k):0j.0, and the GPU (j 0) or NIC (j 1) at (H+5+4k+j):00.0.
 * Include after cmocka.h. */
#ifndef RDMATEST_TEST_PCI_TREE_H
#define RDMATEST_TEST_PCI_TREE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pci_tree {
	char root[64];
};

enum { ACS_OFF = 0x0, ACS_ON = 0x1d }; /* SrcValid ReqRedir CmpltRedir UpstreamFwd */
enum { CFG_NO_ACS = -1, CFG_SHORT = -2 }; /* a port without ACS; a 64-byte read */

static void tree_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void tree_attr(const char *dir, const char *name, const char *value)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	tree_write(path, value, strlen(value));
}

static void tree_mkdirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* 4096 bytes of config space: AER at 0x100, then ACS at 0x148 holding
 * `acs` as its control register, or (CFG_NO_ACS) AER alone. */
static void tree_config(const char *dir, int acs)
{
	unsigned char cfg[4096] = { 0 };

	cfg[0x100] = 0x01; /* AER, version 1 */
	cfg[0x102] = 0x01;
	if (acs >= 0) {
		cfg[0x103] = 0x14; /* next: 0x148 (bits 31:20) */
		cfg[0x102] |= 0x80;
		cfg[0x148] = 0x0d; /* ACS, version 1, last */
		cfg[0x14a] = 0x01;
		cfg[0x14c] = 0x5f; /* capabilities: all but Direct Translated P2P */
		cfg[0x14e] = (unsigned char)(acs & 0xff);
		cfg[0x14f] = (unsigned char)(acs >> 8);
	}
	char path[PATH_MAX + 8];

	snprintf(path, sizeof(path), "%s/config", dir);
	tree_write(path, cfg, acs == CFG_SHORT ? 64 : sizeof(cfg));
}

/* One function: its directory under parent, attributes, config space and
 * SYSFS/bus/pci/devices/BDF. Returns the directory in out. */
static void tree_func(const struct pci_tree *t, const char *parent, const char *bdf,
		      const char *vendor, const char *cls, int numa, const char *speed,
		      int width, int max_width, int acs, char *out, size_t len)
{
	char link[PATH_MAX], num[16];

	snprintf(out, len, "%s/%s", parent, bdf);
	tree_mkdirs(out);
	tree_attr(out, "vendor", vendor);
	tree_attr(out, "class", cls);
	snprintf(num, sizeof(num), "%d\n", numa);
	tree_attr(out, "numa_node", num);
	tree_attr(out, "current_link_speed", speed);
	tree_attr(out, "max_link_speed", speed);
	snprintf(num, sizeof(num), "%d\n", width);
	tree_attr(out, "current_link_width", num);
	snprintf(num, sizeof(num), "%d\n", max_width);
	tree_attr(out, "max_link_width", num);
	tree_config(out, acs);
	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", t->root, bdf);
	assert_int_equal(symlink(out, link), 0);
}

static void tree_rdma(const struct pci_tree *t, const char *name, const char *dev_dir)
{
	char dir[PATH_MAX], link[PATH_MAX + 8];

	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s", t->root, name);
	tree_mkdirs(dir);
	if (!dev_dir)
		return; /* a software device: no PCI function */
	snprintf(link, sizeof(link), "%s/device", dir);
	assert_int_equal(symlink(dev_dir, link), 0);
}

#define BRIDGE "0x060400\n"
#define PLX "0x1000\n"
#define GEN5 "32.0 GT/s PCIe\n"

/* One host bridge h: root port, the two switch levels, 2 GPUs, 2 NICs. */
static void tree_host_bridge(const struct pci_tree *t, int h)
{
	unsigned H = 0x40u * (unsigned)h;
	int numa = h / 2;
	char hb[PATH_MAX], rp[PATH_MAX], up1[PATH_MAX], dn1[PATH_MAX], up2[PATH_MAX];
	char dn2[PATH_MAX], ep[PATH_MAX], bdf[16], name[16];

	snprintf(hb, sizeof(hb), "%s/devices/pci0000:%02x", t->root, H);
	snprintf(bdf, sizeof(bdf), "0000:%02x:01.0", H);
	tree_func(t, hb, bdf, "0x8086\n", BRIDGE, numa, GEN5, 16, 16, ACS_OFF, rp, sizeof(rp));
	snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", H + 1);
	tree_func(t, rp, bdf, PLX, BRIDGE, numa, GEN5, 16, 16, CFG_NO_ACS, up1, sizeof(up1));
	for (unsigned k = 0; k < 2; k++) {
		int n = 2 * h + (int)k;

		snprintf(bdf, sizeof(bdf), "0000:%02x:%02x.0", H + 2, k);
		tree_func(t, up1, bdf, PLX, BRIDGE, numa, GEN5, 16, 16, ACS_OFF, dn1, sizeof(dn1));
		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", H + 3 + 4 * k);
		tree_func(t, dn1, bdf, PLX, BRIDGE, numa, GEN5, 16, 16, CFG_NO_ACS, up2, sizeof(up2));
		for (unsigned j = 0; j < 2; j++) {
			snprintf(bdf, sizeof(bdf), "0000:%02x:%02x.0", H + 4 + 4 * k, j);
			tree_func(t, up2, bdf, PLX, BRIDGE, numa, GEN5, 16, 16,
				  n == 5 && j == 0 ? ACS_ON : ACS_OFF, dn2, sizeof(dn2));
			snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", H + 5 + 4 * k + j);
			if (j == 0) { /* an H100: 3D controller */
				tree_func(t, dn2, bdf, "0x10de\n", "0x030200\n", numa, GEN5,
					  n == 3 ? 8 : 16, 16, CFG_NO_ACS, ep, sizeof(ep));
			} else {      /* a ConnectX-7 */
				tree_func(t, dn2, bdf, "0x15b3\n", "0x020700\n", numa, GEN5,
					  16, 16, CFG_NO_ACS, ep, sizeof(ep));
				snprintf(name, sizeof(name), "mlx5_%d", n);
				tree_rdma(t, name, ep);
			}
		}
	}
}

/* The front-end NIC and the BMC's display, on host bridge 0's other ports. */
static void tree_extras(const struct pci_tree *t)
{
	char hb[PATH_MAX], rp[PATH_MAX], ep[PATH_MAX];

	snprintf(hb, sizeof(hb), "%s/devices/pci0000:00", t->root);
	tree_func(t, hb, "0000:00:03.0", "0x8086\n", BRIDGE, 0, "16.0 GT/s PCIe\n", 16, 16,
		  ACS_OFF, rp, sizeof(rp));
	tree_func(t, rp, "0000:3f:00.0", "0x15b3\n", "0x020000\n", 0, "16.0 GT/s PCIe\n", 16, 16,
		  CFG_NO_ACS, ep, sizeof(ep));
	tree_rdma(t, "mlx5_10", ep);
	tree_func(t, hb, "0000:00:05.0", "0x8086\n", BRIDGE, 0, "8.0 GT/s PCIe\n", 1, 1,
		  ACS_OFF, rp, sizeof(rp));
	tree_func(t, rp, "0000:3e:00.0", "0x1a03\n", "0x030000\n", 0, "8.0 GT/s PCIe\n", 1, 1,
		  CFG_NO_ACS, ep, sizeof(ep));
	tree_rdma(t, "rxe0", NULL);
}

static void pci_tree_make(struct pci_tree *t)
{
	char dir[PATH_MAX];

	snprintf(t->root, sizeof(t->root), "/tmp/rt-pcitree-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices", t->root);
	tree_mkdirs(dir);
	for (int h = 0; h < 4; h++)
		tree_host_bridge(t, h);
	tree_extras(t);
}

/* A storage NIC, mlx5_11, alone on host bridge e0 of NUMA node 2, a node
 * without a GPU: every GPU is across the nodes' interconnect from it
 * (SYS). For doctor's GPU checks; the core tests use the tree without it. */
static inline void pci_tree_add_far_nic(const struct pci_tree *t)
{
	char hb[PATH_MAX], rp[PATH_MAX], ep[PATH_MAX];

	snprintf(hb, sizeof(hb), "%s/devices/pci0000:e0", t->root);
	tree_func(t, hb, "0000:e0:01.0", "0x8086\n", BRIDGE, 2, GEN5, 16, 16, ACS_OFF,
		  rp, sizeof(rp));
	tree_func(t, rp, "0000:e1:00.0", "0x15b3\n", "0x020000\n", 2, GEN5, 16, 16,
		  CFG_NO_ACS, ep, sizeof(ep));
	tree_rdma(t, "mlx5_11", ep);
}

static void pci_tree_remove(struct pci_tree *t)
{
	char cmd[128];

	/* the tree is ours, under a name mkdtemp made */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	assert_int_equal(system(cmd), 0);
}

#endif
