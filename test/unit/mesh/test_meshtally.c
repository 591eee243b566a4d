/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A pattern's per-round figures (meshtally.h): results of counted rounds
 * add up both directions, failed ones and those without figures count as
 * failed, re-tests numbered past the counted rounds do not count, the
 * worst round is the one with the least bandwidth, and the summary and
 * the document say so. Incast's receiver table: a receiver's aggregate
 * rate is the sum of its senders', the worst receiver has the least (all
 * failed: 0), the least fair sender has the smallest share of its
 * receiver's rate, and re-tests are not counted there either. */
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
	assert_non_null(strstr(text, "bisection: 3 rounds, every pair of a round at once in "
				     "both directions: "));
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

/* An incast result: receiver a, sender b, b's write rate in, its read back. */
static struct rt_mesh_result in(uint32_t round, uint32_t a, uint32_t b, uint64_t rev,
				uint64_t fwd)
{
	struct rt_mesh_result r = ok(round, fwd, rev);

	r.a = a;
	r.b = b;
	return r;
}

static char *text_of(const struct rt_mesh_tally *t, rt_mesh_tally_name_fn *name,
		     const void *ctx)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	rt_mesh_tally_text_named(t, f, name, ctx);
	fclose(f);
	return text;
}

static char *json_of(const struct rt_mesh_tally *t)
{
	struct rt_json j;
	char *text;

	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_mesh_tally_json(t, &j);
	rt_json_object_end(&j);
	rt_json_finish(&j);
	text = strdup(rt_json_text(&j));
	rt_json_free(&j);
	return text;
}

static const char *host(const void *ctx, uint32_t rank)
{
	return ((const char *const *)ctx)[rank];
}

/* 4 hosts, 3 senders a receiver: rank 1 receives slowly, rank 2's sender
 * 3 gets a fifth of an even share, one of rank 3's senders fails, and a
 * re-test that would lift rank 1 above rank 3 comes after the run. */
static struct rt_mesh_tally *four_hosts(void)
{
	struct rt_mesh_tally *t = rt_mesh_tally_new("incast", 4, 4, 3);
	struct rt_mesh_result r;

	for (uint32_t b = 1; b < 4; b++)
		add(t, in(0, 0, b, 10000, 9000));
	for (uint32_t b = 0; b < 4; b++)
		if (b != 1)
			add(t, in(1, 1, b, 2000, 3000));
	r = in(2, 2, 0, 14000, 4000);
	r.rail = 1;
	add(t, r);
	r.b = 1;
	add(t, r);
	r.b = 3;
	r.mbps_rev = 2000;
	add(t, r);
	add(t, in(3, 3, 0, 10000, 10000));
	add(t, in(3, 3, 1, 10000, 10000));
	r = in(3, 3, 2, 0, 0);
	r.status = RT_MESH_FAILED;
	add(t, r);
	add(t, in(4, 1, 0, 50000, 50000)); /* the blame pass's */
	rt_mesh_tally_line(t, 1, 100000);
	return t;
}

static void incast_receivers(void **state)
{
	struct rt_mesh_tally *t = four_hosts();
	struct rt_mesh_tally_unfair u;

	(void)state;
	assert_non_null(t->recv);
	assert_int_equal(t->recv[0].in_mbps, 30000);
	assert_int_equal(t->recv[0].out_mbps, 27000);
	assert_int_equal(t->recv[1].in_mbps, 6000);
	assert_int_equal(t->recv[1].results, 3);
	assert_int_equal(t->recv[1].line_mbps, 100000);
	assert_int_equal(t->recv[2].slow_rank, 3);
	assert_int_equal(t->recv[2].slow_rail, 1);
	assert_int_equal(t->recv[2].slow_mbps, 2000);
	assert_int_equal(t->recv[3].results, 3);
	assert_int_equal(t->recv[3].failed, 1);
	assert_int_equal(t->recv[3].in_mbps, 20000);
	assert_int_equal(rt_mesh_tally_worst_receiver(t), 1);
	assert_true(rt_mesh_tally_unfair(t, &u));
	assert_int_equal(u.sender, 3);
	assert_int_equal(u.receiver, 2);
	assert_int_equal(u.rail, 1);
	assert_true(u.share > 0.1999 && u.share < 0.2001);
	/* the per-round table as before: round 4 is not one of it */
	assert_int_equal(t->r[1].mbps, 15000);
	assert_int_equal(t->r[3].failed, 1);
	rt_mesh_tally_free(t);
}

/* A receiver whose link is slow out of it (its senders' reads) but not
 * into it is the worst as much as one slow in: its slower direction. */
static void incast_worst_by_slower_direction(void **state)
{
	struct rt_mesh_tally *t = rt_mesh_tally_new("incast", 3, 2, 2);

	(void)state;
	add(t, in(0, 0, 1, 10000, 10000));
	add(t, in(0, 0, 2, 10000, 10000));
	add(t, in(1, 1, 0, 30000, 300));
	add(t, in(1, 1, 2, 30000, 200));
	assert_int_equal(t->recv[1].in_mbps, 60000);
	assert_int_equal(t->recv[1].out_mbps, 500);
	assert_int_equal(rt_mesh_tally_worst_receiver(t), 1);
	rt_mesh_tally_free(t);
}

static void incast_text(void **state)
{
	static const char *const names[] = { "h0", "h1", "h2", "h3" };
	struct rt_mesh_tally *t = four_hosts();
	char *text = text_of(t, host, names);

	(void)state;
	assert_non_null(strstr(text, "incast: 4 rounds, every group of a round at once, its "
				     "writes then its reads: "));
	assert_null(strstr(text, "both directions"));
	assert_non_null(strstr(text, "incast: 4 receivers, 3 senders each at once: worst "
				     "receiver rank 1 (h1) 6 Gb/s in (of 100 line) from 3 "
				     "senders (0 failed), best 30; out 9\n"));
	assert_non_null(strstr(text, "incast: least fair sender rank 3 (h3) into rank 2 (h2) "
				     "rail 1: 20% of an even share (2 of 30 Gb/s in)\n"));
	free(text);
	/* without names, ranks alone */
	text = text_of(t, NULL, NULL);
	assert_non_null(strstr(text, "worst receiver rank 1 6 Gb/s in"));
	assert_non_null(strstr(text, "least fair sender rank 3 into rank 2 rail 1"));
	free(text);
	rt_mesh_tally_free(t);
}

static void incast_document(void **state)
{
	struct rt_mesh_tally *t = four_hosts();
	char *text = json_of(t);

	(void)state;
	assert_non_null(strstr(text, "{\"pattern\":{\"name\":\"incast\",\"rounds_run\":4,"));
	assert_non_null(strstr(text, "\"fan_in\":3,\"receivers\":[{\"rank\":0,"));
	assert_non_null(strstr(text,
		"{\"rank\":1,\"senders\":3,\"failed\":0,\"in_gbps\":6,\"out_gbps\":9,"
		"\"line_gbps\":100,\"slowest_sender\":{\"rank\":0,\"rail\":0,\"gbps\":2}}"));
	assert_non_null(strstr(text,
		"{\"rank\":3,\"senders\":3,\"failed\":1,\"in_gbps\":20,\"out_gbps\":20,"
		"\"line_gbps\":null,\"slowest_sender\":{\"rank\":0,\"rail\":0,\"gbps\":10}}],"));
	assert_non_null(strstr(text, "\"worst_receiver\":1,\"unfair_sender\":{\"rank\":3,"
				     "\"receiver\":2,\"rail\":1,\"share\":0.2}}}"));
	free(text);
	rt_mesh_tally_free(t);
}

/* A receiver whose every result failed received nothing: the worst. One
 * that had no turn is not a receiver; no receiver with two OK results:
 * no share to judge. */
static void incast_all_failed(void **state)
{
	struct rt_mesh_tally *t = rt_mesh_tally_new("incast", 3, 2, 2);
	struct rt_mesh_result r = in(0, 0, 2, 0, 0);
	char *text;

	(void)state;
	add(t, in(0, 0, 1, 1000, 1000));
	r.status = RT_MESH_TIMEOUT;
	add(t, r);
	r.round = r.a = 1;
	add(t, r);
	r = in(1, 1, 0, 5000, 5000);
	r.flags = 0; /* OK without figures: failed */
	add(t, r);
	rt_mesh_tally_line(t, 7, 100000); /* no such rank: nothing */
	assert_int_equal(rt_mesh_tally_worst_receiver(t), 1);
	text = text_of(t, NULL, NULL);
	assert_non_null(strstr(text, "incast: 2 receivers, 2 senders each at once: worst "
				     "receiver rank 1 0 Gb/s in from 2 senders (2 failed), "
				     "best 1; out 0\n"));
	assert_non_null(strstr(text, "incast: no receiver had figures from two senders"));
	free(text);
	text = json_of(t);
	assert_non_null(strstr(text,
		"\"fan_in\":2,\"receivers\":["
		"{\"rank\":0,\"senders\":2,\"failed\":1,\"in_gbps\":1,\"out_gbps\":1,"
		"\"line_gbps\":null,\"slowest_sender\":{\"rank\":1,\"rail\":0,\"gbps\":1}},"
		"{\"rank\":1,\"senders\":2,\"failed\":2,\"in_gbps\":0,\"out_gbps\":0,"
		"\"line_gbps\":null,\"slowest_sender\":null}],"
		"\"worst_receiver\":1,\"unfair_sender\":null}}"));
	free(text);
	rt_mesh_tally_free(t);
}

/* Two receivers whose slower directions both count 0 Mbit/s (a link
 * held under 1 Mbit/s one way, and one whose senders all crawled in):
 * the one whose other direction is slower too is the worst, whatever
 * its rank. */
static void incast_worst_tie(void **state)
{
	struct rt_mesh_tally *t = rt_mesh_tally_new("incast", 3, 2, 2);

	(void)state;
	add(t, in(0, 0, 1, 0, 360)); /* rank 0: nothing in, 360 out */
	add(t, in(0, 0, 2, 0, 300));
	add(t, in(1, 2, 0, 5, 0));   /* rank 2: 5 in, nothing out */
	add(t, in(1, 2, 1, 4, 0));
	assert_int_equal(rt_mesh_tally_worst_receiver(t), 2);
	rt_mesh_tally_free(t);
}

/* Bisection's tally from the constructor: no table, nothing new said. */
static void bisection_new(void **state)
{
	struct rt_mesh_tally *t = rt_mesh_tally_new("bisection", 4, 300, 0);
	char *text;

	(void)state;
	assert_null(t->recv);
	assert_int_equal(t->rounds, RT_MESH_TALLY_MAX);
	assert_int_equal(t->run, 300);
	add(t, ok(0, 1000, 1000));
	rt_mesh_tally_line(t, 0, 100000);
	assert_int_equal(rt_mesh_tally_worst_receiver(t), -1);
	text = text_of(t, NULL, NULL);
	assert_null(strstr(text, "receiver"));
	free(text);
	text = json_of(t);
	assert_null(strstr(text, "fan_in"));
	assert_null(strstr(text, "receivers"));
	free(text);
	rt_mesh_tally_free(t);
	rt_mesh_tally_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rounds_add_up),
		cmocka_unit_test(document),
		cmocka_unit_test(nothing_measured),
		cmocka_unit_test(incast_receivers),
		cmocka_unit_test(incast_worst_by_slower_direction),
		cmocka_unit_test(incast_worst_tie),
		cmocka_unit_test(incast_text),
		cmocka_unit_test(incast_document),
		cmocka_unit_test(incast_all_failed),
		cmocka_unit_test(bisection_new),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
