/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* core/pcitopo.c on the fake 8-GPU, 8-NIC host of pci_tree.h. The
 * expected relations come from the tree's layout (which switch, host
 * bridge and socket each device sits under), not from the code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rdmatest/pcitopo.h"
#include "rdmatest/util.h"
#include "pci_tree.h"

struct fixture {
	struct pci_tree tree;
	struct rt_pcitopo topo;
};

static int setup(void **state)
{
	static struct fixture fx;
	struct rt_error e = { 0 };

	pci_tree_make(&fx.tree);
	assert_int_equal(rt_pcitopo_scan(&fx.topo, fx.tree.root, &e), 0);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	pci_tree_remove(&fx->tree);
	return 0;
}

/* 8 GPUs (the BMC's display is not one), 9 PCI RDMA devices (rxe0 is
 * not PCI), mlx5_10 after mlx5_7. */
static void scan(void **state)
{
	struct fixture *fx = *state;
	const struct rt_pcitopo *t = &fx->topo;
	static const char *const gpus[] = {
		"0000:05:00.0", "0000:09:00.0", "0000:45:00.0", "0000:49:00.0",
		"0000:85:00.0", "0000:89:00.0", "0000:c5:00.0", "0000:c9:00.0",
	};
	char name[16];

	assert_int_equal(t->n_gpu, 8);
	assert_int_equal(t->n_rdma, 9);
	assert_false(t->truncated);
	for (int i = 0; i < 8; i++) {
		assert_string_equal(t->gpu[i].name, gpus[i]);
		assert_string_equal(t->gpu[i].path[t->gpu[i].depth - 1], gpus[i]);
		assert_int_equal(t->gpu[i].depth, 6);
		assert_int_equal(t->gpu[i].vendor, 0x10de);
		assert_int_equal(t->gpu[i].numa_node, i / 4);
		snprintf(name, sizeof(name), "mlx5_%d", i);
		assert_string_equal(t->rdma[i].name, name);
	}
	assert_string_equal(t->rdma[8].name, "mlx5_10");
	assert_int_equal(t->rdma[8].depth, 2);
	assert_string_equal(t->rdma[8].root, "pci0000:00");
	assert_string_equal(t->gpu[5].root, "pci0000:80");
	assert_string_equal(t->gpu[5].path[0], "0000:80:01.0");
}

/* GPU i and NIC j: one second-level switch when i == j (PIX), one
 * first-level switch when i/2 == j/2 (PXB), one socket when i/4 == j/4
 * (NODE), else SYS. */
static void relations(void **state)
{
	struct fixture *fx = *state;
	const struct rt_pcitopo *t = &fx->topo;

	for (int i = 0; i < 8; i++) {
		for (int j = 0; j < 8; j++) {
			enum rt_pci_rel want = i == j ? RT_PCI_PIX : i / 2 == j / 2 ? RT_PCI_PXB :
					       i / 4 == j / 4 ? RT_PCI_NODE : RT_PCI_SYS;
			enum rt_pci_rel got = rt_pci_relation(&t->gpu[i], &t->rdma[j]);

			if (got != want)
				fail_msg("GPU %d, mlx5_%d: %s, want %s", i, j,
					 rt_pci_rel_name(got), rt_pci_rel_name(want));
			assert_int_equal(rt_pci_relation(&t->rdma[j], &t->gpu[i]), want);
		}
		/* the front-end NIC: another root port of host bridge 0 */
		assert_int_equal(rt_pci_relation(&t->gpu[i], &t->rdma[8]),
				 i < 2 ? RT_PCI_PHB : i < 4 ? RT_PCI_NODE : RT_PCI_SYS);
		assert_int_equal(rt_pci_relation(&t->gpu[i], &t->gpu[i]), RT_PCI_SELF);
	}
	assert_int_equal(rt_pci_relation(&t->gpu[0], &t->gpu[1]), RT_PCI_PXB);
	assert_int_equal(rt_pci_relation(&t->rdma[6], &t->rdma[7]), RT_PCI_PXB);
	assert_string_equal(rt_pci_rel_name(RT_PCI_NODE), "NODE");
	assert_string_equal(rt_pci_rel_name(RT_PCI_SELF), "X");
}

/* Two functions of one card (a dual-port NIC) are PIX; a switch with
 * GPU and NIC on two of its downstream ports too; two levels are PXB. */
static void relation_shapes(void **state)
{
	struct rt_pci_func a = { .root = "pci0000:00", .depth = 2, .numa_node = 0,
				 .path = { "0000:00:01.0", "0000:01:00.0" } };
	struct rt_pci_func b = a;
	struct rt_pci_func g = { .root = "pci0000:00", .depth = 4, .numa_node = 0,
				 .path = { "0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0" } };
	struct rt_pci_func n = g;

	(void)state;
	rt_strlcpy(b.path[1], "0000:01:00.1", RT_PCI_BDF_LEN);
	assert_int_equal(rt_pci_relation(&a, &b), RT_PCI_PIX);
	rt_strlcpy(n.path[2], "0000:02:01.0", RT_PCI_BDF_LEN);
	rt_strlcpy(n.path[3], "0000:04:00.0", RT_PCI_BDF_LEN);
	assert_int_equal(rt_pci_relation(&g, &n), RT_PCI_PIX);
	/* numa nodes unknown on both sides: one node */
	rt_strlcpy(n.root, "pci0000:40", sizeof(n.root));
	g.numa_node = n.numa_node = -1;
	assert_int_equal(rt_pci_relation(&g, &n), RT_PCI_NODE);
	n.numa_node = 1;
	assert_int_equal(rt_pci_relation(&g, &n), RT_PCI_SYS);
}

static void nearest(void **state)
{
	struct fixture *fx = *state;
	enum rt_pci_rel rel;

	for (int j = 0; j < 8; j++) {
		assert_int_equal(rt_pcitopo_nearest_gpu(&fx->topo, j, &rel), j);
		assert_int_equal(rel, RT_PCI_PIX);
	}
	/* GPUs 0 and 1 are both PHB: the first by bus id */
	assert_int_equal(rt_pcitopo_nearest_gpu(&fx->topo, 8, &rel), 0);
	assert_int_equal(rel, RT_PCI_PHB);
	assert_int_equal(rt_pcitopo_nearest_gpu(&fx->topo, 9, &rel), -1);
}

static void links(void **state)
{
	struct fixture *fx = *state;
	const struct rt_pcitopo *t = &fx->topo;

	for (int i = 0; i < 8; i++) {
		assert_true(t->gpu[i].link.cur_gts > 31.9 && t->gpu[i].link.cur_gts < 32.1);
		assert_int_equal(t->gpu[i].link.max_width, 16);
		assert_int_equal(t->gpu[i].link.cur_width, i == 3 ? 8 : 16);
		assert_int_equal(rt_pci_link_degraded(&t->gpu[i].link), i == 3);
	}
	assert_true(t->rdma[8].link.max_gts > 15.9 && t->rdma[8].link.max_gts < 16.1);
	assert_true(rt_pci_link_degraded(&(struct rt_pci_link){ 16, 32, 16, 16 }));
	/* "Unknown" speeds are no evidence */
	assert_false(rt_pci_link_degraded(&(struct rt_pci_link){ 0, 32, 0, 16 }));
}

static void not_pci(void **state)
{
	struct fixture *fx = *state;
	struct rt_pci_func f;
	struct rt_error e = { 0 };

	assert_int_equal(rt_pci_rdma_func(fx->tree.root, "rxe0", &f, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(e.reason, "rxe0 is not a PCI device"));
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_pci_rdma_func(fx->tree.root, "mlx5_4", &f, &e), 0);
	assert_int_equal(f.numa_node, 1);
	assert_string_equal(f.path[f.depth - 1], "0000:86:00.0");
	assert_int_equal(rt_pcitopo_scan(&fx->topo, "/nonexistent", &e), -1);
	/* the scan left fx->topo empty: refill it for the tests after */
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_pcitopo_scan(&fx->topo, fx->tree.root, &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scan),
		cmocka_unit_test(relations),
		cmocka_unit_test(relation_shapes),
		cmocka_unit_test(nearest),
		cmocka_unit_test(links),
		cmocka_unit_test(not_pci),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
