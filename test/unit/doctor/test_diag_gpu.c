/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's GPUDirect RDMA checks (diag_gpu.c) on the fake 8-GPU, 8-NIC
 * host of test/unit/core/pci_tree.h (GPU n and mlx5_n behind one switch,
 * ACS redirecting on the port above GPU 5, GPU 3 at x8 of x16, a
 * front-end NIC PHB to GPU 0) with a storage NIC on a NUMA node without
 * a GPU, on hosts without a GPU, and with the peer memory module there
 * or not. The expected lines come from the tree's layout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doctor/diag.h"
#include "doctor/diag_report.h"
#include "fake_host.h"
#include "rdmatest/json.h"
#include "../core/pci_tree.h"

/* bus ids in the tree: GPU n of host bridge h, k = n % 2, at
 * (0x40 h + 5 + 4 k):00.0 */
#define GPU0 "0000:05:00.0"
#define GPU3 "0000:49:00.0"
#define GPU5 "0000:89:00.0"
#define GPU5_PORT "0000:88:00.0" /* the switch port with ACS on */

static struct pci_tree tree;
static char proc[64];
static struct rt_diag_env env;
static struct rt_diag *d;

static void module(const char *name)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "module/%s/refcnt", name);
	fake_put(tree.root, rel, "0");
}

static void set_attr(const char *bdf, const char *name, const char *value)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", tree.root, bdf);
	tree_attr(dir, name, value);
}

/* One tree for every test (building it is most of their time); each
 * test's setup puts back what a test may change. */
static int make_tree(void **state)
{
	(void)state;
	pci_tree_make(&tree);
	pci_tree_add_far_nic(&tree);
	return 0;
}

static int drop_tree(void **state)
{
	(void)state;
	pci_tree_remove(&tree);
	return 0;
}

/* What the tests change back to what pci_tree_make wrote: GPU 0's
 * vendor and speed, GPU 3's x8, mlx5_11's speed, ACS above GPU 5; and
 * no modules, no IOMMU groups. */
static void tree_reset(void)
{
	char cmd[3 * PATH_MAX], dir[PATH_MAX];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/module' '%s/kernel' "
		 "'%s/bus/pci/devices/" GPU0 "/iommu_group'", tree.root, tree.root, tree.root);
	assert_int_equal(system(cmd), 0);
	set_attr(GPU0, "vendor", "0x10de\n");
	set_attr(GPU0, "current_link_speed", GEN5);
	set_attr(GPU3, "current_link_width", "8\n");
	set_attr("0000:e1:00.0", "current_link_speed", GEN5);
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", tree.root, GPU5_PORT);
	tree_config(dir, ACS_ON);
}

/* The host as most GPU clusters run it: NVIDIA's proprietary driver,
 * nvidia_peermem loaded, kernel 6.8, no IOMMU. */
static int setup(void **state)
{
	(void)state;
	tree_reset();
	fake_root(proc, sizeof(proc), "test_diag_gpu");
	env = (struct rt_diag_env){ tree.root, proc, proc, NULL };
	fake_put(proc, "sys/kernel/osrelease", "6.8.0-49-generic");
	fake_put(proc, "cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet");
	fake_put(proc, "driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel "
		 "Module  550.90.07  Fri May 31 09:35:42 UTC 2024");
	fake_put(tree.root, "module/nvidia/version", "550.90.07");
	module("nvidia_peermem");
	d = calloc(1, sizeof(*d));
	assert_non_null(d);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(d);
	fake_remove(proc);
	return 0;
}

static void drop(const char *rel)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", tree.root, rel);
	assert_int_equal(rmdir(path) == 0 || unlink(path) == 0, 1);
}

static void drop_module(const char *name)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "module/%s/refcnt", name);
	drop(rel);
	snprintf(rel, sizeof(rel), "module/%s", name);
	drop(rel);
}

/* The lines of `check` at `level` whose evidence holds `needle`. */
static int count(const char *check, enum rt_diag_level level, const char *needle)
{
	int n = 0;

	for (int i = 0; i < d->n; i++)
		n += !strcmp(d->lines[i].check, check) && d->lines[i].level == level &&
		     strstr(d->lines[i].evidence, needle) != NULL;
	return n;
}

static const struct rt_diag_line *find(const char *check, enum rt_diag_level level,
				       const char *needle)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->lines[i].check, check) && d->lines[i].level == level &&
		    strstr(d->lines[i].evidence, needle))
			return &d->lines[i];
	fail_msg("no %s line of %s holding \"%s\"", rt_diag_level_name(level), check, needle);
	return NULL;
}

/* One summary line, the peer memory module, every NIC's nearest GPU. */
static void test_host_pairs(void **state)
{
	char want[64];

	(void)state;
	rt_diag_gpu(&env, d);
	assert_non_null(find("gpu", RT_DIAG_PASS, "8 GPUs (NVIDIA 8, AMD 0), 10 RDMA devices"));
	assert_non_null(find("gpu-memory", RT_DIAG_PASS, "nvidia_peermem"));
	assert_non_null(find("gpu-memory", RT_DIAG_PASS, "550.90.07"));
	for (int n = 0; n < 8; n++) {
		unsigned bus = 0x40u * (unsigned)(n / 2) + 5 + 4 * (unsigned)(n % 2);

		snprintf(want, sizeof(want), "mlx5_%d (", n);
		assert_int_equal(count("gpu-nic", RT_DIAG_PASS, want), 1);
		snprintf(want, sizeof(want), "nearest GPU 0000:%02x:00.0, PIX", bus);
		assert_non_null(find("gpu-nic", RT_DIAG_PASS, want));
	}
	assert_int_equal(count("gpu-nic", RT_DIAG_PASS, ""), 8);
	assert_int_equal(count("gpu-nic", RT_DIAG_WARN, ""), 2);
	assert_int_equal(rt_diag_first(d, RT_DIAG_FAIL) == NULL, 1);
	assert_int_equal(rt_diag_exit(d), 0); /* WARN does not fail the host */
}

/* The storage NIC has no GPU on its node: SYS; the front-end NIC's
 * nearest GPU is behind another root port of its host bridge: PHB. */
static void test_far_nics_warn(void **state)
{
	const struct rt_diag_line *l;

	(void)state;
	rt_diag_gpu(&env, d);
	l = find("gpu-nic", RT_DIAG_WARN, "mlx5_11 (0000:e1:00.0, NUMA node 2)");
	assert_non_null(strstr(l->evidence, "is SYS"));
	assert_non_null(strstr(l->evidence, "sockets' interconnect"));
	assert_non_null(strstr(l->fix, "behind its own PCIe switch"));
	l = find("gpu-nic", RT_DIAG_WARN, "mlx5_10 (0000:3f:00.0");
	assert_non_null(strstr(l->evidence, "nearest GPU " GPU0 " (NUMA node 0) is PHB"));
}

/* ACS on the switch port above GPU 5 lies between it and mlx5_5. */
static void test_acs_names_bridge(void **state)
{
	const struct rt_diag_line *l;

	(void)state;
	rt_diag_gpu(&env, d);
	assert_int_equal(count("gpu-acs", RT_DIAG_WARN, ""), 1);
	l = find("gpu-acs", RT_DIAG_WARN, "bridge " GPU5_PORT " between GPU " GPU5 " and mlx5_5");
	assert_non_null(strstr(l->evidence, "ACS control 0x001d"));
	assert_non_null(strstr(l->fix, "setpci -s " GPU5_PORT " ECAP_ACS+6.w=0000"));
	assert_int_equal(count("gpu-acs", RT_DIAG_PASS, ""), 0);
}

/* With ACS cleared there, every route is clean and says how much was read. */
static void test_acs_clean(void **state)
{
	char dir[PATH_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", tree.root, GPU5_PORT);
	tree_config(dir, ACS_OFF);
	rt_diag_gpu(&env, d);
	assert_int_equal(count("gpu-acs", RT_DIAG_WARN, ""), 0);
	assert_non_null(find("gpu-acs", RT_DIAG_PASS, "no bridge redirects peer-to-peer "
			     "between 10 GPU-NIC pairs"));
}

/* Config space cut at 64 bytes (not root) is never a clean PASS. */
static void test_acs_unreadable(void **state)
{
	char dir[PATH_MAX];
	const struct rt_diag_line *l;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", tree.root, GPU5_PORT);
	tree_config(dir, CFG_SHORT);
	rt_diag_gpu(&env, d);
	l = find("gpu-acs", RT_DIAG_WARN, "ACS not read on 1 of ");
	assert_non_null(strstr(l->fix, "as root"));
	assert_int_equal(count("gpu-acs", RT_DIAG_PASS, ""), 0);
}

/* GPU 3 trained x8 of x16: one WARN naming it, its link and its maximum. */
static void test_narrow_gpu_link(void **state)
{
	(void)state;
	rt_diag_gpu(&env, d);
	assert_int_equal(count("gpu-link", RT_DIAG_WARN, ""), 1);
	assert_non_null(find("gpu-link", RT_DIAG_WARN, "GPU " GPU3 " trained at "
			     "32.0 GT/s x8, below its maximum 32.0 GT/s x16"));
	assert_int_equal(count("gpu-link", RT_DIAG_PASS, ""), 0);
}

/* A NIC below its speed warns; an idle GPU below its speed is named in
 * the PASS line only (it raises the speed under load). */
static void test_link_speed(void **state)
{
	(void)state;
	set_attr(GPU3, "current_link_width", "16\n");
	set_attr(GPU0, "current_link_speed", "2.5 GT/s PCIe\n");
	rt_diag_gpu(&env, d);
	assert_int_equal(count("gpu-link", RT_DIAG_WARN, ""), 0);
	assert_non_null(find("gpu-link", RT_DIAG_PASS, GPU0 " 2.5 of 32.0 GT/s"));

	memset(d, 0, sizeof(*d));
	set_attr("0000:e1:00.0", "current_link_speed", "16.0 GT/s PCIe\n");
	rt_diag_gpu(&env, d);
	assert_non_null(find("gpu-link", RT_DIAG_WARN, "RDMA device mlx5_11 (0000:e1:00.0) "
			     "trained at 16.0 GT/s x16, below its maximum 32.0 GT/s x16"));
}

/* Without nvidia_peermem and with the proprietary driver: WARN naming
 * the module to load. */
static void test_peermem_absent(void **state)
{
	const struct rt_diag_line *l;

	(void)state;
	drop_module("nvidia_peermem");
	rt_diag_gpu(&env, d);
	l = find("gpu-memory", RT_DIAG_WARN, "no nvidia_peermem, and no dma-buf path");
	assert_non_null(strstr(l->evidence, "proprietary kernel module"));
	assert_non_null(strstr(l->fix, "modprobe nvidia_peermem"));
	assert_int_equal(count("gpu-memory", RT_DIAG_PASS, ""), 0);
}

/* Without procfs' driver banner the module's flavour is not guessed. */
static void test_flavour_unknown(void **state)
{
	char path[96];
	const struct rt_diag_line *l;

	(void)state;
	drop_module("nvidia_peermem");
	snprintf(path, sizeof(path), "%s/driver/nvidia/version", proc);
	assert_int_equal(unlink(path), 0);
	rt_diag_gpu(&env, d);
	l = find("gpu-memory", RT_DIAG_WARN, "kernel module flavour unknown");
	assert_null(strstr(l->evidence, "proprietary"));
}

/* A release procfs does not give, or not as numbers, is not called old. */
static void test_kernel_unknown(void **state)
{
	char path[96];
	const struct rt_diag_line *l;

	(void)state;
	drop_module("nvidia_peermem");
	snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", proc);
	assert_int_equal(unlink(path), 0);
	rt_diag_gpu(&env, d);
	l = find("gpu-memory", RT_DIAG_WARN, "(kernel unreadable, ");
	assert_null(strstr(l->evidence, "older"));

	memset(d, 0, sizeof(*d));
	fake_put(proc, "sys/kernel/osrelease", "6-custom");
	rt_diag_gpu(&env, d);
	l = find("gpu-memory", RT_DIAG_WARN, "(kernel 6-custom, ");
	assert_null(strstr(l->evidence, "older"));
}

/* The open kernel module on a 5.12+ kernel has the dma-buf path; on an
 * older kernel it has not. */
static void test_dmabuf_path(void **state)
{
	(void)state;
	drop_module("nvidia_peermem");
	fake_put(proc, "driver/nvidia/version", "NVRM version: NVIDIA UNIX Open Kernel "
		 "Module for x86_64  550.90.07  Release Build");
	rt_diag_gpu(&env, d);
	assert_non_null(find("gpu-memory", RT_DIAG_PASS, "open kernel module), kernel "
			     "6.8.0-49-generic: the dma-buf path"));

	memset(d, 0, sizeof(*d));
	fake_put(proc, "sys/kernel/osrelease", "5.4.0-190-generic");
	rt_diag_gpu(&env, d);
	assert_non_null(find("gpu-memory", RT_DIAG_WARN, "kernel 5.4.0-190-generic is older "
			     "than 5.12"));
}

static void test_nvidia_not_loaded(void **state)
{
	const struct rt_diag_line *l;

	(void)state;
	drop_module("nvidia_peermem");
	drop("module/nvidia/version");
	drop("module/nvidia");
	rt_diag_gpu(&env, d);
	l = find("gpu-memory", RT_DIAG_WARN, "the nvidia module is not loaded");
	assert_non_null(strstr(l->fix, "modprobe nvidia"));
}

/* An AMD GPU among them: amdgpu and the kernel decide. */
static void test_amd_gpu(void **state)
{
	(void)state;
	set_attr(GPU0, "vendor", "0x1002\n");
	rt_diag_gpu(&env, d);
	assert_non_null(find("gpu", RT_DIAG_PASS, "8 GPUs (NVIDIA 7, AMD 1)"));
	assert_non_null(strstr(find("gpu-memory", RT_DIAG_WARN, "1 AMD GPU: no dma-buf path "
				    "(amdgpu not loaded")->fix, "modprobe amdgpu"));

	memset(d, 0, sizeof(*d));
	module("amdgpu");
	rt_diag_gpu(&env, d);
	assert_non_null(find("gpu-memory", RT_DIAG_PASS, "1 AMD GPU, amdgpu loaded, kernel "
			     "6.8.0-49-generic: the dma-buf path"));
}

/* No IOMMU groups: off. A GPU's group in a DMA domain: translated, WARN
 * with iommu=pt; groups and iommu=pt without a type: passthrough. */
static void test_iommu(void **state)
{
	const struct rt_diag_line *l;
	char rel[128];

	(void)state;
	rt_diag_gpu(&env, d);
	assert_non_null(find("iommu", RT_DIAG_PASS, "off (0 IOMMU groups"));

	memset(d, 0, sizeof(*d));
	fake_put(tree.root, "kernel/iommu_groups/17/type", "DMA-FQ");
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/iommu_group/type", GPU0);
	fake_put(tree.root, rel, "DMA-FQ");
	rt_diag_gpu(&env, d);
	l = find("iommu", RT_DIAG_WARN, "translated (GPU " GPU0 "'s group: DMA-FQ");
	assert_non_null(strstr(l->fix, "iommu=pt"));

	memset(d, 0, sizeof(*d));
	drop(rel);
	fake_put(proc, "cmdline", "BOOT_IMAGE=/vmlinuz ro intel_iommu=on iommu=pt");
	rt_diag_gpu(&env, d);
	assert_non_null(find("iommu", RT_DIAG_PASS, "passthrough (1 IOMMU groups, "
			     "iommu=pt on the command line)"));
}

/* --json carries the findings as the checks array. */
static void test_json(void **state)
{
	struct rt_json j;

	(void)state;
	rt_diag_gpu(&env, d);
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_diag_json(&j, d);
	rt_json_object_end(&j);
	rt_json_finish(&j);
	assert_non_null(strstr(rt_json_text(&j), "{\"check\":\"gpu-acs\",\"level\":\"WARN\","
				"\"evidence\":\"bridge " GPU5_PORT));
	rt_json_free(&j);
}

/* A host whose PCI bus holds an RDMA NIC and the BMC's display but no
 * GPU, and one without a PCI bus in sysfs: no GPU line at all. */
static void test_no_gpu(void **state)
{
	struct pci_tree plain;
	char path[PATH_MAX], hb[PATH_MAX], rp[PATH_MAX], ep[PATH_MAX];
	struct rt_diag_env plain_env = { NULL, proc, proc, NULL };

	(void)state;
	snprintf(plain.root, sizeof(plain.root), "/tmp/rt-nogpu-XXXXXX");
	assert_non_null(mkdtemp(plain.root));
	plain_env.sysfs = plain.root;
	rt_diag_gpu(&plain_env, d); /* no bus/pci at all */
	assert_int_equal(d->n, 0);

	snprintf(path, sizeof(path), "%s/bus/pci/devices", plain.root);
	tree_mkdirs(path);
	snprintf(hb, sizeof(hb), "%s/devices/pci0000:00", plain.root);
	tree_func(&plain, hb, "0000:00:03.0", "0x8086\n", BRIDGE, 0, GEN5, 16, 16, ACS_ON,
		  rp, sizeof(rp));
	tree_func(&plain, rp, "0000:3f:00.0", "0x15b3\n", "0x020000\n", 0, GEN5, 8, 16,
		  CFG_NO_ACS, ep, sizeof(ep));
	tree_rdma(&plain, "mlx5_0", ep);
	tree_func(&plain, hb, "0000:3e:00.0", "0x1a03\n", "0x030000\n", 0, GEN5, 1, 1,
		  CFG_NO_ACS, ep, sizeof(ep));
	rt_diag_gpu(&plain_env, d);
	assert_int_equal(d->n, 0);
	pci_tree_remove(&plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_host_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_far_nics_warn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acs_names_bridge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acs_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acs_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_narrow_gpu_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_link_speed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peermem_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flavour_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dmabuf_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvidia_not_loaded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_amd_gpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_iommu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_gpu, setup, teardown),
	};

	return cmocka_run_group_tests(tests, make_tree, drop_tree);
}
