/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A port's sysfs counters (portctr.h) on fake trees: the InfiniBand
 * counters/ directory, mlx5's and Soft-RoCE's hw_counters, each name's
 * class and retransmit kind, saturated PMA fields, what is left out, the
 * bound, the delta, packets sent, the numbers, one file by its path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rdmatest/portctr.h"
#include "../fake_tree.h"

static char root[64], sys_[96];

static int make_root(void **state)
{
	(void)state;
	fake_root(root, sizeof(root), "test_portctr");
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

static const struct rt_portctr *find(const struct rt_portctrs *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->c[i].name, name))
			return &t->c[i];
	fail_msg("no counter %s", name);
	return NULL;
}

static void test_ib_counters(void **state)
{
	struct rt_portctrs *t = calloc(1, sizeof(*t));

	(void)state;
	counter(false, "symbol_error", "7");
	counter(false, "link_downed", "255");
	counter(false, "port_xmit_discards", "0");
	counter(false, "VL15_dropped", "65535");
	counter(false, "port_xmit_wait", "1234");
	counter(false, "port_rcv_data", "98765432109876");
	assert_int_equal(rt_portctr_read(sys_, "mlx5_0", 1, t), 6);
	/* counters/ in natural order, bytes outside digits: "V" before the lower case */
	assert_string_equal(t->c[0].name, "VL15_dropped");
	assert_int_equal(find(t, "symbol_error")->cls, RT_PORTCTR_LINK);
	assert_int_equal(find(t, "symbol_error")->value, 7);
	assert_false(find(t, "symbol_error")->hw);
	/* link_downed is 8 bits wide and VL15_dropped 16: both stuck at the top */
	assert_true(find(t, "link_downed")->saturated);
	assert_true(find(t, "VL15_dropped")->saturated);
	assert_false(find(t, "symbol_error")->saturated);
	assert_int_equal(find(t, "port_xmit_wait")->cls, RT_PORTCTR_TRANSPORT);
	assert_int_equal(find(t, "port_rcv_data")->cls, RT_PORTCTR_INFO);
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
	struct rt_portctrs *t = calloc(1, sizeof(*t));

	(void)state;
	for (int i = 0; transport[i]; i++)
		counter(true, transport[i], "3");
	counter(true, "req_transport_retries_exceeded", "2"); /* not in the table */
	counter(true, "lifespan", "10");                      /* a setting */
	assert_int_equal(rt_portctr_read(sys_, "mlx5_0", 1, t), 9);
	for (int i = 0; transport[i]; i++) {
		assert_int_equal(find(t, transport[i])->cls, RT_PORTCTR_TRANSPORT);
		assert_true(find(t, transport[i])->hw);
	}
	assert_int_equal(find(t, "req_transport_retries_exceeded")->cls, RT_PORTCTR_UNKNOWN);
	assert_string_equal(rt_portctr_class_name(RT_PORTCTR_UNKNOWN), "unknown");
	for (int i = 0; i < t->n; i++)
		assert_string_not_equal(t->c[i].name, "lifespan");
	free(t);
}

/* Soft-RoCE's names (kernel 6.1): link_downed is its link's, and a
 * 64-bit counter in hw_counters never reads as saturated. */
static void test_rxe_hw_counters(void **state)
{
	struct rt_portctrs *t = calloc(1, sizeof(*t));

	(void)state;
	counter(true, "link_downed", "255");
	counter(true, "out_of_seq_request", "4");
	counter(true, "retry_exceeded_err", "1");
	counter(true, "rcvd_seq_err", "2");
	counter(true, "sent_pkts", "1000");
	counter(true, "rdma_sends", "10");
	assert_int_equal(rt_portctr_read(sys_, "mlx5_0", 1, t), 6);
	assert_int_equal(find(t, "link_downed")->cls, RT_PORTCTR_LINK);
	assert_false(find(t, "link_downed")->saturated);
	assert_int_equal(find(t, "out_of_seq_request")->cls, RT_PORTCTR_TRANSPORT);
	assert_int_equal(find(t, "retry_exceeded_err")->cls, RT_PORTCTR_TRANSPORT);
	assert_int_equal(find(t, "rcvd_seq_err")->cls, RT_PORTCTR_TRANSPORT);
	assert_int_equal(find(t, "sent_pkts")->cls, RT_PORTCTR_INFO);
	free(t);
}

/* What is not a number is left out; so is a port without counters. */
static void test_bad_values_and_none(void **state)
{
	struct rt_portctrs *t = calloc(1, sizeof(*t));

	(void)state;
	assert_int_equal(rt_portctr_read(sys_, "mlx5_0", 1, t), 0);
	counter(false, "symbol_error", "-1");
	counter(false, "link_downed", "12abc");
	counter(false, "port_rcv_errors", "");
	counter(false, "port_xmit_discards", "99999999999999999999999");
	counter(false, "link_error_recovery", "3");
	assert_int_equal(rt_portctr_read(sys_, "mlx5_0", 1, t), 1);
	assert_string_equal(t->c[0].name, "link_error_recovery");
	free(t);
}

static void test_bound(void **state)
{
	struct rt_portctrs *t = calloc(1, sizeof(*t));
	char name[32];

	(void)state;
	for (int i = 0; i < RT_PORTCTR_MAX + 5; i++) {
		snprintf(name, sizeof(name), "c%03d", i);
		counter(i % 2 == 0, name, "1");
	}
	assert_int_equal(rt_portctr_read(sys_, "mlx5_0", 1, t), RT_PORTCTR_MAX);
	assert_int_equal(t->dropped, 5);
	free(t);
}

static void test_delta(void **state)
{
	struct rt_portctrs *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	(void)state;
	counter(true, "out_of_sequence", "10");
	counter(false, "port_rcv_errors", "5");
	rt_portctr_read(sys_, "mlx5_0", 1, a);
	counter(true, "out_of_sequence", "25");
	counter(false, "port_rcv_errors", "2"); /* reset in between */
	rt_portctr_read(sys_, "mlx5_0", 1, b);
	assert_int_equal(rt_portctr_delta(a, b, "out_of_sequence", true), 15);
	assert_int_equal(rt_portctr_delta(a, b, "out_of_sequence", false), 0);
	assert_int_equal(rt_portctr_delta(a, b, "port_rcv_errors", false), 0);
	assert_int_equal(rt_portctr_delta(a, b, "nosuch", true), 0);
	free(a);
	free(b);
}

/* The retransmit kind mesh judges per packet: rxe's and mlx5's names,
 * not congestion, RNR or traffic. */
static void test_retransmit_names(void **state)
{
	static const char *const yes[] = {
		"out_of_seq_request", "duplicate_request", "rcvd_seq_err", "retry_exceeded_err",
		"completer_retry_err", "out_of_sequence", "packet_seq_err",
		"implied_nak_seq_err", "local_ack_timeout_err", NULL,
	};
	static const char *const no[] = {
		"np_cnp_sent", "rcvd_rnr_err", "symbol_error", "sent_pkts", "vendor_magic", NULL,
	};

	(void)state;
	for (int i = 0; yes[i]; i++) {
		assert_true(rt_portctr_retransmit(yes[i]));
		assert_int_equal(rt_portctr_class(yes[i]), RT_PORTCTR_TRANSPORT);
	}
	for (int i = 0; no[i]; i++)
		assert_false(rt_portctr_retransmit(no[i]));
}

/* The congestion counters are transport ones that are neither errors nor
 * retransmits: no name is both. */
static void test_congestion_names(void **state)
{
	static const char *const yes[] = {
		"port_xmit_wait", "np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled",
		"rp_cnp_ignored", "rx_prio0_pause", "tx_prio7_pause", "rx_pause_ctrl_phy",
		"tx_pause_ctrl_phy", "rx_discards_phy", "tx_discards_phy", NULL,
	};
	static const char *const no[] = {
		"duplicate_request", "out_of_buffer", "symbol_error", "port_xmit_discards",
		"sent_pkts", "vendor_magic", NULL,
	};

	(void)state;
	for (int i = 0; yes[i]; i++) {
		assert_true(rt_portctr_congestion(yes[i]));
		assert_false(rt_portctr_retransmit(yes[i]));
		assert_int_equal(rt_portctr_class(yes[i]), RT_PORTCTR_TRANSPORT);
	}
	for (int i = 0; no[i]; i++)
		assert_false(rt_portctr_congestion(no[i]));
}

/* The netdev's counters (ethctr.h) are the pause and discard ones alone:
 * every priority's both ways, never a sysfs name, never their kin. */
static void test_ethtool_names(void **state)
{
	static const char *const others[] = {
		"rx_pfc_ena_frames_pri3", "tx_pfc_ena_frames_pri0", /* bnxt_en */
		"rx_priority_3_xoff.nic", "tx_priority_7_xoff.nic", /* ice */
		NULL,
	};
	static const char *const no[] = {
		"rx_prio8_pause", "rx_prio3_pause_duration", "rx_prio3_pause_transition",
		"port_xmit_wait", "np_cnp_sent", "symbol_error", "rx_packets", "",
		"rx_pfc_ena_frames_pri8", "rx_priority_3_xon.nic", "rx_pfc_xon2xoff_frames_pri3",
		NULL,
	};
	char name[32];
	int n = 0;

	(void)state;
	for (int p = 0; p < 8; p++)
		for (int tx = 0; tx < 2; tx++) {
			snprintf(name, sizeof(name), "%s_prio%d_pause", tx ? "tx" : "rx", p);
			assert_true(rt_portctr_ethtool(name));
			assert_true(rt_portctr_congestion(name));
			assert_true(rt_portctr_id(name) > rt_portctr_id("ack_deferred"));
			n++;
		}
	assert_int_equal(n, 16);
	for (int i = 0; others[i]; i++) {
		assert_true(rt_portctr_ethtool(others[i]));
		assert_true(rt_portctr_congestion(others[i]));
	}
	for (int i = 0; no[i]; i++)
		assert_false(rt_portctr_ethtool(no[i]));
}

/* rt_portctr_add keeps what fits: not a name of RT_PORTCTR_NAME bytes,
 * not past a full table (counted). */
static void test_add(void **state)
{
	struct rt_portctrs *t = calloc(1, sizeof(*t));
	char long_name[RT_PORTCTR_NAME + 1];

	(void)state;
	memset(long_name, 'x', RT_PORTCTR_NAME);
	long_name[RT_PORTCTR_NAME] = '\0';
	assert_true(rt_portctr_add(t, "rx_prio3_pause", true, 5));
	assert_int_equal(t->c[0].cls, RT_PORTCTR_TRANSPORT);
	assert_false(t->c[0].saturated);
	assert_false(rt_portctr_add(t, long_name, true, 1));
	assert_int_equal(t->n, 1);
	t->n = RT_PORTCTR_MAX;
	assert_false(rt_portctr_add(t, "tx_prio3_pause", true, 1));
	assert_int_equal(t->dropped, 1);
	free(t);
}

/* A known name's number names it back; an unknown one has none, and past
 * the table there is no name. */
static void test_ids(void **state)
{
	int id = rt_portctr_id("rcvd_seq_err");
	unsigned n = 0;

	(void)state;
	assert_true(id >= 0);
	assert_string_equal(rt_portctr_id_name((unsigned)id), "rcvd_seq_err");
	assert_int_equal(rt_portctr_id("symbol_error"), 0); /* the first row */
	assert_int_equal(rt_portctr_id("vendor_magic"), -1);
	while (rt_portctr_id_name(n))
		n++;
	assert_true(n > 40 && n < 256); /* a byte on mesh's wire */
	assert_null(rt_portctr_id_name(n));
	assert_null(rt_portctr_id_name(UINT32_MAX));
}

/* Packets sent: the InfiniBand counter where there is one, else rxe's;
 * neither: not known. */
static void test_sent(void **state)
{
	struct rt_portctrs *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint64_t sent = 1;

	(void)state;
	counter(true, "rcvd_seq_err", "0");
	rt_portctr_read(sys_, "mlx5_0", 1, a);
	rt_portctr_read(sys_, "mlx5_0", 1, b);
	assert_false(rt_portctr_sent(a, b, &sent));
	assert_int_equal(sent, 0);
	counter(true, "sent_pkts", "1000");
	rt_portctr_read(sys_, "mlx5_0", 1, a);
	counter(true, "sent_pkts", "4000");
	rt_portctr_read(sys_, "mlx5_0", 1, b);
	assert_true(rt_portctr_sent(a, b, &sent));
	assert_int_equal(sent, 3000);
	counter(false, "port_xmit_packets", "10");
	rt_portctr_read(sys_, "mlx5_0", 1, a);
	counter(false, "port_xmit_packets", "110");
	rt_portctr_read(sys_, "mlx5_0", 1, b);
	assert_true(rt_portctr_sent(a, b, &sent));
	assert_int_equal(sent, 100);
	free(a);
	free(b);
}

/* One file by its path (perftest's -W): the bound, and what no number is. */
static void test_read_path(void **state)
{
	char path[256];
	uint64_t v = 0;

	(void)state;
	assert_true(rt_portctr_path(path, sizeof(path), sys_, "mlx5_0", 1,
				    "hw_counters/rcvd_pkts"));
	assert_false(rt_portctr_read_path(path, &v));
	counter(true, "rcvd_pkts", "18446744073709551615");
	assert_true(rt_portctr_read_path(path, &v));
	assert_true(v == UINT64_MAX);
	counter(true, "rcvd_pkts", "12 13");
	assert_false(rt_portctr_read_path(path, &v));
	assert_false(rt_portctr_path(path, 20, sys_, "mlx5_0", 1, "counters/x"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_root, drop_root)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ib_counters), T(test_mlx5_hw_counters), T(test_rxe_hw_counters),
		T(test_bad_values_and_none), T(test_bound), T(test_delta),
		T(test_retransmit_names), T(test_congestion_names), T(test_ethtool_names), T(test_add),
		T(test_ids), T(test_sent), T(test_read_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
