/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's expected state (diag_expect.c) on a fake sysfs tree: the facts
 * it saves (PCIe link, firmware, driver, each used port), a save then an
 * --expect of the same host passing, a rate or PCIe width that differs
 * failing with expected and found, a port the file does not name not
 * judged, a key doctor does not know refused with its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "doctor/diag.h"
#include "doctor/diag_expect.h"
#include "fake_host.h"
#include "rdmatest/util.h"

static char root[64], sys_[96], proc_[96];
static struct rt_diag_env env;
static struct rt_diag *d;
static struct rt_diag_expect have, want;

static void put_port(const char *dev, const char *what, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/%s", dev, what);
	fake_put(root, rel, text);
}

static void put_dev(const char *dev, const char *what, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/%s", dev, what);
	fake_put(root, rel, text);
}

/* mlx5_0 and mlx5_1: 400G RoCE ports on x16 PCIe; mlx5_1 with its RoCE
 * v2 GID for 192.0.2.2. mlx5_2: DOWN, no address (unused). */
static void host(void)
{
	char path[256], dev[16];

	fake_put(root, "proc/sys/kernel/osrelease", "6.1.0-28-amd64");
	for (int i = 0; i < 3; i++) {
		snprintf(dev, sizeof(dev), "mlx5_%d", i);
		put_dev(dev, "fw_ver", "28.39.1002");
		put_dev(dev, "device/current_link_speed", "16.0 GT/s PCIe");
		put_dev(dev, "device/current_link_width", "16");
		put_port(dev, "state", i < 2 ? "4: ACTIVE" : "1: DOWN");
		put_port(dev, "phys_state", i < 2 ? "5: LinkUp" : "3: Disabled");
		put_port(dev, "link_layer", "Ethernet");
		put_port(dev, "rate", "400 Gb/sec (4X NDR)");
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/device/driver", root, dev);
		assert_int_equal(symlink("../../../bus/pci/drivers/mlx5_core", path), 0);
	}
	put_port("mlx5_1", "gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:0001");
	put_port("mlx5_1", "gid_attrs/types/0", "RoCE v2");
	put_port("mlx5_1", "gids/1", "0000:0000:0000:0000:0000:ffff:c000:0202");
	put_port("mlx5_1", "gid_attrs/types/1", "IB/RoCE v1");
	put_port("mlx5_1", "gids/2", "0000:0000:0000:0000:0000:ffff:c000:0202");
	put_port("mlx5_1", "gid_attrs/types/2", "RoCE v2");
}

static int make_tree(void **state)
{
	(void)state;
	fake_root(root, sizeof(root), "test_diag_expect");
	snprintf(sys_, sizeof(sys_), "%s/sys", root);
	snprintf(proc_, sizeof(proc_), "%s/proc", root);
	env = (struct rt_diag_env){ sys_, proc_, sys_, NULL };
	d = calloc(1, sizeof(*d));
	rt_diag_expect_init(&have);
	rt_diag_expect_init(&want);
	host();
	return 0;
}

static int drop_tree(void **state)
{
	(void)state;
	rt_diag_expect_free(&have);
	rt_diag_expect_free(&want);
	free(d);
	fake_remove(root);
	return 0;
}

/* The ports as the checks leave them: read, judged, unused marked. */
static void checks(void)
{
	d->n = d->nports = 0;
	rt_diag_devices(&env, d);
	rt_diag_ports(d);
	d->n = 0;
}

static void test_facts(void **state)
{
	(void)state;
	checks();
	rt_diag_expect_facts(&env, d, "50.0", false, &have);
	assert_string_equal(rt_diag_expect_get(&have, "kernel"), "6.1.0-28-amd64");
	assert_string_equal(rt_diag_expect_get(&have, "rdma_core"), "50.0");
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_0.fw_ver"), "28.39.1002");
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_0.driver"), "mlx5_core");
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_0.pcie_speed"), "16.0 GT/s PCIe");
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_0.pcie_width"), "16");
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_0/1.state"), "ACTIVE");
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_0/1.rate_gbps"), "400");
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_0/1.width"), "4X");
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_0/1.link_layer"), "Ethernet");
	/* no verbs here: no active MTU; no GID with an address: no type */
	assert_null(rt_diag_expect_get(&have, "mlx5_0/1.active_mtu"));
	assert_null(rt_diag_expect_get(&have, "mlx5_0/1.gid_type"));
	assert_string_equal(rt_diag_expect_get(&have, "mlx5_1/1.gid_type"), "RoCE v2");
	/* the unused port is not saved, so not required */
	assert_true(d->ports[2].unused);
	assert_null(rt_diag_expect_get(&have, "mlx5_2/1.state"));
	assert_null(rt_diag_expect_get(&have, "mlx5_2.fw_ver"));
	assert_int_equal(rt_diag_expect_known(&have, &(unsigned){ 0 }, (char[8]){ 0 }, 8), 0);
}

/* Saved, loaded and checked on the same host: nothing differs. */
static void test_save_then_expect(void **state)
{
	char path[128], why[128];
	unsigned line;

	(void)state;
	checks();
	rt_diag_expect_facts(&env, d, "50.0", false, &have);
	snprintf(path, sizeof(path), "%s/expect", root);
	assert_int_equal(rt_diag_expect_save(&have, path, "test"), 0);
	assert_int_equal(rt_diag_expect_load(&want, path, &line, why, sizeof(why)), 0);
	assert_int_equal(rt_diag_expect_known(&want, &line, why, sizeof(why)), 0);
	assert_int_equal(want.n, have.n);
	rt_diag_expect_check(&env, d, "50.0", &want, "expect");
	assert_int_equal(d->n, 1);
	assert_int_equal(d->lines[0].level, RT_DIAG_PASS);
	assert_int_equal(rt_diag_exit(d), 0);
}

/* The host drifted: a port trained at 200G, a NIC in a x8 slot, another
 * rdma-core; each a FAIL with found and expected. */
static void test_drift_fails(void **state)
{
	(void)state;
	checks();
	rt_diag_expect_facts(&env, d, "50.0", false, &want);
	put_port("mlx5_0", "rate", "200 Gb/sec (4X HDR)");
	put_dev("mlx5_1", "device/current_link_width", "8");
	checks();
	rt_diag_expect_check(&env, d, "51.0", &want, "expect");
	assert_int_equal(d->n, 3);
	assert_string_equal(d->lines[0].evidence, "rdma-core 51.0, expected 50.0");
	assert_string_equal(d->lines[1].evidence, "mlx5_0 port 1: rate 200 Gb/s, expected 400");
	assert_string_equal(d->lines[2].evidence, "mlx5_1: PCIe lanes 8, expected 16");
	assert_int_equal(d->lines[1].level, RT_DIAG_FAIL);
	assert_non_null(strstr(d->lines[1].fix, "--save-expect expect"));
	assert_int_equal(rt_diag_exit(d), 1);
}

/* Only what the file names is judged: a port it leaves out may be down;
 * one it names and that is gone fails as not found. */
static void test_only_named_ports(void **state)
{
	char why[128];
	unsigned line;
	const char *text = "mlx5_1/1.rate_gbps 400.0\nmlx5_7/1.state ACTIVE\n";

	(void)state;
	put_port("mlx5_0", "state", "1: DOWN");
	checks();
	assert_int_equal(rt_diag_expect_parse(&want, text, strlen(text), &line, why,
					      sizeof(why)), 0);
	rt_diag_expect_check(&env, d, NULL, &want, "expect");
	assert_int_equal(d->n, 1);
	assert_string_equal(d->lines[0].evidence, "mlx5_7 port 1: state not found, "
			    "expected ACTIVE");
}

/* A DOWN port without an address that the file names is not unused:
 * the ports check fails it as it would any port in use. */
static void test_named_port_is_not_unused(void **state)
{
	char why[128];
	unsigned line;
	const char *text = "mlx5_2/1.state ACTIVE\n";

	(void)state;
	assert_int_equal(rt_diag_expect_parse(&want, text, strlen(text), &line, why,
					      sizeof(why)), 0);
	assert_true(rt_diag_expect_names_port(&want, "mlx5_2", 1));
	assert_false(rt_diag_expect_names_port(&want, "mlx5_2", 11));
	d->expect = &want;
	rt_diag_devices(&env, d);
	d->n = 0;
	rt_diag_ports(d);
	assert_false(d->ports[2].unused);
	assert_int_equal(d->lines[2].level, RT_DIAG_FAIL);
}

static void test_unknown_key(void **state)
{
	static const char *const bad[] = {
		"kernel 6.1\nmlx5_0/1.speed 400\n", "kernel 6.1\nmlx5_0.state ACTIVE\n",
		"kernel 6.1\nmlx5_0/x.state ACTIVE\n", "kernel 6.1\nfw_ver 1\n",
	};
	char why[160];
	unsigned line;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		want.n = 0;
		assert_int_equal(rt_diag_expect_parse(&want, bad[i], strlen(bad[i]), &line, why,
						      sizeof(why)), 0);
		assert_int_equal(rt_diag_expect_known(&want, &line, why, sizeof(why)), -1);
		assert_int_equal(line, 2);
		assert_non_null(strstr(why, "not a key doctor knows"));
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_tree, drop_tree)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_facts), T(test_save_then_expect), T(test_drift_fails),
		T(test_only_named_ports), T(test_named_port_is_not_unused), T(test_unknown_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
