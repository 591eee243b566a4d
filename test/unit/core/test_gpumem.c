/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* core/gpumem.c's real loading and calling code against the fake drivers
 * the test tree builds (test/fake/: libcuda.so.1 and libamdhip64.so over
 * host memory), found through LD_LIBRARY_PATH (test/unit/meson.build).
 * Each test holds its own handle on the fake so that the fake's tally of
 * live allocations and contexts survives rt_gpumem_close's dlclose: it
 * must read 0 after every close. `test_gpumem --no-driver` runs with no
 * fake on the path: the missing-library errors. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmatest/gpumem.h"

struct fake {
	void *dl;
	int (*live)(void);
};

static void fake_hold(struct fake *f, const char *lib)
{
	f->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(f->dl);
	*(void **)&f->live = dlsym(f->dl, "fake_gpu_live");
	assert_non_null(f->live);
}

static int setup(void **state)
{
	(void)state;
	setenv("RT_FAKE_GPUS", "0000:1b:00.0,0000:3b:00.0,0000:9a:00.0", 1);
	unsetenv("RT_FAKE_GPU_FAIL");
	return 0;
}

static void fail_env(const struct rt_error *e, const char *part)
{
	assert_true(e->set);
	assert_int_equal(e->exit_code, RT_EXIT_ENV);
	assert_true(rt_gpumem_error_is_env(e));
	if (!strstr(e->reason, part))
		fail_msg("'%s' not in '%s'", part, e->reason);
}

static void open_by_index(void **state)
{
	struct rt_gpumem g;
	struct rt_error e = { 0 };
	struct fake f;

	(void)state;
	fake_hold(&f, "libcuda.so.1");
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, "1", &e), 0);
	assert_int_equal(g.index, 1);
	assert_string_equal(g.bus_id, "0000:3b:00.0");
	assert_string_equal(g.name, "Fake CUDA GPU 1");
	assert_int_equal(f.live(), 1); /* the primary context */
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	rt_gpumem_close(&g); /* twice is harmless */
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, NULL, &e), 0);
	assert_string_equal(g.bus_id, "0000:1b:00.0");
	rt_gpumem_close(&g);
	assert_false(e.set);
	dlclose(f.dl);
}

static void open_by_bus_id(void **state)
{
	struct rt_gpumem g;
	struct rt_error e = { 0 };
	struct fake f;

	(void)state;
	fake_hold(&f, "libcuda.so.1");
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, "0000:9a:00.0", &e), 0);
	assert_int_equal(g.index, 2);
	rt_gpumem_close(&g);
	/* the short form lspci prints */
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, "3b:00.0", &e), 0);
	assert_int_equal(g.index, 1);
	assert_string_equal(g.bus_id, "0000:3b:00.0");
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);
}

static void no_such_gpu(void **state)
{
	struct rt_gpumem g;
	struct rt_error e = { 0 };
	struct fake f;

	(void)state;
	fake_hold(&f, "libcuda.so.1");
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, "3", &e), -1);
	fail_env(&e, "no CUDA GPU 3: this host has 3 (0..2)");
	assert_null(g.drv);
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, "0000:5e:00.0", &e), -1);
	fail_env(&e, "no CUDA GPU at PCI bus id 0000:5e:00.0");
	memset(&e, 0, sizeof(e));
	setenv("RT_FAKE_GPUS", "", 1);
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, NULL, &e), -1);
	fail_env(&e, "no CUDA GPU on this host");
	memset(&e, 0, sizeof(e));
	setenv("RT_FAKE_GPUS", "0000:1b:00.0", 1);
	setenv("RT_FAKE_GPU_FAIL", "init", 1);
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, NULL, &e), -1);
	fail_env(&e, "the CUDA driver does not start (cuInit: CUDA_ERROR_NOT_INITIALIZED");
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);
}

static void bad_name(void **state)
{
	struct rt_gpumem g;
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, "gpu0", &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_USAGE);
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, "0000:zz:00.0", &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_USAGE);
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_HIP, "-1", &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_USAGE);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

/* A pattern to the GPU and back, whole and at an offset; a copy past the
 * buffer's end is refused before the driver sees it. */
static void round_trip(enum rt_gpu_api api, const char *lib)
{
	enum { LEN = 100000 };
	static uint8_t out[LEN], in[LEN];
	struct rt_gpumem g;
	struct rt_gpumem_buf *b;
	struct rt_error e = { 0 };
	struct fake f;

	fake_hold(&f, lib);
	assert_int_equal(rt_gpumem_open(&g, api, "1", &e), 0);
	assert_int_equal(rt_gpumem_alloc(&g, LEN, &b, &e), 0);
	assert_int_equal(b->len, LEN);
	assert_int_equal(b->alloc_len, 2 * RT_GPUMEM_ALIGN); /* 100000 -> 131072 */
	assert_int_equal(b->dmabuf_fd, -1);
	fill(out, LEN, 7);
	assert_int_equal(rt_gpumem_to_dev(&g, b, 0, out, LEN, &e), 0);
	memset(in, 0, LEN);
	assert_int_equal(rt_gpumem_to_host(&g, b, 0, in, LEN, &e), 0);
	assert_memory_equal(in, out, LEN);
	/* the device pointer is a host address in the fake: the bytes landed there */
	assert_memory_equal((const void *)(uintptr_t)b->addr, out, LEN);
	fill(out, 64, 99);
	assert_int_equal(rt_gpumem_to_dev(&g, b, LEN - 64, out, 64, &e), 0);
	assert_int_equal(rt_gpumem_to_host(&g, b, LEN - 64, in, 64, &e), 0);
	assert_memory_equal(in, out, 64);
	assert_false(e.set);
	assert_int_equal(rt_gpumem_to_host(&g, b, LEN - 63, in, 64, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(e.reason, "outside a buffer of 100000"));
	assert_int_equal(f.live(), 2 - (api == RT_GPU_HIP)); /* HIP: no context */
	rt_gpumem_close(&g); /* frees the buffer too */
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);
}

static void round_trip_cuda(void **state)
{
	(void)state;
	round_trip(RT_GPU_CUDA, "libcuda.so.1");
}

static void round_trip_hip(void **state)
{
	(void)state;
	round_trip(RT_GPU_HIP, "libamdhip64.so");
}

static void alloc_limits(void **state)
{
	struct rt_gpumem g;
	struct rt_gpumem_buf *b[RT_GPUMEM_MAX_BUFS + 1];
	struct rt_error e = { 0 };
	struct fake f;

	(void)state;
	fake_hold(&f, "libcuda.so.1");
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, NULL, &e), 0);
	assert_int_equal(rt_gpumem_alloc(&g, 0, &b[0], &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_USAGE);
	memset(&e, 0, sizeof(e));
	for (int i = 0; i < RT_GPUMEM_MAX_BUFS; i++)
		assert_int_equal(rt_gpumem_alloc(&g, 4096, &b[i], &e), 0);
	assert_int_equal(f.live(), 1 + RT_GPUMEM_MAX_BUFS);
	assert_int_equal(rt_gpumem_alloc(&g, 4096, &b[RT_GPUMEM_MAX_BUFS], &e), -1);
	assert_non_null(strstr(e.reason, "more than 16 GPU buffers"));
	rt_gpumem_free(&g, b[3]);
	assert_int_equal(f.live(), RT_GPUMEM_MAX_BUFS);
	memset(&e, 0, sizeof(e));
	setenv("RT_FAKE_GPU_FAIL", "alloc", 1);
	assert_int_equal(rt_gpumem_alloc(&g, 4096, &b[3], &e), -1);
	fail_env(&e, "cannot allocate 65536 bytes of GPU memory (cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY)");
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);
}

/* With /dev/udmabuf the fake exports a real dma-buf, closed when the
 * buffer is freed; without it the export is "not supported". */
static void dmabuf(enum rt_gpu_api api, const char *lib, const char *unsupported)
{
	struct rt_gpumem g;
	struct rt_gpumem_buf *b;
	struct rt_error e = { 0 };
	struct fake f;
	struct stat st;
	int fd;

	fake_hold(&f, lib);
	assert_int_equal(rt_gpumem_open(&g, api, NULL, &e), 0);
	assert_int_equal(rt_gpumem_alloc(&g, 8192, &b, &e), 0);
	if (access("/dev/udmabuf", R_OK | W_OK) == 0) {
		assert_int_equal(rt_gpumem_export_dmabuf(&g, b, &e), 0);
		fd = b->dmabuf_fd;
		assert_true(fd >= 0);
		assert_int_equal(fstat(fd, &st), 0);
		assert_int_equal(rt_gpumem_export_dmabuf(&g, b, &e), 0); /* kept */
		assert_int_equal(b->dmabuf_fd, fd);
		rt_gpumem_free(&g, b);
		assert_int_equal(fcntl(fd, F_GETFD), -1);
		assert_int_equal(errno, EBADF);
	} else {
		assert_int_equal(rt_gpumem_export_dmabuf(&g, b, &e), -1);
		fail_env(&e, "does not support dma-buf export");
		fail_env(&e, unsupported);
		assert_int_equal(b->dmabuf_fd, -1);
	}
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);
}

static void dmabuf_cuda(void **state)
{
	(void)state;
	dmabuf(RT_GPU_CUDA, "libcuda.so.1", "CUDA_ERROR_NOT_SUPPORTED");
}

static void dmabuf_hip(void **state)
{
	(void)state;
	dmabuf(RT_GPU_HIP, "libamdhip64.so", "hipErrorNotSupported");
}

/* A GPU whose driver reports no dma-buf support is refused before the
 * export is tried. */
static void dmabuf_unsupported(void **state)
{
	struct rt_gpumem g;
	struct rt_gpumem_buf *b;
	struct rt_error e = { 0 };
	struct fake f;

	(void)state;
	fake_hold(&f, "libcuda.so.1");
	setenv("RT_FAKE_GPU_FAIL", "dmabuf", 1);
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, NULL, &e), 0);
	assert_int_equal(rt_gpumem_alloc(&g, 1, &b, &e), 0);
	assert_int_equal(rt_gpumem_export_dmabuf(&g, b, &e), -1);
	fail_env(&e, "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0");
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);
}

/* Managed memory: CUDA allocates it, round trips through it and frees
 * it; HIP is refused as the host's lack (exit 3) with nothing left. */
static void managed(void **state)
{
	struct rt_gpumem g;
	struct rt_gpumem_buf *b;
	struct rt_error e = { 0 };
	uint8_t out[512] = { 0 }, in[512];
	struct fake f;

	(void)state;
	fake_hold(&f, "libcuda.so.1");
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, "1", &e), 0);
	assert_int_equal(rt_gpumem_alloc_managed(&g, sizeof(out), &b, &e), 0);
	assert_true(b->managed);
	fill(out, sizeof(out), 7);
	assert_int_equal(rt_gpumem_to_dev(&g, b, 0, out, sizeof(out), &e), 0);
	assert_int_equal(rt_gpumem_to_host(&g, b, 0, in, sizeof(in), &e), 0);
	assert_memory_equal(in, out, sizeof(in));
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);

	fake_hold(&f, "libamdhip64.so");
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_HIP, NULL, &e), 0);
	assert_int_equal(rt_gpumem_alloc_managed(&g, 64, &b, &e), -1);
	fail_env(&e, "for CUDA only, not HIP");
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);
}

/* The PCIe mapping of a dma-buf: a driver that knows no such flag (before
 * CUDA 12.8) is the host's lack, named; HIP has no such option. */
static void pcie_mapping(void **state)
{
	struct rt_gpumem g;
	struct rt_gpumem_buf *b;
	struct rt_error e = { 0 };
	struct fake f;

	(void)state;
	fake_hold(&f, "libcuda.so.1");
	setenv("RT_FAKE_GPU_FAIL", "pcie", 1);
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_CUDA, NULL, &e), 0);
	assert_int_equal(rt_gpumem_alloc(&g, 4096, &b, &e), 0);
	b->pcie_mapping = true;
	assert_int_equal(rt_gpumem_export_dmabuf(&g, b, &e), -1);
	fail_env(&e, "cannot map a dma-buf through PCIe");
	fail_env(&e, "CUDA 12.8");
	assert_int_equal(b->dmabuf_fd, -1);
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);

	e = (struct rt_error){ 0 };
	fake_hold(&f, "libamdhip64.so");
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_HIP, NULL, &e), 0);
	assert_int_equal(rt_gpumem_alloc(&g, 4096, &b, &e), 0);
	b->pcie_mapping = true;
	assert_int_equal(rt_gpumem_export_dmabuf(&g, b, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_USAGE);
	rt_gpumem_close(&g);
	assert_int_equal(f.live(), 0);
	dlclose(f.dl);
}

static void hip_by_bus_id(void **state)
{
	struct rt_gpumem g;
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_HIP, "0000:9a:00.0", &e), 0);
	assert_int_equal(g.index, 2);
	assert_string_equal(g.name, "Fake HIP GPU 2");
	rt_gpumem_close(&g);
	assert_int_equal(rt_gpumem_open(&g, RT_GPU_HIP, "7", &e), -1);
	fail_env(&e, "no AMD GPU 7: this host has 3");
}

static void api_names(void **state)
{
	enum rt_gpu_api a;

	(void)state;
	assert_int_equal(rt_gpu_api_parse("rocm", &a), 0);
	assert_int_equal(a, RT_GPU_HIP);
	assert_int_equal(rt_gpu_api_parse("CUDA", &a), 0);
	assert_int_equal(a, RT_GPU_CUDA);
	assert_int_equal(rt_gpu_api_parse("neuron", &a), -1);
	assert_string_equal(rt_gpu_api_lib(RT_GPU_CUDA), "libcuda.so.1");
	assert_string_equal(rt_gpu_api_name(RT_GPU_HIP), "HIP");
}

/* No driver on the library path: one line naming the library. A host
 * whose own driver is installed cannot show this. */
static void no_driver(void **state)
{
	static const struct { enum rt_gpu_api api; const char *lib; } apis[] = {
		{ RT_GPU_CUDA, "libcuda.so.1" }, { RT_GPU_HIP, "libamdhip64.so" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
		struct rt_gpumem g;
		struct rt_error e = { 0 };
		void *real = dlopen(apis[i].lib, RTLD_NOW | RTLD_LOCAL);

		if (real) {
			dlclose(real);
			continue;
		}
		assert_int_equal(rt_gpumem_open(&g, apis[i].api, NULL, &e), -1);
		fail_env(&e, "cannot load ");
		fail_env(&e, apis[i].lib);
		assert_null(g.drv);
		rt_gpumem_close(&g);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest with_fakes[] = {
		cmocka_unit_test_setup(open_by_index, setup),
		cmocka_unit_test_setup(open_by_bus_id, setup),
		cmocka_unit_test_setup(no_such_gpu, setup),
		cmocka_unit_test_setup(bad_name, setup),
		cmocka_unit_test_setup(round_trip_cuda, setup),
		cmocka_unit_test_setup(round_trip_hip, setup),
		cmocka_unit_test_setup(alloc_limits, setup),
		cmocka_unit_test_setup(dmabuf_cuda, setup),
		cmocka_unit_test_setup(dmabuf_hip, setup),
		cmocka_unit_test_setup(dmabuf_unsupported, setup),
		cmocka_unit_test_setup(managed, setup),
		cmocka_unit_test_setup(pcie_mapping, setup),
		cmocka_unit_test_setup(hip_by_bus_id, setup),
		cmocka_unit_test(api_names),
	};
	const struct CMUnitTest without[] = {
		cmocka_unit_test(no_driver),
	};

	if (argc > 1 && !strcmp(argv[1], "--no-driver"))
		return cmocka_run_group_tests_name("gpumem-no-driver", without, NULL, NULL);
	return cmocka_run_group_tests(with_fakes, NULL, NULL);
}
