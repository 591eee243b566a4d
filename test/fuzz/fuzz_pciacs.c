/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ACS capability walk over a function's config space
 * (rt_pci_acs_parse): the input is the config file as read from sysfs.
 * It must end on any list (loops, pointers out of range, a short read);
 * when it reports ACS, the control register it gives is the one of an
 * ACS header (ID 0x000D) that lies wholly inside the input's first 4096
 * bytes at a dword-aligned offset in the extended space; otherwise it
 * leaves ctrl alone. */
#include "fuzz.h"

#include "rdmatest/pciacs.h"

static unsigned le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = size < RT_PCI_CONFIG_MAX ? size : RT_PCI_CONFIG_MAX;
	unsigned ctrl = 0xdead0000u;
	bool found = false;

	if (rt_pci_acs_parse(data, size, &ctrl) != RT_ACS_PRESENT) {
		FUZZ_CHECK(ctrl == 0xdead0000u, "ctrl written without ACS: 0x%x", ctrl);
		return 0;
	}
	for (size_t off = 0x100; off + 8 <= len && !found; off += 4)
		found = le16(data + off) == 0x000d && le16(data + off + 6) == ctrl;
	FUZZ_CHECK(found, "ACS control 0x%x is no ACS header's", ctrl);
	return 0;
}
