/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Access Control Services on the bridges between a GPU and its NIC. ACS
 * that redirects peer-to-peer requests sends GPUDirect traffic up
 * through the root complex instead of across the switch (slower, or
 * refused by the IOMMU); bare-metal GPU hosts disable it, virtual
 * machines need it. sysfs does not show ACS control: it is read from
 * the function's config space (SYSFS/bus/pci/devices/BDF/config), at the
 * ACS extended capability (ID 0x000D), which only root can read past
 * the first 64 bytes. */
#ifndef RDMATEST_PCIACS_H
#define RDMATEST_PCIACS_H

#include <stdbool.h>
#include <stddef.h>

#include "rdmatest/pcitopo.h"

/* ACS Control register bits (PCI Express Base Specification, ACS
 * Extended Capability). */
#define RT_ACS_SRC_VALID 0x0001
#define RT_ACS_TRANS_BLOCK 0x0002
#define RT_ACS_REQ_REDIRECT 0x0004
#define RT_ACS_CMPL_REDIRECT 0x0008
#define RT_ACS_UPSTREAM_FWD 0x0010
#define RT_ACS_EGRESS_CTRL 0x0020
/* the bits that take peer-to-peer traffic off the switch */
#define RT_ACS_P2P_REDIRECT (RT_ACS_REQ_REDIRECT | RT_ACS_CMPL_REDIRECT | RT_ACS_EGRESS_CTRL)

/* Config space read: at most 4096 bytes (PCIe's extended space), the
 * capability list followed at most 1024 steps (one per dword). */
#define RT_PCI_CONFIG_MAX 4096

enum rt_acs_state {
	RT_ACS_NONE,       /* no ACS capability: nothing to redirect */
	RT_ACS_PRESENT,    /* capability there; ctrl says what is on */
	RT_ACS_UNREADABLE, /* config space not readable past 64 bytes (not root) */
};

/* The ACS state and (RT_ACS_PRESENT) control register of one function. */
enum rt_acs_state rt_pci_acs_read(const char *sysfs, const char *bdf, unsigned *ctrl);
/* The same from config space bytes already read (the fuzzable part). */
enum rt_acs_state rt_pci_acs_parse(const unsigned char *cfg, size_t len, unsigned *ctrl);

struct rt_acs_route {
	int bridges;       /* bridges on the route that were looked at */
	int unreadable;    /* of which config space could not be read */
	char redirect_at[RT_PCI_BDF_LEN]; /* first that redirects P2P, "" if none */
	unsigned redirect_ctrl;
};

/* Every bridge peer-to-peer traffic between a and b passes (or, between
 * host bridges, every bridge of either path). True when one redirects. */
bool rt_pci_acs_route(const char *sysfs, const struct rt_pci_func *a,
		      const struct rt_pci_func *b, struct rt_acs_route *out);

#endif
