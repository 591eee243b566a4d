/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshtext.h"
#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

static const struct rt_mesh_limits lim = {.max_rtt_us = 40, .rtt_factor = 2.1,
					  .bw_fraction = 0.93};

static struct rt_mesh_result ok(uint32_t a, uint32_t b, double rtt_us, double gbps)
{
	return (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_OK,
		.flags = RT_MESH_HAS_RTT | RT_MESH_HAS_BW, .connect_ns = 1000,
		.rtt_p50_ns = (uint64_t)(rtt_us * 1e3),
		.rtt_p99_ns = (uint64_t)(rtt_us * 1e3), .mbps = (uint64_t)(gbps * 1e3),
		.mbps_rev = (uint64_t)(gbps * 1e3)};
}

/* n ranks, all but `absent` say hello; fn adds the results. */
static char *summary(uint32_t n, uint32_t absent,
		     void (*fn)(struct rt_mesh_agg *g, uint32_t n))
{
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_int_equal(rt_mesh_agg_init(&g, n, 0, &err), 0);
	for (uint32_t i = 0; i < n; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = n};

		snprintf(h.host, sizeof(h.host), "node%u", i);
		if (i != absent)
			assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	fn(&g, n);
	assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
	rt_mesh_summary(f, &g, &lim);
	fclose(f);
	rt_mesh_agg_free(&g);
	return text;
}

static void healthy(struct rt_mesh_agg *g, uint32_t n)
{
	struct rt_error err = {0};

	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++) {
			struct rt_mesh_result r = ok(a, b, 10, 100);

			assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
		}
}

/* node 2 fails every test; the link 0-1 is slow; node 4 is absent */
static void broken(struct rt_mesh_agg *g, uint32_t n)
{
	struct rt_error err = {0};

	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++) {
			struct rt_mesh_result r = ok(a, b, a == 0 && b == 1 ? 50 : 10, 100);

			if (a == 2 || b == 2)
				r = (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_TIMEOUT};
			if (b == 4)
				r = (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_ABSENT};
			assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
		}
}

/* healthy but for 3 to 0, at half the bandwidth */
static void one_way(struct rt_mesh_agg *g, uint32_t n)
{
	struct rt_error err = {0};

	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = a + 1; b < n; b++) {
			struct rt_mesh_result r = ok(a, b, 10, 100);

			if (a == 0 && b == 3)
				r.mbps_rev = 50000;
			assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
		}
}

static void nothing(struct rt_mesh_agg *g, uint32_t n)
{
	(void)g;
	(void)n;
}

/* every link of 60 ranks fails: the lists stop at RT_MESH_TEXT_LIST */
static void all_fail(struct rt_mesh_agg *g, uint32_t n)
{
	struct rt_error err = {0};

	for (uint32_t i = 0; i + 1 < n; i += 2) {
		struct rt_mesh_result r = {.a = i, .b = i + 1, .status = RT_MESH_FAILED};

		assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
	}
}

static void ready_last(void **state)
{
	char *t = summary(4, UINT32_MAX, healthy);

	(void)state;
	assert_string_equal(t, "mesh: 4 ranks, 6 links tested, median RTT 10.0 us, "
			    "median 100.00 Gb/s\nREADY\n");
	free(t);
}

static void names_bad_nodes_and_links(void **state)
{
	char *t = summary(5, 4, broken);

	(void)state;
	assert_non_null(strstr(t, "bad host 2 (node2): 3 of 3 links bad\n"));
	assert_non_null(strstr(t, "absent host 4: never reported\n"));
	assert_non_null(strstr(t, "bad link 0 (node0) - 1 (node1): RTT 50.0 us > 40.0 us; "
			       "RTT 50.0 us > 2.1 x median 10.0 us\n"));
	assert_null(strstr(t, "bad link 0 (node0) - 2")); /* node 2's fault */
	assert_non_null(strstr(t, "\nNOT READY: 1 bad, 0 suspect, 1 absent, 0 untested hosts, 1 bad links, 0 refused peers\n"));
	free(t);
}

/* a link slow one way: the slower direction is judged and named */
static void names_the_slow_direction(void **state)
{
	char *t = summary(4, UINT32_MAX, one_way);

	(void)state;
	assert_non_null(strstr(t, "bad link 0 (node0) - 3 (node3): 50.00 Gb/s 3->0 < 0.93 x "
			       "median 100.00 Gb/s\n"));
	assert_non_null(strstr(t, "\nNOT READY: 0 bad, 0 suspect, 0 absent, 0 untested hosts, 1 bad links, 0 refused peers\n"));
	free(t);
}

/* --min-line-rate: the reason names the measured figure, the line rate
 * and the host whose port sets it (node1: 200G, 196 Gb/s of payload). */
static void names_the_line_rate(void **state)
{
	static const uint32_t pay[] = {392149, 196000, 392149};
	struct rt_mesh_limits lr = {.min_line_rate = 0.9};
	struct rt_mesh_result r[] = {ok(0, 1, 10, 150), ok(0, 2, 10, 390), ok(1, 2, 10, 190)};
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 3, 0, &err), 0);
	for (uint32_t i = 0; i < 3; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 3, .payload_mbps = pay[i]};

		snprintf(h.host, sizeof(h.host), "node%u", i);
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
		assert_int_equal(rt_mesh_agg_add(&g, &r[i], &err), 0);
	}
	assert_int_equal(rt_mesh_judge(&g, &lr, &err), 0);
	rt_mesh_summary(f, &g, &lr);
	fclose(f);
	assert_non_null(strstr(text, "bad link 0 (node0) - 1 (node1): 150.00 Gb/s 0->1 < 0.9 x "
			       "line rate 196.00 Gb/s (the RDMA payload rate of node1's port at "
			       "its MTU)\n"));
	assert_null(strstr(text, "bad link 0 (node0) - 2"));
	assert_null(strstr(text, "bad link 1 (node1) - 2"));
	rt_mesh_agg_free(&g);
	free(text);
}

/* A link bad by its counters: each counter past its limit, its rise, the
 * end whose port counted it and the rate against --max-retrans; a rise
 * within its limit is not named; a congestion counter has its own line. */
static void names_the_counters(void **state)
{
	struct rt_mesh_limits lim = {.max_errors = 0, .max_retrans_ppm = 1000};
	struct rt_mesh_result r = ok(1, 0, 10, 100);
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	r.flags |= RT_MESH_HAS_CTR;
	r.ctr = (struct rt_mesh_ctrs){.sent_known = 3, .sent = {4000, 6000}, .n = 4};
	/* a is rank 1 here: its rises are rank 1's port's */
	r.ctr.e[0] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("symbol_error"), RT_MESH_END_A, 3};
	r.ctr.e[1] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("rcvd_seq_err"), RT_MESH_END_A, 52};
	r.ctr.e[2] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("out_of_seq_request"),
					  RT_MESH_END_B, 5};
	/* a congestion counter: its own line, never a reason */
	r.ctr.e[3] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("np_cnp_sent"), RT_MESH_END_B,
					  3000};
	assert_int_equal(rt_mesh_agg_init(&g, 2, 0, &err), 0);
	for (uint32_t i = 0; i < 2; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 2};

		snprintf(h.host, sizeof(h.host), "node%u", i);
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
	assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
	rt_mesh_summary(f, &g, &lim);
	fclose(f);
	assert_non_null(strstr(text, "bad link 0 (node0) - 1 (node1): symbol_error +3 at 1 "
			       "(node1) > 0; rcvd_seq_err +52 at 1 (node1): 5200 per million "
			       "packets sent > 1000\n"));
	assert_null(strstr(text, "out_of_seq_request"));
	assert_non_null(strstr(text, "congestion (not judged): np_cnp_sent +3000 at 0 (node0) rail "
			       "0 in round 0 (500000 per million packets its port sent), the most "
			       "of any port; 1 test ends counted 3000 in all\n"));
	assert_null(strstr(text, "np_cnp_sent +3000 at 0 (node0): "));
	assert_non_null(strstr(text, "NOT READY"));
	rt_mesh_agg_free(&g);
	free(text);
}

/* Rail r of host i: ACTIVE, 4X 100G RoCE at MTU 4096, device `prefix`r,
 * address 10.r.0.(i+1); each test changes what it is about. */
static struct rt_mesh_rail rail(const char *prefix, unsigned r, uint32_t i)
{
	struct rt_mesh_rail x = {.rail = (uint8_t)r, .port = 1, .state = RT_RAIL_ACTIVE,
				 .link = RT_RAIL_ETHERNET, .lanes = 4, .speed_mbps = 100000,
				 .mtu = 4096, .payload_mbps = 95000};

	snprintf(x.dev, sizeof(x.dev), "%s%u", prefix, r);
	snprintf(x.addr, sizeof(x.addr), "10.%u.0.%u", r, i + 1);
	return x;
}

/* Rails: four hosts of two rails (rxe0, rxe1), but host 3 has one; host
 * 1's rxe1 is DOWN; host 2's rail 1 fails with every partner; the link
 * 0-1 on rail 0 is slow; rail 1 of host 0 runs at MTU 1024, below its
 * line rate. Every line that concerns a rail names it. */
static void names_the_rails(void **state)
{
	struct rt_mesh_limits lr = {.rtt_factor = 2.1, .min_line_rate = 0.9};
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 4, 0, &err), 0);
	for (uint32_t i = 0; i < 4; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 4, .nrails = i == 3 ? 1 : 2};

		snprintf(h.host, sizeof(h.host), "%c", 'a' + i);
		for (unsigned r = 0; r < h.nrails; r++) {
			h.rails[r] = rail("rxe", r, i);
			if (i == 1 && r == 1)
				h.rails[r].state = RT_RAIL_DOWN;
			if (i == 0 && r == 1)
				h.rails[r].mtu = 1024, h.rails[r].payload_mbps = 88000;
		}
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = a + 1; b < 4; b++) {
			struct rt_mesh_result r = ok(a, b, a == 0 && b == 1 ? 31 : 10, 95);

			assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
			r = ok(a, b, 10, a == 0 ? 70 : 95);
			r.rail = r.rail_b = 1;
			if (b == 3 || (a == 1 || b == 1)) /* not tested: no rail 1, or DOWN */
				continue;
			if (a == 2 || b == 2)
				r = (struct rt_mesh_result){.a = a, .b = b, .status = RT_MESH_FAILED,
							    .rail = 1, .rail_b = 1};
			assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
		}
	assert_int_equal(rt_mesh_judge(&g, &lr, &err), 0);
	rt_mesh_summary(f, &g, &lr);
	fclose(f);
	assert_non_null(strstr(t, "mesh: 4 ranks, 7 links tested, 2 rails, median RTT 10.0 us"));
	assert_non_null(strstr(t, "\nrail count: host 3 (d) has 1 rails, 2 expected (most hosts)\n"));
	assert_non_null(strstr(t, "\nbad rail 1 of host 1 (b) rxe1: port 1 DOWN\n"));
	assert_non_null(strstr(t, "\nbad link 0 (a) rxe0 - 1 (b) rxe0, rail 0: RTT 31.0 us > 2.1 x "
			       "median 10.0 us\n"));
	rt_mesh_agg_free(&g);
	free(t);
}

/* Rails by identity: three hosts list ports mlx5_0 .. mlx5_3 as rails 0
 * to 3. Host 1's rail 1 lost its address (the others' carry one): a bad
 * rail, named, and its rail count still the others' (no rail shifted);
 * every host's rail 2 is ACTIVE without an address: named, tested over
 * verbs (its results, like rail 1's of host 1, are not given here);
 * every rail 3 is a DOWN port without one: unused, not judged. */
static void rails_keep_their_numbers(void **state)
{
	struct rt_mesh_limits lr = {.rtt_factor = 2.1};
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 3, 0, &err), 0);
	for (uint32_t i = 0; i < 3; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 3, .nrails = 4};

		snprintf(h.host, sizeof(h.host), "%c", 'a' + i);
		for (unsigned r = 0; r < 4; r++) {
			h.rails[r] = rail("mlx5_", r, i);
			if (r == 3)
				h.rails[r].state = RT_RAIL_DOWN;
			if (r >= 2 || (i == 1 && r == 1))
				h.rails[r].addr[0] = '\0';
		}
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	for (uint32_t a = 0; a < 3; a++)
		for (uint32_t b = a + 1; b < 3; b++)
			for (uint8_t rail = 0; rail < 2; rail++) {
				struct rt_mesh_result r = ok(a, b, 10, 95);

				if (rail == 1 && (a == 1 || b == 1)) /* host 1's rail 1: untested */
					continue;
				r.rail = r.rail_b = rail;
				assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
			}
	assert_int_equal(rt_mesh_judge(&g, &lr, &err), 0);
	rt_mesh_summary(f, &g, &lr);
	fclose(f);
	assert_non_null(strstr(t, "mesh: 3 ranks, 4 links tested, 3 rails, median RTT 10.0 us"));
	assert_non_null(strstr(t, "\nbad rail 1 of host 1 (b) mlx5_1: port 1 carries no IP address "
			       "(another host's rail 1 does)\n"));
	assert_non_null(strstr(t, "\nrail 2: no host's port on it carries an IP address: tested "
			       "over verbs alone"));
	assert_null(strstr(t, "rail 3")); /* DOWN, no address anywhere: unused */
	assert_null(strstr(t, "\nrail count:"));
	assert_non_null(strstr(t, "NOT READY: 0 bad, 0 suspect, 0 absent, 0 untested hosts, 0 bad "
			       "links, 0 refused peers, 1 bad rails, 0 hosts with another rail "
			       "count\n"));
	assert_int_equal(g.bad_rails, 1);
	assert_int_equal(g.rails_expected, 3); /* rail 2 in use, over verbs */
	assert_int_equal(g.nodes[1].rails_in_use, 3);
	rt_mesh_agg_free(&g);
	free(t);
}

/* mesh --expect's rate: host b's port came up at 200 Gb/s where its
 * file says 400. Against the port's own rate its 180 Gb/s pass 0.9 x
 * line rate; against the expected rate (the payload at 400 in the same
 * ratio) they do not, and the text says whose expected rate it was. */
static void expected_rate_is_the_line_rate(void **state)
{
	struct rt_mesh_limits lr = {.min_line_rate = 0.9};
	struct rt_mesh_rail slow = rail("mlx5_", 0, 1);
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	(void)state;
	slow.speed_mbps = 200000;
	slow.payload_mbps = 190000;
	assert_int_equal(rt_mesh_rail_payload_mbps(&slow), 190000);
	slow.want_gbps = 400;
	assert_int_equal(rt_mesh_rail_payload_mbps(&slow), 380000);
	assert_int_equal(rt_mesh_agg_init(&g, 2, 0, &err), 0);
	for (uint32_t i = 0; i < 2; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 2, .nrails = 1};

		snprintf(h.host, sizeof(h.host), "%c", 'a' + i);
		h.rails[0] = i ? slow : rail("mlx5_", 0, i);
		h.rails[0].payload_mbps = i ? 190000 : 392000;
		h.rails[0].speed_mbps = i ? 200000 : 400000;
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	{
		struct rt_mesh_result r = ok(0, 1, 10, 180);

		assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
	}
	assert_int_equal(rt_mesh_judge(&g, &lr, &err), 0);
	rt_mesh_summary(f, &g, &lr);
	fclose(f);
	assert_non_null(strstr(t, "180.00 Gb/s 0->1 < 0.9 x line rate 380.00 Gb/s (the RDMA payload "
			       "rate of b's port at its MTU and its expected rate)"));
	assert_false(g.ready);
	rt_mesh_agg_free(&g);
	free(t);
}

/* A rail that fails with every partner is that host's bad rail, named
 * as one; a port below its line rate is named as the likely cause. */
static void names_a_bad_rail_and_its_cause(void **state)
{
	struct rt_mesh_limits lr = {.min_line_rate = 0.9};
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *t = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 4, 0, &err), 0);
	for (uint32_t i = 0; i < 4; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 4, .nrails = 2};

		snprintf(h.host, sizeof(h.host), "%c", 'a' + i);
		for (unsigned r = 0; r < 2; r++) {
			h.rails[r] = rail("mlx5_", r, i);
			if (i == 3 && r == 0)
				h.rails[r].mtu = 1024;
		}
		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = a + 1; b < 4; b++)
			for (unsigned rail = 0; rail < 2; rail++) {
				struct rt_mesh_result r = ok(a, b, 10, a == 0 && b == 3 && !rail ? 60 : 95);

				if (rail == 1 && (a == 2 || b == 2))
					r = (struct rt_mesh_result){.a = a, .b = b,
								    .status = RT_MESH_TIMEOUT};
				r.rail = r.rail_b = (uint8_t)rail;
				assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
			}
	assert_int_equal(rt_mesh_judge(&g, &lr, &err), 0);
	rt_mesh_summary(f, &g, &lr);
	fclose(f);
	assert_non_null(strstr(t, "\nbad rail 1 of host 2 (c) mlx5_1: its links on rail 1 are bad, "
			       "its other rails' are not\n"));
	assert_null(strstr(t, "bad host"));
	assert_non_null(strstr(t, "\nbad link 0 (a) mlx5_0 - 3 (d) mlx5_0, rail 0: 60.00 Gb/s 0->3 "
			       "< 0.9 x line rate 95.00 Gb/s (the RDMA payload rate of a's port at "
			       "its MTU); likely cause: d's mlx5_0 at MTU 1024\n"));
	assert_non_null(strstr(t, "1 bad links, 0 refused peers, 1 bad rails, 0 hosts with another "
			       "rail count\n"));
	rt_mesh_agg_free(&g);
	free(t);
}

static void bounded_lists(void **state)
{
	char *t = summary(60, UINT32_MAX, all_fail), *p = t;
	unsigned lines = 0;

	(void)state;
	while ((p = strchr(p, '\n'))) {
		lines++;
		p++;
	}
	assert_non_null(strstr(t, "... and 40 more suspect hosts\n"));
	/* medians, 20 suspects and the rest, 20 links and the rest, verdict */
	assert_int_equal(lines, 1 + RT_MESH_TEXT_LIST + 1 + RT_MESH_TEXT_LIST + 1 + 1);
	free(t);
	t = summary(3, 1, nothing);
	assert_non_null(strstr(t, "NOT READY: no link tested (1 absent hosts)\n"));
	free(t);
}

/* one pair of three tested (a random round of an odd count): host 2 was
 * never paired, so nothing vouches for it */
static void one_pair_of_three(struct rt_mesh_agg *g, uint32_t n)
{
	struct rt_mesh_result r = ok(0, 1, 10, 100);
	struct rt_error err = {0};

	(void)n;
	assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
}

static void untested_host_is_not_ready(void **state)
{
	char *t = summary(3, UINT32_MAX, one_pair_of_three);

	(void)state;
	assert_non_null(strstr(t, "untested host 2 (node2): no pair of it was tested\n"));
	assert_non_null(strstr(t, "\nNOT READY: 0 bad, 0 suspect, 0 absent, 1 untested hosts, "
			       "0 bad links, 0 refused peers\n"));
	assert_null(strstr(t, "\nREADY"));
	free(t);
}

/* a peer refused at the gathering: named, and never READY */
static void one_refused(struct rt_mesh_agg *g, uint32_t n)
{
	healthy(g, n);
	rt_mesh_agg_refuse(g, "192.0.2.9:4000", 1, "rank 1 is taken (by 192.0.2.1:5000)");
	rt_mesh_agg_refuse(g, "192.0.2.8:4001", RT_MESH_NO_PEER, "mesh message: version 2");
}

static void refused_peer_is_named(void **state)
{
	char *t = summary(3, UINT32_MAX, one_refused);

	(void)state;
	assert_non_null(strstr(t, "refused peer 192.0.2.9:4000 as rank 1: rank 1 is taken "
			       "(by 192.0.2.1:5000)\n"));
	assert_non_null(strstr(t, "refused peer 192.0.2.8:4001: mesh message: version 2\n"));
	assert_non_null(strstr(t, "\nNOT READY: 0 bad, 0 suspect, 0 absent, 0 untested hosts, "
			       "0 bad links, 2 refused peers\n"));
	free(t);
}

/* a run stopped at rank 0 after healthy pairs: never READY */
static void interrupted_is_not_ready(void **state)
{
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 2, 0, &err), 0);
	for (uint32_t i = 0; i < 2; i++) {
		struct rt_mesh_hello h = {.rank = i, .size = 2, .host = "h"};

		assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	}
	healthy(&g, 2);
	g.interrupted = true;
	assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
	assert_false(g.ready);
	rt_mesh_summary(f, &g, &lim);
	fclose(f);
	assert_non_null(strstr(text, "\nNOT READY: interrupted\n"));
	free(text);
	rt_mesh_agg_free(&g);
}

/* Rank 0 records a pair with an absent end as absent: such a pair was
 * not tested and is counted apart, so 3 absent of 4 test nothing. */
static void absent_pairs_are_not_counted_as_tested(void **state)
{
	struct rt_mesh_hello h = {.rank = 0, .size = 4, .host = "node0"};
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	char *text = NULL, *t;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_int_equal(rt_mesh_agg_init(&g, 4, 0, &err), 0);
	assert_int_equal(rt_mesh_agg_hello(&g, &h, &err), 0);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = a + 1; b < 4; b++) {
			struct rt_mesh_result r = {.a = a, .b = b, .status = RT_MESH_ABSENT};

			assert_int_equal(rt_mesh_agg_add(&g, &r, &err), 0);
		}
	assert_int_equal(rt_mesh_judge(&g, &lim, &err), 0);
	rt_mesh_summary(f, &g, &lim);
	fclose(f);
	rt_mesh_agg_free(&g);
	assert_non_null(strstr(text, "mesh: 4 ranks, 0 links tested, 6 not tested (a rank absent)\n"));
	assert_non_null(strstr(text, "\nNOT READY: no link tested (3 absent hosts)\n"));
	free(text);
	/* one absent of 5: its 4 pairs apart, the other 6 tested */
	t = summary(5, 4, broken);
	assert_non_null(strstr(t, "mesh: 5 ranks, 6 links tested, 4 not tested (a rank absent),"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ready_last),
		cmocka_unit_test(names_bad_nodes_and_links),
		cmocka_unit_test(names_the_slow_direction),
		cmocka_unit_test(names_the_line_rate),
		cmocka_unit_test(names_the_counters),
		cmocka_unit_test(bounded_lists),
		cmocka_unit_test(names_the_rails),
		cmocka_unit_test(names_a_bad_rail_and_its_cause),
		cmocka_unit_test(rails_keep_their_numbers),
		cmocka_unit_test(expected_rate_is_the_line_rate),
		cmocka_unit_test(untested_host_is_not_ready),
		cmocka_unit_test(interrupted_is_not_ready),
		cmocka_unit_test(refused_peer_is_named),
		cmocka_unit_test(absent_pairs_are_not_counted_as_tested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
