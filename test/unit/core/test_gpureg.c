/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* core/gpureg.c: which registration path is taken and what it is given,
 * over the fake CUDA and HIP drivers (test/fake/) and a fake /sys/module;
 * the verbs registration calls are wrapped (test/unit/meson.build) and
 * record their arguments. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmatest/gpureg.h"

static struct {
	int calls;
	const char *which;
	uint64_t addr;
	size_t len;
	int fd;
	int fail_errno;
} reg;
static struct ibv_mr fake_mr;

struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access);
struct ibv_mr *__wrap_ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len,
				       uint64_t iova, unsigned access);
struct ibv_mr *__wrap_ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t off, size_t len,
					uint64_t iova, int fd, int access);

static struct ibv_mr *record(const char *which, uint64_t addr, size_t len, int fd)
{
	reg.calls++;
	reg.which = which;
	reg.addr = addr;
	reg.len = len;
	reg.fd = fd;
	if (reg.fail_errno) {
		errno = reg.fail_errno;
		return NULL;
	}
	return &fake_mr;
}

struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	(void)pd;
	(void)access;
	return record("reg_mr", (uint64_t)(uintptr_t)addr, len, -1);
}

struct ibv_mr *__wrap_ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len,
				       uint64_t iova, unsigned access)
{
	(void)pd;
	(void)access;
	assert_int_equal(iova, (uint64_t)(uintptr_t)addr);
	return record("reg_mr", iova, len, -1);
}

struct ibv_mr *__wrap_ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t off, size_t len,
					uint64_t iova, int fd, int access)
{
	(void)pd;
	(void)access;
	assert_int_equal(off, 0);
	return record("reg_dmabuf_mr", iova, len, fd);
}

struct fixture {
	char sysfs[64];
	struct rt_gpumem g;
	struct rt_gpumem_buf *b;
};

static int setup(void **state)
{
	static struct fixture fx;
	struct rt_error e = { 0 };

	memset(&fx, 0, sizeof(fx));
	memset(&reg, 0, sizeof(reg));
	unsetenv("RT_FAKE_GPUS");
	unsetenv("RT_FAKE_GPU_FAIL");
	snprintf(fx.sysfs, sizeof(fx.sysfs), "/tmp/rt-gpureg-XXXXXX");
	assert_non_null(mkdtemp(fx.sysfs));
	assert_int_equal(rt_gpumem_open(&fx.g, RT_GPU_CUDA, NULL, &e), 0);
	assert_int_equal(rt_gpumem_alloc(&fx.g, 10000, &fx.b, &e), 0);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char path[128];

	rt_gpumem_close(&fx->g);
	snprintf(path, sizeof(path), "%s/module/nvidia_peermem", fx->sysfs);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/module", fx->sysfs);
	rmdir(path);
	rmdir(fx->sysfs);
	return 0;
}

static void load_peermem(const struct fixture *fx)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/module", fx->sysfs);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/module/nvidia_peermem", fx->sysfs);
	assert_int_equal(mkdir(path, 0755), 0);
}

static bool have_udmabuf(void)
{
	return access("/dev/udmabuf", R_OK | W_OK) == 0;
}

/* No dma-buf, no peer memory module: one line with both causes. */
static void auto_neither(void **state)
{
	struct fixture *fx = *state;
	struct rt_error e = { 0 };

	setenv("RT_FAKE_GPU_FAIL", "dmabuf", 1);
	assert_null(rt_gpureg_mr(NULL, &fx->g, fx->b, 0, RT_GPUREG_AUTO, fx->sysfs, NULL, &e));
	assert_int_equal(e.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(e.reason, "does not support dma-buf export"));
	assert_non_null(strstr(e.reason, "peer memory needs the nvidia_peermem module, which is not loaded (modprobe nvidia_peermem)"));
	assert_int_equal(reg.calls, 0);
}

/* No dma-buf, but nvidia_peermem: ibv_reg_mr on the device address. */
static void auto_peermem(void **state)
{
	struct fixture *fx = *state;
	struct rt_error e = { 0 };
	enum rt_gpureg_path used = RT_GPUREG_AUTO;

	setenv("RT_FAKE_GPU_FAIL", "dmabuf", 1);
	load_peermem(fx);
	assert_true(rt_gpumem_peermem_loaded(fx->sysfs, RT_GPU_CUDA));
	assert_ptr_equal(rt_gpureg_mr(NULL, &fx->g, fx->b, 0, RT_GPUREG_AUTO, fx->sysfs, &used, &e),
			 &fake_mr);
	assert_false(e.set);
	assert_int_equal(used, RT_GPUREG_PEERMEM);
	assert_string_equal(reg.which, "reg_mr");
	assert_int_equal(reg.addr, fx->b->addr);
	assert_int_equal(reg.len, 10000);
}

/* dma-buf asked for and not there: no fallback. */
static void dmabuf_forced(void **state)
{
	struct fixture *fx = *state;
	struct rt_error e = { 0 };

	setenv("RT_FAKE_GPU_FAIL", "dmabuf", 1);
	load_peermem(fx);
	assert_null(rt_gpureg_mr(NULL, &fx->g, fx->b, 0, RT_GPUREG_DMABUF, fx->sysfs, NULL, &e));
	assert_int_equal(e.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(e.reason, "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0"));
	assert_int_equal(reg.calls, 0);
}

static void peermem_forced(void **state)
{
	struct fixture *fx = *state;
	struct rt_error e = { 0 };

	assert_null(rt_gpureg_mr(NULL, &fx->g, fx->b, 0, RT_GPUREG_PEERMEM, fx->sysfs, NULL, &e));
	assert_int_equal(e.exit_code, RT_EXIT_ENV);
	assert_string_equal(e.reason, "peer memory needs the nvidia_peermem module, which is not loaded (modprobe nvidia_peermem)");
	load_peermem(fx);
	memset(&e, 0, sizeof(e));
	reg.fail_errno = EFAULT;
	assert_null(rt_gpureg_mr(NULL, &fx->g, fx->b, 0, RT_GPUREG_PEERMEM, fx->sysfs, NULL, &e));
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(e.reason, "ibv_reg_mr of 10000 bytes of GPU 0000:3b:00.0 memory through nvidia_peermem failed"));
	assert_int_equal(e.err_no, EFAULT);
}

/* With udmabuf: the exported descriptor and the device address go to
 * ibv_reg_dmabuf_mr; a kernel without dma-buf MRs is the host's limit. */
static void dmabuf_path(void **state)
{
	struct fixture *fx = *state;
	struct rt_error e = { 0 };
	enum rt_gpureg_path used = RT_GPUREG_AUTO;

	if (!have_udmabuf())
		skip();
	assert_ptr_equal(rt_gpureg_mr(NULL, &fx->g, fx->b, 0, RT_GPUREG_AUTO, fx->sysfs, &used, &e),
			 &fake_mr);
	assert_int_equal(used, RT_GPUREG_DMABUF);
	assert_string_equal(reg.which, "reg_dmabuf_mr");
	assert_int_equal(reg.fd, fx->b->dmabuf_fd);
	assert_int_equal(reg.addr, fx->b->addr);
	reg.fail_errno = EOPNOTSUPP;
	assert_null(rt_gpureg_mr(NULL, &fx->g, fx->b, 0, RT_GPUREG_DMABUF, fx->sysfs, NULL, &e));
	assert_int_equal(e.exit_code, RT_EXIT_ENV);
}

/* Without udmabuf the fake cannot export: AUTO falls back to peer memory. */
static void no_udmabuf_falls_back(void **state)
{
	struct fixture *fx = *state;
	struct rt_error e = { 0 };
	enum rt_gpureg_path used = RT_GPUREG_AUTO;

	if (have_udmabuf())
		skip();
	load_peermem(fx);
	assert_non_null(rt_gpureg_mr(NULL, &fx->g, fx->b, 0, RT_GPUREG_AUTO, fx->sysfs, &used, &e));
	assert_int_equal(used, RT_GPUREG_PEERMEM);
	assert_int_equal(fx->b->dmabuf_fd, -1);
}

static void module_names(void **state)
{
	(void)state;
	assert_string_equal(rt_gpumem_peermem_module(RT_GPU_CUDA), "nvidia_peermem");
	assert_string_equal(rt_gpumem_peermem_module(RT_GPU_HIP), "amdgpu");
	assert_false(rt_gpumem_peermem_loaded("/nonexistent", RT_GPU_CUDA));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(auto_neither, setup, teardown),
		cmocka_unit_test_setup_teardown(auto_peermem, setup, teardown),
		cmocka_unit_test_setup_teardown(dmabuf_forced, setup, teardown),
		cmocka_unit_test_setup_teardown(peermem_forced, setup, teardown),
		cmocka_unit_test_setup_teardown(dmabuf_path, setup, teardown),
		cmocka_unit_test_setup_teardown(no_udmabuf_falls_back, setup, teardown),
		cmocka_unit_test(module_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
