/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's counter check (diag_counters.c) on a fake sysfs tree: a link
 * error is a WARN naming the counter and its value, retransmit and
 * congestion counters are named in the PASS line, a counter doctor does
 * not know shows in --json only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doctor/diag.h"
#include "doctor/diag_report.h"
#include "fake_host.h"
#include "rdmatest/json.h"

static char root[64], sys_[96];
static struct rt_diag_env env;
static struct rt_diag *d;

/* Two mlx5 ports; counters written per test. */
static int make_tree(void **state)
{
	(void)state;
	fake_root(root, sizeof(root), "test_diag_counters");
	snprintf(sys_, sizeof(sys_), "%s/sys", root);
	env = (struct rt_diag_env){ sys_, sys_, sys_, NULL };
	d = calloc(1, sizeof(*d));
	for (int i = 0; i < 2; i++) {
		snprintf(d->ports[i].dev, sizeof(d->ports[i].dev), "mlx5_%d", i);
		d->ports[i].port = 1;
	}
	d->nports = 2;
	return 0;
}

static int drop_tree(void **state)
{
	(void)state;
	free(d);
	fake_remove(root);
	return 0;
}

static void counter(int dev, const char *dir, const char *name, const char *value)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/mlx5_%d/ports/1/%s/%s", dev, dir,
		 name);
	fake_put(root, rel, value);
}

static void healthy_counters(void)
{
	for (int i = 0; i < 2; i++) {
		counter(i, "counters", "symbol_error", "0");
		counter(i, "counters", "port_rcv_errors", "0");
		counter(i, "hw_counters", "out_of_sequence", "0");
		counter(i, "hw_counters", "vendor_magic", "42");
	}
}

static void test_link_error_warns(void **state)
{
	(void)state;
	healthy_counters();
	counter(1, "counters", "symbol_error", "17");
	counter(1, "counters", "link_downed", "255");
	rt_diag_port_counters(&env, d);
	assert_int_equal(d->n, 1);
	assert_int_equal(d->lines[0].level, RT_DIAG_WARN);
	assert_string_equal(d->lines[0].check, "counters");
	assert_string_equal(d->lines[0].evidence, "mlx5_1 port 1: link errors since the "
			    "counters were reset: link_downed 255 (saturated: at least), "
			    "symbol_error 17");
	assert_non_null(strstr(d->lines[0].fix, "cable"));
	assert_int_equal(rt_diag_exit(d), 0); /* a WARN, not a FAIL */
}

static void test_transport_named_in_pass(void **state)
{
	(void)state;
	healthy_counters();
	counter(0, "hw_counters", "out_of_sequence", "12");
	counter(0, "hw_counters", "np_cnp_sent", "3");
	rt_diag_port_counters(&env, d);
	assert_int_equal(d->n, 1);
	assert_int_equal(d->lines[0].level, RT_DIAG_PASS);
	assert_string_equal(d->lines[0].evidence, "2 ports, 9 counters, no link errors; "
			    "retransmits and congestion since reset (judged per packet by "
			    "tests that move data): mlx5_0 port 1 np_cnp_sent 3, "
			    "out_of_sequence 12");
	/* a counter doctor does not know is not in the text */
	assert_null(strstr(d->lines[0].evidence, "vendor_magic"));
}

/* No counters at all (a fake tree, a provider without them): no line. */
static void test_no_counters_no_line(void **state)
{
	(void)state;
	rt_diag_port_counters(&env, d);
	assert_int_equal(d->n, 0);
}

static void test_json_passes_all(void **state)
{
	struct rt_json j;

	(void)state;
	healthy_counters();
	rt_diag_port_counters(&env, d);
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_diag_json(&j, d);
	rt_json_object_end(&j);
	rt_json_finish(&j);
	assert_non_null(strstr(rt_json_text(&j), "{\"name\":\"vendor_magic\",\"dir\":"
				"\"hw_counters\",\"class\":\"unknown\",\"value\":42,"
				"\"saturated\":false}"));
	assert_non_null(strstr(rt_json_text(&j), "{\"name\":\"symbol_error\",\"dir\":"
				"\"counters\",\"class\":\"link\",\"value\":0,"
				"\"saturated\":false}"));
	rt_json_free(&j);
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_tree, drop_tree)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_link_error_warns), T(test_transport_named_in_pass),
		T(test_no_counters_no_line), T(test_json_passes_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
