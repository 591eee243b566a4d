/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/error.h"
#include "rdmatest/util.h"

static void deadlines(void **state)
{
	uint64_t d;

	(void)state;
	assert_int_equal(rt_deadline_after_ms(0), 0);
	assert_int_equal(rt_ms_until(0), -1); /* no deadline: poll forever */
	d = rt_deadline_after_ms(5000);
	assert_true(rt_ms_until(d) > 4000 && rt_ms_until(d) <= 5000);
	assert_int_equal(rt_ms_until(rt_now_ns() - 1), 0);
	assert_true(rt_now_ns() >= d - 5000ULL * 1000000);
}

static void strlcpy_truncates(void **state)
{
	char b[4];

	(void)state;
	assert_int_equal(rt_strlcpy(b, "abcdef", sizeof(b)), 6);
	assert_string_equal(b, "abc");
}

/* Device, port and counter names in the order an operator reads them. */
static void natural_order(void **state)
{
	(void)state;
	assert_true(rt_natural_cmp("mlx5_2", "mlx5_10") < 0);
	assert_true(rt_natural_cmp("mlx5_10", "mlx5_2") > 0);
	assert_true(rt_natural_cmp("mlx5_10", "mlx5_9") > 0);
	assert_true(rt_natural_cmp("mlx5_10", "mlx5_10") == 0);
	assert_true(rt_natural_cmp("9", "10") < 0);
	assert_true(rt_natural_cmp("mlx5_1", "mlx5_1a") < 0);
	assert_true(rt_natural_cmp("mlx5", "mlx5_0") < 0);
	assert_true(rt_natural_cmp("ib0", "mlx5_0") < 0);
	assert_true(rt_natural_cmp("bnxt_re0", "mlx5_0") < 0);
	assert_true(rt_natural_cmp("VL15_dropped", "link_downed") < 0);
	assert_true(rt_natural_cmp("a007", "a7") == 0);
	assert_true(rt_natural_cmp("a7b", "a7c") < 0);
}

static void hex_digits(void **state)
{
	(void)state;
	assert_int_equal(rt_hex_digit('0'), 0);
	assert_int_equal(rt_hex_digit('9'), 9);
	assert_int_equal(rt_hex_digit('a'), 10);
	assert_int_equal(rt_hex_digit('F'), 15);
	assert_int_equal(rt_hex_digit('g'), -1);
	assert_int_equal(rt_hex_digit(':'), -1);
	assert_int_equal(rt_hex_digit('\0'), -1);
}

static void first_failure_wins(void **state)
{
	struct rt_error e = { 0 };

	(void)state;
	rt_error_phase(&e, "connect");
	assert_int_equal(rt_fail_errno(&e, RT_EXIT_FAIL, 113, "rdma_resolve_addr %s", "192.0.2.9"), -1);
	assert_int_equal(rt_fail(&e, RT_EXIT_TIMEOUT, "later"), -1);
	rt_error_phase(&e, "teardown");
	rt_error_event(&e, "RDMA_CM_EVENT_ADDR_ERROR", -113);
	rt_error_event(&e, "OTHER", 1);
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	assert_string_equal(e.reason, "rdma_resolve_addr 192.0.2.9: No route to host");
	assert_string_equal(e.phase, "connect");
	assert_string_equal(e.event, "RDMA_CM_EVENT_ADDR_ERROR");
	assert_int_equal(e.status, -113);
	assert_string_equal(rt_exit_name(124), "timeout");
	assert_string_equal(rt_exit_name(RT_EXIT_ELSEWHERE), "elsewhere");
}

/* A retry's record becomes the run's as it is: no second ": strerror",
 * the run's phase kept, and never over an earlier failure. */
static void adopt_keeps_reason_and_errno(void **state)
{
	struct rt_error run = { 0 }, retry = { 0 };

	(void)state;
	rt_error_phase(&run, "connect");
	rt_fail_errno(&retry, RT_EXIT_TIMEOUT, 110, "connect 192.0.2.9:7471");
	assert_int_equal(rt_error_adopt(&run, &retry), -1);
	assert_true(run.set);
	assert_int_equal(run.exit_code, RT_EXIT_TIMEOUT);
	assert_int_equal(run.err_no, 110);
	assert_string_equal(run.reason, retry.reason);
	assert_string_equal(run.phase, "connect");
	rt_fail(&retry, 1, "ignored");
	retry.exit_code = 3;
	assert_int_equal(rt_error_adopt(&run, &retry), -1);
	assert_int_equal(run.exit_code, RT_EXIT_TIMEOUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(deadlines),
		cmocka_unit_test(hex_digits),
		cmocka_unit_test(natural_order),
		cmocka_unit_test(strlcpy_truncates),
		cmocka_unit_test(first_failure_wins),
		cmocka_unit_test(adopt_keeps_reason_and_errno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
