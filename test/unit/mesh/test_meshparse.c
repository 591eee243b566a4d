/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../fuzz/fuzz.h" /* a JSON validator independent of json.c */
#include "mesh/meshdoc.h"
#include "mesh/meshparse.h"
#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

static void assert_valid_json(const char *text)
{
	const char *why = fuzz_json_invalid(text, strlen(text));

	if (why)
		fail_msg("invalid JSON (%s): %.200s", why, text);
}

static int parse(const char *line, struct rt_meshmsg *m, struct rt_error *err)
{
	memset(err, 0, sizeof(*err));
	return rt_mesh_line_parse(line, strlen(line), m, err);
}

static void lines_round_trip(void **state)
{
	struct rt_mesh_hello h = {.rank = 2, .size = 4, .host = "gpu03"};
	struct rt_mesh_result r = {.a = 1, .b = 3, .status = RT_MESH_OK,
		.flags = RT_MESH_HAS_RTT, .connect_ns = 70000, .rtt_p50_ns = 9000,
		.rtt_p99_ns = 12000};
	struct rt_mesh_result f = {.a = 0, .b = 2, .status = RT_MESH_TIMEOUT};
	struct rt_mesh_result bw = {.a = 3, .b = 1, .status = RT_MESH_OK,
		.flags = RT_MESH_HAS_RTT | RT_MESH_HAS_BW, .connect_ns = 70000,
		.rtt_p50_ns = 9000, .rtt_p99_ns = 12000, .mbps = 97000, .mbps_rev = 41000};
	struct rt_meshmsg m;
	struct rt_error err;
	struct rt_json j;

	(void)state;
	rt_json_init(&j);
	rt_mesh_line_hello(&j, &h);
	assert_string_equal(rt_json_text(&j),
			    "{\"mesh\":\"hello\",\"rank\":2,\"size\":4,\"host\":\"gpu03\"}");
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_int_equal(m.type, RT_MESHMSG_HELLO);
	assert_memory_equal(&m.u.hello, &h, sizeof(h));
	rt_json_free(&j);

	/* with its port's payload rate, which `mesh report` judges by */
	h.payload_mbps = 392149;
	rt_json_init(&j);
	rt_mesh_line_hello(&j, &h);
	assert_string_equal(rt_json_text(&j), "{\"mesh\":\"hello\",\"rank\":2,\"size\":4,"
			    "\"host\":\"gpu03\",\"payload_mbps\":392149}");
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_memory_equal(&m.u.hello, &h, sizeof(h));
	rt_json_free(&j);

	rt_json_init(&j);
	rt_mesh_line_result(&j, &r);
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_int_equal(m.type, RT_MESHMSG_RESULT);
	assert_memory_equal(&m.u.result, &r, sizeof(r));
	rt_json_free(&j);

	rt_json_init(&j);
	rt_mesh_line_result(&j, &f);
	assert_string_equal(rt_json_text(&j),
			    "{\"mesh\":\"result\",\"a\":0,\"b\":2,\"rail\":0,\"status\":\"timeout\"}");
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_memory_equal(&m.u.result, &f, sizeof(f));
	rt_json_free(&j);

	/* both directions, each under its own key */
	rt_json_init(&j);
	rt_mesh_line_result(&j, &bw);
	assert_string_equal(rt_json_text(&j),
			    "{\"mesh\":\"result\",\"a\":3,\"b\":1,\"rail\":0,\"status\":\"ok\","
			    "\"connect_ns\":70000,\"rtt_p50_ns\":9000,\"rtt_p99_ns\":12000,"
			    "\"mbps\":97000,\"mbps_rev\":41000}");
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_memory_equal(&m.u.result, &bw, sizeof(bw));
	rt_json_free(&j);

	/* the ports' counters that rose, each under its end and name */
	bw.flags |= RT_MESH_HAS_CTR;
	bw.ctr = (struct rt_mesh_ctrs){.sent_known = 2, .sent = {0, 20000}, .n = 2, .more = 1};
	bw.ctr.e[0] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("rcvd_seq_err"), RT_MESH_END_A, 52};
	bw.ctr.e[1] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("out_of_seq_request"),
					   RT_MESH_END_B, 40};
	rt_json_init(&j);
	rt_mesh_line_result(&j, &bw);
	assert_string_equal(rt_json_text(&j),
			    "{\"mesh\":\"result\",\"a\":3,\"b\":1,\"rail\":0,\"status\":\"ok\","
			    "\"connect_ns\":70000,\"rtt_p50_ns\":9000,\"rtt_p99_ns\":12000,"
			    "\"mbps\":97000,\"mbps_rev\":41000,\"a.rcvd_seq_err\":52,"
			    "\"b.out_of_seq_request\":40,\"sent_b\":20000,\"ctr_more\":1}");
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_memory_equal(&m.u.result, &bw, sizeof(bw));
	rt_json_free(&j);
	/* a counter mesh does not judge, or no number: not a result line */
	assert_int_equal(parse("{\"mesh\":\"result\",\"a\":0,\"b\":2,\"status\":\"timeout\","
			       "\"a.sent_pkts\":5}", &m, &err), -1);
	assert_int_equal(parse("{\"mesh\":\"result\",\"a\":0,\"b\":2,\"status\":\"timeout\","
			       "\"a.nosuch\":5}", &m, &err), -1);
	assert_int_equal(parse("{\"mesh\":\"result\",\"a\":0,\"b\":2,\"status\":\"timeout\","
			       "\"c.rcvd_seq_err\":5}", &m, &err), -1);
	assert_int_equal(parse("{\"mesh\":\"result\",\"a\":0,\"b\":2,\"status\":\"timeout\","
			       "\"sent_a\":5}", &m, &err), -1);
}

static void prefixes_and_other_lines(void **state)
{
	struct rt_meshmsg m;
	struct rt_error err;

	(void)state;
	assert_int_equal(parse("3: {\"mesh\":\"hello\",\"rank\":3,\"size\":4,\"host\":\"n4\"}", &m, &err), 1);
	assert_int_equal(parse("n4: { \"mesh\" : \"hello\", \"rank\":3 ,\"size\":4,\"host\":\"n4\" }\r", &m, &err), 1);
	assert_int_equal(m.u.hello.rank, 3);
	assert_int_equal(parse("srun: job 42 queued", &m, &err), 0);
	assert_int_equal(parse("", &m, &err), 0);
}

/* A rail line and a result on a rail: what is written reads back the
 * same; each value is checked as the binary hello's rail; `mesh report`
 * keeps each rank's rails. */
static void rail_lines(void **state)
{
	struct rt_mesh_rail rail = {.dev = "mlx5_3", .rail = 3, .port = 1, .state = RT_RAIL_DOWN,
		.link = RT_RAIL_ETHERNET, .lanes = 4, .gid_index = 3, .mtu = 4096,
		.speed_mbps = 400000, .payload_mbps = 392149, .addr = "10.3.0.7"};
	struct rt_mesh_result r = {.a = 1, .b = 3, .rail = 3, .rail_b = 3,
		.status = RT_MESH_FAILED};
	static const char *const bad[] = {
		/* a key missing, a number out of range, a name unknown */
		"{\"mesh\":\"rail\",\"rank\":0,\"rail\":0,\"dev\":\"rxe0\",\"port\":1,\"gid_index\":1,"
		"\"addr\":\"192.0.2.1\",\"link_layer\":\"Ethernet\",\"state\":\"ACTIVE\",\"lanes\":1,"
		"\"mtu\":1024,\"speed_mbps\":10000}",
		"{\"mesh\":\"rail\",\"rank\":0,\"rail\":32,\"dev\":\"rxe0\",\"port\":1,\"gid_index\":1,"
		"\"addr\":\"192.0.2.1\",\"link_layer\":\"Ethernet\",\"state\":\"ACTIVE\",\"lanes\":1,"
		"\"mtu\":1024,\"speed_mbps\":10000,\"payload_mbps\":9258}",
		"{\"mesh\":\"rail\",\"rank\":0,\"rail\":0,\"dev\":\"rxe0\",\"port\":1,\"gid_index\":1,"
		"\"addr\":\"192.0.2.1\",\"link_layer\":\"Ether\",\"state\":\"ACTIVE\",\"lanes\":1,"
		"\"mtu\":1024,\"speed_mbps\":10000,\"payload_mbps\":9258}",
		"{\"mesh\":\"rail\",\"rank\":0,\"rail\":0,\"dev\":\"rxe0\",\"port\":1,\"gid_index\":1,"
		"\"addr\":\"192.0.2.01\",\"link_layer\":\"Ethernet\",\"state\":\"ACTIVE\",\"lanes\":1,"
		"\"mtu\":1024,\"speed_mbps\":10000,\"payload_mbps\":9258}",
		"{\"mesh\":\"rail\",\"rank\":0,\"rail\":0,\"dev\":\"rxe0\",\"port\":1,\"gid_index\":1,"
		"\"addr\":\"192.0.2.1\",\"link_layer\":\"Ethernet\",\"state\":\"ACTIVE\",\"lanes\":3,"
		"\"mtu\":1024,\"speed_mbps\":10000,\"payload_mbps\":9258}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":2,\"rail\":32,\"status\":\"timeout\"}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":2,\"rail_b\":1,\"status\":\"timeout\"}",
	};
	const char *report = "{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"a\"}\n"
		"{\"mesh\":\"rail\",\"rank\":0,\"rail\":0,\"dev\":\"rxe0\",\"port\":1,\"gid_index\":1,"
		"\"addr\":\"192.0.2.1\",\"link_layer\":\"Ethernet\",\"state\":\"ACTIVE\",\"lanes\":1,"
		"\"mtu\":1024,\"speed_mbps\":10000,\"payload_mbps\":9258}\n"
		"{\"mesh\":\"rail\",\"rank\":0,\"rail\":0,\"dev\":\"rxe1\",\"port\":1,\"gid_index\":1,"
		"\"addr\":\"192.0.2.2\",\"link_layer\":\"Ethernet\",\"state\":\"ACTIVE\",\"lanes\":1,"
		"\"mtu\":1024,\"speed_mbps\":10000,\"payload_mbps\":9258}\n";
	struct rt_meshmsg m;
	struct rt_error err;
	struct rt_json j;
	struct rt_mesh_agg g;
	FILE *f;

	(void)state;
	rt_json_init(&j);
	rt_mesh_line_rail(&j, 5, &rail);
	assert_string_equal(rt_json_text(&j), "{\"mesh\":\"rail\",\"rank\":5,\"rail\":3,"
			    "\"dev\":\"mlx5_3\",\"port\":1,\"gid_index\":3,\"addr\":\"10.3.0.7\","
			    "\"link_layer\":\"Ethernet\",\"state\":\"DOWN\",\"lanes\":4,\"mtu\":4096,"
			    "\"speed_mbps\":400000,\"payload_mbps\":392149}");
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_int_equal(m.type, RT_MESH_LINE_RAIL);
	assert_int_equal(m.u.hello.rank, 5);
	{ /* field by field: the padding of the literal is unspecified */
		const struct rt_mesh_rail *x = &m.u.hello.rails[0];

		assert_string_equal(x->dev, rail.dev);
		assert_string_equal(x->addr, rail.addr);
		assert_true(x->rail == rail.rail && x->port == rail.port &&
			    x->state == rail.state && x->link == rail.link &&
			    x->lanes == rail.lanes && x->gid_index == rail.gid_index &&
			    x->mtu == rail.mtu && x->speed_mbps == rail.speed_mbps &&
			    x->payload_mbps == rail.payload_mbps);
	}
	rt_json_free(&j);
	rt_json_init(&j);
	rt_mesh_line_result(&j, &r);
	assert_string_equal(rt_json_text(&j), "{\"mesh\":\"result\",\"a\":1,\"b\":3,"
			    "\"rail\":3,\"status\":\"failed\"}");
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_true(m.u.result.a == 1 && m.u.result.b == 3 && m.u.result.rail == 3 &&
		    m.u.result.rail_b == 3 && m.u.result.status == RT_MESH_FAILED);
	rt_json_free(&j);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (parse(bad[i], &m, &err) != -1)
			fail_msg("taken: %s", bad[i]);
	/* rails after the hello, increasing: the second rail 0 is refused */
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	f = fmemopen((void *)report, strlen(report), "r");
	assert_int_equal(rt_mesh_report_read(f, &g, &err), -1);
	assert_non_null(strstr(err.reason, "line 3"));
	assert_non_null(strstr(err.reason, "rail 0 after its rail 0"));
	assert_int_equal(g.nodes[0].nrails, 1);
	fclose(f);
	rt_mesh_agg_free(&g);
}

/* The inventory travels in the lines as in the hello, so that `mesh
 * report` sees what rank 0 saw: written where known, read back, and
 * checked as the binary decoder checks it. */
static void inventory_lines(void **state)
{
	struct rt_meshmsg h = {.type = RT_MESHMSG_HELLO, .u.hello = {.rank = 1, .size = 2,
		.host = "b", .inv = {"6.8.0-45-generic", "50.0"}}};
	struct rt_mesh_rail rail = {.dev = "mlx5_0", .rail = 0, .port = 1, .state = RT_RAIL_ACTIVE,
		.link = RT_RAIL_ETHERNET, .lanes = 4, .mtu = 4096, .addr = "10.0.0.7",
		.fw = "28.39.1002", .driver = "mlx5_core", .pcie_speed = "32.0 GT/s PCIe",
		.pcie_width = "16"};
	static const char *const bad[] = {
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"a\",\"kernel\":1}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"a\",\"kernel\":"
		"\"0123456789012345678901234567890123456789012345678901234567890123\"}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"a\",\"kernels\":\"6\"}",
		"{\"mesh\":\"rail\",\"rank\":0,\"rail\":0,\"dev\":\"rxe0\",\"port\":1,\"gid_index\":1,"
		"\"addr\":\"192.0.2.1\",\"link_layer\":\"Ethernet\",\"state\":\"ACTIVE\",\"lanes\":1,"
		"\"mtu\":1024,\"speed_mbps\":10000,\"payload_mbps\":9258,\"pcie_width\":\"12345678\"}",
	};
	struct rt_meshmsg m;
	struct rt_error err;
	struct rt_json j;

	(void)state;
	rt_json_init(&j);
	rt_mesh_line_hello(&j, &h.u.hello);
	assert_string_equal(rt_json_text(&j), "{\"mesh\":\"hello\",\"rank\":1,\"size\":2,"
			    "\"host\":\"b\",\"kernel\":\"6.8.0-45-generic\",\"rdma_core\":\"50.0\"}");
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_string_equal(m.u.hello.inv.kernel, "6.8.0-45-generic");
	assert_string_equal(m.u.hello.inv.rdma_core, "50.0");
	rt_json_free(&j);
	rt_json_init(&j);
	rt_mesh_line_rail(&j, 1, &rail);
	assert_non_null(strstr(rt_json_text(&j), ",\"fw_ver\":\"28.39.1002\",\"driver\":"
			       "\"mlx5_core\",\"pcie_speed\":\"32.0 GT/s PCIe\",\"pcie_width\":\"16\"}"));
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_string_equal(m.u.hello.rails[0].fw, "28.39.1002");
	assert_string_equal(m.u.hello.rails[0].driver, "mlx5_core");
	assert_string_equal(m.u.hello.rails[0].pcie_speed, "32.0 GT/s PCIe");
	assert_string_equal(m.u.hello.rails[0].pcie_width, "16");
	rt_json_free(&j);
	/* mesh --expect's outcome: the differences and the first, checked or not */
	h.u.hello.inv.expect = 1;
	h.u.hello.inv.expect_diffs = 2;
	strcpy(h.u.hello.inv.expect_first, "rxe0 port 1: rate 10 Gb/s, expected 400");
	rt_json_init(&j);
	rt_mesh_line_hello(&j, &h.u.hello);
	assert_non_null(strstr(rt_json_text(&j), ",\"expect_diffs\":2,\"expect_first\":\"rxe0 "
			       "port 1: rate 10 Gb/s, expected 400\"}"));
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_int_equal(m.u.hello.inv.expect, 1);
	assert_int_equal(m.u.hello.inv.expect_diffs, 2);
	assert_string_equal(m.u.hello.inv.expect_first, "rxe0 port 1: rate 10 Gb/s, expected 400");
	rt_json_free(&j);
	assert_int_equal(parse("{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"a\","
			       "\"expect_diffs\":2}", &m, &err), -1); /* no text */
	assert_int_equal(parse("{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"a\","
			       "\"expect_first\":\"x\"}", &m, &err), -1); /* not checked */
	assert_int_equal(parse("{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"a\","
			       "\"expect_diffs\":0}", &m, &err), 1);
	assert_int_equal(m.u.hello.inv.expect, 1);
	h.u.hello.inv = (struct rt_mesh_inv){"6.8.0-45-generic", "50.0", 0, 0, ""};
	/* unknown inventory is left out, and reads back as "" */
	h.u.hello.inv.kernel[0] = '\0';
	rt_json_init(&j);
	rt_mesh_line_hello(&j, &h.u.hello);
	assert_null(strstr(rt_json_text(&j), "kernel"));
	assert_int_equal(parse(rt_json_text(&j), &m, &err), 1);
	assert_string_equal(m.u.hello.inv.kernel, "");
	rt_json_free(&j);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (parse(bad[i], &m, &err) != -1)
			fail_msg("taken: %s", bad[i]);
}

static void strict_lines(void **state)
{
	static const char *const bad[] = {
		"{",
		"{}",
		"{\"mesh\":\"hello\"}",
		"{\"mesh\":\"bye\",\"rank\":0}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"n1\",\"x\":1}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"n1\",\"payload_mbps\":\"1\"}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"n1\",\"payload_mbps\":2400001}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"payload_mbps\":1}",
		"{\"mesh\":\"hello\",\"rank\":0,\"rank\":1,\"size\":4,\"host\":\"n1\"}",
		"{\"mesh\":\"hello\",\"rank\":4,\"size\":4,\"host\":\"n1\"}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":0,\"host\":\"n1\"}",
		"{\"mesh\":\"hello\",\"rank\":-1,\"size\":4,\"host\":\"n1\"}",
		"{\"mesh\":\"hello\",\"rank\":01,\"size\":4,\"host\":\"n1\"}",
		"{\"mesh\":\"hello\",\"rank\":1.5,\"size\":4,\"host\":\"n1\"}",
		"{\"mesh\":\"hello\",\"rank\":\"1\",\"size\":4,\"host\":\"n1\"}",
		"{\"mesh\":\"hello\",\"rank\":4294967296,\"size\":4,\"host\":\"n1\"}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"a b\"}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"a\\\"b\"}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"\"}",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"n1\"} trailing",
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"n1\"",
		"{\"mesh\":\"hello\",\"rank\":0,,\"size\":4,\"host\":\"n1\"}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":0,\"status\":\"failed\"}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"fine\"}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\"}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"failed\",\"connect_ns\":5}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":5,\"rtt_p50_ns\":5}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":5,\"rtt_p50_ns\":9,\"rtt_p99_ns\":5}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":99999999999999999999}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":18446744073709551616}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"timeout\",\"mbps\":1}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"timeout\",\"mbps\":1,\"mbps_rev\":1}",
		/* one direction alone, or a direction twice */
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":5,\"mbps\":1}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":5,\"mbps_rev\":1}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":5,\"mbps\":1,\"mbps\":1}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":5,\"mbps\":1,\"mbps_rev\":\"1\"}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":5,\"mbps\":1,\"mbps_back\":1}",
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"a\":0,\"b\":1,\"a\":0,\"b\":1,\"a\":0,\"b\":1,\"a\":0,\"b\":1,\"a\":0,\"b\":1,\"a\":0}",
	};
	struct rt_meshmsg m;
	struct rt_error err;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse(bad[i], &m, &err) != -1)
			fail_msg("taken: %s", bad[i]);
		assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	}
}

static FILE *text_file(const char *text)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	fputs(text, f);
	rewind(f);
	return f;
}

/* The lines of a 3-rank run as srun --label would collect them, merged
 * into one judged document. */
static void report_merges_ranks(void **state)
{
	static const char text[] =
		"1: {\"mesh\":\"hello\",\"rank\":1,\"size\":3,\"host\":\"n2\",\"payload_mbps\":392149}\n"
		"0: {\"mesh\":\"hello\",\"rank\":0,\"size\":3,\"host\":\"n1\",\"payload_mbps\":98037}\n"
		"srun: error: n3: task 2: Exited with exit code 3\n"
		"0: {\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":70000,\"rtt_p50_ns\":9000,\"rtt_p99_ns\":12000,\"mbps\":97000,\"mbps_rev\":96000}\n"
		"1: {\"mesh\":\"result\",\"a\":1,\"b\":2,\"status\":\"absent\"}\n";
	struct rt_mesh_limits lim = {.rtt_factor = 2.1, .bw_fraction = 0.93,
				     .min_line_rate = 0.99};
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	struct rt_json j;
	FILE *f = text_file(text);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	assert_int_equal(rt_mesh_report_read(f, &g, &err), 0);
	fclose(f);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.nres, 2);
	assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
	rt_json_init(&j);
	rt_mesh_document(&j, &g, &lim, NULL);
	assert_valid_json(rt_json_text(&j));
	assert_non_null(strstr(rt_json_text(&j), "\"absent\":[2]"));
	assert_non_null(strstr(rt_json_text(&j), "\"verdict\":\"NOT READY\""));
	assert_non_null(strstr(rt_json_text(&j), "\"rtt_us\":[[null,9,null],[9,null,null],[null,null,null]]"));
	assert_non_null(strstr(rt_json_text(&j), "\"host\":\"n2\""));
	/* both directions: in the pair, and row a column b of the matrix */
	assert_non_null(strstr(rt_json_text(&j), "\"gbps\":97,\"gbps_rev\":96,"));
	assert_non_null(strstr(rt_json_text(&j), "\"gbps\":[[null,97,null],[96,null,null],[null,null,null]]"));
	assert_non_null(strstr(rt_json_text(&j), "\"median_gbps\":96,"));
	/* each rank's payload rate from its hello, and the line-rate verdict:
	 * 96 Gb/s < 0.99 x 98.037 (n1, a 100G RoCE port at MTU 4096) */
	assert_non_null(strstr(rt_json_text(&j), "\"bad\":1,\"payload_gbps\":98.037,\"kernel\":null,"
			       "\"rdma_core\":null,\"expect\":null,\"rails\":[]}"));
	assert_non_null(strstr(rt_json_text(&j), "\"bad\":0,\"payload_gbps\":null,\"kernel\":null,"
			       "\"rdma_core\":null,\"expect\":null,\"rails\":[]}"));
	assert_non_null(strstr(rt_json_text(&j), "\"why\":[\"line-rate\"]"));
	assert_non_null(strstr(rt_json_text(&j), "\"min_line_rate\":0.99,"));
	rt_json_free(&j);
	rt_mesh_agg_free(&g);
}

/* Rank 0's evidence lines as its writers make them, read back: the
 * flaky link with its first figures and reasons, the paired host with
 * its partners; a result's round; refused: a flaky line without reasons,
 * a blame line naming its own host. */
static void evidence_lines_round_trip(void **state)
{
	struct rt_mesh_link first = {.why = RT_LINK_RTT_ABS | RT_LINK_BW_REL,
		.r = {.a = 1, .b = 2, .status = RT_MESH_OK,
		      .flags = RT_MESH_HAS_RTT | RT_MESH_HAS_BW, .connect_ns = 5,
		      .rtt_p50_ns = 90000, .rtt_p99_ns = 91000, .mbps = 10, .mbps_rev = 20}};
	struct rt_mesh_blame_end e = {.rank = 2, .partner = {0, 3}, .np = 2};
	struct rt_mesh_result r = {.round = 9, .a = 0, .b = 3, .status = RT_MESH_FAILED};
	char text[2048];
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	struct rt_json j[3];
	FILE *f;

	(void)state;
	for (int k = 0; k < 3; k++)
		rt_json_init(&j[k]);
	rt_mesh_line_flaky(&j[0], &first);
	rt_mesh_line_blame(&j[1], &e);
	rt_mesh_line_result(&j[2], &r);
	for (int k = 0; k < 3; k++)
		rt_json_finish(&j[k]);
	assert_string_equal(rt_json_text(&j[1]), "{\"mesh\":\"blame\",\"rank\":2,\"p1\":0,\"p2\":3}");
	assert_non_null(strstr(rt_json_text(&j[2]), "\"round\":9}"));
	snprintf(text, sizeof(text), "{\"mesh\":\"hello\",\"rank\":0,\"size\":4,\"host\":\"a\"}\n"
		 "0: %s\n0: %s\n%s\n", rt_json_text(&j[0]), rt_json_text(&j[1]), rt_json_text(&j[2]));
	f = text_file(text);
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	assert_int_equal(rt_mesh_report_read(f, &g, &err), 0);
	fclose(f);
	assert_int_equal(g.blame.nre, 1);
	assert_int_equal(g.blame.re[0].state, RT_RETEST_FLAKY);
	assert_int_equal(g.blame.re[0].first.why, RT_LINK_RTT_ABS | RT_LINK_BW_REL);
	assert_int_equal(g.blame.re[0].first.r.rtt_p50_ns, 90000);
	assert_int_equal(g.blame.re[0].first.r.mbps_rev, 20);
	assert_int_equal(g.blame.nends, 1);
	assert_int_equal(g.blame.ends[0].partner[1], 3);
	assert_int_equal(g.nres, 1);
	rt_mesh_agg_free(&g);
	for (int k = 0; k < 3; k++)
		rt_json_free(&j[k]);
	f = text_file("{\"mesh\":\"flaky\",\"a\":1,\"b\":2,\"status\":\"failed\"}\n");
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	assert_int_equal(rt_mesh_report_read(f, &g, &err), -1);
	fclose(f);
	rt_mesh_agg_free(&g);
	f = text_file("{\"mesh\":\"blame\",\"rank\":2,\"p1\":2}\n");
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	assert_int_equal(rt_mesh_report_read(f, &g, &err), -1);
	fclose(f);
	rt_mesh_agg_free(&g);
}

/* A run stopped at rank 0 says so in its document: its verdict is
 * "interrupted", even when what came was all healthy. */
static void interrupted_run_is_not_ready(void **state)
{
	static const char text[] =
		"{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"n1\"}\n"
		"{\"mesh\":\"hello\",\"rank\":1,\"size\":2,\"host\":\"n2\"}\n"
		"{\"mesh\":\"result\",\"a\":0,\"b\":1,\"status\":\"ok\",\"connect_ns\":70000,\"rtt_p50_ns\":9000,\"rtt_p99_ns\":12000}\n";
	struct rt_mesh_limits lim = {0};
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	struct rt_json j;
	FILE *f = text_file(text);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	assert_int_equal(rt_mesh_report_read(f, &g, &err), 0);
	fclose(f);
	g.interrupted = true;
	rt_mesh_agg_refuse(&g, "192.0.2.9:4000", 1, "rank 1 is taken");
	assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
	assert_false(g.ready);
	rt_json_init(&j);
	rt_mesh_document(&j, &g, &lim, NULL);
	assert_valid_json(rt_json_text(&j));
	assert_non_null(strstr(rt_json_text(&j), "\"interrupted\":true"));
	assert_non_null(strstr(rt_json_text(&j), "\"verdict\":\"interrupted\""));
	assert_non_null(strstr(rt_json_text(&j), "\"refused_peers\":1,\"refused\":[{\"addr\":"
			       "\"192.0.2.9:4000\",\"rank\":1,\"reason\":\"rank 1 is taken\"}]"));
	rt_json_free(&j);
	rt_mesh_agg_free(&g);
}

static void report_errors_name_the_line(void **state)
{
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *longline = rt_xmalloc(RT_MESH_LINE_MAX + 100);
	FILE *f;

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	f = text_file("ok\n{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"n1\"}\n{\"mesh\":1}\n");
	assert_int_equal(rt_mesh_report_read(f, &g, &err), -1);
	fclose(f);
	assert_non_null(strstr(err.reason, "line 3"));
	rt_mesh_agg_free(&g);

	memset(longline, 'x', RT_MESH_LINE_MAX + 98);
	longline[RT_MESH_LINE_MAX + 98] = '\n';
	longline[RT_MESH_LINE_MAX + 99] = '\0';
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	f = text_file(longline);
	assert_int_equal(rt_mesh_report_read(f, &g, &err), -1);
	fclose(f);
	assert_non_null(strstr(err.reason, "line 1 is longer than 1024"));
	rt_mesh_agg_free(&g);
	free(longline);

	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_agg_init(&g, 0, 0, &err), 0);
	f = text_file("{\"mesh\":\"hello\",\"rank\":0,\"size\":2,\"host\":\"n1\"}\n"
		      "{\"mesh\":\"hello\",\"rank\":1,\"size\":3,\"host\":\"n2\"}\n");
	assert_int_equal(rt_mesh_report_read(f, &g, &err), -1);
	fclose(f);
	assert_non_null(strstr(err.reason, "line 2: mesh hello from rank 1 of 3"));
	rt_mesh_agg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_round_trip),
		cmocka_unit_test(prefixes_and_other_lines),
		cmocka_unit_test(strict_lines),
		cmocka_unit_test(rail_lines),
		cmocka_unit_test(inventory_lines),
		cmocka_unit_test(report_merges_ranks),
		cmocka_unit_test(interrupted_run_is_not_ready),
		cmocka_unit_test(report_errors_name_the_line),
		cmocka_unit_test(evidence_lines_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
