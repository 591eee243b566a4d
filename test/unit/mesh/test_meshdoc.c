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
#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

static void assert_valid_json(const char *text)
{
	const char *why = fuzz_json_invalid(text, strlen(text));

	if (why)
		fail_msg("invalid JSON (%s): %.200s", why, text);
}

/* A document is valid JSON whatever the results: failed, absent,
 * unmeasured, bad nodes, outliers; without the matrix above its cap. */
static void document_always_valid(void **state)
{
	struct rt_mesh_limits lim = {.min_gbps = 50, .max_rtt_us = 30,
				     .rtt_factor = 2.1, .bw_fraction = 0.93};
	uint32_t sizes[] = {2, 5, RT_MESH_MATRIX_MAX + 1};

	(void)state;
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		uint32_t n = sizes[s];
		struct rt_mesh_agg g;
		struct rt_error err = {0};
		struct rt_json j;
		uint64_t x = 3;

		assert_int_equal(rt_mesh_agg_init(&g, n, 0, &err), 0);
		for (uint32_t i = 1; i < n; i++) {
			struct rt_mesh_hello h = {.rank = i, .size = n};

			snprintf(h.host, sizeof(h.host), "h%u", i);
			assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
		}
		for (uint32_t i = 0; i < n; i++) {
			struct rt_mesh_result r = {.a = i, .b = (i + 1) % n};

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			r.status = (uint8_t)(x % 4 == 3 ? RT_MESH_FAILED : RT_MESH_OK);
			if (r.status == RT_MESH_OK) {
				r.flags = (uint8_t)(x >> 8 & 3);
				r.connect_ns = x >> 40;
				r.rtt_p50_ns = x >> 50;
				r.rtt_p99_ns = r.rtt_p50_ns + (x >> 52);
				r.mbps = x >> 44;
				r.mbps_rev = x >> 45;
			}
			if (i == 1) { /* a congestion counter at b, its packets unknown */
				r.flags |= RT_MESH_HAS_CTR;
				r.ctr.n = 1;
				r.ctr.e[0] = (struct rt_mesh_ctr){
					(uint8_t)rt_portctr_id("np_ecn_marked_roce_packets"),
					RT_MESH_END_B, 42};
			}
			assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
		}
		assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
		rt_json_init(&j);
		rt_mesh_document(&j, &g, &lim, NULL);
		assert_valid_json(rt_json_text(&j));
		assert_non_null(strstr(rt_json_text(&j), "\"host\":null"));
		assert_non_null(strstr(rt_json_text(&j), "\"congestion\":[{\"counter\":"
				       "\"np_ecn_marked_roce_packets\",\"rank\":"));
		assert_non_null(strstr(rt_json_text(&j), "\"rise\":42,\"per_million_sent\":null,"
				       "\"ends\":1,\"total\":42}]"));
		assert_int_equal(strstr(rt_json_text(&j), "\"matrix\":null") != NULL,
				 n > RT_MESH_MATRIX_MAX);
		rt_json_free(&j);
		rt_mesh_agg_free(&g);
	}
}

/* The document streamed to a file as it is built is the document held
 * whole, byte for byte, one valid JSON value, on either storage of the
 * results (meshagg.h), well past one piece (64 KiB). */
static void document_streamed_is_the_same(void **state)
{
	struct rt_mesh_limits lim = {.rtt_factor = 2.1, .bw_fraction = 0.93};
	uint32_t n = 50;

	(void)state;
	for (int dense = 0; dense < 2; dense++) {
		struct rt_mesh_agg g;
		struct rt_error err = {0};
		struct rt_json whole, piece;
		char *text = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&text, &size);

		assert_int_equal(rt_mesh_agg_init(&g, n, 0, &err), 0);
		if (dense)
			rt_mesh_agg_plan(&g, (uint64_t)n * (n - 1) / 2);
		assert_int_equal(g.dense != NULL, dense);
		for (uint32_t i = 0; i < n; i++) {
			struct rt_mesh_hello h = {.rank = i, .size = n};

			snprintf(h.host, sizeof(h.host), "h%u", i);
			assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
		}
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = a + 1; b < n; b++) {
				struct rt_mesh_result r = {.a = b, .b = a, .status = RT_MESH_OK,
					.flags = RT_MESH_HAS_RTT | RT_MESH_HAS_BW,
					.connect_ns = 70000 + a * b, .rtt_p50_ns = 9000 + (a ^ b),
					.rtt_p99_ns = 12000 + a, .mbps = 97000 - a, .mbps_rev = 96000 + b};

				if ((a * 7 + b) % 31 == 0)
					r = (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_FAILED};
				assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
			}
		assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
		rt_json_init(&whole);
		rt_mesh_document(&whole, &g, &lim, NULL);
		rt_json_init(&piece);
		rt_mesh_document(&piece, &g, &lim, f);
		assert_true(piece.flushed > 0);
		assert_true(piece.len < whole.len / 2); /* most went out already */
		rt_json_finish(&piece);
		assert_int_equal(rt_json_flush(&piece, f), 0);
		fclose(f);
		assert_true(size > 128u << 10);
		assert_int_equal(size, whole.len);
		assert_string_equal(text, rt_json_text(&whole));
		assert_valid_json(text);
		assert_non_null(strstr(text, "\"bad_links\":[[0,31],"));
		free(text);
		rt_json_free(&whole);
		rt_json_free(&piece);
		rt_mesh_agg_free(&g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(document_always_valid),
		cmocka_unit_test(document_streamed_is_the_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
