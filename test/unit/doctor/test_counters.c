/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A port's sysfs counters (counters.h) on fake trees: the InfiniBand
 * counters/ directory, mlx5's and Soft-RoCE's hw_counters, each name's
 * class, saturated PMA fields, what is left out, the bound, the delta. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doctor/counters.h"
#include "fake_host.h"

static char root[64], sys_[96];

static int make_root(void **state)
{
	(void)state;
	fake_root(root, sizeof(root), "test_counters");
	snprintf(sys_, sizeof(sys_), "%s/sys", root);
	return 0;
}

static int drop_root(void **state)
{
	(void)state;
	fake_remove(root);
	return 0;
}

/* Writes counter `name` of mlx5_0 port 1 in counters/ or hw_counters/. */
static void counter(bool hw, const char *name, const char *value)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/mlx5_0/ports/1/%s/%s",
		 hw ? "hw_counters" : "counters", name);
	fake_put(root, rel, value);
}

static const struct rt_diag_counter *find(const struct rt_diag_counters *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->c[i].name, name))
			return &t->c[i];
	fail_msg("no counter %s", name);
	return NULL;
}

static void test_ib_counters(void **state)
{
	struct rt_diag_counters *t = calloc(1, sizeof(*t));

	(void)state;
	counter(false, "symbol_error", "7");
	counter(false, "link_downed", "255");
	counter(false, "port_xmit_discards", "0");
	counter(false, "VL15_dropped", "65535");
	counter(false, "port_xmit_wait", "1234");
	counter(false, "port_rcv_data", "98765432109876");
	assert_int_equal(rt_diag_counters_read(sys_, "mlx5_0", 1, t), 6);
	/* counters/ in natural order, bytes outside digits: "V" before the lower case */
	assert_string_equal(t->c[0].name, "VL15_dropped");
	assert_int_equal(find(t, "symbol_error")->cls, RT_DIAG_CTR_LINK);
	assert_int_equal(find(t, "symbol_error")->value, 7);
	assert_false(find(t, "symbol_error")->hw);
	/* link_downed is 8 bits wide and VL15_dropped 16: both stuck at the top */
	assert_true(find(t, "link_downed")->saturated);
	assert_true(find(t, "VL15_dropped")->saturated);
	assert_false(find(t, "symbol_error")->saturated);
	assert_int_equal(find(t, "port_xmit_wait")->cls, RT_DIAG_CTR_TRANSPORT);
	assert_int_equal(find(t, "port_rcv_data")->cls, RT_DIAG_CTR_INFO);
	assert_true(find(t, "port_rcv_data")->value == 98765432109876ull);
	free(t);
}

static void test_mlx5_hw_counters(void **state)
{
	static const char *const transport[] = {
		"out_of_sequence", "packet_seq_err", "local_ack_timeout_err",
		"duplicate_request", "np_cnp_sent", "rp_cnp_handled",
		"np_ecn_marked_roce_packets", "out_of_buffer", NULL,
	};
	struct rt_diag_counters *t = calloc(1, sizeof(*t));

	(void)state;
	for (int i = 0; transport[i]; i++)
		counter(true, transport[i], "3");
	counter(true, "req_transport_retries_exceeded", "2"); /* not in the table */
	counter(true, "lifespan", "10");                      /* a setting */
	assert_int_equal(rt_diag_counters_read(sys_, "mlx5_0", 1, t), 9);
	for (int i = 0; transport[i]; i++) {
		assert_int_equal(find(t, transport[i])->cls, RT_DIAG_CTR_TRANSPORT);
		assert_true(find(t, transport[i])->hw);
	}
	assert_int_equal(find(t, "req_transport_retries_exceeded")->cls, RT_DIAG_CTR_UNKNOWN);
	assert_string_equal(rt_diag_counter_class_name(RT_DIAG_CTR_UNKNOWN), "unknown");
	for (int i = 0; i < t->n; i++)
		assert_string_not_equal(t->c[i].name, "lifespan");
	free(t);
}

/* Soft-RoCE's names (kernel 6.1): link_downed is its link's, and a
 * 64-bit counter in hw_counters never reads as saturated. */
static void test_rxe_hw_counters(void **state)
{
	struct rt_diag_counters *t = calloc(1, sizeof(*t));

	(void)state;
	counter(true, "link_downed", "255");
	counter(true, "out_of_seq_request", "4");
	counter(true, "retry_exceeded_err", "1");
	counter(true, "rcvd_seq_err", "2");
	counter(true, "sent_pkts", "1000");
	counter(true, "rdma_sends", "10");
	assert_int_equal(rt_diag_counters_read(sys_, "mlx5_0", 1, t), 6);
	assert_int_equal(find(t, "link_downed")->cls, RT_DIAG_CTR_LINK);
	assert_false(find(t, "link_downed")->saturated);
	assert_int_equal(find(t, "out_of_seq_request")->cls, RT_DIAG_CTR_TRANSPORT);
	assert_int_equal(find(t, "retry_exceeded_err")->cls, RT_DIAG_CTR_TRANSPORT);
	assert_int_equal(find(t, "rcvd_seq_err")->cls, RT_DIAG_CTR_TRANSPORT);
	assert_int_equal(find(t, "sent_pkts")->cls, RT_DIAG_CTR_INFO);
	free(t);
}

/* What is not a number is left out; so is a port without counters. */
static void test_bad_values_and_none(void **state)
{
	struct rt_diag_counters *t = calloc(1, sizeof(*t));

	(void)state;
	assert_int_equal(rt_diag_counters_read(sys_, "mlx5_0", 1, t), 0);
	counter(false, "symbol_error", "-1");
	counter(false, "link_downed", "12abc");
	counter(false, "port_rcv_errors", "");
	counter(false, "port_xmit_discards", "99999999999999999999999");
	counter(false, "link_error_recovery", "3");
	assert_int_equal(rt_diag_counters_read(sys_, "mlx5_0", 1, t), 1);
	assert_string_equal(t->c[0].name, "link_error_recovery");
	free(t);
}

static void test_bound(void **state)
{
	struct rt_diag_counters *t = calloc(1, sizeof(*t));
	char name[32];

	(void)state;
	for (int i = 0; i < RT_DIAG_COUNTERS_MAX + 5; i++) {
		snprintf(name, sizeof(name), "c%03d", i);
		counter(i % 2 == 0, name, "1");
	}
	assert_int_equal(rt_diag_counters_read(sys_, "mlx5_0", 1, t), RT_DIAG_COUNTERS_MAX);
	assert_int_equal(t->dropped, 5);
	free(t);
}

static void test_delta(void **state)
{
	struct rt_diag_counters *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	(void)state;
	counter(true, "out_of_sequence", "10");
	counter(false, "port_rcv_errors", "5");
	rt_diag_counters_read(sys_, "mlx5_0", 1, a);
	counter(true, "out_of_sequence", "25");
	counter(false, "port_rcv_errors", "2"); /* reset in between */
	rt_diag_counters_read(sys_, "mlx5_0", 1, b);
	assert_int_equal(rt_diag_counter_delta(a, b, "out_of_sequence", true), 15);
	assert_int_equal(rt_diag_counter_delta(a, b, "out_of_sequence", false), 0);
	assert_int_equal(rt_diag_counter_delta(a, b, "port_rcv_errors", false), 0);
	assert_int_equal(rt_diag_counter_delta(a, b, "nosuch", true), 0);
	free(a);
	free(b);
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_root, drop_root)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ib_counters), T(test_mlx5_hw_counters), T(test_rxe_hw_counters),
		T(test_bad_values_and_none), T(test_bound), T(test_delta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
