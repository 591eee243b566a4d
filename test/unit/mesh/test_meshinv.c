/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Inventory drift at rank 0 (meshinv.h): the value most hosts have, each
 * host that differs named in the summary, the document and the gauges;
 * ties, unknown values and absent hosts; drift alone leaves READY. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshdoc.h"
#include "mesh/meshinv.h"
#include "mesh/meshprom.h"
#include "mesh/meshtext.h"
#include "rdmatest/util.h"

static const struct rt_mesh_limits lim = {.rtt_factor = 2.1};

/* Host i of a fleet: one 400G rail mlx5_0 of firmware 28.40.1000. */
static struct rt_mesh_hello host(uint32_t i, uint32_t n)
{
	struct rt_mesh_hello h = {.rank = i, .size = n, .nrails = 1,
		.inv = {"6.8.0-47-generic", "50.0"}};

	snprintf(h.host, sizeof(h.host), "%c", 'a' + (int)(i % 26));
	h.rails[0] = (struct rt_mesh_rail){.dev = "mlx5_0", .rail = 0, .port = 1,
		.state = RT_RAIL_ACTIVE, .link = RT_RAIL_ETHERNET, .lanes = 4, .mtu = 4096,
		.speed_mbps = 400000, .payload_mbps = 390000, .fw = "28.40.1000",
		.driver = "mlx5_core", .pcie_speed = "32.0 GT/s PCIe", .pcie_width = "16"};
	snprintf(h.rails[0].addr, sizeof(h.rails[0].addr), "10.0.0.%u", i + 1);
	return h;
}

/* Every pair tested and good on rail 0, then judged. */
static void judged(struct rt_mesh_agg *g, const struct rt_mesh_hello *h, uint32_t n,
		   uint32_t absent)
{
	struct rt_error err = {0};

	assert_int_equal(rt_mesh_agg_init(g, n, 0, &err), 0);
	for (uint32_t i = 0; i < n; i++)
		if (i != absent)
			assert_int_equal(rt_mesh_agg_hello(g, &h[i], &err), 0);
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++) {
			struct rt_mesh_result r = {.a = a, .b = b, .status = RT_MESH_OK,
				.flags = RT_MESH_HAS_RTT, .connect_ns = 1000, .rtt_p50_ns = 9000,
				.rtt_p99_ns = 9000};

			if (a == absent || b == absent)
				r = (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_ABSENT};
			assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
		}
	assert_int_equal(rt_mesh_judge(g, &lim, &err), 0);
}

static char *text_of(const struct rt_mesh_agg *g)
{
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	rt_mesh_summary(f, g, &lim);
	fclose(f);
	return t;
}

/* Host c's firmware and host d's kernel are not what most hosts have;
 * host b does not know its driver: not compared. READY all the same. */
static void names_who_differs(void **state)
{
	struct rt_mesh_hello h[5];
	struct rt_mesh_agg g;
	char *t;

	(void)state;
	for (uint32_t i = 0; i < 5; i++)
		h[i] = host(i, 5);
	strcpy(h[2].rails[0].fw, "28.39.1002");
	strcpy(h[3].inv.kernel, "6.8.0-45-generic");
	h[1].rails[0].driver[0] = '\0';
	judged(&g, h, 5, UINT32_MAX);
	assert_int_equal(g.drift_hosts, 2);
	assert_int_equal(g.ndrift, 2);
	assert_int_equal(g.nodes[2].drift, 1);
	assert_int_equal(g.nodes[1].drift, 0);
	assert_true(g.ready);
	t = text_of(&g);
	assert_non_null(strstr(t, "\ninventory: host 2 (c) rail 0 (mlx5_0) firmware 28.39.1002, "
			       "most hosts 28.40.1000\n"));
	assert_non_null(strstr(t, "\ninventory: host 3 (d) kernel 6.8.0-45-generic, most hosts "
			       "6.8.0-47-generic\n"));
	assert_non_null(strstr(t, "\nREADY"));
	free(t);
	rt_mesh_agg_free(&g);
}

/* A tie goes to the lowest rank's value; an absent host and a host whose
 * rail is DOWN are not compared on what they cannot show. */
static void ties_and_absent_hosts(void **state)
{
	struct rt_mesh_hello h[4];
	struct rt_mesh_agg g;
	char *t;

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		h[i] = host(i, 4);
	strcpy(h[1].inv.rdma_core, "49.0"); /* 50.0: ranks 0 and 2; 49.0: 1 and 3 */
	strcpy(h[3].inv.rdma_core, "49.0");
	strcpy(h[3].rails[0].pcie_width, "8"); /* absent below: not compared */
	judged(&g, h, 4, 3);
	assert_int_equal(g.drift_hosts, 1);
	assert_int_equal(g.drift[0].rank, 1);
	assert_int_equal(g.drift[0].field, RT_INV_RDMA_CORE);
	assert_int_equal(g.drift[0].rail, -1);
	assert_string_equal(g.drift[0].value, "49.0");
	assert_string_equal(g.drift[0].majority, "50.0");
	rt_mesh_agg_free(&g);
	/* two hosts: the tie is rank 0's; the rate of a DOWN rail is no rate */
	h[1] = host(1, 2);
	h[0] = host(0, 2);
	h[1].rails[0].speed_mbps = 200000;
	h[1].rails[0].payload_mbps = 195000;
	strcpy(h[0].inv.kernel, "6.9.0");
	judged(&g, h, 2, UINT32_MAX);
	t = text_of(&g);
	assert_non_null(strstr(t, "\ninventory: host 1 (b) kernel 6.8.0-47-generic, most hosts "
			       "6.9.0\n"));
	assert_non_null(strstr(t, "\ninventory: host 1 (b) rail 0 (mlx5_0) rate 200 Gb/s, most "
			       "hosts 400 Gb/s\n"));
	free(t);
	rt_mesh_agg_free(&g);
	h[1].rails[0].state = RT_RAIL_DOWN;
	h[0].inv = h[1].inv;
	judged(&g, h, 2, UINT32_MAX);
	assert_int_equal(g.ndrift, 0);
	rt_mesh_agg_free(&g);
}

/* The document lists each host's inventory and the drift; the gauges
 * carry each host's releases as labels (escaped) and the drift count. */
static void document_and_gauges(void **state)
{
	struct rt_mesh_hello h[3];
	struct rt_mesh_agg g;
	struct rt_json j;
	struct rt_prom p;

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		h[i] = host(i, 3);
	h[1].rails[0].mtu = 1024;
	strcpy(h[2].inv.kernel, "6.8\"x");
	judged(&g, h, 3, UINT32_MAX);
	rt_json_init(&j);
	rt_mesh_document(&j, &g, &lim, NULL);
	assert_non_null(strstr(rt_json_text(&j), "\"kernel\":\"6.8.0-47-generic\",\"rdma_core\":"
			       "\"50.0\",\"expect\":null,\"rails\":[{\"rail\":0,\"dev\":\"mlx5_0\""));
	assert_non_null(strstr(rt_json_text(&j), "\"fw_ver\":\"28.40.1000\",\"driver\":"
			       "\"mlx5_core\",\"pcie_speed\":\"32.0 GT/s PCIe\",\"pcie_width\":\"16\""));
	assert_non_null(strstr(rt_json_text(&j), "\"inventory_drift\":[{\"rank\":1,\"host\":\"b\","
			       "\"field\":\"mtu\",\"rail\":0,\"value\":\"1024\",\"majority\":\"4096\"},"
			       "{\"rank\":2,\"host\":\"c\",\"field\":\"kernel\",\"value\":\"6.8\\\"x\","
			       "\"majority\":\"6.8.0-47-generic\"}],\"inventory_drift_total\":2,"
			       "\"inventory_drift_hosts\":2"));
	rt_json_free(&j);
	rt_prom_init(&p);
	rt_mesh_prom(&p, &g, 1);
	assert_string_equal(p.problem, "");
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_host_info{rank=\"2\",host=\"c\","
			       "kernel=\"6.8\\\"x\",rdma_core=\"50.0\"} 1\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_inventory_drift_hosts 2\n"));
	rt_prom_free(&p);
	rt_mesh_agg_free(&g);
}

/* mesh --expect: a host that differs from the expected state is named
 * with its first difference and NOT READY; so, once hosts checked, are
 * inventory drift and a host that did not check. */
static void expect_outcome_judged(void **state)
{
	struct rt_mesh_hello h[3];
	struct rt_mesh_agg g;
	struct rt_json j;
	struct rt_prom p;
	char *t;

	(void)state;
	for (uint32_t i = 0; i < 3; i++) {
		h[i] = host(i, 3);
		h[i].inv.expect = 1;
	}
	h[1].inv.expect_diffs = 2;
	strcpy(h[1].inv.expect_first, "rxe0 port 1: rate 10 Gb/s, expected 400");
	judged(&g, h, 3, UINT32_MAX);
	assert_true(g.expect_on);
	assert_int_equal(g.expect_bad, 1);
	assert_false(g.ready);
	assert_true(rt_mesh_inv_fails(&g, 1));
	assert_false(rt_mesh_inv_fails(&g, 0));
	t = text_of(&g);
	assert_non_null(strstr(t, "\nhost 1 (b) differs from the expected state: rxe0 port 1: "
			       "rate 10 Gb/s, expected 400 (and 1 more)\n"));
	assert_non_null(strstr(t, "\nNOT READY: 1 hosts differ from the expected state, 0 hosts' "
			       "inventory differs from most hosts' (--expect)\n"));
	free(t);
	rt_json_init(&j);
	rt_mesh_document(&j, &g, &lim, NULL);
	assert_non_null(strstr(rt_json_text(&j), "\"expect_checked\":true,\"expect_differ\":"
			       "[{\"rank\":1,\"host\":\"b\",\"checked\":true,\"differences\":2,"
			       "\"first\":\"rxe0 port 1: rate 10 Gb/s, expected 400\"}]"));
	assert_non_null(strstr(rt_json_text(&j), "\"expect\":{\"differences\":0,\"first\":\"\"}"));
	rt_json_free(&j);
	rt_prom_init(&p);
	rt_mesh_prom(&p, &g, 1);
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_host_expect_differences{rank=\"1\","
			       "host=\"b\",first=\"rxe0 port 1: rate 10 Gb/s, expected 400\"} 2\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_expect_differ_hosts 1\n"));
	rt_prom_free(&p);
	rt_mesh_agg_free(&g);
	/* all as expected, but one firmware differs from most: with --expect a failure */
	h[1].inv.expect_diffs = 0;
	h[1].inv.expect_first[0] = '\0';
	strcpy(h[2].rails[0].fw, "28.39.1002");
	judged(&g, h, 3, UINT32_MAX);
	assert_int_equal(g.expect_bad, 0);
	assert_false(g.ready);
	assert_true(rt_mesh_inv_fails(&g, 2));
	rt_mesh_agg_free(&g);
	/* a host run without --expect while the others checked */
	strcpy(h[2].rails[0].fw, "28.40.1000");
	h[0].inv.expect = 0;
	judged(&g, h, 3, UINT32_MAX);
	assert_int_equal(g.expect_bad, 1);
	t = text_of(&g);
	assert_non_null(strstr(t, "\nhost 0 (a) did not check the expected state (run without "
			       "--expect)\n"));
	free(t);
	rt_mesh_agg_free(&g);
	/* nobody checked: as before */
	h[1].inv.expect = h[2].inv.expect = 0;
	judged(&g, h, 3, UINT32_MAX);
	assert_false(g.expect_on);
	assert_true(g.ready);
	rt_mesh_agg_free(&g);
}

/* Many differences: the summary names RT_MESH_TEXT_LIST, then counts. */
static void bounded(void **state)
{
	static struct rt_mesh_hello h[80];
	struct rt_mesh_agg g;
	char *t, *s;
	unsigned lines = 0;

	(void)state;
	for (uint32_t i = 0; i < 80; i++) {
		h[i] = host(i, 80);
		if (i >= 50)
			snprintf(h[i].inv.kernel, sizeof(h[i].inv.kernel), "6.%u", i);
	}
	judged(&g, h, 80, UINT32_MAX);
	assert_int_equal(g.ndrift, 30);
	assert_int_equal(g.drift_hosts, 30);
	t = text_of(&g);
	for (s = t; (s = strstr(s, "\ninventory: ")); s++)
		lines++;
	assert_int_equal(lines, RT_MESH_TEXT_LIST);
	assert_non_null(strstr(t, "\n... and 10 more inventory differences (30 hosts differ)\n"));
	free(t);
	rt_mesh_agg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_who_differs),
		cmocka_unit_test(ties_and_absent_hosts),
		cmocka_unit_test(document_and_gauges),
		cmocka_unit_test(bounded),
		cmocka_unit_test(expect_outcome_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
