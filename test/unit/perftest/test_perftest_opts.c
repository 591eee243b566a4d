/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ib_* applets' shared option rows and their checked parameters:
 * perftest 4.5's defaults per test, the dependencies (-D with -a, the
 * margin, -t clipped to -n, the buffer bound), -Q's automatic 1 above
 * 8 KiB, -w/-y parsing, the refused options, the buffer slot, the test
 * names and the thresholds' messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_run.h"
#include "perftest/perftest_opts.h"
#include "perftest/perftest_name.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("5000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, { 0 },
};

static const struct rt_pt_test write_bw = { RT_PT_WRITE, RT_PT_BW };

static const struct rt_opt atomic_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPTS_ATOMIC, RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPTS_TIMING, RT_PT_OPTS_BW, { 0 },
};

static const struct rt_pt_test atomic_bw = { RT_PT_ATOMIC, RT_PT_BW };

/* Parses the NULL-terminated arguments after argv[0] = name with one
 * applet's table into cfg and then params. */
static int vparse(struct rt_pt_params *p, struct rt_error *err, const struct rt_opt *opts,
		  char *name, struct rt_pt_test test, va_list ap)
{
	static struct rt_pt_cfg cfg;
	struct rt_opt_table tab = { opts, &cfg, { 0 }, rt_pt_refused, true };
	char *argv[32] = { name };
	int argc = 1;

	memset(&cfg, 0, sizeof(cfg));
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	if (rt_opt_parse(&tab, 1, argc, argv, err))
		return -1;
	return rt_pt_params_init(p, &cfg, test, &tab, err);
}

/* Parses argv (NULL-terminated) with ib_write_bw's table. */
static int parse(struct rt_pt_params *p, struct rt_error *err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = vparse(p, err, bw_opts, "ib_write_bw", write_bw, ap);
	va_end(ap);
	return rc;
}

/* As parse, with ib_atomic_bw's table. */
static int parse_atomic(struct rt_pt_params *p, struct rt_error *err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = vparse(p, err, atomic_opts, "ib_atomic_bw", atomic_bw, ap);
	va_end(ap);
	return rc;
}

static void table_is_sound(void **state)
{
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_opt_table_check(bw_opts, &err), 0);
	assert_true(rt_opt_count(bw_opts) <= RT_OPT_MAX_ROWS);
}

static void defaults_of_write_bw(void **state)
{
	struct rt_pt_params p;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(parse(&p, &err, NULL), 0);
	assert_false(p.client);
	assert_int_equal(p.opt.port, 18515);
	assert_int_equal(p.opt.size, 65536);
	assert_int_equal(p.opt.iters, 5000);
	assert_int_equal(p.opt.tx_depth, 128);
	assert_int_equal(p.opt.qps, 1);
	assert_int_equal(p.opt.cq_mod, 1); /* 65536 > 8 KiB */
	assert_int_equal(p.opt.qp_timeout, 14);
	assert_int_equal(p.opt.gid_index, -1);
	assert_int_equal(p.opt.mtu, 0);
	assert_false(p.opt.no_peak);
	assert_string_equal(p.opt.out_json_file, "perftest_out.json");
	/* -Q is 1 above 8 KiB unless given, or -a */
	assert_int_equal(rt_pt_cq_mod(&p, 65536), 1);
	assert_int_equal(parse(&p, &err, "-s", "8192", NULL), 0);
	assert_int_equal(rt_pt_cq_mod(&p, 8192), 100);
	assert_int_equal(parse(&p, &err, "-Q", "7", NULL), 0);
	assert_int_equal(rt_pt_cq_mod(&p, 65536), 7);
	assert_int_equal(parse(&p, &err, "-a", NULL), 0);
	assert_int_equal(rt_pt_cq_mod(&p, 65536), 100);
	/* at most -t; -l sets it */
	assert_int_equal(parse(&p, &err, "-s", "64", "-t", "16", NULL), 0);
	assert_int_equal(rt_pt_cq_mod(&p, 64), 16);
	assert_int_equal(parse(&p, &err, "-l", "10", NULL), 0);
	assert_int_equal(rt_pt_cq_mod(&p, 65536), 10);
}

static void values_and_dependencies(void **state)
{
	struct rt_pt_params p;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(parse(&p, &err, "-s", "4K", "-n", "10", "-q", "4", "-x", "3",
			       "-m", "1024", "--report_gbits", "host", NULL), 0);
	assert_true(p.client);
	assert_string_equal(p.opt.server, "host");
	assert_int_equal(p.opt.size, 4096);
	assert_int_equal(p.opt.tx_depth, 10); /* clipped to -n */
	assert_int_equal(p.opt.qps, 4);
	assert_int_equal(p.opt.gid_index, 3);
	assert_int_equal(p.opt.mtu, IBV_MTU_1024);
	assert_true(p.opt.report_gbits);
	assert_int_equal(parse(&p, &err, "-a", NULL), 0);
	assert_int_equal(p.opt.size, RT_PT_ALL_MAX);
	assert_int_equal(parse(&p, &err, "-D", "8", NULL), 0);
	assert_int_equal(p.opt.duration, 8);
	assert_int_equal(p.opt.margin, 2);
	assert_true(p.opt.no_peak);
	assert_int_equal(parse(&p, &err, "-n", "20001", NULL), 0);
	assert_true(p.opt.no_peak);
}

static void refusals_and_bad_values(void **state)
{
	struct rt_pt_params p;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(parse(&p, &err, "--use-srq", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "not supported by rdmatest"));
	memset(&err, 0, sizeof(err));
	/* -z: the exchange over the CM, the QPs by hand */
	assert_int_equal(parse(&p, &err, "-z", "host", NULL), 0);
	assert_true(p.comm_cm);
	assert_false(p.opt.rdma_cm);
	/* -R is taken, and with -x too, as perftest takes it */
	assert_int_equal(parse(&p, &err, "-R", "host", NULL), 0);
	assert_true(p.opt.rdma_cm);
	assert_true(p.comm_cm);
	assert_int_equal(parse(&p, &err, "-R", "-x", "3", "host", NULL), 0);
	assert_true(p.opt.rdma_cm);
	assert_int_equal(p.opt.gid_index, 3);
	assert_int_equal(parse(&p, &err, "--use-srq", NULL), -1);
	assert_non_null(strstr(err.reason, "--use-srq"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse(&p, &err, "-a", "-D", "4", NULL), -1);
	assert_non_null(strstr(err.reason, "-a and -D"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse(&p, &err, "-D", "4", "-f", "2", NULL), -1);
	assert_non_null(strstr(err.reason, "twice the margin"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse(&p, &err, "-w", "abc", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse(&p, &err, "-n", "4", NULL), -1);
	memset(&err, 0, sizeof(err));
	/* 8 MiB slots × 2 × 128 QPs = 2 GiB, as perftest allocates: taken;
	 * 2 GiB slots × 2 × 8 = 32 GiB: above the bound */
	assert_int_equal(parse(&p, &err, "-a", "-q", "128", NULL), 0);
	assert_int_equal(parse(&p, &err, "-s", "2g", "-q", "8", NULL), -1);
	assert_non_null(strstr(err.reason, "bound"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse(&p, &err, "-l", "3", NULL), -1);
	assert_non_null(strstr(err.reason, "multiple of -l 3"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse(&p, &err, "-l", "10", "-Q", "4", NULL), -1);
	assert_non_null(strstr(err.reason, "multiple of -Q 4"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse(&p, &err, "-c", "UD", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
}

/* Refused, exit 2, naming the option: reason text contains want. */
static void refused(const char *want, ...)
{
	struct rt_pt_params p;
	struct rt_error err = { 0 };
	va_list ap;

	va_start(ap, want);
	assert_int_equal(vparse(&p, &err, bw_opts, "ib_write_bw", write_bw, ap), -1);
	va_end(ap);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, want));
}

/* perftest 25.01's rules for the CM and GRH options, and the defaults:
 * no ToS, class 0, retry count 7, the handshake, relaxed ordering. */
static void cm_and_grh_options(void **state)
{
	struct rt_pt_params p;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(parse(&p, &err, "host", NULL), 0);
	assert_int_equal(p.opt.tos, -1);
	assert_int_equal(p.opt.tclass, 0);
	assert_int_equal(p.opt.retry_count, 7);
	assert_int_equal(p.opt.wait_destroy, 0);
	assert_false(p.opt.dont_xchg);
	assert_false(p.opt.no_relaxed);
	assert_int_equal(parse(&p, &err, "-R", "-T", "96", "--retry_count", "3",
			       "host", NULL), 0);
	assert_int_equal(p.opt.tos, 96);
	assert_int_equal(p.opt.retry_count, 3);
	assert_int_equal(parse(&p, &err, "-z", "--retry_count=0", "--tclass", "32",
			       "host", NULL), 0);
	assert_int_equal(p.opt.retry_count, 0);
	assert_int_equal(p.opt.tclass, 32);
	assert_int_equal(parse(&p, &err, "--dont_xchg_versions", "--disable_pcie_relaxed",
			       "--wait_destroy", "2", "--use_old_post_send", NULL), 0);
	assert_true(p.opt.dont_xchg);
	assert_true(p.opt.no_relaxed);
	assert_int_equal(p.opt.wait_destroy, 2);
	refused("-T (--tos) needs -R", "-T", "4", "host", NULL);
	refused("-T (--tos) needs -R", "-z", "--tos=4", "host", NULL);
	refused("--tos: 256 is out of range", "-R", "-T", "256", NULL);
	refused("-L (--hop_limit)", "-L", "64", NULL);
	refused("--tclass and -R", "-R", "--tclass", "1", NULL);
	refused("--tclass: 256", "--tclass", "256", NULL);
	refused("--retry_count needs -R or -z", "--retry_count", "7", NULL);
	refused("--retry_count: 8", "-R", "--retry_count", "8", NULL);
}

static void slot_and_names(void **state)
{
	struct rt_pt_params p = { .t = { RT_PT_READ, RT_PT_BW },
				  .opt.post_list = 1 };
	char name[96];

	(void)state;
	assert_int_equal(rt_pt_slot(2, 4096, 64), 4096);
	assert_int_equal(rt_pt_slot(65536, 4096, 64), 65536);
	assert_int_equal(rt_pt_slot(65537, 4096, 64), 65600);
	rt_pt_test_name(name, sizeof(name), &p);
	assert_string_equal(name, "RDMA_Read BW Test");
	p.t = (struct rt_pt_test){ RT_PT_SEND, RT_PT_LAT };
	rt_pt_test_name(name, sizeof(name), &p);
	assert_string_equal(name, "Send Latency Test");
	p.t = (struct rt_pt_test){ RT_PT_WRITE, RT_PT_BW };
	p.opt.bidir = true;
	p.opt.post_list = 4;
	rt_pt_test_name(name, sizeof(name), &p);
	assert_string_equal(name, "RDMA_Write Bidirectional Post List BW Test");
	p = (struct rt_pt_params){ .t = { RT_PT_ATOMIC, RT_PT_BW },
					.opt.post_list = 1 };
	rt_pt_test_name(name, sizeof(name), &p);
	assert_string_equal(name, "Atomic FETCH_AND_ADD BW Test");
	p.t.kind = RT_PT_LAT;
	p.opt.atomic_type = RT_PT_CMP_SWAP;
	rt_pt_test_name(name, sizeof(name), &p);
	assert_string_equal(name, "Atomic CMP_AND_SWAP Latency Test");
}

static void atomic_rules(void **state)
{
	struct rt_pt_params p;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_opt_table_check(atomic_opts, &err), 0);
	assert_int_equal(parse_atomic(&p, &err, NULL), 0);
	assert_int_equal(p.opt.size, 8);
	assert_int_equal(p.opt.atomic_type, RT_PT_FETCH_ADD);
	assert_int_equal(parse_atomic(&p, &err, "-A", "CMP_AND_SWAP", "-s", "8", NULL), 0);
	assert_int_equal(p.opt.atomic_type, RT_PT_CMP_SWAP);
	/* -A is refused where it has no row (perftest_opts.c's list) */
	assert_int_equal(parse(&p, &err, "-A", "CMP_AND_SWAP", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse_atomic(&p, &err, "-s", "16", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "-s 16: an atomic is 8 bytes"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(parse_atomic(&p, &err, "-a", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "-a (--all): an atomic test has one message size"));
}

static void thresholds(void **state)
{
	struct rt_pt_params p = { .limit_bw = 100, .limit_msgrate = 0.5 };
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_pt_check_limits(&p, 100.0, 0.5, &err), 0);
	assert_int_equal(rt_pt_check_limits(&p, 99.5, 1.0, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "99.50 MB/sec is below the -w threshold 100.00"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_pt_check_limits(&p, 200.0, 0.25, &err), -1);
	assert_non_null(strstr(err.reason, "0.250000 Mpps is below the -y threshold 0.500000"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_is_sound),
		cmocka_unit_test(defaults_of_write_bw),
		cmocka_unit_test(values_and_dependencies),
		cmocka_unit_test(refusals_and_bad_values),
		cmocka_unit_test(cm_and_grh_options),
		cmocka_unit_test(slot_and_names),
		cmocka_unit_test(atomic_rules),
		cmocka_unit_test(thresholds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
