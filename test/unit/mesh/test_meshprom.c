/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* meshprom: the gauges of a judged aggregate, hosts' labels escaped, the
 * hosts not ok listed up to RT_MESH_PROM_HOSTS and the rest counted, the
 * congestion counters' series, the file's size within its documented
 * bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshprom.h"
#include "rdmatest/portctr.h"

static const struct rt_mesh_limits lim = { .min_links = 1 };

/* n ranks; ranks below `hellos` say hello (host of rank 1 needs escaping),
 * and 0-1 is one good pair. */
static void judged(struct rt_mesh_agg *g, uint32_t n, uint32_t hellos)
{
	struct rt_error err = { 0 };
	struct rt_mesh_result r = { .a = 0, .b = 1, .status = RT_MESH_OK,
		.flags = RT_MESH_HAS_RTT, .connect_ns = 1000, .rtt_p50_ns = 9000,
		.rtt_p99_ns = 9000 };

	assert_int_equal(rt_mesh_agg_init(g, n, 0, &err), 0);
	for (uint32_t i = 0; i < hellos; i++) {
		struct rt_mesh_hello h = { .rank = i, .size = n };

		snprintf(h.host, sizeof(h.host), i == 1 ? "no\"de\\%u" : "node%u", i);
		assert_int_equal(rt_mesh_agg_hello(g, &h, &err), 0);
	}
	assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
	assert_int_equal(rt_mesh_judge(g, &lim, &err), 0);
}

static void gauges_of_a_run(void **state)
{
	struct rt_mesh_agg g;
	struct rt_prom p;

	(void)state;
	judged(&g, 3, 2);
	rt_prom_init(&p);
	rt_mesh_prom(&p, &g, 1700000000);
	assert_string_equal(p.problem, "");
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_ready 0\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_hosts 3\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_absent_hosts 1\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_rtt_median_seconds 9e-06\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_host_not_ok{rank=\"2\",host=\"\",verdict=\"absent\"} 1\n"));
	/* ok hosts have no not-ok series, only their inventory's */
	assert_null(strstr(p.buf, "rdmatest_mesh_host_not_ok{rank=\"0\""));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_host_info{rank=\"0\",host=\"node0\","
			       "kernel=\"\",rdma_core=\"\"} 1\n"));
	assert_null(strstr(p.buf, "rdmatest_mesh_host_info{rank=\"2\"")); /* absent */
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_inventory_drift_hosts 0\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_last_run_timestamp_seconds 1700000000\n"));
	/* the results carry rail 0: one series a rail */
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_rail_links{rail=\"0\"} "));
	assert_null(strstr(p.buf, "{rail=\"1\"}"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_bad_rails 0\n"));
	rt_prom_free(&p);
	rt_mesh_agg_free(&g);
}

static void escaped_host(void **state)
{
	struct rt_mesh_agg g;
	struct rt_prom p;

	(void)state;
	judged(&g, 3, 3); /* rank 2 untested: but name rank 1 by hand */
	g.nodes[1].verdict = RT_NODE_BAD;
	rt_prom_init(&p);
	rt_mesh_prom(&p, &g, 1);
	assert_non_null(strstr(p.buf, "{rank=\"1\",host=\"no\\\"de\\\\1\",verdict=\"bad\"} 1\n"));
	rt_prom_free(&p);
	rt_mesh_agg_free(&g);
}

/* A result of pair a-b whose ports counted: end A a judged rise (not a
 * congestion series) and CNPs, end B pause frames. */
static void add_counted(struct rt_mesh_agg *g, uint32_t a, uint32_t b, uint64_t cnp,
			uint64_t pause)
{
	struct rt_error err = { 0 };
	struct rt_mesh_result r = { .a = a, .b = b, .status = RT_MESH_OK,
		.flags = RT_MESH_HAS_RTT | RT_MESH_HAS_CTR, .connect_ns = 1000,
		.rtt_p50_ns = 9000, .rtt_p99_ns = 9000 };
	struct rt_mesh_ctrs *c = &r.ctr;

	c->e[c->n++] = (struct rt_mesh_ctr){ (uint8_t)rt_portctr_id("symbol_error"),
					     RT_MESH_END_A, 3 };
	c->e[c->n++] = (struct rt_mesh_ctr){ (uint8_t)rt_portctr_id("np_cnp_sent"),
					     RT_MESH_END_A, cnp };
	c->e[c->n++] = (struct rt_mesh_ctr){ (uint8_t)rt_portctr_id("rx_prio3_pause"),
					     RT_MESH_END_B, pause };
	assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
}

/* Congestion counters: the top rise with its end's rank, host and rail,
 * the sum over every end and the ends that counted, one series each by
 * counter; a judged counter is no congestion series; nothing counted,
 * no congestion gauge at all. */
static void congestion_series(void **state)
{
	struct rt_error err = { 0 };
	struct rt_mesh_agg g;
	struct rt_prom p;

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 3, 0, &err), 0);
	for (uint32_t i = 0; i < 3; i++) {
		struct rt_mesh_hello h = { .rank = i, .size = 3 };

		snprintf(h.host, sizeof(h.host), "node%u", i);
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	add_counted(&g, 0, 1, 12, 4000);
	add_counted(&g, 0, 2, 5, 700);
	assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
	rt_prom_init(&p);
	rt_mesh_prom(&p, &g, 1);
	assert_string_equal(p.problem, "");
	assert_non_null(strstr(p.buf, "\n# TYPE rdmatest_mesh_congestion_max gauge\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_congestion_max{counter=\"rx_prio3_pause\","
			       "rank=\"1\",host=\"node1\",rail=\"0\"} 4000\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_congestion_max{counter=\"np_cnp_sent\","
			       "rank=\"0\",host=\"node0\",rail=\"0\"} 12\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_congestion_overall{counter=\"rx_prio3_pause\"} 4700\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_mesh_congestion_ends{counter=\"np_cnp_sent\"} 2\n"));
	assert_null(strstr(p.buf, "symbol_error"));
	rt_prom_free(&p);
	rt_mesh_agg_free(&g);

	judged(&g, 3, 2);
	rt_prom_init(&p);
	rt_mesh_prom(&p, &g, 1);
	assert_null(strstr(p.buf, "congestion"));
	rt_prom_free(&p);
	rt_mesh_agg_free(&g);
}

/* Many hosts absent: RT_MESH_PROM_HOSTS listed, the rest counted, and
 * the text within the bound meshprom.h writes down. */
static void hosts_bounded(void **state)
{
	struct rt_mesh_agg g;
	struct rt_prom p;
	char want[64];

	(void)state;
	judged(&g, RT_MESH_PROM_HOSTS + 100, 2);
	rt_prom_init(&p);
	rt_mesh_prom(&p, &g, 1);
	snprintf(want, sizeof(want), "\nrdmatest_mesh_hosts_not_listed %u\n", 98u);
	assert_non_null(strstr(p.buf, want));
	assert_true(p.len < 3 * 1024 + RT_MESH_PROM_HOSTS * 256);
	rt_prom_free(&p);
	rt_mesh_agg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gauges_of_a_run),
		cmocka_unit_test(escaped_host),
		cmocka_unit_test(hosts_bounded),
		cmocka_unit_test(congestion_series),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
