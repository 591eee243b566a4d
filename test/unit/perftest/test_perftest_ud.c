/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* -c UC/UD (perftest_ud.h) and -g (perftest_mcast.h): perftest's
 * combination rules, UC/UD's receive depth, UD's cq moderation, UD's MTU
 * bound and GRH room. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "perftest/perftest_conn.h"
#include "perftest/perftest_opts.h"
#include "pt_parse.h"
#include "perftest/perftest_ud.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt send_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, RT_PT_OPTS_RATE, RT_PT_OPTS_MCG, { 0 },
};

/* Parses the NULL-terminated arguments with ib_send_bw's table as test t. */
static int parse(struct rt_pt_params *p, struct rt_error *err, struct rt_pt_test t, ...)
{
	va_list ap;
	int rc;

	va_start(ap, t);
	rc = pt_vparse(p, err, send_opts, "ib_send_bw", t, ap);
	va_end(ap);
	return rc;
}

static const struct rt_pt_test send_bw = { RT_PT_SEND, RT_PT_BW };
static const struct rt_pt_test write_bw = { RT_PT_WRITE, RT_PT_BW };
static const struct rt_pt_test read_bw = { RT_PT_READ, RT_PT_BW };

static void conn_words(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(parse(&p, &err, send_bw, NULL), 0);
	assert_int_equal(p.opt.ud.conn, RT_PT_RC);
	assert_int_equal(parse(&p, &err, send_bw, "-c", "UD", NULL), 0);
	assert_int_equal(p.opt.ud.conn, RT_PT_UD);
	assert_int_equal(rt_pt_qp_type(p.opt.ud.conn), IBV_QPT_UD);
	assert_string_equal(rt_pt_conn_name(p.opt.ud.conn), "UD");
	assert_int_equal(parse(&p, &err, write_bw, "-c", "UC", NULL), 0);
	assert_int_equal(rt_pt_qp_type(p.opt.ud.conn), IBV_QPT_UC);
	assert_int_equal(parse(&p, &err, write_bw, "-c", "UD", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "only possible with the SEND verb"));
	assert_int_equal(parse(&p, &err, read_bw, "-c", "UC", NULL), -1);
	assert_non_null(strstr(err.reason, "not possible with READ"));
	assert_int_equal(parse(&p, &err, send_bw, "-c", "UC", "-R", NULL), -1);
	assert_int_equal(parse(&p, &err, send_bw, "-c", "UD", "-z", NULL), 0);
	assert_int_equal(parse(&p, &err, send_bw, "-c", "DC", NULL), -1);
	assert_non_null(strstr(err.reason, "mlx5"));
}

/* UC and UD: -r left at 512 becomes -n, at most 16000, outside -D; UD
 * keeps -Q above 8 KiB (its messages are at most the MTU). */
static void depths(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(parse(&p, &err, send_bw, "-c", "UD", "-n", "200", NULL), 0);
	assert_int_equal(p.opt.rx_depth, 200);
	assert_int_equal(p.opt.cq_mod, 100);
	assert_int_equal(parse(&p, &err, send_bw, "-c", "UC", "-n", "50000", NULL), 0);
	assert_int_equal(p.opt.rx_depth, RT_PT_UC_MAX_RX);
	assert_int_equal(p.opt.cq_mod, 1);
	assert_int_equal(parse(&p, &err, send_bw, "-c", "UD", "-n", "200", "-r", "64", NULL), 0);
	assert_int_equal(p.opt.rx_depth, 64);
	assert_int_equal(parse(&p, &err, send_bw, "-c", "UD", "-D", "4", NULL), 0);
	assert_int_equal(p.opt.rx_depth, 512);
	assert_int_equal(parse(&p, &err, send_bw, "-n", "200", NULL), 0);
	assert_int_equal(p.opt.rx_depth, 200); /* RC: clipped to -n as before */
}

static void grh_and_clip(void **state)
{
	struct rt_pt_params p = { .opt = { .ud.conn = RT_PT_UD, .size = 65536 } };
	struct rt_pt_conn c = { .p = &p, .sys = { .mtu = IBV_MTU_1024 } };

	(void)state;
	assert_int_equal(rt_pt_ud_grh(&c), RT_PT_UD_GRH);
	rt_pt_ud_clip(&c, &p);
	assert_int_equal(p.opt.size, 1024);
	p.opt.size = 512;
	rt_pt_ud_clip(&c, &p);
	assert_int_equal(p.opt.size, 512);
	p.opt.ud.conn = RT_PT_UC;
	p.opt.size = 65536;
	rt_pt_ud_clip(&c, &p);
	assert_int_equal(p.opt.size, 65536);
	assert_int_equal(rt_pt_ud_grh(&c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(conn_words),
		cmocka_unit_test(depths),
		cmocka_unit_test(grh_and_clip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
