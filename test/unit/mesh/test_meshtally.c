/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A pattern's per-round figures (meshtally.h): results of counted rounds
 * add up both directions, failed ones and those without figures count as
 * failed, re-tests numbered past the counted rounds do not count, the
 * worst round is the one with the least bandwidth, and the summary and
 * the document say so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshtally.h"
#include "rdmatest/json.h"

static struct rt_mesh_result ok(uint32_t round, uint64_t fwd, uint64_t rev)
{
	return (struct rt_mesh_result){ .round = round, .a = 0, .b = 1, .status = RT_MESH_OK,
					.flags = RT_MESH_HAS_BW, .mbps = fwd, .mbps_rev = rev };
}

static void add(struct rt_mesh_tally *t, struct rt_mesh_result r)
{
	rt_mesh_tally_add(t, &r);
}

static void rounds_add_up(void **state)
{
	static struct rt_mesh_tally t = { .pattern = "bisection", .rounds = 3, .run = 3,
					  .hosts = 4 };
	struct rt_mesh_result failed = ok(1, 0, 0), no_bw = ok(2, 0, 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add(&t, ok(0, 10000, 9000));
	add(&t, ok(0, 8000, 8000));
	add(&t, ok(1, 1000, 2000));
	failed.status = RT_MESH_FAILED;
	rt_mesh_tally_add(&t, &failed);
	add(&t, ok(2, 9000, 9000));
	no_bw.flags = 0;
	rt_mesh_tally_add(&t, &no_bw);
	add(&t, ok(7, 1, 1)); /* a re-test */
	assert_int_equal(t.r[0].mbps, 35000);
	assert_int_equal(t.r[0].pairs, 2);
	assert_int_equal(t.r[1].mbps, 3000);
	assert_int_equal(t.r[1].failed, 1);
	assert_int_equal(t.r[2].failed, 1);
	assert_int_equal(t.r[2].pairs, 2);
	assert_int_equal(rt_mesh_tally_worst(&t), 1);

	f = open_memstream(&text, &len);
	rt_mesh_tally_text(&t, f);
	fclose(f);
	assert_non_null(strstr(text, "bisection: 3 rounds"));
	assert_non_null(strstr(text, "3 Gb/s in the worst (round 1, 2 pairs, 1 failed; "
				     "0.75 Gb/s a host), 35 in the best"));
	free(text);
}

static void document(void **state)
{
	static struct rt_mesh_tally t = { .pattern = "bisection", .rounds = 2, .run = 5,
					  .hosts = 2 };
	struct rt_json j;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	add(&t, ok(0, 500, 500));
	add(&t, ok(1, 2000, 0));
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_mesh_tally_json(&t, &j);
	rt_json_object_end(&j);
	rt_json_finish(&j);
	assert_string_equal(rt_json_text(&j),
		"{\"pattern\":{\"name\":\"bisection\",\"rounds_run\":5,\"rounds\":["
		"{\"round\":0,\"pairs\":1,\"failed\":0,\"gbps\":1},"
		"{\"round\":1,\"pairs\":1,\"failed\":0,\"gbps\":2}],"
		"\"worst_round\":0,\"worst_gbps\":1,\"worst_gbps_per_host\":0.5}}");
	rt_json_free(&j);
	/* more rounds ran than were counted: said */
	f = open_memstream(&text, &len);
	rt_mesh_tally_text(&t, f);
	fclose(f);
	assert_non_null(strstr(text, "the first 2 of 5 rounds counted"));
	free(text);
}

static void nothing_measured(void **state)
{
	static struct rt_mesh_tally t = { .pattern = "bisection", .rounds = 2, .run = 2 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(rt_mesh_tally_worst(&t), -1);
	rt_mesh_tally_text(&t, f);
	fclose(f);
	assert_string_equal(text, "bisection: no round carried bandwidth\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rounds_add_up),
		cmocka_unit_test(document),
		cmocka_unit_test(nothing_measured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
