/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's pause check (diag_pause.c): the line from a reading of an mlx5
 * netdev's statistics (those above zero listed, or all zero said), from
 * a driver that keeps none (virtio_net: said plainly), from one whose
 * statistics cannot be read; and the check itself, which asks no driver
 * on a tree that is not the running kernel's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doctor/diag.h"
#include "fake_host.h"

static struct rt_diag *d;
static struct rt_portctrs *t;

static int setup(void **state)
{
	(void)state;
	d = calloc(1, sizeof(*d));
	t = calloc(1, sizeof(*t));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(d);
	free(t);
	return 0;
}

static const struct rt_diag_line *only_line(void)
{
	assert_int_equal(d->n, 1);
	assert_string_equal(d->lines[0].check, "pause");
	assert_int_equal(d->lines[0].level, RT_DIAG_PASS);
	return &d->lines[0];
}

static void mlx5_counts_listed_above_zero(void **state)
{
	struct rt_ethctr_reading r = { .driver = "mlx5_core", .listed = 1480, .kept = 3 };
	const struct rt_diag_line *l;

	(void)state;
	rt_portctr_add(t, "rx_prio3_pause", true, 1200);
	rt_portctr_add(t, "tx_prio3_pause", true, 0);
	rt_portctr_add(t, "rx_discards_phy", true, 7);
	rt_portctr_add(t, "out_of_sequence", true, 99); /* a sysfs one: not this check's */
	rt_diag_pause_report(d, "ens1f0 (mlx5_0 port 1)", 0, &r, t);
	l = only_line();
	assert_non_null(strstr(l->evidence, "ens1f0 (mlx5_0 port 1): since the driver "
				"started: rx_prio3_pause 1200, rx_discards_phy 7 ("));
	assert_null(strstr(l->evidence, "tx_prio3_pause"));
	assert_null(strstr(l->evidence, "out_of_sequence"));
}

static void mlx5_all_zero_said(void **state)
{
	struct rt_ethctr_reading r = { .driver = "mlx5_core", .listed = 1480, .kept = 2 };

	(void)state;
	rt_portctr_add(t, "rx_prio3_pause", true, 0);
	rt_portctr_add(t, "tx_prio3_pause", true, 0);
	rt_diag_pause_report(d, "ens1f0 (mlx5_0 port 1)", 0, &r, t);
	assert_non_null(strstr(only_line()->evidence, "2 pause and discard counters of "
				"mlx5_core, all 0"));
}

static void a_driver_without_them_is_said(void **state)
{
	struct rt_ethctr_reading r = { .driver = "virtio_net", .listed = 23 };

	(void)state;
	rt_diag_pause_report(d, "eth0 (rxe0 port 1)", 0, &r, t);
	assert_non_null(strstr(only_line()->evidence, "eth0 (rxe0 port 1): none of the 23 "
				"statistics virtio_net lists counts pause frames"));
}

static void statistics_unreadable_are_said(void **state)
{
	struct rt_ethctr_reading r = { .why = "ETHTOOL_GDRVINFO", .err = EOPNOTSUPP };

	(void)state;
	rt_diag_pause_report(d, "veth1 (rxe1 port 1)", -1, &r, t);
	assert_non_null(strstr(only_line()->evidence, "cannot be read (ETHTOOL_GDRVINFO: "));
}

/* A fake tree's netdev is no driver's: the check says nothing there. */
static void no_driver_asked_on_a_fake_tree(void **state)
{
	struct rt_diag_env env = { "/tmp/not-sys", "/tmp", "/tmp", NULL };
	struct rt_diag_port *p = &d->ports[0];

	(void)state;
	rt_strlcpy(p->dev, "mlx5_0", sizeof(p->dev));
	p->port = 1;
	rt_strlcpy(p->link, "Ethernet", sizeof(p->link));
	rt_strlcpy(p->ndev, "lo", sizeof(p->ndev));
	d->nports = 1;
	rt_diag_pause(&env, d);
	assert_int_equal(d->n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(mlx5_counts_listed_above_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(mlx5_all_zero_said, setup, teardown),
		cmocka_unit_test_setup_teardown(a_driver_without_them_is_said, setup, teardown),
		cmocka_unit_test_setup_teardown(statistics_unreadable_are_said, setup, teardown),
		cmocka_unit_test_setup_teardown(no_driver_asked_on_a_fake_tree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
