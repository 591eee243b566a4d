/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "mesh/launch.h"
#include "rdmatest/util.h"

/* A scripted environment: "NAME=value" strings, and the host names that
 * count as this machine. */
struct fake {
	const char *vars[8];
	const char *self[4];
};

static const char *fake_get(void *ctx, const char *name)
{
	struct fake *f = ctx;
	size_t n = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(f->vars) && f->vars[i]; i++)
		if (!strncmp(f->vars[i], name, n) && f->vars[i][n] == '=')
			return f->vars[i] + n + 1;
	return NULL;
}

static bool fake_self(void *ctx, const char *host)
{
	struct fake *f = ctx;

	for (size_t i = 0; i < ARRAY_SIZE(f->self) && f->self[i]; i++)
		if (!strcmp(f->self[i], host))
			return true;
	return false;
}

static int detect(struct fake *f, const char *hosts, uint32_t size,
		  struct rt_launch *l, struct rt_error *err)
{
	struct rt_launch_env env = {fake_get, fake_self, f};
	struct rt_launch_req req = {.hosts = hosts, .size = size};

	memset(err, 0, sizeof(*err));
	return rt_launch_detect(l, &req, &env, err);
}

static void expect_fail(struct fake *f, const char *hosts, uint32_t size,
			int code, const char *part)
{
	struct rt_launch l;
	struct rt_error err;

	assert_int_equal(detect(f, hosts, size, &l, &err), -1);
	assert_int_equal(err.exit_code, code);
	if (!strstr(err.reason, part))
		fail_msg("reason '%s' lacks '%s'", err.reason, part);
	assert_int_equal(l.hosts.n, 0);
}

static void slurm(void **state)
{
	struct fake f = {.vars = {"SLURM_PROCID=2", "SLURM_NTASKS=5",
			  "SLURM_JOB_NODELIST=gpu[01-03,9],login7",
			  "PMIX_RANK=2"}};
	struct rt_launch l;
	struct rt_error err;

	(void)state;
	assert_int_equal(detect(&f, NULL, 0, &l, &err), 0);
	assert_int_equal(l.via, RT_LAUNCH_SLURM);
	assert_string_equal(rt_launcher_name(l.via), "slurm");
	assert_int_equal(l.rank, 2);
	assert_int_equal(l.size, 5);
	assert_int_equal(l.hosts.n, 5);
	assert_string_equal(l.hosts.names[2], "gpu03");
	assert_string_equal(l.hosts.names[4], "login7");
	rt_launch_free(&l);

	/* srun -N 5 inside a 6-node allocation: the step's nodes */
	f.vars[4] = "SLURM_STEP_NODELIST=gpu[04-08]";
	assert_int_equal(detect(&f, NULL, 0, &l, &err), 0);
	assert_int_equal(l.hosts.n, 5);
	assert_string_equal(l.hosts.names[2], "gpu06");
	rt_launch_free(&l);
	f.vars[4] = "SLURM_STEP_NODELIST=gpu[04-";
	expect_fail(&f, NULL, 0, RT_EXIT_USAGE, "without ']'");
	f.vars[4] = NULL;

	/* several tasks per node: the node list cannot map ranks */
	f.vars[1] = "SLURM_NTASKS=10";
	assert_int_equal(detect(&f, NULL, 0, &l, &err), 0);
	assert_int_equal(l.size, 10);
	assert_int_equal(l.hosts.n, 0);
	rt_launch_free(&l);

	f.vars[2] = "SLURM_JOB_NODELIST=gpu[01-03";
	expect_fail(&f, NULL, 0, RT_EXIT_USAGE, "without ']'");
	f.vars[2] = "SLURM_JOB_NODELIST=a,a";
	expect_fail(&f, NULL, 0, RT_EXIT_USAGE, "named twice");
	f.vars[2] = "SLURM_JOB_NODELIST=a";
	f.vars[0] = "SLURM_PROCID=10";
	expect_fail(&f, NULL, 0, RT_EXIT_USAGE, "not below the size 10");
	f.vars[0] = "SLURM_PROCID=x";
	expect_fail(&f, NULL, 0, RT_EXIT_USAGE, "not a number");
	f.vars[0] = "SLURM_PROCID=";
	expect_fail(&f, NULL, 0, RT_EXIT_USAGE, "empty");
	f.vars[0] = "SLURM_PROCID=1";
	f.vars[1] = "SLURM_NTASKS=99999999";
	expect_fail(&f, NULL, 0, RT_EXIT_USAGE, "want 1 to 65536");
	f.vars[1] = "SLURM_NTASKS=1234567890";
	expect_fail(&f, NULL, 0, RT_EXIT_USAGE, "not a number below 10^9");
	f.vars[1] = "SLURM_NTASKS=4";
	expect_fail(&f, NULL, 3, RT_EXIT_USAGE, "--size 3 but SLURM_NTASKS=4");
}

static void mpi_pmi_pmix_k8s(void **state)
{
	struct fake ompi = {.vars = {"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4",
			     "PMI_RANK=0", "PMI_SIZE=1"}};
	struct fake pmi = {.vars = {"PMI_RANK=1", "PMI_SIZE=2"}};
	struct fake pmix = {.vars = {"PMIX_RANK=7"}};
	struct fake k8s = {.vars = {"JOB_COMPLETION_INDEX=0"}};
	struct rt_launch l;
	struct rt_error err;

	(void)state;
	assert_int_equal(detect(&ompi, NULL, 0, &l, &err), 0);
	assert_true(l.via == RT_LAUNCH_OMPI && l.rank == 3 && l.size == 4 &&
		    l.hosts.n == 0);
	assert_int_equal(detect(&pmi, NULL, 0, &l, &err), 0);
	assert_true(l.via == RT_LAUNCH_PMI && l.rank == 1 && l.size == 2);
	expect_fail(&pmix, NULL, 0, RT_EXIT_USAGE, "PMIX_RANK gives the rank but not the size");
	assert_int_equal(detect(&pmix, NULL, 8, &l, &err), 0);
	assert_true(l.via == RT_LAUNCH_PMIX && l.rank == 7 && l.size == 8);
	expect_fail(&pmix, NULL, 7, RT_EXIT_USAGE, "not below the size 7");
	assert_int_equal(detect(&k8s, NULL, 16, &l, &err), 0);
	assert_true(l.via == RT_LAUNCH_K8S && l.rank == 0 && l.size == 16);
	expect_fail(&k8s, NULL, 70000, RT_EXIT_USAGE, "at most 65536");
}

static void hosts_option(void **state)
{
	struct fake f = {{"SLURM_PROCID=0", "SLURM_NTASKS=3"}, {"n2", "10.0.0.2"}};
	struct fake none = {.vars = {NULL}};
	struct rt_launch l;
	struct rt_error err;
	char path[] = "/tmp/test_launch.XXXXXX";
	int fd;

	(void)state;
	/* --hosts wins over the environment; the rank is the host's index */
	assert_int_equal(detect(&f, "n[1-3]", 0, &l, &err), 0);
	assert_true(l.via == RT_LAUNCH_HOSTS && l.rank == 1 && l.size == 3);
	rt_launch_free(&l);
	assert_int_equal(detect(&f, "10.0.0.1,10.0.0.2", 2, &l, &err), 0);
	assert_int_equal(l.rank, 1);
	rt_launch_free(&l);
	expect_fail(&f, "n[3-4]", 0, RT_EXIT_ENV, "none of the 2 hosts");
	expect_fail(&f, "n2,10.0.0.2", 0, RT_EXIT_ENV, "both this machine");
	expect_fail(&f, "n[1-3]", 4, RT_EXIT_USAGE, "--size 4 but --hosts names 3");
	expect_fail(&f, "n1,n1", 0, RT_EXIT_USAGE, "named twice");
	expect_fail(&f, "n[1-", 0, RT_EXIT_USAGE, "without ']'");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "n1\nn2\n", 6), 6);
	close(fd);
	{
		char arg[64];

		snprintf(arg, sizeof(arg), "@%s", path);
		assert_int_equal(detect(&f, arg, 0, &l, &err), 0);
		assert_true(l.rank == 1 && l.size == 2);
		rt_launch_free(&l);
	}
	unlink(path);
	expect_fail(&f, "@/nonexistent/file", 0, RT_EXIT_USAGE, "host file");
	expect_fail(&none, NULL, 0, RT_EXIT_USAGE, "no launcher found");
}

/* The process's own matcher: this machine's host name is itself, and a
 * loopback address is one of its interfaces; a documentation address
 * (RFC 5737) and a name that only shares a prefix are not. */
static void process_self(void **state)
{
	char me[256];

	(void)state;
	assert_int_equal(gethostname(me, sizeof(me)), 0);
	assert_true(rt_launch_is_self(NULL, me));
	assert_true(rt_launch_is_self(NULL, "127.0.0.1"));
	assert_false(rt_launch_is_self(NULL, "192.0.2.123"));
	strcat(me, "x");
	assert_false(rt_launch_is_self(NULL, me));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slurm),
		cmocka_unit_test(mpi_pmi_pmix_k8s),
		cmocka_unit_test(hosts_option),
		cmocka_unit_test(process_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
