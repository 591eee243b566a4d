/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ib_* applets' GPU memory (perftest_gpu.h): what the rules derive
 * (the API, the GPU's name, the path, the memory type, the inline size
 * made 0), and the host's view of a buffer in GPU memory through the fake
 * CUDA driver (test/fake/, on LD_LIBRARY_PATH): bytes written through a
 * view reach the GPU only when pushed, a pulled view reads what the GPU
 * holds, host memory is its own view, and the free leaves no allocation
 * in the driver. No RDMA device: the MR step is not run here (the lab's
 * interop-perftest-gpu registers and moves data). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_conn.h"
#include "perftest/perftest_opts.h"
#include "pt_parse.h"
#include "perftest/perftest_gpu.h"
#include "rdmatest/run.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt send_lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("2"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPT_INLINE("236"), RT_PT_OPTS_RUN,
	RT_PT_OPTS_LAT, RT_PT_OPTS_RES, RT_PT_OPTS_GPU, { 0 },
};

static int send_lat(struct rt_pt_params *p, struct rt_error *err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = pt_vparse(p, err, send_lat_opts, "ib_send_lat",
		       (struct rt_pt_test){ RT_PT_SEND, RT_PT_LAT }, ap);
	va_end(ap);
	return rc;
}

static void derived(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(send_lat(&p, &err, "host", NULL), 0);
	assert_false(p.gpu.on);
	assert_int_equal(p.opt.inline_size, 236); /* host memory keeps it */

	assert_int_equal(send_lat(&p, &err, "--use_cuda=2", "host", NULL), 0);
	assert_true(p.gpu.on);
	assert_int_equal(p.gpu.api, RT_GPU_CUDA);
	assert_string_equal(p.gpu.which, "2");
	assert_int_equal(p.gpu.path, RT_GPUREG_AUTO);
	assert_int_equal(p.gpu.mem, RT_PT_CUDA_DEVICE);
	assert_int_equal(p.opt.inline_size, 0); /* perftest's default with CUDA */

	assert_int_equal(send_lat(&p, &err, "--use_cuda_bus_id=3b:00.0", "--use_cuda_dmabuf",
				  "--use_cuda_pcie_mapping", "host", NULL), 0);
	assert_string_equal(p.gpu.which, "3b:00.0");
	assert_int_equal(p.gpu.path, RT_GPUREG_DMABUF);
	assert_true(p.gpu.pcie_mapping);

	assert_int_equal(send_lat(&p, &err, "--use_rocm=1", "--use_rocm_dmabuf", "host", NULL), 0);
	assert_int_equal(p.gpu.api, RT_GPU_HIP);
	assert_string_equal(p.gpu.which, "1");
	assert_int_equal(p.gpu.path, RT_GPUREG_DMABUF);

	assert_int_equal(send_lat(&p, &err, "--use_cuda=0", "--odp", "--cuda_mem_type=1",
				  "host", NULL), 0);
	assert_int_equal(p.gpu.mem, RT_PT_CUDA_MANAGED);
	/* an -I the message does not fit under is no inline send */
	assert_int_equal(send_lat(&p, &err, "--use_cuda=0", "-s", "64", "-I", "32", "host",
				  NULL), 0);
	assert_int_equal(p.opt.inline_size, 0);
}

struct fixture {
	struct rt_run run;
	struct rt_pt_params p;
	struct rt_pt_conn c;
	void *fake;
	int (*live)(void);
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	setenv("RT_FAKE_GPUS", "0000:3b:00.0", 1);
	unsetenv("RT_FAKE_GPU_FAIL");
	f->fake = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	assert_non_null(f->fake);
	*(void **)&f->live = dlsym(f->fake, "fake_gpu_live");
	assert_non_null(f->live);
	f->p.gpu = (struct rt_pt_gpu){ .on = true, .api = RT_GPU_CUDA, .which = "0" };
	f->c.p = &f->p;
	f->c.run = &f->run;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(f->live(), 0);
	dlclose(f->fake);
	free(f);
	return 0;
}

/* The buffer as rt_pt_gpu_mem_alloc leaves it before the MR: the GPU
 * open, its memory allocated and zeroed, the mirror beside it. */
static void gpu_buffer(struct fixture *f, size_t len)
{
	struct rt_pt_mem *m = &f->c.mem;

	assert_int_equal(rt_pt_gpu_open(&f->c), 0);
	assert_int_equal(rt_gpumem_alloc(m->gpu, len, &m->gbuf, &f->run.err), 0);
	m->addr = (uint8_t *)(uintptr_t)m->gbuf->addr;
	m->len = len;
	m->kind = RT_PT_MEM_GPU;
	m->mirror = calloc(1, len);
	assert_int_equal(rt_gpumem_to_dev(m->gpu, m->gbuf, 0, m->mirror, len, &f->run.err), 0);
}

static void views(void **state)
{
	struct fixture *f = *state;
	struct rt_pt_conn *c = &f->c;
	uint8_t *v, got[16];

	gpu_buffer(f, 4096);
	v = rt_pt_mem_view(c, c->mem.addr + 100, 16, false);
	assert_ptr_equal(v, c->mem.mirror + 100); /* never the device address */
	memset(v, 0xa5, 16);
	/* not pushed: the GPU still holds zeros, and a pulled view says so */
	assert_int_equal(rt_gpumem_to_host(c->mem.gpu, c->mem.gbuf, 100, got, 16, &f->run.err), 0);
	assert_int_equal(got[0], 0);
	assert_int_equal(rt_pt_mem_push(c, c->mem.addr + 100, 16), 0);
	memset(c->mem.mirror + 100, 0, 16);
	v = rt_pt_mem_view(c, c->mem.addr + 100, 16, true);
	assert_non_null(v);
	assert_int_equal(v[0], 0xa5);
	assert_int_equal(v[15], 0xa5);
	/* outside the buffer: the driver's copy is refused, named */
	assert_null(rt_pt_mem_view(c, c->mem.addr + 4090, 16, true));
	assert_true(f->run.err.set);
	rt_pt_gpu_mem_free(c);
	assert_null(c->mem.gpu);
	assert_null(c->mem.mirror);
}

static void host_memory_is_its_own_view(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[64];

	f->c.mem.addr = buf;
	f->c.mem.kind = RT_PT_MEM_HEAP;
	assert_ptr_equal(rt_pt_mem_view(&f->c, buf + 8, 8, true), buf + 8);
	assert_int_equal(rt_pt_mem_push(&f->c, buf + 8, 8), 0);
	rt_pt_gpu_mem_free(&f->c); /* no GPU: nothing to do */
}

static void no_such_gpu(void **state)
{
	struct fixture *f = *state;

	snprintf(f->p.gpu.which, sizeof(f->p.gpu.which), "7");
	assert_int_equal(rt_pt_gpu_open(&f->c), -1);
	assert_int_equal(f->run.err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(f->run.err.reason, "no CUDA GPU 7"));
	rt_pt_gpu_mem_free(&f->c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(derived),
		cmocka_unit_test_setup_teardown(views, setup, teardown),
		cmocka_unit_test_setup_teardown(host_memory_is_its_own_view, setup, teardown),
		cmocka_unit_test_setup_teardown(no_such_gpu, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
