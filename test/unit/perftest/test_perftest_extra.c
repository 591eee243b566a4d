/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* issue #40's last options (perftest_extra.h): -X's rules and the vector
 * a device takes, -C's cpu MHz, its scaling of the figures and of -H/-U's
 * samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_conn.h"
#include "perftest/perftest_extra.h"
#include "perftest/perftest_opts.h"
#include "pt_parse.h"
#include "perftest/perftest_report.h"
#include "perftest/perftest_ropts.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("5000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, RT_PT_OPT_VECTOR, RT_PT_OPT_FLOW_LABEL, { 0 },
};

static int parse(struct rt_pt_params *p, struct rt_error *err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = pt_vparse(p, err, bw_opts, "ib_send_bw",
		       (struct rt_pt_test){ RT_PT_SEND, RT_PT_BW }, ap);
	va_end(ap);
	return rc;
}

static void vector_rules(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;
	struct ibv_device dev = { .name = "rxe0" };
	struct ibv_context ctx = { .device = &dev, .num_comp_vectors = 2 };

	(void)state;
	assert_int_equal(parse(&p, &err, "host", NULL), 0);
	assert_int_equal(p.extra.vector, -1);
	assert_int_equal(rt_pt_comp_vector(&p, &ctx, &err), 0);
	assert_int_equal(parse(&p, &err, "-X", "1", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "needs -e"));
	assert_int_equal(parse(&p, &err, "-e", "-X", "1", "host", NULL), 0);
	assert_int_equal(rt_pt_comp_vector(&p, &ctx, &err), 1);
	assert_int_equal(parse(&p, &err, "-e", "--vector=2", "host", NULL), 0);
	assert_int_equal(rt_pt_comp_vector(&p, &ctx, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "rxe0 has 2 completion vectors (num_comp_vectors)"));
	assert_int_equal(parse(&p, &err, "-e", "-X", "2049", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
}

static void cpuinfo_mhz(void **state)
{
	(void)state;
	assert_true(rt_pt_cpuinfo_mhz("processor\t: 0\ncpu MHz\t\t: 2596.146\n"
				      "cpu MHz\t\t: 1000\n") == 2596.146);
	assert_true(rt_pt_cpuinfo_mhz("processor\t: 0\nBogoMIPS\t: 50.00\n") == 0);
	assert_true(rt_pt_cpuinfo_mhz("cpu MHz\t\t: junk\ncpu MHz : 3000") == 3000);
	assert_true(rt_pt_cpuinfo_mhz("") == 0);
}

static void cycles_scale(void **state)
{
	struct rt_pt_extra off = { .vector = -1 }, on = { .vector = -1, .cycles_per_us = 2000 };
	struct rt_pt_lat_figures f = { .samples = 9, .t_min = 1.5, .t_avg = 2, .p999 = 3,
				       .p9999_all = 4 };

	(void)state;
	rt_pt_cycles_scale(&off, &f);
	assert_true(f.t_min == 1.5 && f.t_avg == 2);
	rt_pt_cycles_scale(&on, &f);
	assert_true(f.t_min == 3000 && f.t_avg == 4000 && f.p999 == 6000 &&
		    f.p9999_all == 8000);
	assert_int_equal(f.samples, 9);
}

static void samples_in_cycles(void **state)
{
	struct rt_pt_samples s = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct rt_log log = { 0 };

	(void)state;
	assert_non_null(f);
	log.human = f;
	log.diag = f;
	rt_pt_samples_init(&s, 3);
	s.cycles_per_us = 1000;
	rt_pt_samples_add(&s, 4000); /* 4 µs, 2 one way */
	rt_pt_samples_add(&s, 2000);
	rt_pt_samples_add(&s, 8000);
	rt_pt_samples_print(&s, true, false, 2, &log);
	fclose(f);
	assert_string_equal(text, "#, cycles\n1, 2000\n2, 1000\n3, 4000\n");
	free(text);
	rt_pt_samples_free(&s);
}

static void payload_parse(void **state)
{
	uint8_t out[16], pat[3] = { 1, 2, 3 }, a[7];
	size_t len = 0;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_pt_payload_parse("0x01020304, 0xAABBCCDD,\n", "f", out,
					     sizeof(out), &len, &err), 0);
	assert_int_equal(len, 8);
	assert_memory_equal(out, ((uint8_t[]){ 4, 3, 2, 1, 0xdd, 0xcc, 0xbb, 0xaa }), 8);
	/* at most max bytes (-s) */
	assert_int_equal(rt_pt_payload_parse("0x01020304,0x05060708", "f", out, 6, &len,
					     &err), 0);
	assert_int_equal(len, 6);
	assert_memory_equal(out, ((uint8_t[]){ 4, 3, 2, 1, 8, 7 }), 6);
	assert_int_equal(rt_pt_payload_parse("0x01020304,0x0506070g", "f", out,
					     sizeof(out), &len, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "f: DWORD 1 is not"));
	assert_int_equal(rt_pt_payload_parse("1234567890", "f", out, sizeof(out), &len,
					     &err), -1);
	rt_pt_payload_fill(a, sizeof(a), pat, sizeof(pat));
	assert_memory_equal(a, ((uint8_t[]){ 1, 2, 3, 1, 2, 3, 1 }), 7);
}

static void flow_labels(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;
	char many[400] = "0";

	(void)state;
	assert_int_equal(parse(&p, &err, "--flow_label", "5,0x10,1048575", "host", NULL), 0);
	assert_int_equal(p.extra.n_flow_labels, 3);
	assert_int_equal(rt_pt_flow_label(&p, 0), 5);
	assert_int_equal(rt_pt_flow_label(&p, 1), 16);
	assert_int_equal(rt_pt_flow_label(&p, 2), 1048575);
	assert_int_equal(rt_pt_flow_label(&p, 4), 16); /* round robin over the QPs */
	assert_int_equal(parse(&p, &err, "host", NULL), 0);
	assert_int_equal(rt_pt_flow_label(&p, 3), 0);
	for (int i = 1; i <= RT_PT_FLOW_LABELS; i++)
		strcat(many, ",1");
	assert_int_equal(parse(&p, &err, "--flow_label", many, "host", NULL), -1);
	assert_non_null(strstr(err.reason, "more than 64"));
	assert_int_equal(parse(&p, &err, "--flow_label", "7,", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vector_rules),
		cmocka_unit_test(cpuinfo_mhz),
		cmocka_unit_test(cycles_scale),
		cmocka_unit_test(samples_in_cycles),
		cmocka_unit_test(payload_parse),
		cmocka_unit_test(flow_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
