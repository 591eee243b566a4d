/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* --write_with_imm (perftest_imm.h): its rules in the write tests (the
 * receive depth as perftest settles it, the refused combinations), the
 * test's name, and the check of every receive completion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_opts.h"
#include "perftest/perftest_name.h"
#include "pt_parse.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("5000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, RT_PT_OPTS_RES, RT_PT_OPTS_RES_BW,
	RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_BW, RT_PT_OPT_WRITE_IMM, { 0 },
};

static const struct rt_opt lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("2"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPT_INLINE("0"), RT_PT_OPTS_RUN,
	RT_PT_OPT_WRITE_IMM, { 0 },
};

/* argv after the test name, NULL-terminated, through kind's table */
static int parse(struct rt_pt_params *p, struct rt_error *err,
		 enum rt_pt_kind kind, ...)
{
	va_list ap;
	int rc;

	va_start(ap, kind);
	rc = pt_vparse(p, err, kind == RT_PT_BW ? bw_opts : lat_opts, "ib_write_bw",
		       (struct rt_pt_test){ RT_PT_WRITE, kind }, ap);
	va_end(ap);
	return rc;
}

static void bw_depth(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;
	char name[96];

	(void)state;
	assert_int_equal(parse(&p, &err, RT_PT_BW, "host", NULL), 0);
	assert_false(p.opt.imm.write_imm);
	assert_false(rt_pt_receives(&p));
	/* without it a write test posts no receives: -r is refused */
	assert_int_equal(parse(&p, &err, RT_PT_BW, "-r", "8", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "--write_with_imm"));
	/* perftest's 512, clipped to -n; an odd -r made even */
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm", "host", NULL), 0);
	assert_true(rt_pt_receives(&p));
	assert_int_equal(p.opt.rx_depth, 512);
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm", "-n", "100",
			       "host", NULL), 0);
	assert_int_equal(p.opt.rx_depth, 100);
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm", "-r", "7",
			       "host", NULL), 0);
	assert_int_equal(p.opt.rx_depth, 8);
	/* UC with -r left alone: every receive up front */
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm", "-c", "UC",
			       "-n", "20000", "host", NULL), 0);
	assert_int_equal(p.opt.rx_depth, RT_PT_UC_MAX_RX);
	/* --recv_post_list: it posts receives now */
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm",
			       "--recv_post_list", "4", "host", NULL), 0);
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--recv_post_list", "4", "host",
			       NULL), -1);
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm", "-b", "host",
			       NULL), 0);
	rt_pt_test_name(name, sizeof(name), &p);
	assert_string_equal(name, "RDMA_Write_imm Bidirectional BW Test");
}

static void bw_refused(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm", "-b",
			       "--run_infinitely", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "--run_infinitely and -b"));
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm", "-b", "-D",
			       "4", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "-b with -D"));
	/* each alone is taken */
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm", "-D", "4",
			       "host", NULL), 0);
	assert_int_equal(parse(&p, &err, RT_PT_BW, "--write_with_imm",
			       "--run_infinitely", "host", NULL), 0);
}

static void lat_depth(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;
	char name[96];

	(void)state;
	assert_int_equal(parse(&p, &err, RT_PT_LAT, "--write_with_imm", "host", NULL), 0);
	assert_int_equal(p.opt.rx_depth, RT_PT_IMM_LAT_RX);
	rt_pt_test_name(name, sizeof(name), &p);
	assert_string_equal(name, "RDMA_Write_imm Latency Test");
	assert_int_equal(parse(&p, &err, RT_PT_LAT, "--write_with_imm", "-n", "99",
			       "host", NULL), 0);
	assert_int_equal(p.opt.rx_depth, 100); /* 99, made even as perftest */
	assert_int_equal(parse(&p, &err, RT_PT_LAT, "--write_with_imm", "-D", "4",
			       "host", NULL), 0);
	assert_int_equal(p.opt.rx_depth, RT_PT_IMM_LAT_RX);
}

static struct ibv_wc good(uint32_t len)
{
	return (struct ibv_wc){ .status = IBV_WC_SUCCESS,
				.opcode = IBV_WC_RECV_RDMA_WITH_IMM,
				.wc_flags = IBV_WC_WITH_IMM, .byte_len = len,
				.imm_data = htonl(RT_PT_IMM_DATA) };
}

static void wc_check(void **state)
{
	struct rt_error err = { 0 };
	struct ibv_wc wc = good(4096);

	(void)state;
	assert_int_equal(rt_pt_imm_wc_check(&wc, 4096, "peer", &err), 0);
	wc.opcode = IBV_WC_RECV;
	assert_int_equal(rt_pt_imm_wc_check(&wc, 4096, "peer", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "a SEND's receive"));
	memset(&err, 0, sizeof(err));
	wc = good(4096);
	wc.wc_flags = 0;
	assert_int_equal(rt_pt_imm_wc_check(&wc, 4096, "peer", &err), -1);
	assert_non_null(strstr(err.reason, "without IBV_WC_WITH_IMM"));
	memset(&err, 0, sizeof(err));
	wc = good(4096);
	wc.imm_data = htonl(7);
	assert_int_equal(rt_pt_imm_wc_check(&wc, 4096, "peer", &err), -1);
	assert_non_null(strstr(err.reason, "immediate is 0x7"));
	memset(&err, 0, sizeof(err));
	wc = good(2048);
	assert_int_equal(rt_pt_imm_wc_check(&wc, 4096, "peer", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "wrote 2048 bytes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bw_depth),
		cmocka_unit_test(bw_refused),
		cmocka_unit_test(lat_depth),
		cmocka_unit_test(wc_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
