/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's v56 protocol without a device: the sync bytes, the option
 * rules and the table rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rdmacm/cmtsync.h"

static void sync_values_are_upstreams(void **state)
{
	(void)state;
	/* the step numbers of upstream's enum, sent as one byte each */
	assert_int_equal(RT_CMT_SYNC_RESET, 0);
	assert_int_equal(RT_CMT_SYNC_CONNECTED, 12);
	assert_int_equal(RT_CMT_SYNC_DISCONNECTED, 14);
	assert_string_equal(rt_cmt_sync_name(12), "connected");
	assert_null(rt_cmt_sync_name(7));
}

static void sync_check(void **state)
{
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_cmt_sync_check(RT_CMT_SYNC_CONNECTED, 12, &e), 0);
	assert_false(e.set);
	/* a known step out of turn: the runs went apart */
	assert_int_equal(rt_cmt_sync_check(RT_CMT_SYNC_CONNECTED, 14, &e), -1);
	assert_int_equal(e.exit_code, 1);
	assert_non_null(strstr(e.reason, "step 14 (disconnected) where 12 (connected)"));
	/* anything else: not this protocol */
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_cmt_sync_check(RT_CMT_SYNC_RESET, 'G', &e), -1);
	assert_non_null(strstr(e.reason, "byte 0x47"));
	assert_non_null(strstr(e.reason, "no cmtime of rdma-core 52-58"));
}

static void v44_refuses_v56_options(void **state)
{
	struct rt_cmt_opts o = { .proto = RT_CMT_V44, .threads = 1 };
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_cmt_opts_check(&o, &e), 0);
	o.socket_given = true;
	assert_int_equal(rt_cmt_opts_check(&o, &e), -1);
	assert_int_equal(e.exit_code, 2);
	assert_non_null(strstr(e.reason, "-S (--socket): not in the v44 protocol"));
	/* the same options are fine in v56 */
	memset(&e, 0, sizeof(e));
	o.proto = RT_CMT_V56;
	o.mimic_given = o.qpn_given = o.threads_given = true;
	assert_int_equal(rt_cmt_opts_check(&o, &e), 0);
}

static void threads_one_only(void **state)
{
	struct rt_cmt_opts o = { .proto = RT_CMT_V56, .threads = 4, .threads_given = true };
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_cmt_opts_check(&o, &e), -1);
	assert_int_equal(e.exit_code, 2);
	assert_non_null(strstr(e.reason, "--threads: 4 not supported"));
}

static void row_columns(void **state)
{
	struct rt_cmt_step s = { .span = 1000, .sum = 2500, .max = 40, .min = 10, .count = 100 };
	char buf[128];

	(void)state;
	rt_cmt_row_format(buf, sizeof(buf), "cm connect", &s, 100);
	assert_string_equal(buf, "cm connect             10       1000         25       2500"
			    "         40         10\n");
	/* a step nobody timed: the span only, zeros elsewhere */
	s = (struct rt_cmt_step){ .span = 7 };
	rt_cmt_row_format(buf, sizeof(buf), "init qp", &s, 1);
	assert_string_equal(buf, "init qp                 7          7          0          0"
			    "          0          0\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sync_values_are_upstreams),
		cmocka_unit_test(sync_check),
		cmocka_unit_test(v44_refuses_v56_options),
		cmocka_unit_test(threads_one_only),
		cmocka_unit_test(row_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
