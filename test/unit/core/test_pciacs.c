/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* core/pciacs.c: the capability walk over crafted config spaces, and the
 * bridges between GPUs and NICs of the fake host of pci_tree.h, where
 * only the downstream port above GPU 5 (0000:88:00.0) redirects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rdmatest/pciacs.h"
#include "pci_tree.h"

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* header: ID in bits 15:0, version 19:16, next 31:20 */
static uint32_t cap(unsigned id, unsigned next)
{
	return id | 1u << 16 | (uint32_t)next << 20;
}

static void parse(void **state)
{
	unsigned char cfg[4096] = { 0 };
	unsigned ctrl = 0;

	(void)state;
	assert_int_equal(rt_pci_acs_parse(cfg, sizeof(cfg), &ctrl), RT_ACS_NONE);
	/* AER -> secondary PCIe -> ACS at 0x220, control 0x0005 */
	put32(cfg + 0x100, cap(0x0001, 0x1c0));
	put32(cfg + 0x1c0, cap(0x0019, 0x220));
	put32(cfg + 0x220, cap(0x000d, 0));
	cfg[0x226] = 0x05;
	assert_int_equal(rt_pci_acs_parse(cfg, sizeof(cfg), &ctrl), RT_ACS_PRESENT);
	assert_int_equal(ctrl, 0x0005);
	/* the ACS header read, its control register past the end */
	assert_int_equal(rt_pci_acs_parse(cfg, 0x226, &ctrl), RT_ACS_NONE);
	/* conventional config space only */
	assert_int_equal(rt_pci_acs_parse(cfg, 256, &ctrl), RT_ACS_NONE);
	/* a list that loops: the walk ends */
	put32(cfg + 0x1c0, cap(0x0019, 0x100));
	assert_int_equal(rt_pci_acs_parse(cfg, sizeof(cfg), &ctrl), RT_ACS_NONE);
	/* a next pointer into the conventional space ends the list */
	put32(cfg + 0x100, cap(0x0001, 0x040));
	assert_int_equal(rt_pci_acs_parse(cfg, sizeof(cfg), &ctrl), RT_ACS_NONE);
	/* all ones: no device answered */
	put32(cfg + 0x100, 0xffffffffu);
	assert_int_equal(rt_pci_acs_parse(cfg, sizeof(cfg), &ctrl), RT_ACS_NONE);
}

static int setup(void **state)
{
	static struct pci_tree tree;

	pci_tree_make(&tree);
	*state = &tree;
	return 0;
}

static int teardown(void **state)
{
	pci_tree_remove(*state);
	return 0;
}

static void read_ports(void **state)
{
	struct pci_tree *t = *state;
	unsigned ctrl = 0;

	assert_int_equal(rt_pci_acs_read(t->root, "0000:88:00.0", &ctrl), RT_ACS_PRESENT);
	assert_int_equal(ctrl, ACS_ON);
	assert_int_equal(rt_pci_acs_read(t->root, "0000:88:01.0", &ctrl), RT_ACS_PRESENT);
	assert_int_equal(ctrl, 0);
	assert_int_equal(rt_pci_acs_read(t->root, "0000:87:00.0", &ctrl), RT_ACS_NONE);
	assert_int_equal(rt_pci_acs_read(t->root, "0000:99:00.0", &ctrl), RT_ACS_UNREADABLE);
}

static void func(const struct pci_tree *t, const char *rel, struct rt_pci_func *f)
{
	struct rt_error e = { 0 };

	assert_int_equal(rt_pci_func_at(t->root, rel, rel, f, &e), 0);
}

static void routes(void **state)
{
	struct pci_tree *t = *state;
	struct rt_pci_func gpu4, gpu5, nic4, nic5, gpu0;
	struct rt_acs_route r;

	func(t, "bus/pci/devices/0000:85:00.0", &gpu4);
	func(t, "bus/pci/devices/0000:89:00.0", &gpu5);
	func(t, "class/infiniband/mlx5_4/device", &nic4);
	func(t, "class/infiniband/mlx5_5/device", &nic5);
	func(t, "bus/pci/devices/0000:05:00.0", &gpu0);
	/* PIX: the second-level switch's upstream port and two downstream */
	assert_true(rt_pci_acs_route(t->root, &gpu5, &nic5, &r));
	assert_int_equal(r.bridges, 3);
	assert_string_equal(r.redirect_at, "0000:88:00.0");
	assert_int_equal(r.redirect_ctrl & RT_ACS_P2P_REDIRECT,
			 RT_ACS_REQ_REDIRECT | RT_ACS_CMPL_REDIRECT);
	assert_false(rt_pci_acs_route(t->root, &gpu4, &nic4, &r));
	assert_int_equal(r.bridges, 3);
	assert_string_equal(r.redirect_at, "");
	/* PXB: GPU 4's side does not pass 88:00.0, GPU 5's does */
	assert_false(rt_pci_acs_route(t->root, &gpu4, &nic5, &r));
	assert_int_equal(r.bridges, 7);
	assert_true(rt_pci_acs_route(t->root, &gpu5, &nic4, &r));
	/* SYS: every bridge of both paths */
	assert_true(rt_pci_acs_route(t->root, &gpu0, &gpu5, &r));
	assert_int_equal(r.bridges, 10);
}

static void unreadable(void **state)
{
	struct pci_tree *t = *state;
	struct rt_pci_func gpu4, nic4;
	struct rt_acs_route r;
	char dir[PATH_MAX];

	func(t, "bus/pci/devices/0000:85:00.0", &gpu4);
	func(t, "class/infiniband/mlx5_4/device", &nic4);
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/0000:84:01.0", t->root);
	tree_config(dir, CFG_SHORT);
	assert_false(rt_pci_acs_route(t->root, &gpu4, &nic4, &r));
	assert_int_equal(r.unreadable, 1);
	assert_int_equal(r.bridges, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse),
		cmocka_unit_test(read_ports),
		cmocka_unit_test(routes),
		cmocka_unit_test(unreadable),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
