/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's DCB check (diag_dcb.c) on fake sysfs trees: an mlx5-like
 * netdev with PFC on priority 3, trust dscp and DSCP 26 -> priority 3
 * (the class the tests use lands there or it does not), a Soft-RoCE
 * netdev that shows nothing (a PASS saying so, never a FAIL), files a
 * driver might write differently (a WARN, never a PASS), and the parsers
 * on their own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doctor/diag.h"
#include "doctor/diag_dcb.h"
#include "fake_host.h"

static char root[64], sys_[96];
static struct rt_diag_env env;
static struct rt_diag *d;

/* mlx5's default map in its sysfs layout: DSCP d on priority d >> 3, so
 * DSCP 26 (class 104..107) on priority 3. */
static const char mlx5_dscp2prio[] =
	"dscp2prio mapping:\n"
	"\tprio:0 dscp:07,06,05,04,03,02,01,00,\n"
	"\tprio:1 dscp:15,14,13,12,11,10,09,08,\n"
	"\tprio:2 dscp:23,22,21,20,19,18,17,16,\n"
	"\tprio:3 dscp:31,30,29,28,27,26,25,24,\n"
	"\tprio:4 dscp:39,38,37,36,35,34,33,32,\n"
	"\tprio:5 dscp:47,46,45,44,43,42,41,40,\n"
	"\tprio:6 dscp:55,54,53,52,51,50,49,48,\n"
	"\tprio:7 dscp:63,62,61,60,59,58,57,56,";

static void port(int i, const char *dev, const char *link, const char *ndev)
{
	struct rt_diag_port *p = &d->ports[i];

	rt_strlcpy(p->dev, dev, sizeof(p->dev));
	p->port = 1;
	rt_strlcpy(p->link, link, sizeof(p->link));
	rt_strlcpy(p->ndev, ndev, sizeof(p->ndev));
	rt_strlcpy(p->state, "4: ACTIVE", sizeof(p->state));
	d->nports = i + 1 > d->nports ? i + 1 : d->nports;
}

static void qos(const char *ndev, const char *file, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/net/%s/qos/%s", ndev, file);
	fake_put(root, rel, text);
}

/* An mlx5 RoCE port on ens1f0: PFC on priority 3 only, trust dscp. */
static void mlx5_tree(void)
{
	port(0, "mlx5_0", "Ethernet", "ens1f0");
	qos("ens1f0", "pfc", "0,0,0,1,0,0,0,0");
	qos("ens1f0", "trust", "Priority trust state: dscp");
	qos("ens1f0", "dscp2prio", mlx5_dscp2prio);
}

static int make_tree(void **state)
{
	(void)state;
	fake_root(root, sizeof(root), "test_diag_dcb");
	snprintf(sys_, sizeof(sys_), "%s/sys", root);
	env = (struct rt_diag_env){ sys_, sys_, sys_, NULL };
	d = calloc(1, sizeof(*d));
	return 0;
}

static int drop_tree(void **state)
{
	(void)state;
	free(d);
	fake_remove(root);
	return 0;
}

static const struct rt_diag_line *only_line(void)
{
	assert_int_equal(d->n, 1);
	assert_string_equal(d->lines[0].check, "dcb");
	return &d->lines[0];
}

static void class_on_the_pfc_priority_passes(void **state)
{
	const struct rt_diag_line *l;

	(void)state;
	mlx5_tree();
	d->tclass = 106; /* DSCP 26, ECN bits 10 */
	rt_diag_dcb(&env, d);
	l = only_line();
	assert_int_equal(l->level, RT_DIAG_PASS);
	assert_non_null(strstr(l->evidence, "ens1f0 (mlx5_0 port 1)"));
	assert_non_null(strstr(l->evidence, "tclass 106 -> DSCP 26 -> priority 3, which PFC "
				"protects (PFC on 3)"));
}

/* The default class, 0: DSCP 0 -> priority 0, which PFC leaves lossy;
 * the line names the PFC priority and the fix a class that reaches it. */
static void class_off_the_pfc_priority_warns(void **state)
{
	const struct rt_diag_line *l;

	(void)state;
	mlx5_tree();
	rt_diag_dcb(&env, d);
	l = only_line();
	assert_int_equal(l->level, RT_DIAG_WARN);
	assert_non_null(strstr(l->evidence, "tclass 0 -> DSCP 0 -> priority 0, but PFC is "
				"on priority 3 only"));
	/* the first DSCP mapped to priority 3 is 24: class 96 */
	assert_non_null(strstr(l->fix, "--tclass 96"));
	assert_non_null(strstr(l->fix, "DSCP 24 -> priority 3"));
}

/* Soft-RoCE's netdev (virtio, no qos/): said plainly, never judged. */
static void nothing_exposed_is_said_not_failed(void **state)
{
	const struct rt_diag_line *l;

	(void)state;
	port(0, "rxe0", "Ethernet", "eth1");
	fake_put(root, "sys/class/net/eth1/mtu", "1500");
	d->tclass = 106;
	rt_diag_dcb(&env, d);
	l = only_line();
	assert_int_equal(l->level, RT_DIAG_PASS);
	assert_non_null(strstr(l->evidence, "eth1 (rxe0 port 1): PFC, trust mode and DSCP "
				"map not exposed by the driver"));
}

/* IB ports, unused ports and a second port on the same netdev add
 * nothing. */
static void only_used_roce_netdevs_once(void **state)
{
	(void)state;
	mlx5_tree();
	d->tclass = 106;
	port(1, "mlx5_1", "InfiniBand", "ib0");
	port(2, "mlx5_2", "Ethernet", "ens2f0");
	d->ports[2].unused = true;
	port(3, "mlx5_bond_0", "Ethernet", "ens1f0");
	rt_diag_dcb(&env, d);
	assert_int_equal(only_line()->level, RT_DIAG_PASS);
}

static void pfc_off_everywhere_is_lossy_not_wrong(void **state)
{
	(void)state;
	mlx5_tree();
	qos("ens1f0", "pfc", "0,0,0,0,0,0,0,0");
	rt_diag_dcb(&env, d);
	assert_int_equal(only_line()->level, RT_DIAG_PASS);
	assert_non_null(strstr(d->lines[0].evidence, "PFC on no priority"));
}

static void trust_pcp_is_not_judged_by_dscp(void **state)
{
	(void)state;
	mlx5_tree();
	qos("ens1f0", "trust", "Priority trust state: pcp");
	rt_diag_dcb(&env, d);
	assert_int_equal(only_line()->level, RT_DIAG_PASS);
	assert_non_null(strstr(d->lines[0].evidence, "trust pcp, PFC on 3"));
}

/* A file in another layout is not a PASS: the check cannot tell. */
static void a_file_not_understood_warns(void **state)
{
	(void)state;
	mlx5_tree();
	qos("ens1f0", "pfc", "PFC: 0 0 0 on 0 0 0 0");
	rt_diag_dcb(&env, d);
	assert_int_equal(only_line()->level, RT_DIAG_WARN);
	assert_non_null(strstr(d->lines[0].evidence, "qos/pfc not understood (\"PFC: 0 0 0"));
}

static void pfc_without_a_map_warns(void **state)
{
	(void)state;
	port(0, "mlx5_0", "Ethernet", "ens1f0");
	qos("ens1f0", "pfc", "0 0 0 1 0 0 0 0");
	rt_diag_dcb(&env, d);
	assert_int_equal(only_line()->level, RT_DIAG_WARN);
	assert_non_null(strstr(d->lines[0].evidence, "no DSCP map exposed"));
}

static void parsers_refuse_what_is_not_theirs(void **state)
{
	int map[RT_DCB_DSCPS];
	enum rt_dcb_trust t;
	uint8_t mask;

	(void)state;
	assert_int_equal(rt_dcb_parse_pfc("1,0,0,1,0,0,0,1\n", &mask), 0);
	assert_int_equal(mask, 0x89);
	assert_int_equal(rt_dcb_parse_pfc("1,0,0,1,0,0,0", &mask), -1);    /* 7 */
	assert_int_equal(rt_dcb_parse_pfc("1,0,0,1,0,0,0,0,0", &mask), -1); /* 9 */
	assert_int_equal(rt_dcb_parse_pfc("10,0,0,1,0,0,0,0", &mask), -1);
	assert_int_equal(rt_dcb_parse_pfc("", &mask), -1);
	assert_int_equal(rt_dcb_parse_trust("Priority trust state: DSCP", &t), 0);
	assert_int_equal(t, RT_DCB_TRUST_DSCP);
	assert_int_equal(rt_dcb_parse_trust("pcp", &t), 0);
	assert_int_equal(t, RT_DCB_TRUST_PCP);
	assert_int_equal(rt_dcb_parse_trust("none", &t), -1);
	assert_int_equal(rt_dcb_parse_dscp2prio(mlx5_dscp2prio, map), 64);
	assert_int_equal(map[26], 3);
	assert_int_equal(map[0], 0);
	assert_int_equal(map[63], 7);
	assert_int_equal(rt_dcb_parse_dscp2prio("prio:3 dscp:26,\n", map), 1);
	assert_int_equal(map[25], -1);
	assert_int_equal(rt_dcb_parse_dscp2prio("prio:8 dscp:26,", map), -1);
	assert_int_equal(rt_dcb_parse_dscp2prio("prio:3 dscp:64,", map), -1);
	assert_int_equal(rt_dcb_parse_dscp2prio("prio:3 dscp:26,\nprio:4 dscp:26,", map), -1);
	assert_int_equal(rt_dcb_parse_dscp2prio("prio:3 dscp:", map), -1);
	assert_int_equal(rt_dcb_parse_dscp2prio("prio:3 dscp:2x", map), -1);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, make_tree, drop_tree)
	const struct CMUnitTest tests[] = {
		T(class_on_the_pfc_priority_passes),
		T(class_off_the_pfc_priority_warns),
		T(nothing_exposed_is_said_not_failed),
		T(only_used_roce_netdevs_once),
		T(pfc_off_everywhere_is_lossy_not_wrong),
		T(trust_pcp_is_not_judged_by_dscp),
		T(a_file_not_understood_warns),
		T(pfc_without_a_map_warns),
		cmocka_unit_test(parsers_refuse_what_is_not_theirs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
