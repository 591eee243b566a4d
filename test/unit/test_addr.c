/* Unit tests for core/addr.c: numeric parsing and printing, and the list
 * of RDMA ports with IP that errors name, read from a fake sysfs tree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numeric_addresses_round_trip),
		cmocka_unit_test(rdma_ports_with_ip_are_listed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
