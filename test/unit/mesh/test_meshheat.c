/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshheat.h"

/* 4 ranks, rank 3 absent: 0-1 and 1-2 measured, 0-2 failed. */
static void cluster(struct rt_mesh_agg *g, const struct rt_mesh_limits *lim, uint64_t rtt12)
{
	struct rt_error err = { 0 };
	const struct rt_mesh_result res[] = {
		{ .a = 0, .b = 1, .status = RT_MESH_OK, .flags = RT_MESH_HAS_RTT,
		  .connect_ns = 1000, .rtt_p50_ns = 9000, .rtt_p99_ns = 9500 },
		{ .a = 1, .b = 2, .status = RT_MESH_OK, .flags = RT_MESH_HAS_RTT,
		  .connect_ns = 1000, .rtt_p50_ns = rtt12, .rtt_p99_ns = rtt12 + 500 },
		{ .a = 0, .b = 2, .status = RT_MESH_FAILED },
	};

	assert_int_equal(rt_mesh_agg_init(g, 4, 0, &err), 0);
	for (uint32_t i = 0; i < 3; i++) {
		struct rt_mesh_hello h = { .rank = i, .size = 4, .port = 1 };

		snprintf(h.host, sizeof(h.host), "n%u", i);
		assert_int_equal(rt_mesh_agg_hello(g, &h, &err), 0);
	}
	for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++)
		assert_int_equal(rt_mesh_agg_add(g, &res[i], &err), 0);
	assert_int_equal(rt_mesh_judge(g, lim, &err), 0);
}

static void colours_say_what_happened(void **state)
{
	struct rt_mesh_limits lim = { 0 };
	struct rt_mesh_agg g;

	(void)state;
	cluster(&g, &lim, 9000);
	assert_int_equal(rt_mesh_heat_colour(&g, 1, 1), 0xffffffu);  /* diagonal */
	assert_int_equal(rt_mesh_heat_colour(&g, 0, 1), 0x20a040u);  /* at the median */
	assert_int_equal(rt_mesh_heat_colour(&g, 1, 0), 0x20a040u);  /* symmetric */
	assert_int_equal(rt_mesh_heat_colour(&g, 2, 0), 0x000000u);  /* failed */
	assert_int_equal(rt_mesh_heat_colour(&g, 3, 1), 0xc8c8c8u);  /* absent */
	rt_mesh_agg_free(&g);
	/* above an absolute ceiling: red */
	lim.max_rtt_us = 5;
	cluster(&g, &lim, 9000);
	assert_int_equal(rt_mesh_heat_colour(&g, 0, 1), 0xd02020u);
	rt_mesh_agg_free(&g);
}

/* A slower link shades towards yellow, fully at twice the median. */
static void slower_is_yellower(void **state)
{
	struct rt_mesh_limits lim = { 0 };
	struct rt_mesh_agg g;
	uint32_t c;

	(void)state;
	cluster(&g, &lim, 100000);
	c = rt_mesh_heat_colour(&g, 1, 2);
	if (g.median_rtt_us * 2 <= 100.0)
		assert_int_equal(c, 0xe8c800u);
	assert_int_not_equal(c, 0x20a040u);
	assert_int_equal(rt_mesh_heat_colour(&g, 0, 1), 0x20a040u);
	rt_mesh_agg_free(&g);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* 4 ranks: squares of 128 pixels, a 512 x 512 PNG. */
static void png_of_the_matrix(void **state)
{
	struct rt_mesh_limits lim = { 0 };
	struct rt_mesh_agg g;
	struct rt_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	cluster(&g, &lim, 9000);
	assert_int_equal(rt_mesh_heatmap(f, &g, &err), 0);
	fclose(f);
	assert_true(len > 512u * 512u * 3u);
	assert_memory_equal(buf + 12, "IHDR", 4);
	assert_int_equal(rd32((const uint8_t *)buf + 16), 512);
	assert_int_equal(rd32((const uint8_t *)buf + 20), 512);
	free(buf);
	rt_mesh_agg_free(&g);
}

/* Two rails: one matrix a rail, side by side with a gap (1032 x 512),
 * each rail shaded against its own median: rail 1's 40 us is green
 * there, though four times rail 0's. */
static void rail_major(void **state)
{
	struct rt_mesh_limits lim = { 0 };
	struct rt_mesh_agg g;
	struct rt_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 4, 0, &err), 0);
	for (uint32_t i = 0; i < 4; i++) {
		struct rt_mesh_hello h = { .rank = i, .size = 4, .port = 1 };

		snprintf(h.host, sizeof(h.host), "n%u", i);
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	for (uint8_t rail = 0; rail < 2; rail++)
		for (uint32_t a = 0; a < 4; a++)
			for (uint32_t b = a + 1; b < 4; b++) {
				uint64_t rtt = rail ? 40000 : 10000;
				struct rt_mesh_result r = { .a = a, .b = b, .status = RT_MESH_OK,
					.flags = RT_MESH_HAS_RTT, .rail = rail, .rail_b = rail,
					.rtt_p50_ns = rtt, .rtt_p99_ns = rtt };

				if (rail && a == 0 && b == 3)
					r = (struct rt_mesh_result){ .a = 0, .b = 3, .rail = 1, .rail_b = 1,
								     .status = RT_MESH_FAILED };
				assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
			}
	assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
	assert_int_equal(rt_mesh_heat_colour_rail(&g, 0, 1, 1), 0x20a040u);
	assert_int_equal(rt_mesh_heat_colour_rail(&g, 0, 3, 1), 0x000000u);
	assert_int_equal(rt_mesh_heat_colour_rail(&g, 0, 3, 0), 0x20a040u);
	assert_int_equal(rt_mesh_heatmap(f, &g, &err), 0);
	fclose(f);
	assert_int_equal(rd32((const uint8_t *)buf + 16), 2 * 512 + RT_HEAT_GAP);
	assert_int_equal(rd32((const uint8_t *)buf + 20), 512);
	free(buf);
	rt_mesh_agg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(colours_say_what_happened),
		cmocka_unit_test(slower_is_yellower),
		cmocka_unit_test(png_of_the_matrix),
		cmocka_unit_test(rail_major),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
