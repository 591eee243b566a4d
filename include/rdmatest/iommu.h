/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The IOMMU's mode for a device: GPUDirect RDMA is happiest with the
 * IOMMU off or in passthrough (`iommu=pt`), where the NIC reaches GPU
 * memory at its bus address; translated mode needs every peer mapping
 * in the IOMMU. Read from sysfs (SYSFS/class/iommu, SYSFS/kernel/
 * iommu_groups, the device's iommu_group/type) and the kernel command
 * line, each a parameter so that tests pass a fake tree. */
#ifndef RDMATEST_IOMMU_H
#define RDMATEST_IOMMU_H

#include <stdbool.h>

enum rt_iommu_mode {
	RT_IOMMU_OFF,         /* no IOMMU groups: DMA is not translated */
	RT_IOMMU_PASSTHROUGH, /* the domain is "identity", or iommu=pt */
	RT_IOMMU_TRANSLATED,  /* the domain is "DMA" or "DMA-FQ" */
	RT_IOMMU_UNKNOWN,     /* groups, but neither type nor command line says */
};

/* Counting stops at this many IOMMU units or groups. */
#define RT_IOMMU_COUNT_MAX 65536

struct rt_iommu {
	enum rt_iommu_mode mode;
	int units;             /* entries in SYSFS/class/iommu */
	int groups;            /* entries in SYSFS/kernel/iommu_groups */
	bool cmdline_pt;       /* iommu=pt or iommu.passthrough=1 */
	char domain_type[16];  /* the device's group's type, "" if unknown */
};

/* bdf NULL: the host as a whole (the command line decides between
 * passthrough and unknown). cmdline is "/proc/cmdline" or a test's file. */
void rt_iommu_read(const char *sysfs, const char *cmdline, const char *bdf,
		   struct rt_iommu *out);
const char *rt_iommu_mode_name(enum rt_iommu_mode m); /* "off", "passthrough", ... */

#endif
