/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A host's rails from a fake sysfs tree (doctor's facts): which ports are
 * rails, their order and numbers, each rail's fields, and --rails /
 * --devices choosing among them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "../doctor/fake_host.h"

#include "mesh/meshinv.h"
#include "mesh/meshrails.h"
#include "rdmatest/util.h"

static char root[64], sys_[96];
static struct rt_diag_env env;
static struct rt_diag *d;

/* doctor's fake host (test/unit/doctor/fake_host.h) writes the files */
static void put(const char *rel, const char *text)
{
	fake_put(root, rel, text);
}

static void port_file(const char *dev, unsigned port, const char *what, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/%u/%s", dev, port, what);
	put(rel, text);
}

/* A RoCE port on ndev whose GID 1 is the RoCE v2 GID of ip (NULL: none). */
static void roce(const char *dev, unsigned port, const char *state, const char *rate,
		 const char *ndev, const char *ip)
{
	char gid[64] = "0000:0000:0000:0000:0000:0000:0000:0000";

	port_file(dev, port, "state", state);
	port_file(dev, port, "phys_state", "5: LinkUp");
	port_file(dev, port, "link_layer", "Ethernet");
	port_file(dev, port, "rate", rate);
	if (ip) {
		struct in_addr a;

		assert_int_equal(inet_pton(AF_INET, ip, &a), 1);
		snprintf(gid, sizeof(gid), "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x",
			 ((uint8_t *)&a)[0], ((uint8_t *)&a)[1], ((uint8_t *)&a)[2],
			 ((uint8_t *)&a)[3]);
	}
	port_file(dev, port, "gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:0001");
	port_file(dev, port, "gid_attrs/types/0", "IB/RoCE v1");
	port_file(dev, port, "gid_attrs/ndevs/0", ndev);
	port_file(dev, port, "gids/1", gid);
	port_file(dev, port, "gid_attrs/types/1", "RoCE v2");
	port_file(dev, port, "gid_attrs/ndevs/1", ndev);
}

static void addr(const char *ifname, const char *ip)
{
	struct sockaddr_in *sa = (struct sockaddr_in *)&d->addrs[d->naddrs].sa;

	rt_strlcpy(d->addrs[d->naddrs].ifname, ifname, sizeof(d->addrs[0].ifname));
	sa->sin_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, ip, &sa->sin_addr), 1);
	d->naddrs++;
}

/* A host of the shape the lab's two-rail hosts have, and more: rxe0 on
 * eth0 (192.0.2.1), rxe1 on rail1 (203.0.113.1, DOWN), mlx5_10 on ens10
 * (10.0.10.1, 4X HDR), mlx5_2 on ens2 (no address: a rail that is named
 * and keeps its place, untested). */
static int make_tree(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_meshrails.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(sys_, sizeof(sys_), "%s/sys", root);
	env = (struct rt_diag_env){ sys_, NULL, NULL, NULL };
	roce("rxe1", 1, "1: DOWN", "10 Gb/sec (1X QDR)", "rail1", "203.0.113.1");
	roce("rxe0", 1, "4: ACTIVE", "100 Gb/sec (4X EDR)", "eth0", "192.0.2.1");
	roce("mlx5_10", 1, "4: ACTIVE", "200 Gb/sec (4X HDR)", "ens10", "10.0.10.1");
	roce("mlx5_2", 1, "4: ACTIVE", "200 Gb/sec (4X HDR)", "ens2", NULL);
	d = rt_xcalloc(1, sizeof(*d));
	rt_diag_devices(&env, d);
	for (int i = 0; i < d->nports; i++)
		d->ports[i].active_mtu = 4096;
	addr("eth0", "192.0.2.1");
	addr("rail1", "203.0.113.1");
	addr("ens10", "10.0.10.1");
	addr("mgmt0", "198.51.100.1");
	return 0;
}

static int drop_tree(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	free(d);
	return 0;
}

/* Each rail's device inventory and the host's are doctor's facts
 * (DEV.fw_ver, .driver, .pcie_speed, .pcie_width, kernel, rdma_core); a
 * device that does not say leaves "" (unknown), and text the wire would
 * refuse is not sent. */
static void inventory_from_doctors_facts(void **state)
{
	struct rt_mesh_rail r[RT_MESH_RAILS_MAX];
	struct rt_mesh_inv inv;
	char proc[96], drv[160], lnk[192];
	unsigned n;

	(void)state;
	snprintf(proc, sizeof(proc), "%s/proc", root);
	env.proc = proc;
	put("proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
	put("sys/class/infiniband/mlx5_10/fw_ver", "28.39.1002\n");
	put("sys/class/infiniband/mlx5_10/device/current_link_speed", "32.0 GT/s PCIe\n");
	put("sys/class/infiniband/mlx5_10/device/current_link_width", "16\n");
	put("sys/bus/pci/drivers/mlx5_core/.keep", "");
	snprintf(drv, sizeof(drv), "%s/sys/bus/pci/drivers/mlx5_core", root);
	snprintf(lnk, sizeof(lnk), "%s/sys/class/infiniband/mlx5_10/device/driver", root);
	assert_int_equal(symlink(drv, lnk), 0);
	put("sys/class/infiniband/rxe0/fw_ver", "1.\x01\n"); /* not text: not sent */
	n = rt_mesh_rails_find(&env, d, r);
	rt_mesh_inv_fill(&env, d, "50.0", &inv, r, n);
	assert_string_equal(inv.kernel, "6.8.0-45-generic");
	assert_string_equal(inv.rdma_core, "50.0");
	assert_string_equal(r[1].dev, "mlx5_10");
	assert_string_equal(r[1].fw, "28.39.1002");
	assert_string_equal(r[1].driver, "mlx5_core");
	assert_string_equal(r[1].pcie_speed, "32.0 GT/s PCIe");
	assert_string_equal(r[1].pcie_width, "16");
	assert_string_equal(r[0].fw, "");
	assert_string_equal(r[0].driver, "");
	assert_string_equal(r[2].fw, "");
	rt_mesh_inv_fill(&env, d, NULL, &inv, r, n);
	assert_string_equal(inv.rdma_core, "");
	env.proc = NULL;
}

/* mesh --expect FILE: doctor's file read first (a bad one is exit 2
 * naming the line), then this host checked as doctor checks it. */
static void expect_checked_here(void **state)
{
	struct rt_mesh_rail r[RT_MESH_RAILS_MAX];
	struct rt_mesh_inv inv = {0};
	struct rt_error err = {0};
	char proc[96], file[128];
	unsigned n = 0;
	FILE *f;

	(void)state;
	snprintf(proc, sizeof(proc), "%s/proc", root);
	env.proc = proc;
	put("proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
	snprintf(file, sizeof(file), "%s/expect", root);
	f = fopen(file, "w");
	assert_non_null(f);
	for (int i = 0; i < d->nports; i++) /* what doctor's port check reads */
		if (!strcmp(d->ports[i].dev, "rxe0"))
			d->ports[i].rate_gbps = 100;
	fputs("# doctor --save-expect\nrxe0/1.rate_gbps 400\nrxe0/1.state ACTIVE\n"
	      "kernel 6.8.0-47-generic\n", f);
	fclose(f);
	assert_int_equal(rt_mesh_inv_local(&env, d, file, &inv, r, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(inv.expect, 1);
	assert_int_equal(inv.expect_diffs, 2);
	assert_string_equal(inv.expect_first, "rxe0 port 1: rate 100 Gb/s, expected 400");
	/* as expected: checked, nothing differs */
	f = fopen(file, "w");
	fputs("rxe0/1.rate_gbps 100\nmlx5_9/1.rate_gbps 400\n", f);
	fclose(f);
	inv = (struct rt_mesh_inv){0};
	assert_int_equal(rt_mesh_inv_local(&env, d, file, &inv, r, &n, &err), 0);
	assert_int_equal(inv.expect, 1);
	assert_int_equal(inv.expect_diffs, 1); /* a port the file names that is not here */
	assert_string_equal(inv.expect_first, "mlx5_9 port 1: rate not found, expected 400 Gb/s");
	f = fopen(file, "w");
	fputs("rxe0/1.rate_gbps 100\n", f);
	fclose(f);
	inv = (struct rt_mesh_inv){0};
	assert_int_equal(rt_mesh_inv_local(&env, d, file, &inv, r, &n, &err), 0);
	assert_int_equal(inv.expect_diffs, 0);
	/* without --expect: not checked */
	inv = (struct rt_mesh_inv){0};
	assert_int_equal(rt_mesh_inv_local(&env, d, NULL, &inv, r, &n, &err), 0);
	assert_int_equal(inv.expect, 0);
	/* a key doctor does not know, a file that is not there: exit 2 */
	f = fopen(file, "w");
	fputs("rxe0/1.rate_gbps 100\nrxe0.colour blue\n", f);
	fclose(f);
	assert_int_equal(rt_mesh_inv_local(&env, d, file, &inv, r, &n, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, ": line 2: rxe0.colour: not a key doctor knows"));
	assert_non_null(strstr(err.reason, "--expect /tmp/test_meshrails."));
	err = (struct rt_error){0};
	snprintf(file, sizeof(file), "%s/none", root);
	assert_int_equal(rt_mesh_inv_local(&env, d, file, &inv, r, &n, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	env.proc = NULL;
}

static void find_rails(void **state)
{
	struct rt_mesh_rail r[RT_MESH_RAILS_MAX];
	unsigned n;

	(void)state;
	n = rt_mesh_rails_find(&env, d, r);
	assert_int_equal(n, 4);
	/* (device, port) order, digits as numbers, every port a rail */
	assert_string_equal(r[0].dev, "mlx5_2");
	assert_string_equal(r[1].dev, "mlx5_10");
	assert_string_equal(r[2].dev, "rxe0");
	assert_string_equal(r[3].dev, "rxe1");
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(r[i].rail, i);
		assert_int_equal(r[i].port, 1);
		assert_int_equal(r[i].link, RT_RAIL_ETHERNET);
		assert_int_equal(r[i].gid_index, i ? 1 : 0);
		assert_int_equal(r[i].mtu, 4096);
	}
	/* no address: listed, ACTIVE, its place kept, not tested */
	assert_string_equal(r[0].addr, "");
	assert_int_equal(r[0].state, RT_RAIL_ACTIVE);
	assert_int_equal(r[0].speed_mbps, 200000);
	assert_string_equal(r[1].addr, "10.0.10.1");
	assert_int_equal(r[1].state, RT_RAIL_ACTIVE);
	assert_int_equal(r[1].lanes, 4);
	assert_int_equal(r[1].speed_mbps, 200000);
	assert_true(r[1].payload_mbps > 180000 && r[1].payload_mbps < 200000);
	assert_string_equal(r[2].addr, "192.0.2.1");
	assert_int_equal(r[2].speed_mbps, 100000);
	/* a DOWN port is still a rail, so that it can be named */
	assert_string_equal(r[3].addr, "203.0.113.1");
	assert_int_equal(r[3].state, RT_RAIL_DOWN);
	assert_string_equal(rt_rail_state_name(r[3].state), "DOWN");
	assert_int_equal(r[3].lanes, 1);
	assert_int_equal(rt_mesh_rail_of_addr(r, n, "203.0.113.1"), 3);
	assert_int_equal(rt_mesh_rail_of_addr(r, n, "198.51.100.1"), -1);
}

/* The port that loses its address keeps its rail number and moves no
 * other: rxe0's address gone, rxe1 is still rail 3. No address on any
 * port (InfiniBand without IPoIB): every port still a rail, each without
 * an address (tested over verbs alone). */
static void lost_address_keeps_the_numbers(void **state)
{
	struct rt_mesh_rail r[RT_MESH_RAILS_MAX];

	(void)state;
	d->addrs[0] = d->addrs[--d->naddrs]; /* eth0's 192.0.2.1 gone */
	assert_int_equal(rt_mesh_rails_find(&env, d, r), 4);
	assert_string_equal(r[2].dev, "rxe0");
	assert_string_equal(r[2].addr, "");
	assert_string_equal(r[3].dev, "rxe1");
	assert_int_equal(r[3].rail, 3);
	assert_string_equal(r[3].addr, "203.0.113.1");
	d->naddrs = 0;
	assert_int_equal(rt_mesh_rails_find(&env, d, r), 4);
	for (unsigned i = 0; i < 4; i++)
		assert_string_equal(r[i].addr, "");
	assert_string_equal(r[3].dev, "rxe1");
}

/* Eight 400G rails on mlx5_0 .. mlx5_7 and a storage NIC, mlx5_8, whose
 * port lost its address: rails in natural order (mlx5_8 before mlx5_10),
 * rail 8 unaddressed. */
static void eight_rails_and_one_more(void **state)
{
	struct rt_mesh_rail r[RT_MESH_RAILS_MAX];
	char dev[16], ndev[16], ip[32];

	(void)state;
	for (unsigned i = 0; i < 9; i++) {
		snprintf(dev, sizeof(dev), "mlx5_%u", i);
		snprintf(ndev, sizeof(ndev), "ens%u", i);
		snprintf(ip, sizeof(ip), "10.1.%u.1", i);
		roce(dev, 1, "4: ACTIVE", "400 Gb/sec (4X NDR)", ndev, i < 8 ? ip : NULL);
	}
	free(d);
	d = rt_xcalloc(1, sizeof(*d));
	rt_diag_devices(&env, d);
	for (unsigned i = 0; i < 8; i++) {
		snprintf(ndev, sizeof(ndev), "ens%u", i);
		snprintf(ip, sizeof(ip), "10.1.%u.1", i);
		addr(ndev, ip);
	}
	/* these nine (mlx5_2 rewritten) and the tree's mlx5_10, rxe0 and rxe1
	 * (their addresses gone with the old facts), in natural order */
	assert_int_equal(rt_mesh_rails_find(&env, d, r), 12);
	for (unsigned i = 0; i < 11; i++) {
		static const char *const want[] = { "mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3",
						    "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7",
						    "mlx5_8", "mlx5_10", "rxe0" };

		assert_string_equal(r[i].dev, want[i]);
		assert_int_equal(r[i].rail, i);
	}
	assert_string_equal(r[7].addr, "10.1.7.1");
	assert_int_equal(r[7].speed_mbps, 400000);
	assert_string_equal(r[8].addr, "");
	assert_string_equal(r[2].addr, "10.1.2.1"); /* mlx5_2 has one now */
}

static unsigned choose(const char *list, const char *devices, int want_rc,
		       struct rt_mesh_rail *r, struct rt_error *err)
{
	unsigned n = rt_mesh_rails_find(&env, d, r);

	memset(err, 0, sizeof(*err));
	assert_int_equal(rt_mesh_rails_choose(r, &n, list, devices, err) ? err->exit_code : 0,
			 want_rc);
	return n;
}

static void choose_rails(void **state)
{
	struct rt_mesh_rail r[RT_MESH_RAILS_MAX];
	struct rt_error err;

	(void)state;
	assert_int_equal(choose(NULL, NULL, 0, r, &err), 4);
	assert_int_equal(choose("all", NULL, 0, r, &err), 4);
	assert_int_equal(choose("1,3", NULL, 0, r, &err), 2);
	assert_string_equal(r[1].dev, "rxe1");
	assert_int_equal(r[1].rail, 3); /* numbers stay */
	assert_int_equal(choose("2", NULL, 0, r, &err), 1);
	assert_string_equal(r[0].dev, "rxe0");
	assert_int_equal(choose(NULL, "rxe1", 0, r, &err), 1);
	assert_int_equal(r[0].rail, 3);
	assert_int_equal(choose(NULL, "rxe0:1,mlx5_10", 0, r, &err), 2);
	/* usage: not a list, both options, a bad port */
	for (const char *const *bad = (const char *const[]){ "", "x", "1,", ",1", "32", "-1",
							     "1;2", NULL }; *bad; bad++)
		choose(*bad, NULL, 2, r, &err);
	assert_non_null(strstr(err.reason, "--rails"));
	choose("0", "rxe0", 2, r, &err);
	for (const char *const *bad = (const char *const[]){ "", "rxe0:", "rxe0:0", ":1",
							     "rxe0:1x", "rxe0,", NULL }; *bad; bad++)
		choose(NULL, *bad, 2, r, &err);
	/* a rail or device this host lacks: its environment, named */
	choose("4", NULL, 3, r, &err);
	assert_non_null(strstr(err.reason, "0 (mlx5_2 port 1, no IP address), 1 (mlx5_10 port 1), "
			       "2 (rxe0 port 1), 3 (rxe1 port 1)"));
	choose(NULL, "rxe0:2", 3, r, &err);
	/* one without an address is chosen as any other (tested over verbs) */
	assert_int_equal(choose(NULL, "mlx5_2", 0, r, &err), 1);
	assert_int_equal(r[0].rail, 0);
	assert_int_equal(choose("0,1", NULL, 0, r, &err), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(find_rails, make_tree, drop_tree),
		cmocka_unit_test_setup_teardown(lost_address_keeps_the_numbers, make_tree, drop_tree),
		cmocka_unit_test_setup_teardown(eight_rails_and_one_more, make_tree, drop_tree),
		cmocka_unit_test_setup_teardown(choose_rails, make_tree, drop_tree),
		cmocka_unit_test_setup_teardown(inventory_from_doctors_facts, make_tree, drop_tree),
		cmocka_unit_test_setup_teardown(expect_checked_here, make_tree, drop_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
