/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's checks on a fake sysfs/proc/dev tree: each finding's level,
 * evidence and fix; the GID index it recommends is vconn's choice; the
 * peer facts line and the MTU verdicts; the text and JSON report; and
 * the hint another applet's error gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <cmocka.h>

#include "doctor/diag.h"
#include "doctor/diag_peer.h"
#include "doctor/diag_report.h"
#include "fake_host.h"
#include "rdmatest/json.h"
#include "rdmatest/util.h"

static char root[64], sys_[96], proc_[96], dev_[96];
static struct rt_diag_env env;
static struct rt_diag *d;

static void put(const char *rel, const char *text)
{
	fake_put(root, rel, text);
}

static void port_file(const char *what, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/rxe0/ports/1/%s", what);
	put(rel, text);
}

static void gid(int i, const char *g, const char *type, const char *ndev)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "gids/%d", i);
	port_file(rel, g);
	snprintf(rel, sizeof(rel), "gid_attrs/types/%d", i);
	port_file(rel, type);
	snprintf(rel, sizeof(rel), "gid_attrs/ndevs/%d", i);
	port_file(rel, ndev);
}

/* A healthy Soft-RoCE host: rxe0 on eth0 (192.0.2.1), eth1 without RDMA. */
static int make_tree(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_diag.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(sys_, sizeof(sys_), "%s/sys", root);
	snprintf(proc_, sizeof(proc_), "%s/proc", root);
	snprintf(dev_, sizeof(dev_), "%s/dev", root);
	env = (struct rt_diag_env){ sys_, proc_, dev_, NULL };
	for (const char *const *m = (const char *const[]){ "ib_core", "ib_uverbs", "rdma_cm",
							   "rdma_ucm", NULL }; *m; m++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "sys/module/%s/refcnt", *m);
		put(rel, "1");
	}
	put("sys/module/ib_core/parameters/netns_mode", "Y");
	put("dev/infiniband/rdma_cm", "");
	put("dev/infiniband/uverbs0", "");
	port_file("state", "4: ACTIVE");
	port_file("phys_state", "5: LinkUp");
	port_file("link_layer", "Ethernet");
	port_file("rate", "2.5 Gb/sec (1X SDR)");
	gid(0, "fe80:0000:0000:0000:5054:00ff:fe12:0001", "IB/RoCE v1", "eth0");
	gid(1, "fe80:0000:0000:0000:5054:00ff:fe12:0001", "RoCE v2", "eth0");
	gid(2, "0000:0000:0000:0000:0000:ffff:c000:0201", "IB/RoCE v1", "eth0");
	gid(3, "0000:0000:0000:0000:0000:ffff:c000:0201", "RoCE v2", "eth0");
	port_file("gids/4", "0000:0000:0000:0000:0000:0000:0000:0000");
	put("sys/class/net/eth0/mtu", "1500");
	put("sys/class/net/eth0/operstate", "up");
	put("proc/self/status", "Name:\tx\nCapEff:\t0000000000000000\n");
	put("proc/self/uid_map", "         0          0 4294967295");
	d = rt_xcalloc(1, sizeof(*d));
	return 0;
}

static int drop_tree(void **state)
{
	char cmd[128];

	(void)state;
	free(d);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void add_addr(const char *ifname, const char *ip)
{
	fake_addr(d, ifname, ip);
}

/* The only line of `check` (the test fails if there is none). */
static const struct rt_diag_line *line(const char *check)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->lines[i].check, check))
			return &d->lines[i];
	fail_msg("no %s line", check);
	return NULL;
}

static void remove_tree(const char *rel)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/%s", root, rel);
	assert_int_equal(system(cmd), 0);
}

static void test_modules(void **state)
{
	(void)state;
	rt_diag_modules(&env, d);
	assert_int_equal(line("modules")->level, RT_DIAG_PASS);
	d->n = 0;
	remove_tree("sys/module/rdma_ucm");
	rt_diag_modules(&env, d);
	assert_int_equal(line("modules")->level, RT_DIAG_FAIL);
	assert_non_null(strstr(line("modules")->evidence, "missing: rdma_ucm"));
	assert_non_null(strstr(line("modules")->fix, "modprobe ib_uverbs rdma_ucm"));
}

/* A kernel with the RDMA modules built in (seen on a GPU cloud VM): only
 * ib_core, which has parameters, is in /sys/module; the others are read
 * from the classes and the misc device they registered. */
static void test_modules_built_in(void **state)
{
	(void)state;
	remove_tree("sys/module/ib_uverbs");
	remove_tree("sys/module/rdma_cm");
	remove_tree("sys/module/rdma_ucm");
	rt_diag_modules(&env, d);
	assert_int_equal(line("modules")->level, RT_DIAG_FAIL);
	d->n = 0;
	put("sys/class/infiniband_verbs/abi_version", "6");
	put("sys/class/misc/rdma_cm/dev", "10:258");
	rt_diag_modules(&env, d);
	assert_int_equal(line("modules")->level, RT_DIAG_PASS);
	assert_non_null(strstr(line("modules")->evidence,
			       "built in: ib_uverbs rdma_cm rdma_ucm"));
	/* without the misc device, rdma_ucm (and so rdma_cm) is missing */
	d->n = 0;
	remove_tree("sys/class/misc");
	rt_diag_modules(&env, d);
	assert_non_null(strstr(line("modules")->evidence, "missing: rdma_cm rdma_ucm"));
}

/* A cloud kernel: its module tree is there but holds no RDMA module, so
 * doctor says so instead of advising a modprobe that fails. */
static void test_kernel_without_rdma_modules(void **state)
{
	char modules[128];

	(void)state;
	snprintf(modules, sizeof(modules), "%s/lib/modules", root);
	env.modules = modules;
	put("proc/sys/kernel/osrelease", "6.1.0-28-cloud-amd64");
	put("lib/modules/6.1.0-28-cloud-amd64/modules.dep",
	    "kernel/drivers/net/virtio_net.ko: kernel/net/core/failover.ko\n"
	    "kernel/net/core/failover.ko:");
	put("lib/modules/6.1.0-28-cloud-amd64/modules.builtin", "kernel/fs/ext4/ext4.ko");
	remove_tree("sys/module/ib_core");
	remove_tree("sys/module/rdma_ucm");
	remove_tree("sys/class/infiniband"); /* no ib_core, no class */
	rt_diag_modules(&env, d);
	assert_int_equal(line("modules")->level, RT_DIAG_FAIL);
	assert_non_null(strstr(line("modules")->evidence, "this kernel has no RDMA modules: "));
	assert_non_null(strstr(line("modules")->evidence, "lists none of ib_core rdma_ucm"));
	assert_null(strstr(line("modules")->fix, "modprobe"));
	assert_non_null(strstr(line("modules")->fix, "linux-modules-extra"));
	/* one of them installed (compressed, as distributions ship them):
	 * modprobe does help */
	d->n = 0;
	put("lib/modules/6.1.0-28-cloud-amd64/modules.dep",
	    "kernel/drivers/infiniband/core/ib_core.ko.xz:");
	rt_diag_modules(&env, d);
	assert_non_null(strstr(line("modules")->fix, "modprobe ib_uverbs rdma_ucm"));
	/* no tree at all (a container): modprobe, as before */
	d->n = 0;
	remove_tree("lib/modules");
	rt_diag_modules(&env, d);
	assert_non_null(strstr(line("modules")->fix, "modprobe ib_uverbs rdma_ucm"));
	env.modules = NULL;
}

static void test_devices_and_nodes(void **state)
{
	(void)state;
	rt_diag_devices(&env, d);
	rt_diag_devnodes(&env, d);
	assert_int_equal(line("devices")->level, RT_DIAG_PASS);
	assert_string_equal(line("devices")->evidence, "1: rxe0");
	assert_int_equal(line("devnodes")->level, RT_DIAG_PASS);
	assert_int_equal(d->nports, 1);
	assert_string_equal(d->ports[0].ndev, "eth0");
	assert_int_equal(d->ports[0].ndev_mtu, 1500);
	assert_int_equal(rt_diag_exit(d), 0);
	/* a device but no uverbs node: nothing can open it */
	d->n = 0;
	remove_tree("dev/infiniband/uverbs0");
	rt_diag_devnodes(&env, d);
	assert_int_equal(line("devnodes")->level, RT_DIAG_FAIL);
	assert_int_equal(rt_diag_exit(d), 1);
}

static void test_no_device_is_exit_3(void **state)
{
	(void)state;
	remove_tree("sys/class/infiniband/rxe0");
	rt_diag_devices(&env, d);
	assert_true(d->no_rdma);
	assert_int_equal(line("devices")->level, RT_DIAG_FAIL);
	assert_non_null(strstr(line("devices")->fix, "rdma link add rxe0 type rxe netdev IFACE"));
	assert_int_equal(rt_diag_exit(d), 3);
}

static void test_port_down(void **state)
{
	(void)state;
	port_file("state", "1: DOWN");
	port_file("phys_state", "3: Disabled");
	put("sys/class/net/eth0/operstate", "down");
	rt_diag_devices(&env, d);
	add_addr("eth0", "192.0.2.1"); /* in use: without it the port is unused */
	rt_diag_ports(d);
	assert_int_equal(line("ports")->level, RT_DIAG_FAIL);
	assert_string_equal(line("ports")->fix, "bring the link up: ip link set eth0 up "
			    "(and check the cable or the peer port)");
	assert_non_null(strstr(line("ports")->evidence, "rxe0 port 1: 1: DOWN (phys 3: Disabled)"));
}

static void test_port_mtu(void **state)
{
	(void)state;
	rt_diag_devices(&env, d);
	d->ports[0].active_mtu = 1024;
	rt_diag_ports(d);
	assert_int_equal(line("ports")->level, RT_DIAG_PASS);
	assert_non_null(strstr(line("ports")->evidence, "active MTU 1024, netdev eth0 up MTU 1500"));
	/* 4096-byte packets do not fit a 1500-byte netdev */
	d->n = 0;
	d->ports[0].active_mtu = 4096;
	rt_diag_ports(d);
	assert_int_equal(line("ports")->level, RT_DIAG_FAIL);
	assert_non_null(strstr(line("ports")->fix, "ip link set eth0 mtu 4196"));
}

/* doctor's --json member holds `want`. */
static void json_has(const char *want)
{
	struct rt_json j;

	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_diag_json(&j, d);
	rt_json_object_end(&j);
	rt_json_finish(&j);
	if (!strstr(rt_json_text(&j), want))
		fail_msg("%s lacks %s", rt_json_text(&j), want);
	rt_json_free(&j);
}

/* The port line's rate: 400GbE RoCE v2 at MTU 4096 carries at most
 * 400 x 4096 / (4096 + 82) = 392 Gb/s of RDMA payload. */
static void test_port_rate(void **state)
{
	(void)state;
	port_file("rate", "400 Gb/sec (4X NDR)");
	put("sys/class/net/eth0/mtu", "9000");
	rt_diag_devices(&env, d);
	d->ports[0].active_mtu = d->ports[0].max_mtu = 4096;
	rt_diag_ports(d);
	assert_int_equal(line("ports")->level, RT_DIAG_PASS);
	assert_non_null(strstr(line("ports")->evidence, "Ethernet, rate 400 Gb/s (4X NDR), at "
			       "most 392 Gb/s RDMA payload at active MTU 4096, netdev eth0 up MTU 9000"));
	json_has("\"ports\":[{\"device\":\"rxe0\",\"port\":1,\"link_layer\":\"Ethernet\","
		 "\"active_mtu\":4096,\"rate_gbps\":400,\"payload_gbps\":392.149354");
	/* without verbs, the rate alone */
	d->n = 0;
	d->ports[0].active_mtu = d->ports[0].max_mtu = 0;
	rt_diag_ports(d);
	assert_non_null(strstr(line("ports")->evidence, "Ethernet, rate 400 Gb/s (4X NDR), netdev"));
	/* a rate file of another form is shown as it is */
	d->n = 0;
	d->ports[0].active_mtu = 4096;
	rt_strlcpy(d->ports[0].rate, "400 Gb/sec", sizeof(d->ports[0].rate));
	rt_diag_ports(d);
	assert_non_null(strstr(line("ports")->evidence, "Ethernet, 400 Gb/sec, active MTU 4096, "));
}

/* A port below the MTU it could use: a WARN naming the payload it costs
 * (370 Gb/s at 1024 against 392 at 4096); a netdev of 1500 bytes limits
 * RoCE to 1024, which is no fault of the port's. */
static void test_port_small_mtu(void **state)
{
	(void)state;
	port_file("rate", "400 Gb/sec (4X NDR)");
	put("sys/class/net/eth0/mtu", "9000");
	rt_diag_devices(&env, d);
	d->ports[0].active_mtu = 1024;
	d->ports[0].max_mtu = 4096;
	rt_diag_ports(d);
	assert_int_equal(line("ports")->level, RT_DIAG_WARN);
	assert_non_null(strstr(line("ports")->evidence, "rxe0 port 1: active MTU 1024 of the 4096 "
			       "it could use carries at most 370 Gb/s RDMA payload, not 392"));
	assert_non_null(strstr(line("ports")->fix, "ip link set eth0 mtu 9000"));
	d->n = 0;
	d->ports[0].ndev_mtu = 1500;
	rt_diag_ports(d);
	assert_int_equal(line("ports")->level, RT_DIAG_PASS);
	assert_non_null(strstr(line("ports")->evidence, "at most 370 Gb/s RDMA payload at active "
			       "MTU 1024"));
}

/* InfiniBand 4X HDR at 2048 of 4096: 200 x 2048 / 2074 = 197 against
 * 200 x 4096 / 4122 = 199 (26 bytes a packet). */
static void test_port_small_mtu_ib(void **state)
{
	(void)state;
	port_file("rate", "200 Gb/sec (4X HDR)");
	port_file("link_layer", "InfiniBand");
	rt_diag_devices(&env, d);
	d->ports[0].active_mtu = 2048;
	d->ports[0].max_mtu = 4096;
	rt_diag_ports(d);
	assert_int_equal(line("ports")->level, RT_DIAG_WARN);
	assert_non_null(strstr(line("ports")->evidence, "carries at most 197 Gb/s RDMA payload, "
			       "not 199"));
	assert_non_null(strstr(line("ports")->fix, "subnet manager"));
	d->n = 0;
	d->ports[0].active_mtu = 4096;
	rt_diag_ports(d);
	assert_int_equal(line("ports")->level, RT_DIAG_PASS);
	assert_non_null(strstr(line("ports")->evidence, "InfiniBand, rate 200 Gb/s (4X HDR), at "
			       "most 199 Gb/s RDMA payload at active MTU 4096"));
}

static void test_gid_and_address_map(void **state)
{
	int idx;

	(void)state;
	rt_diag_devices(&env, d);
	add_addr("eth0", "192.0.2.1");
	add_addr("eth1", "198.51.100.1");
	rt_diag_gids(&env, d);
	rt_diag_ipmap(&env, d);
	/* index 3, not 2 (RoCE v1 of the same address) nor 1 (link-local) */
	assert_int_equal(line("gids")->level, RT_DIAG_PASS);
	assert_non_null(strstr(line("gids")->evidence, "use GID index 3 (RoCE v2 of 192.0.2.1 on eth0"));
	assert_non_null(strstr(line("gids")->evidence, "perftest -x 3"));
	assert_non_null(strstr(line("gids")->evidence, "[2] 0000:0000:0000:0000:0000:ffff:c000:0201 IB/RoCE v1 eth0"));
	assert_null(strstr(line("gids")->evidence, "[4]")); /* unused entries left out */
	/* a management NIC is no fault: named, not warned about */
	assert_int_equal(line("ipmap")->level, RT_DIAG_PASS);
	assert_string_equal(line("ipmap")->evidence,
			    "carried by RDMA ports: 192.0.2.1 (eth0) on rxe0 port 1; not carried, "
			    "so not for RDMA tests: 198.51.100.1 (eth1)");
	assert_non_null(rt_diag_port_of(&env, d, (struct sockaddr *)&d->addrs[0].sa, &idx));
	assert_int_equal(idx, 3);
	assert_null(rt_diag_port_of(&env, d, (struct sockaddr *)&d->addrs[1].sa, &idx));
	assert_string_equal(rt_diag_ifname_of(d, (struct sockaddr *)&d->addrs[1].sa), "eth1");
}

static void test_no_ip_on_the_port(void **state)
{
	(void)state;
	rt_diag_devices(&env, d);
	add_addr("eth1", "198.51.100.1");
	rt_diag_gids(&env, d);
	rt_diag_ipmap(&env, d);
	assert_int_equal(line("gids")->level, RT_DIAG_FAIL);
	assert_non_null(strstr(line("gids")->fix, "give eth0 an IP address"));
	assert_int_equal(d->lines[d->n - 1].level, RT_DIAG_FAIL);
	assert_string_equal(d->lines[d->n - 1].check, "ipmap");
}

static void test_memlock(void **state)
{
	(void)state;
	rt_diag_memlock(d, 64 << 10, false);
	assert_int_equal(d->lines[0].level, RT_DIAG_FAIL);
	assert_non_null(strstr(d->lines[0].evidence, "64 KiB, below the 1024 KiB"));
	assert_non_null(strstr(d->lines[0].fix, "ulimit -l unlimited"));
	rt_diag_memlock(d, 64 << 10, true);
	assert_int_equal(d->lines[1].level, RT_DIAG_WARN);
	rt_diag_memlock(d, 8 << 20, false);
	assert_int_equal(d->lines[2].level, RT_DIAG_PASS);
	rt_diag_memlock(d, (unsigned long long)RLIM_INFINITY, false);
	assert_string_equal(d->lines[3].evidence, "unlimited");
}

static void test_ipc_lock(void **state)
{
	(void)state;
	assert_false(rt_diag_has_ipc_lock(&env));
	put("proc/self/status", "Name:\tx\nCapEff:\t000001ffffffffff\n");
	assert_true(rt_diag_has_ipc_lock(&env));
	/* a user namespace: the capability does not count */
	put("proc/self/uid_map", "         0       1000          1");
	assert_false(rt_diag_has_ipc_lock(&env));
}

static void test_netns(void **state)
{
	char a[160], b[160];

	(void)state;
	put("proc/1/x", "");
	snprintf(a, sizeof(a), "%s/self/ns", proc_);
	snprintf(b, sizeof(b), "%s/1/ns", proc_);
	mkdir(a, 0700);
	mkdir(b, 0700);
	strcat(a, "/net");
	strcat(b, "/net");
	assert_int_equal(symlink("net:[4026531840]", a), 0);
	assert_int_equal(symlink("net:[4026531840]", b), 0);
	rt_diag_netns(&env, d);
	assert_int_equal(d->lines[0].level, RT_DIAG_PASS);
	assert_non_null(strstr(d->lines[0].evidence, "rdma subsystem shared"));
	/* PID 1's namespace is not called the initial one: in a container it is not */
	assert_non_null(strstr(d->lines[0].evidence, "net:[4026531840], PID 1's"));
	assert_null(strstr(d->lines[0].evidence, "initial"));
	/* another namespace, exclusive mode, no device: FAIL */
	unlink(a);
	assert_int_equal(symlink("net:[4026532000]", a), 0);
	put("sys/module/ib_core/parameters/netns_mode", "N");
	rt_diag_netns(&env, d);
	assert_int_equal(d->lines[1].level, RT_DIAG_FAIL);
	assert_non_null(strstr(d->lines[1].fix, "rdma dev set DEV netns NAME"));
	/* with a device there: a warning about the netdev */
	d->nports = 1;
	rt_diag_netns(&env, d);
	assert_int_equal(d->lines[2].level, RT_DIAG_WARN);
}

static void test_facts_and_mtu(void **state)
{
	struct rt_diag_port here = { .dev = "rxe0", .port = 1, .ndev = "eth0",
				     .ndev_mtu = 1500, .active_mtu = 1024 };
	struct rt_diag_port peer;
	char buf[RT_DIAG_FACTS_MAX];

	(void)state;
	rt_diag_facts_format(&here, buf, sizeof(buf));
	assert_string_equal(buf, "rdmatest-doctor 1 rxe0 1 1024 eth0 1500\n");
	assert_int_equal(rt_diag_facts_parse(buf, &peer), 0);
	assert_string_equal(peer.dev, "rxe0");
	assert_int_equal(peer.active_mtu, 1024);
	assert_int_equal(rt_diag_facts_parse("SSH-2.0-OpenSSH_9.2\r\n", &peer), -1);
	assert_int_equal(rt_diag_facts_parse("rdmatest-doctor 1 rxe0 1 8192 eth0 1500", &peer), -1);
	rt_diag_facts_format(NULL, buf, sizeof(buf));
	assert_int_equal(rt_diag_facts_parse(buf, &peer), 0);
	assert_string_equal(peer.dev, "");

	assert_int_equal(rt_diag_facts_parse("rdmatest-doctor 1 rxe0 1 1024 eth0 1500", &peer), 0);
	rt_diag_mtu_compare(d, &here, &peer);
	assert_int_equal(d->lines[0].level, RT_DIAG_PASS);
	peer.ndev_mtu = 1600;
	rt_diag_mtu_compare(d, &here, &peer);
	assert_int_equal(d->lines[1].level, RT_DIAG_WARN);
	peer.ndev_mtu = 9000;
	peer.active_mtu = 4096;
	rt_diag_mtu_compare(d, &here, &peer);
	assert_int_equal(d->lines[2].level, RT_DIAG_FAIL);
	assert_non_null(strstr(d->lines[2].evidence, "MTU mismatch: here rxe0 active MTU 1024 "
				"(eth0 MTU 1500), peer rxe0 active MTU 4096 (eth0 MTU 9000)"));
	assert_non_null(strstr(d->lines[2].fix, "ip link set eth0 mtu 9000 here, or 1500 on the peer's eth0"));
	peer.dev[0] = '\0';
	rt_diag_mtu_compare(d, &here, &peer);
	assert_int_equal(d->lines[3].level, RT_DIAG_FAIL);
}

static void test_line_bound(void **state)
{
	(void)state;
	for (int i = 0; i < RT_DIAG_MAX + 5; i++)
		rt_diag_add(d, RT_DIAG_WARN, "x", "fix", "line %d", i);
	assert_int_equal(d->n, RT_DIAG_MAX);
	assert_int_equal(d->dropped, 5);
	rt_diag_add(d, RT_DIAG_PASS, "a-check-name-longer-than-its-field", "ignored", "%s", "e");
	assert_int_equal(d->dropped, 6);
}

static void test_report(void **state)
{
	struct rt_json j;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	rt_diag_add(d, RT_DIAG_PASS, "devices", "not shown", "1: rxe0");
	rt_diag_add(d, RT_DIAG_FAIL, "ports", "ip link set eth0 up", "rxe0 port 1: \"DOWN\"");
	rt_diag_print(f, d);
	fclose(f);
	assert_string_equal(text, "PASS devices    1: rxe0\n"
			    "FAIL ports      rxe0 port 1: \"DOWN\" -- fix: ip link set eth0 up\n"
			    "doctor: 1 passed, 0 warnings, 1 failed\n");
	free(text);
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_diag_json(&j, d);
	rt_json_object_end(&j);
	rt_json_finish(&j);
	assert_string_equal(rt_json_text(&j),
		"{\"checks\":[{\"check\":\"devices\",\"level\":\"PASS\",\"evidence\":\"1: rxe0\",\"fix\":null},"
		"{\"check\":\"ports\",\"level\":\"FAIL\",\"evidence\":\"rxe0 port 1: \\\"DOWN\\\"\","
		"\"fix\":\"ip link set eth0 up\"}],\"passed\":1,\"warnings\":0,\"failed\":1,"
		"\"dropped\":0,\"rdma\":true,\"ports\":[]}");
	rt_json_free(&j);
}

static void test_route_through_no_rdma_port(void **state)
{
	struct sockaddr_storage local;

	(void)state;
	rt_diag_devices(&env, d);
	/* loopback is no RDMA port's address */
	assert_null(rt_diag_route(&env, d, "127.0.0.1", &local));
	assert_int_equal(line("route")->level, RT_DIAG_FAIL);
	assert_non_null(strstr(line("route")->evidence, "to 127.0.0.1 leaves ? from 127.0.0.1, "
				"which no RDMA port carries"));
	assert_non_null(strstr(line("route")->fix, "RDMA ports with IP: rxe0 on eth0"));
}

static void test_hint(void **state)
{
	struct rt_error usage = { 0 }, env_err = { 0 }, addr = { 0 };

	(void)state;
	port_file("state", "1: DOWN");
	put("sys/class/net/eth0/operstate", "down");
	rt_fail(&env_err, RT_EXIT_ENV, "rxe0 port 1 is down, not ACTIVE");
	rt_diag_hint(&env_err, &env);
	assert_string_equal(env_err.hint, "rdmatest doctor: ports FAIL: bring the link up: "
			    "ip link set eth0 up (and check the cable or the peer port)");
	/* usage errors are not the environment's */
	rt_fail(&usage, RT_EXIT_USAGE, "--size: 0 is out of range");
	rt_diag_hint(&usage, &env);
	assert_string_equal(usage.hint, "");
	/* an address error (exit 1) gets the finding too */
	port_file("state", "4: ACTIVE");
	rt_error_phase(&addr, "resolve-addr");
	rt_fail(&addr, RT_EXIT_FAIL, "RDMA_CM_EVENT_ADDR_ERROR 192.0.2.9:7174");
	rt_diag_hint(&addr, &env);
	/* this host's own addresses are not the fake port's: no IP carried */
	assert_string_equal(addr.hint, "rdmatest doctor: gids FAIL: give eth0 an IP address "
			    "(ip addr add ADDR/LEN dev eth0): the kernel then adds its RoCE v2 GID");
}

/* An error of exit 3 that no failing check explains keeps no hint: the
 * port is down, but the error is about the host list, a launcher, an
 * option's value or memory registration. */
static void test_no_hint_on_an_unrelated_error(void **state)
{
	static const char *const unrelated[] = {
		("--hosts: none of the 2 hosts is this machine (its host name or an "
		 "interface address)"),
		"host list 'a[1-': '[' without ']'",
		"no launcher found: run under srun, mpirun or an Indexed Job, or give --hosts",
		"-d nosuch: no such RDMA device (there are: rxe0)",
		"ports FAIL: bring the link up (the local checks failed)",
	};

	(void)state;
	port_file("state", "1: DOWN");
	put("sys/class/net/eth0/operstate", "down");
	for (size_t i = 0; i < sizeof(unrelated) / sizeof(unrelated[0]); i++) {
		struct rt_error err = { 0 };

		rt_fail(&err, RT_EXIT_ENV, "%s", unrelated[i]);
		rt_diag_hint(&err, &env);
		assert_string_equal(err.hint, "");
	}
}

/* A memory registration error gets the memlock finding, not the first
 * FAIL of the list (a port that is down). */
static void test_hint_picks_the_bearing_check(void **state)
{
	struct rt_error err = { 0 };
	struct rlimit was, low;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &was), 0);
	low = (struct rlimit){ 64 << 10, was.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &low), 0);
	port_file("state", "1: DOWN");
	rt_fail(&err, RT_EXIT_ENV, "ibv_reg_mr 4096 bytes (memlock limit is 65536 bytes: "
		"raise it with ulimit -l)");
	rt_diag_hint(&err, &env);
	setrlimit(RLIMIT_MEMLOCK, &was);
	assert_non_null(strstr(err.hint, "rdmatest doctor: memlock FAIL: raise it"));
}

/* Makes the fake port carry this host's first IPv4 address, so that no
 * local check fails; false when the host has none. */
static bool carry_a_host_address(void)
{
	struct ifaddrs *all, *i;
	bool done = false;
	char rel[128];

	if (getifaddrs(&all))
		return false;
	for (i = all; i && !done; i = i->ifa_next) {
		const struct sockaddr_in *sin = (const void *)i->ifa_addr;
		const uint8_t *b = (const uint8_t *)&sin->sin_addr;
		char g[64];

		if (!sin || sin->sin_family != AF_INET || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		snprintf(g, sizeof(g), "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x",
			 b[0], b[1], b[2], b[3]);
		gid(3, g, "RoCE v2", i->ifa_name);
		gid(0, "fe80:0000:0000:0000:5054:00ff:fe12:0001", "IB/RoCE v1", i->ifa_name);
		snprintf(rel, sizeof(rel), "sys/class/net/%s/mtu", i->ifa_name);
		put(rel, "1500");
		done = true;
	}
	freeifaddrs(all);
	return done;
}

static void test_hint_route(void **state)
{
	struct rt_error addr = { 0 }, nosuch = { 0 };

	(void)state;
	if (!carry_a_host_address())
		skip();
	/* nothing fails locally: a wrong -d is left as it is */
	rt_fail(&nosuch, RT_EXIT_ENV, "-d nosuch: no such RDMA device (there are: rxe0)");
	rt_diag_hint(&nosuch, &env);
	assert_string_equal(nosuch.hint, "");
	/* an address error: the route to the peer it names */
	rt_error_phase(&addr, "resolve-addr");
	rt_fail(&addr, RT_EXIT_ENV, "RDMA_CM_EVENT_ADDR_ERROR 127.0.0.1:7174: no RDMA device");
	rt_diag_hint(&addr, &env);
	assert_non_null(strstr(addr.hint, "rdmatest doctor: route FAIL: reach the peer over an "
				"RDMA port's netdev (RDMA ports with IP: rxe0 on "));
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_tree, drop_tree)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_modules), T(test_modules_built_in), T(test_devices_and_nodes), T(test_no_device_is_exit_3),
		T(test_port_down), T(test_port_mtu), T(test_port_rate),
		T(test_port_small_mtu), T(test_port_small_mtu_ib), T(test_gid_and_address_map),
		T(test_no_ip_on_the_port), T(test_memlock), T(test_ipc_lock), T(test_netns),
		T(test_facts_and_mtu), T(test_line_bound), T(test_report),
		T(test_route_through_no_rdma_port), T(test_hint), T(test_hint_route),
		T(test_kernel_without_rdma_modules), T(test_no_hint_on_an_unrelated_error),
		T(test_hint_picks_the_bearing_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
