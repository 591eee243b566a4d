/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for core/addr.c: numeric parsing and printing, stream socket
 * lookup over getaddrinfo, and the list of RDMA ports with IP that errors
 * name, read from a fake sysfs tree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <infiniband/ib.h>

#include "rdmatest/addr.h"

static void numeric_addresses_round_trip(void **state)
{
	struct sockaddr_storage ss;
	char buf[64];

	(void)state;
	assert_int_equal(rt_addr_parse_numeric("192.0.2.7", &ss), 0);
	assert_string_equal(rt_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)), "192.0.2.7:0");
	assert_int_equal(rt_addr_parse_numeric("fe80::1", &ss), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_not_equal(rt_addr_parse_numeric("192.0.2.300", &ss), 0);
	assert_int_not_equal(rt_addr_parse_numeric("host.example", &ss), 0);
}

/* mkdir -p and write a file, inside the fake tree */
/* Copies of an address take its family's size: an AF_IB address is
 * smaller than a sockaddr_storage, and an unknown family copies nothing. */
static void lengths_follow_the_family(void **state)
{
	struct sockaddr sa = { .sa_family = AF_INET };

	(void)state;
	assert_int_equal(rt_addr_len(&sa), sizeof(struct sockaddr_in));
	sa.sa_family = AF_INET6;
	assert_int_equal(rt_addr_len(&sa), sizeof(struct sockaddr_in6));
	sa.sa_family = AF_IB;
	assert_int_equal(rt_addr_len(&sa), sizeof(struct sockaddr_ib));
	assert_true(sizeof(struct sockaddr_ib) < sizeof(struct sockaddr_storage));
	sa.sa_family = AF_UNIX;
	assert_int_equal(rt_addr_len(&sa), 0);
}

/* Multicast groups print the host alone (mckey's joined lines), the CM
 * the host with its port; both read GIDs as IPv6 text. */
static void hosts_print_alone_or_with_the_port(void **state)
{
	struct sockaddr_ib sib = { .sib_family = AF_IB };
	struct sockaddr_storage ss;
	struct sockaddr other = { .sa_family = AF_UNIX };
	char buf[64];

	(void)state;
	assert_int_equal(rt_addr_parse_numeric("239.1.2.3", &ss), 0);
	assert_string_equal(rt_addr_host_str((struct sockaddr *)&ss, buf, sizeof(buf)),
			    "239.1.2.3");
	assert_int_equal(rt_addr_parse_numeric("ff12::1", &ss), 0);
	assert_string_equal(rt_addr_host_str((struct sockaddr *)&ss, buf, sizeof(buf)),
			    "ff12::1");
	assert_string_equal(rt_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)),
			    "[ff12::1]:0");
	assert_int_equal(inet_pton(AF_INET6, "ff0e::1", &sib.sib_addr), 1);
	assert_string_equal(rt_addr_host_str((struct sockaddr *)&sib, buf, sizeof(buf)),
			    "ff0e::1");
	assert_string_equal(rt_addr_str((struct sockaddr *)&sib, buf, sizeof(buf)),
			    "gid ff0e::1");
	assert_string_equal(rt_addr_host_str(&other, buf, sizeof(buf)), "?");
	assert_string_equal(rt_addr_str(&other, buf, sizeof(buf)), "family 1");
	assert_string_equal(rt_addr_host_str(NULL, buf, sizeof(buf)), "?");
	assert_string_equal(rt_addr_str(NULL, buf, sizeof(buf)), "?");
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	if (!text)
		return;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rdma_ports_with_ip_are_listed(void **state)
{
	char root[] = "/tmp/rt-sysfs-XXXXXX", buf[256], cmd[300];

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_string_equal(rt_rdma_netdevs(root, buf, sizeof(buf)), "none");
	put(root, "class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	/* an InfiniBand port has no netdev behind its GIDs: not listed */
	put(root, "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/x", NULL);
	assert_string_equal(rt_rdma_netdevs(root, buf, sizeof(buf)), "rxe0 on eth0");
	put(root, "class/infiniband/rxe0/ports/2/gid_attrs/ndevs/0", "eth1\n");
	rt_rdma_netdevs(root, buf, sizeof(buf));
	assert_non_null(strstr(buf, "rxe0 on eth0"));
	assert_non_null(strstr(buf, "rxe0 port 2 on eth1"));
	/* a short buffer truncates, never overflows */
	assert_string_equal(rt_rdma_netdevs(root, buf, 6), "rxe0 ");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* ---- rt_addr_lookup over getaddrinfo ---- */

static void lookup_numeric_ipv4_with_port(void **state)
{
	struct rt_addr_query q = { .node = "192.0.2.7", .port = 7471, .format = RT_FMT_IP,
				   .what = "-s" };
	struct rt_sockaddr a;
	struct rt_error err = { 0 };
	char buf[64];

	(void)state;
	assert_int_equal(rt_addr_lookup(&q, false, &a, &err), 0);
	assert_false(err.set);
	assert_int_equal(a.addr_len, sizeof(struct sockaddr_in));
	assert_string_equal(rt_addr_str((struct sockaddr *)&a.addr, buf, sizeof(buf)),
			    "192.0.2.7:7471");
	assert_int_equal(a.src_len, 0);
	assert_null(a.route);
	rt_sockaddr_free(&a);
}

static void lookup_numeric_ipv6_with_port(void **state)
{
	struct rt_addr_query q = { .node = "2001:db8::5", .port = 9, .format = RT_FMT_IPV6 };
	struct rt_sockaddr a;
	struct rt_error err = { 0 };
	char buf[64];

	(void)state;
	assert_int_equal(rt_addr_lookup(&q, false, &a, &err), 0);
	assert_int_equal(a.addr.ss_family, AF_INET6);
	assert_string_equal(rt_addr_str((struct sockaddr *)&a.addr, buf, sizeof(buf)),
			    "[2001:db8::5]:9");
	rt_sockaddr_free(&a);
}

/* A client's source keeps its address but not the port: a reconnect
 * from the same port would fail while the first is in TIME_WAIT. */
static void lookup_source_has_port_zero(void **state)
{
	struct rt_addr_query q = { .node = "192.0.2.7", .port = 7471, .src = "192.0.2.1",
				   .format = RT_FMT_IP };
	struct rt_sockaddr a;
	struct rt_error err = { 0 };
	char buf[64];

	(void)state;
	assert_int_equal(rt_addr_lookup(&q, false, &a, &err), 0);
	assert_int_equal(a.src_len, sizeof(struct sockaddr_in));
	assert_string_equal(rt_addr_str((struct sockaddr *)&a.src, buf, sizeof(buf)),
			    "192.0.2.1:0");
	rt_sockaddr_free(&a);
}

static void lookup_passive_wildcard(void **state)
{
	struct rt_addr_query q = { .port = 7471, .passive = true, .src = "192.0.2.1" };
	struct rt_sockaddr a;
	struct rt_error err = { 0 };
	char buf[64];

	(void)state;
	assert_int_equal(rt_addr_lookup(&q, false, &a, &err), 0);
	rt_addr_str((struct sockaddr *)&a.addr, buf, sizeof(buf));
	assert_true(!strcmp(buf, "0.0.0.0:7471") || !strcmp(buf, "[::]:7471"));
	assert_int_equal(a.src_len, 0); /* a passive side has no source */
	rt_sockaddr_free(&a);
}

/* Names getaddrinfo cannot take in the format: one line, exit 2, naming
 * the option and the name. */
static void lookup_bad_names_are_one_usage_line(void **state)
{
	static const struct rt_addr_query bad[] = {
		{ .node = "not-an-ip", .port = 1, .format = RT_FMT_IP, .what = "-s" },
		{ .node = "192.0.2.7", .port = 1, .format = RT_FMT_IPV6, .what = "-b" },
	};
	static const char *const want[] = { "-s not-an-ip: cannot resolve: ",
					    "-b 192.0.2.7: cannot resolve: " };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct rt_sockaddr a;
		struct rt_error err = { 0 };

		assert_int_equal(rt_addr_lookup(&bad[i], false, &a, &err), -1);
		assert_int_equal(err.exit_code, 2);
		assert_non_null(strstr(err.reason, want[i]));
		assert_null(strchr(err.reason, '\n'));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numeric_addresses_round_trip),
		cmocka_unit_test(lengths_follow_the_family),
		cmocka_unit_test(hosts_print_alone_or_with_the_port),
		cmocka_unit_test(rdma_ports_with_ip_are_listed),
		cmocka_unit_test(lookup_numeric_ipv4_with_port),
		cmocka_unit_test(lookup_numeric_ipv6_with_port),
		cmocka_unit_test(lookup_source_has_port_zero),
		cmocka_unit_test(lookup_passive_wildcard),
		cmocka_unit_test(lookup_bad_names_are_one_usage_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
