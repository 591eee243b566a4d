/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mesh --gpu's choice of each rail's GPU on the generated 8-GPU, 8-NIC
 * sysfs tree (test/unit/core/pci_tree.h), and its opening against the
 * fake drivers (test/fake/, on LD_LIBRARY_PATH): a failure names the
 * rail and its cause with exit 3 and leaves no allocation or context
 * behind (the fake's tally, read through a handle of the test's own). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshgpu.h"
#include "mesh/meshtest.h"
#include "../core/pci_tree.h"

struct fixture {
	struct pci_tree tree;
	struct rt_pcitopo topo;
};

static int setup(void **state)
{
	static struct fixture fx;
	struct rt_error err = {0};

	pci_tree_make(&fx.tree);
	assert_int_equal(rt_pcitopo_scan(&fx.topo, fx.tree.root, &err), 0);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	pci_tree_remove(&fx->tree);
	return 0;
}

/* Each NIC's own GPU (PIX), the front-end NIC's nearest (PHB, the first
 * of two by bus id), and a software device: the rail's number modulo the
 * GPUs sysfs lists, relation unknown; no GPU listed: the driver's first. */
static void picks_the_nearest(void **state)
{
	struct fixture *fx = *state;
	struct rt_pcitopo none = {0};
	char bus[RT_PCI_BDF_LEN], dev[16];
	uint8_t rel;

	for (int n = 0; n < 8; n++) {
		snprintf(dev, sizeof(dev), "mlx5_%d", n);
		rt_mesh_gpu_pick(&fx->topo, dev, (unsigned)n, bus, sizeof(bus), &rel);
		assert_string_equal(bus, fx->topo.gpu[n].name);
		assert_string_equal(rt_mesh_gpu_rel_name(rel), "PIX");
	}
	rt_mesh_gpu_pick(&fx->topo, "mlx5_10", 8, bus, sizeof(bus), &rel);
	assert_string_equal(bus, fx->topo.gpu[0].name);
	assert_string_equal(rt_mesh_gpu_rel_name(rel), "PHB");
	rt_mesh_gpu_pick(&fx->topo, "rxe0", 11, bus, sizeof(bus), &rel);
	assert_string_equal(bus, fx->topo.gpu[3].name);
	assert_int_equal(rel, RT_MESH_GPU_UNKNOWN);
	rt_mesh_gpu_pick(&none, "rxe0", 11, bus, sizeof(bus), &rel);
	assert_string_equal(bus, "");
	assert_string_equal(rt_mesh_gpu_rel_name(rel), "unknown");
}

/* The wire's relation names are pcitopo's, in its order. */
static void relation_names(void **state)
{
	(void)state;
	for (int r = RT_PCI_SELF; r <= RT_PCI_SYS; r++)
		assert_string_equal(rt_mesh_gpu_rel_name(RT_MESH_GPU_REL0 + (unsigned)r),
				    rt_pci_rel_name((enum rt_pci_rel)r));
	assert_int_equal(RT_MESH_GPU_REL_MAX, RT_MESH_GPU_REL0 + RT_PCI_SYS);
	assert_string_equal(rt_mesh_gpu_rel_name(RT_MESH_GPU_REL_MAX + 1), "?");
}

static void pattern_varies(void **state)
{
	(void)state;
	assert_int_not_equal(rt_mesh_gpu_byte(1, 0), rt_mesh_gpu_byte(2, 0));
	assert_int_not_equal(rt_mesh_gpu_byte(1, 0), rt_mesh_gpu_byte(1, 1));
	assert_int_not_equal(rt_mesh_gpu_byte(1, 0), rt_mesh_gpu_byte(1, 256));
}

static int (*fake_live(void **dl))(void)
{
	int (*live)(void);

	*dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	assert_non_null(*dl);
	*(void **)&live = dlsym(*dl, "fake_gpu_live");
	assert_non_null(live);
	return live;
}

/* A rail whose GPU opens and fills but whose device cannot be opened for
 * the trial registration, and a GPU whose memory cannot be allocated:
 * exit 3, the rail named, nothing left. */
static void failures_name_the_rail(void **state)
{
	struct fixture *fx = *state;
	struct rt_mesh_rail rails[1] = {{ .dev = "nosuchdev0", .rail = 2, .port = 1 }};
	struct rt_mesh_gpu *m = calloc(1, sizeof(*m));
	struct rt_error err = {0};
	void *dl;
	int (*live)(void) = fake_live(&dl);

	setenv("RT_FAKE_GPUS", "0000:1b:00.0,0000:3b:00.0", 1);
	unsetenv("RT_FAKE_GPU_FAIL");
	assert_int_equal(rt_mesh_gpu_open(m, RT_GPU_CUDA, fx->tree.root, rails, 1, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "--gpu: rail 2 (nosuchdev0): "));
	assert_non_null(strstr(err.reason, "nosuchdev0"));
	/* the fake tree lists GPUs, not this device: GPU 2 % 8 by sysfs order,
	 * which this fake driver does not have */
	assert_int_equal(live(), 0);

	memset(&err, 0, sizeof(err));
	setenv("RT_FAKE_GPU_FAIL", "alloc", 1);
	assert_int_equal(rt_mesh_gpu_open(m, RT_GPU_CUDA, "/nonexistent", rails, 1, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "--gpu: rail 2 (nosuchdev0): "));
	assert_int_equal(live(), 0);
	assert_string_equal(rails[0].gpu, "0000:1b:00.0"); /* the driver's GPU 0 */
	assert_int_equal(rails[0].gpu_rel, RT_MESH_GPU_UNKNOWN);

	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_gpu_open(m, RT_GPU_CUDA, "/nonexistent", rails, 0, &err), -1);
	assert_non_null(strstr(err.reason, "no rail"));
	unsetenv("RT_FAKE_GPU_FAIL");
	rt_mesh_gpu_close(m); /* twice is harmless */
	free(m);
	dlclose(dl);
}

/* The check reads the connection's landing slot back from the GPU: the
 * round's pattern passes, a byte off is named, another round's pattern
 * (a window a write never reached) fails, bytes past len are not read. */
static void check_reads_the_landing_back(void **state)
{
	struct rt_mesh_gpu_rail r = {0};
	struct rt_mesh_gpu_conn c = {.rail = &r, .land_off = 3 * RT_MESH_BW_CHUNK};
	struct rt_error err = {0};
	uint8_t *host = calloc(1, RT_MESH_BW_CHUNK);
	void *dl;
	int (*live)(void) = fake_live(&dl);

	(void)state;
	unsetenv("RT_FAKE_GPU_FAIL");
	assert_int_equal(rt_gpumem_open(&r.g, RT_GPU_CUDA, NULL, &err), 0);
	assert_int_equal(rt_gpumem_alloc(&r.g, RT_MESH_BW_CHUNK * RT_MESH_RAILS_MAX, &r.land,
					 &err), 0);
	for (size_t i = 0; i < RT_MESH_BW_CHUNK; i++)
		host[i] = rt_mesh_gpu_byte(7, i);
	host[1000] ^= 1; /* past len below: not read */
	assert_int_equal(rt_gpumem_to_dev(&r.g, r.land, c.land_off, host, RT_MESH_BW_CHUNK, &err), 0);
	assert_int_equal(rt_mesh_gpu_check(&c, 7, 1000, &err), 0);
	assert_int_equal(rt_mesh_gpu_check(&c, 7, 1001, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "data check: byte 1000 read back"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_gpu_check(&c, 8, 10, &err), -1);
	assert_non_null(strstr(err.reason, "byte 0 read back"));
	rt_gpumem_close(&r.g);
	assert_int_equal(live(), 0);
	free(host);
	dlclose(dl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(picks_the_nearest),
		cmocka_unit_test(relation_names),
		cmocka_unit_test(pattern_varies),
		cmocka_unit_test(failures_name_the_rail),
		cmocka_unit_test(check_reads_the_landing_back),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
