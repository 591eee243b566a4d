/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's device and port listing on fake sysfs trees with many ports:
 * natural order (mlx5_2 before mlx5_10), far more than 16 ports, an
 * IPoIB port's netdev, and a DOWN port without an address reported as
 * unused instead of failing the host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "doctor/diag.h"
#include "fake_host.h"
#include "rdmatest/util.h"

static char root[64], sys_[96];
static struct rt_diag_env env;
static struct rt_diag *d;

static int make_tree(void **state)
{
	(void)state;
	fake_root(root, sizeof(root), "test_diag_ports");
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

static void port_file(const char *dev, unsigned port, const char *what, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/%u/%s", dev, port, what);
	fake_put(root, rel, text);
}

/* A RoCE port on netdev `ndev`, ACTIVE or DOWN. */
static void roce_port(const char *dev, unsigned port, const char *ndev, bool active)
{
	char rel[128];

	port_file(dev, port, "state", active ? "4: ACTIVE" : "1: DOWN");
	port_file(dev, port, "phys_state", active ? "5: LinkUp" : "3: Disabled");
	port_file(dev, port, "link_layer", "Ethernet");
	port_file(dev, port, "rate", "400 Gb/sec (4X NDR)");
	port_file(dev, port, "gid_attrs/ndevs/0", ndev);
	snprintf(rel, sizeof(rel), "sys/class/net/%s/mtu", ndev);
	fake_put(root, rel, "9000");
	snprintf(rel, sizeof(rel), "sys/class/net/%s/operstate", ndev);
	fake_put(root, rel, active ? "up" : "down");
}

static void add_addr(const char *ifname, const char *ip)
{
	fake_addr(d, ifname, ip);
}

static int count(const char *check, enum rt_diag_level level)
{
	int n = 0;

	for (int i = 0; i < d->n; i++)
		n += !strcmp(d->lines[i].check, check) && d->lines[i].level == level;
	return n;
}

/* Eight single-port devices created out of order: listed as a person
 * counts them, not as glob sorts them (mlx5_10 before mlx5_2). */
static void test_eight_ports_natural_order(void **state)
{
	static const int order[] = { 0, 1, 2, 3, 8, 9, 10, 11 };
	char dev[16], ndev[16];

	(void)state;
	for (int i = 7; i >= 0; i--) {
		snprintf(dev, sizeof(dev), "mlx5_%d", order[i]);
		snprintf(ndev, sizeof(ndev), "eth%d", order[i]);
		roce_port(dev, 1, ndev, true);
	}
	rt_diag_devices(&env, d);
	assert_int_equal(d->nports, 8);
	for (int i = 0; i < 8; i++) {
		snprintf(dev, sizeof(dev), "mlx5_%d", order[i]);
		assert_string_equal(d->ports[i].dev, dev);
	}
	assert_non_null(strstr(d->lines[0].evidence, "8: mlx5_0, mlx5_1, mlx5_2, mlx5_3, "
						 "mlx5_8, mlx5_9, mlx5_10, mlx5_11"));
	rt_diag_ports(d);
	assert_int_equal(count("ports", RT_DIAG_PASS), 8);
	assert_int_equal(rt_diag_exit(d), 0);
}

/* A switch-like device with 40 ports: all read (not 16), port 9 before
 * port 10, and none dropped. */
static void test_many_ports(void **state)
{
	char ndev[16];

	(void)state;
	for (unsigned p = 1; p <= 40; p++) {
		snprintf(ndev, sizeof(ndev), "sw%u", p);
		roce_port("mlx5_0", p, ndev, true);
	}
	rt_diag_devices(&env, d);
	assert_int_equal(d->nports, 40);
	assert_int_equal(d->dropped, 0);
	for (int i = 0; i < 40; i++)
		assert_int_equal(d->ports[i].port, (unsigned)i + 1);
}

/* The uncabled second port of a healthy host: DOWN, no address on its
 * netdev. One PASS line says it is unused; the GID check leaves it out. */
static void test_down_unused_port_passes(void **state)
{
	(void)state;
	roce_port("mlx5_0", 1, "eth0", true);
	roce_port("mlx5_1", 1, "eth1", false);
	port_file("mlx5_0", 1, "gids/3", "0000:0000:0000:0000:0000:ffff:c000:0201");
	port_file("mlx5_0", 1, "gid_attrs/types/3", "RoCE v2");
	port_file("mlx5_0", 1, "gid_attrs/ndevs/3", "eth0");
	add_addr("eth0", "192.0.2.1");
	rt_diag_devices(&env, d);
	rt_diag_ports(d);
	assert_true(d->ports[1].unused);
	assert_false(d->ports[0].unused);
	assert_int_equal(count("ports", RT_DIAG_FAIL), 0);
	assert_non_null(strstr(d->lines[d->n - 1].evidence, "mlx5_1 port 1: unused: 1: DOWN "
							   "(phys 3: Disabled), Ethernet, netdev eth1 down"));
	d->n = 0;
	rt_diag_gids(&env, d);
	assert_int_equal(d->n, 1); /* mlx5_0's alone */
	assert_non_null(strstr(d->lines[0].evidence, "mlx5_0 port 1: use GID index 3"));
	assert_int_equal(rt_diag_exit(d), 0);
	/* given an address, the same port is meant to be used: it fails */
	d->n = 0;
	add_addr("eth1", "192.0.2.9");
	rt_diag_ports(d);
	assert_false(d->ports[1].unused);
	assert_int_equal(count("ports", RT_DIAG_FAIL), 1);
	assert_int_equal(rt_diag_exit(d), 1);
}

/* An InfiniBand port's netdev is its IPoIB one, found beside the device
 * by dev_port: with an address there, a DOWN port fails. */
static void test_ipoib_netdev(void **state)
{
	(void)state;
	port_file("mlx5_0", 1, "state", "1: DOWN");
	port_file("mlx5_0", 1, "phys_state", "2: Polling");
	port_file("mlx5_0", 1, "link_layer", "InfiniBand");
	fake_put(root, "sys/class/infiniband/mlx5_0/device/net/ib1/dev_port", "1");
	fake_put(root, "sys/class/infiniband/mlx5_0/device/net/ib0/dev_port", "0");
	fake_put(root, "sys/class/net/ib0/operstate", "down");
	rt_diag_devices(&env, d);
	assert_string_equal(d->ports[0].ndev, "ib0");
	rt_diag_ports(d);
	assert_true(d->ports[0].unused);
	d->n = 0;
	add_addr("ib0", "10.0.0.1");
	rt_diag_ports(d);
	assert_int_equal(count("ports", RT_DIAG_FAIL), 1);
	assert_non_null(strstr(d->lines[0].fix, "ip link set ib0 up"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_tree, drop_tree)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_eight_ports_natural_order), T(test_many_ports),
		T(test_down_unused_port_passes), T(test_ipoib_netdev),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
