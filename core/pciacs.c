/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rdmatest/pciacs.h"
#include "rdmatest/util.h"

#define EXT_CAP_START 0x100 /* extended capabilities follow the 256-byte PCI space */
#define ACS_CAP_ID 0x000d

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

enum rt_acs_state rt_pci_acs_parse(const unsigned char *cfg, size_t len, unsigned *ctrl)
{
	size_t off = EXT_CAP_START;

	if (len > RT_PCI_CONFIG_MAX)
		len = RT_PCI_CONFIG_MAX;
	/* each step moves to a different dword, so the walk ends within
	 * the space's dword count even on a looping list */
	for (int step = 0; step < RT_PCI_CONFIG_MAX / 4; step++) {
		uint32_t hdr;

		if (off + 4 > len)
			return RT_ACS_NONE;
		hdr = le32(cfg + off);
		if (hdr == 0 || hdr == 0xffffffffu)
			return RT_ACS_NONE;
		if ((hdr & 0xffff) == ACS_CAP_ID) {
			if (off + 8 > len)
				return RT_ACS_NONE;
			*ctrl = (unsigned)cfg[off + 6] | (unsigned)cfg[off + 7] << 8;
			return RT_ACS_PRESENT;
		}
		/* next pointer: bits 31:20, dword aligned, never back into
		 * the conventional space */
		off = (hdr >> 20) & 0xffc;
		if (off < EXT_CAP_START)
			return RT_ACS_NONE;
	}
	return RT_ACS_NONE;
}

enum rt_acs_state rt_pci_acs_read(const char *sysfs, const char *bdf, unsigned *ctrl)
{
	unsigned char cfg[RT_PCI_CONFIG_MAX];
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", sysfs, bdf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return RT_ACS_UNREADABLE;
	n = pread(fd, cfg, sizeof(cfg), 0);
	close(fd);
	/* every function has at least the 256 bytes of conventional space:
	 * less is the kernel cutting an unprivileged read (at 64 bytes, 128
	 * for a CardBus bridge) */
	if (n < EXT_CAP_START)
		return RT_ACS_UNREADABLE;
	return rt_pci_acs_parse(cfg, (size_t)n, ctrl);
}

static void look_at(const char *sysfs, const char *bdf, struct rt_acs_route *out)
{
	unsigned ctrl = 0;
	enum rt_acs_state s = rt_pci_acs_read(sysfs, bdf, &ctrl);

	out->bridges++;
	if (s == RT_ACS_UNREADABLE)
		out->unreadable++;
	if (s == RT_ACS_PRESENT && (ctrl & RT_ACS_P2P_REDIRECT) && !out->redirect_at[0]) {
		rt_strlcpy(out->redirect_at, bdf, sizeof(out->redirect_at));
		out->redirect_ctrl = ctrl;
	}
}

bool rt_pci_acs_route(const char *sysfs, const struct rt_pci_func *a,
		      const struct rt_pci_func *b, struct rt_acs_route *out)
{
	int common = 0;

	memset(out, 0, sizeof(*out));
	if (!strcmp(a->root, b->root))
		while (common < a->depth - 1 && common < b->depth - 1 &&
		       !strcmp(a->path[common], b->path[common]))
			common++;
	/* the bridge where the route turns, then each side's below it */
	if (common > 0)
		look_at(sysfs, a->path[common - 1], out);
	for (int i = common; i < a->depth - 1; i++)
		look_at(sysfs, a->path[i], out);
	for (int i = common; i < b->depth - 1; i++)
		look_at(sysfs, b->path[i], out);
	return out->redirect_at[0] != '\0';
}
