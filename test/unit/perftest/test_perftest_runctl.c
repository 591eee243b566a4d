/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The run control and reporting options (perftest_runctl.h): their rules
 * (--run_infinitely, --reversed, -H/-U, --report-per-port, -W's names),
 * the -Z/--server and -P flags, and the helpers: /proc/stat's line, the
 * CPU figure, the kept samples and their lists, the ring of rows, and
 * -C's CPU frequency and figures in cycles. */
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
#include "perftest/perftest_opts.h"
#include "pt_parse.h"
#include "perftest/perftest_report.h"
#include "perftest/perftest_runctl.h"
#include "rdmatest/log.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("5000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_BW, { 0 },
};

static const struct rt_opt lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("2"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_LAT, RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_LAT, { 0 },
};

static int parse_as(struct rt_pt_params *p, struct rt_error *err,
		    enum rt_pt_verb v, enum rt_pt_kind k, ...)
{
	va_list ap;
	int rc;

	va_start(ap, k);
	rc = pt_vparse(p, err, k == RT_PT_BW ? bw_opts : lat_opts, "ib_test",
		       (struct rt_pt_test){ v, k }, ap);
	va_end(ap);
	return rc;
}

#define BW(...) parse_as(&p, &err, RT_PT_WRITE, RT_PT_BW, __VA_ARGS__, NULL)
#define SEND_BW(...) parse_as(&p, &err, RT_PT_SEND, RT_PT_BW, __VA_ARGS__, NULL)
#define LAT(...) parse_as(&p, &err, RT_PT_SEND, RT_PT_LAT, __VA_ARGS__, NULL)

static void tables_are_sound(void **state)
{
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_opt_table_check(bw_opts, &err), 0);
	assert_true(rt_opt_count(bw_opts) <= RT_OPT_MAX_ROWS);
	assert_int_equal(rt_opt_table_check(lat_opts, &err), 0);
}

static void run_infinitely(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	/* perftest's default period is 5 s; no margin, no peak */
	assert_int_equal(BW("--run_infinitely", "h"), 0);
	assert_true(p.opt.ctl.run_inf);
	assert_int_equal(p.opt.duration, 5);
	assert_int_equal(p.opt.margin, 0);
	assert_true(p.opt.no_peak);
	assert_int_equal(BW("--run_infinitely", "-D", "2", "h"), 0);
	assert_int_equal(p.opt.duration, 2);
	assert_int_equal(BW("--run_infinitely", "-e", "h"), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_int_equal(BW("--run_infinitely", "-a", "h"), -1);
	assert_int_equal(BW("--run_infinitely", "-b", "h"), 0);
	assert_int_equal(BW("--run_infinitely", "-D", "4", "-f", "1", "h"), -1);
	assert_int_equal(SEND_BW("--run_infinitely", "h"), 0);
	assert_int_equal(SEND_BW("--run_infinitely", "-b", "h"), -1);
	/* a latency test has no such row: refused by name */
	assert_int_equal(LAT("--run_infinitely"), -1);
	assert_non_null(strstr(err.reason, "not supported"));
}

static void reversed_and_server_flags(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(BW("--reversed", "h"), 0);
	assert_false(p.client);
	assert_true(p.chan_client);
	assert_int_equal(BW("--reversed"), 0);
	assert_true(p.client);
	assert_false(p.chan_client);
	assert_int_equal(BW("--reversed", "-R", "h"), -1);
	assert_int_equal(BW("--reversed", "-z", "h"), -1);
	/* -Z and a bare --server are perftest's flag: the role follows HOST */
	assert_int_equal(BW("-Z"), 0);
	assert_false(p.client);
	assert_int_equal(BW("--server"), 0);
	assert_false(p.client);
	assert_int_equal(BW("--server", "-s", "8"), 0);
	assert_false(p.client);
	assert_int_equal(p.opt.size, 8);
	assert_int_equal(BW("-Z", "h"), 0);
	assert_true(p.client);
	assert_string_equal(p.opt.server, "h");
	assert_int_equal(BW("--server", "h"), 0);
	assert_string_equal(p.opt.server, "h");
	assert_int_equal(BW("--server=h"), 0);
	assert_string_equal(p.opt.server, "h");
	assert_int_equal(BW("-P"), 0);
	assert_true(p.opt.ctl.client_flag);
	assert_false(p.client);
}

static void report_options(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(BW("-b", "--report-both", "h"), 0);
	assert_true(p.opt.ctl.report_both);
	assert_int_equal(BW("--report-per-port", "h"), -1);
	assert_non_null(strstr(err.reason, "-D and -O"));
	/* and -O (test_perftest_dual.c) */
	assert_int_equal(BW("--report-per-port", "-D", "4", "h"), -1);
	assert_non_null(strstr(err.reason, "-D and -O"));
	assert_int_equal(BW("--cpu_util", "-D", "4", "h"), 0);
	assert_true(p.opt.ctl.cpu_util);
	assert_int_equal(BW("-W", "counters/port_xmit_data,hw_counters/rcvd_pkts", "h"), 0);
	assert_string_equal(p.opt.ctl.counters, "counters/port_xmit_data,hw_counters/rcvd_pkts");
	assert_int_equal(BW("-W", "a,,b", "h"), -1);
	assert_int_equal(BW("-W", "/etc/passwd", "h"), -1);
	assert_int_equal(BW("-W", "../../x", "h"), -1);
	assert_int_equal(BW("-W", "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", "h"), -1);
	assert_non_null(strstr(err.reason, "more than 16"));
	assert_int_equal(LAT("-H", "-U", "--latency_gap", "7", "h"), 0);
	assert_true(p.opt.ctl.histogram);
	assert_true(p.opt.ctl.unsorted);
	assert_int_equal(p.opt.ctl.latency_gap, 7);
	assert_int_equal(LAT("--report-histogrm", "h"), 0);
	assert_true(p.opt.ctl.histogram);
	assert_int_equal(LAT("-H", "-D", "4", "h"), -1);
	assert_int_equal(LAT("-U", "-n", "5000000", "h"), -1);
	assert_non_null(strstr(err.reason, "4194304"));
	/* latency-only rows are refused by name in a BW test */
	assert_int_equal(BW("--latency_gap", "3"), -1);
	assert_int_equal(BW("-H"), -1);
}

static void cpu_figure(void **state)
{
	struct rt_pt_cpu a, b;
	char cell[32];

	(void)state;
	assert_true(rt_pt_cpu_parse("cpu  100 5 20 300 1 0 0 0 0 0\n", &a));
	assert_int_equal(a.user, 100);
	assert_int_equal(a.idle, 300);
	assert_true(rt_pt_cpu_parse("cpu  150 5 20 350 1 0 0 0 0 0\n", &b));
	/* perftest's: user / (user + idle) of the change */
	assert_float_equal(rt_pt_cpu_util(&a, &b), 50.0, 1e-9);
	assert_float_equal(rt_pt_cpu_util(&a, &a), 0.0, 1e-9);
	assert_false(rt_pt_cpu_parse("intr 1 2 3", &a));
	rt_pt_cpu_cell(cell, sizeof(cell), 12.345);
	assert_string_equal(cell, "\t    12.35");
	assert_true(rt_pt_cpu_sample(&a) || a.user == 0);
}

static void samples_lists(void **state)
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
	rt_pt_samples_init(&s, 4);
	rt_pt_samples_add(&s, 4000);
	rt_pt_samples_add(&s, 2000);
	rt_pt_samples_add(&s, 8000);
	rt_pt_samples_add(&s, 6000);
	rt_pt_samples_add(&s, 9999); /* beyond the cap: dropped */
	assert_int_equal(s.n, 4);
	/* -U in order, then -H sorted without the two largest; rtt 2 */
	rt_pt_samples_print(&s, true, true, 2, &log);
	fclose(f);
	assert_string_equal(text, "#, usec\n1, 2\n2, 1\n3, 4\n4, 3\n#, usec\n1, 1\n2, 2\n");
	free(text);
	rt_pt_samples_free(&s);
	assert_null(s.v);
}

static void ring_of_rows(void **state)
{
	struct rt_pt_ring *r = calloc(1, sizeof(*r));
	const char *keys[] = { "a", "b" };
	struct rt_json j;

	(void)state;
	for (unsigned i = 0; i < RT_PT_INF_ROWS + 3; i++)
		rt_pt_ring_put(r, keys, (double[]){ i, 2.0 * i }, 2);
	assert_int_equal(r->total, RT_PT_INF_ROWS + 3);
	rt_json_init(&j);
	rt_json_array_begin(&j);
	rt_pt_ring_json(r, &j);
	rt_json_array_end(&j);
	/* the oldest kept is row 3; the last 66 */
	assert_non_null(strstr(rt_json_text(&j), "[{\"a\":3,\"b\":6}"));
	assert_non_null(strstr(rt_json_text(&j), "{\"a\":66,\"b\":132}]"));
	rt_json_free(&j);
	free(r);
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
	struct rt_pt_lat_figures f = { .samples = 9, .t_min = 1.5, .t_avg = 2, .p999 = 3,
				       .p9999_all = 4 };

	(void)state;
	rt_pt_cycles_scale(0, &f);
	assert_true(f.t_min == 1.5 && f.t_avg == 2);
	rt_pt_cycles_scale(2000, &f);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_are_sound),
		cmocka_unit_test(run_infinitely),
		cmocka_unit_test(reversed_and_server_flags),
		cmocka_unit_test(report_options),
		cmocka_unit_test(cpu_figure),
		cmocka_unit_test(samples_lists),
		cmocka_unit_test(ring_of_rows),
		cmocka_unit_test(cpuinfo_mhz),
		cmocka_unit_test(cycles_scale),
		cmocka_unit_test(samples_in_cycles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
