/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A pair test's port counters (meshctr.h): two readings of fake sysfs
 * trees (Soft-RoCE's and mlx5's names) into the rises a RESULT carries,
 * both ends joined within the bound, and the per-million arithmetic,
 * exact at the threshold and safe at 64 bits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../fake_tree.h"
#include "mesh/meshcong.h"
#include "mesh/meshctr.h"

static char root[64], sys_[96];

static int make_root(void **state)
{
	(void)state;
	fake_root(root, sizeof(root), "test_meshctr");
	snprintf(sys_, sizeof(sys_), "%s/sys", root);
	return 0;
}

static int drop_root(void **state)
{
	(void)state;
	fake_remove(root);
	return 0;
}

static void counter(const char *dev, bool hw, const char *name, const char *value)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/%s/%s", dev,
		 hw ? "hw_counters" : "counters", name);
	fake_put(root, rel, value);
}

static const char *name_of(const struct rt_mesh_ctr *e)
{
	return rt_portctr_id_name(e->id);
}

/* Soft-RoCE under loss: its retransmit counters and link_downed rise and
 * travel; traffic, RNR and unknown names do not; sent_pkts is the packets. */
static void test_rxe_rises(void **state)
{
	struct rt_portctrs *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct rt_mesh_ctrs c;

	(void)state;
	counter("rxe0", true, "sent_pkts", "1000");
	counter("rxe0", true, "out_of_seq_request", "3");
	counter("rxe0", true, "rcvd_seq_err", "0");
	counter("rxe0", true, "rcvd_rnr_err", "0");
	counter("rxe0", true, "link_downed", "1");
	counter("rxe0", true, "vendor_magic", "0");
	rt_portctr_read(sys_, "rxe0", 1, a);
	counter("rxe0", true, "sent_pkts", "21000");
	counter("rxe0", true, "out_of_seq_request", "43");
	counter("rxe0", true, "rcvd_seq_err", "7");
	counter("rxe0", true, "rcvd_rnr_err", "5");
	counter("rxe0", true, "link_downed", "2");
	counter("rxe0", true, "vendor_magic", "9");
	rt_portctr_read(sys_, "rxe0", 1, b);
	rt_mesh_ctr_rises(a, b, RT_MESH_END_B, &c);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.more, 0);
	assert_int_equal(c.sent_known, 2);
	assert_int_equal(c.sent[1], 20000);
	/* in (end, number) order, as the wire wants */
	assert_string_equal(name_of(&c.e[0]), "link_downed");
	assert_string_equal(name_of(&c.e[1]), "out_of_seq_request");
	assert_int_equal(c.e[1].delta, 40);
	assert_string_equal(name_of(&c.e[2]), "rcvd_seq_err");
	for (unsigned i = 0; i < c.n; i++)
		assert_int_equal(c.e[i].end, RT_MESH_END_B);
	free(a);
	free(b);
}

/* mlx5: the InfiniBand counters/ give the packets, hw_counters the
 * retransmits and the CNPs; only np_cnp_sent rose: it travels (a
 * congestion counter), the packets known; then the judged ones come
 * first in the bound but the wire order is (end, number). */
static void test_mlx5_rises(void **state)
{
	struct rt_portctrs *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct rt_mesh_ctrs c;

	(void)state;
	counter("mlx5_0", false, "port_xmit_packets", "5");
	counter("mlx5_0", false, "symbol_error", "0");
	counter("mlx5_0", true, "packet_seq_err", "0");
	counter("mlx5_0", true, "local_ack_timeout_err", "0");
	counter("mlx5_0", true, "np_cnp_sent", "0");
	rt_portctr_read(sys_, "mlx5_0", 1, a);
	counter("mlx5_0", false, "port_xmit_packets", "1000005");
	counter("mlx5_0", true, "np_cnp_sent", "80");
	rt_portctr_read(sys_, "mlx5_0", 1, b);
	rt_mesh_ctr_rises(a, b, RT_MESH_END_A, &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(name_of(&c.e[0]), "np_cnp_sent");
	assert_int_equal(c.e[0].delta, 80);
	assert_int_equal(c.sent_known, 1);
	assert_int_equal(c.sent[0], 1000000);
	counter("mlx5_0", false, "symbol_error", "2");
	counter("mlx5_0", true, "packet_seq_err", "11");
	counter("mlx5_0", true, "local_ack_timeout_err", "3");
	rt_portctr_read(sys_, "mlx5_0", 1, b);
	rt_mesh_ctr_rises(a, b, RT_MESH_END_A, &c);
	assert_int_equal(c.n, 4);
	assert_string_equal(name_of(&c.e[0]), "symbol_error");
	assert_string_equal(name_of(&c.e[3]), "np_cnp_sent");
	free(a);
	free(b);
}

/* Both ends joined: at most RT_MESH_CTRS_MAX, link counters kept first,
 * then the largest rises; the rest counted; each end's packets kept. */
static void test_join_bound(void **state)
{
	static const char *const retrans[] = {
		"out_of_sequence", "duplicate_request", "packet_seq_err", "implied_nak_seq_err",
		"local_ack_timeout_err", "roce_adp_retrans",
	};
	struct rt_mesh_ctrs a = {.sent_known = 1, .sent = {100, 0}}, b = {.sent_known = 2,
		.sent = {0, 300}}, out;

	(void)state;
	for (unsigned i = 0; i < 6; i++) {
		a.e[a.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id(retrans[i]),
						  RT_MESH_END_A, 10 + i};
		b.e[b.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id(retrans[i]),
						  RT_MESH_END_B, 100 + i};
	}
	b.e[b.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("symbol_error"), RT_MESH_END_B, 1};
	b.more = 3;
	rt_mesh_ctr_join(&a, &b, &out);
	assert_int_equal(out.n, RT_MESH_CTRS_MAX);
	assert_int_equal(out.more, 13 - 8 + 3);
	assert_int_equal(out.sent_known, 3);
	assert_int_equal(out.sent[0], 100);
	assert_int_equal(out.sent[1], 300);
	assert_int_equal(rt_mesh_ctr_sent(&out), 400);
	/* the link counter (rise 1) kept; a's two largest (15, 14) kept, its
	 * smaller ones left out; in (end, id) order */
	for (unsigned i = 1; i < out.n; i++)
		assert_true(out.e[i - 1].end * 256 + out.e[i - 1].id <
			    out.e[i].end * 256 + out.e[i].id);
	{
		bool link = false;
		unsigned at_a = 0;

		for (unsigned i = 0; i < out.n; i++) {
			link |= !strcmp(name_of(&out.e[i]), "symbol_error");
			if (out.e[i].end == RT_MESH_END_A) {
				at_a++;
				assert_true(out.e[i].delta >= 14);
			}
		}
		assert_true(link);
		assert_int_equal(at_a, 1);
	}
}

/* Congestion rises take the slots the judged ones leave, the largest
 * first, and one left out is not counted in more (it costs no
 * judgement); a link keeps the judged ones alone. */
static void test_congestion_last(void **state)
{
	static const char *const judged[] = {
		"symbol_error", "out_of_sequence", "duplicate_request", "packet_seq_err",
		"implied_nak_seq_err", "local_ack_timeout_err",
	};
	struct rt_mesh_ctrs a = {.sent_known = 1, .sent = {1000, 0}}, b = {0}, out, kept;

	(void)state;
	for (unsigned i = 0; i < 6; i++)
		a.e[a.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id(judged[i]),
						  RT_MESH_END_A, 1 + i};
	b.e[b.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("np_cnp_sent"), RT_MESH_END_B,
					  500000};
	b.e[b.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("rp_cnp_handled"),
					  RT_MESH_END_B, 7};
	b.e[b.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("port_xmit_wait"),
					  RT_MESH_END_B, 900000};
	rt_mesh_ctr_join(&a, &b, &out);
	assert_int_equal(out.n, RT_MESH_CTRS_MAX);
	assert_int_equal(out.more, 0); /* rp_cnp_handled, the smallest, left out */
	for (unsigned i = 0; i < out.n; i++)
		assert_string_not_equal(name_of(&out.e[i]), "rp_cnp_handled");
	/* with every judged slot taken, the congestion ones all go, uncounted */
	a.e[a.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("roce_adp_retrans"),
					  RT_MESH_END_A, 9};
	a.e[a.n++] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("roce_slow_restart"),
					  RT_MESH_END_A, 9};
	rt_mesh_ctr_join(&a, &b, &out);
	assert_int_equal(out.more, 0);
	for (unsigned i = 0; i < out.n; i++)
		assert_int_equal(out.e[i].end, RT_MESH_END_A);
	/* kept by a link: the judged ones, in place (in may be out) */
	a.n = 6;
	rt_mesh_ctr_join(&a, &b, &out);
	rt_mesh_ctr_judged(&out, &kept);
	assert_int_equal(kept.n, 6);
	assert_int_equal(kept.sent[0], 1000);
	for (unsigned i = 0; i < kept.n; i++)
		assert_int_equal(kept.e[i].end, RT_MESH_END_A);
	rt_mesh_ctr_judged(&out, &out);
	assert_int_equal(out.n, 6);
	assert_int_equal(out.e[6].delta, 0);
}

/* One classification for the whole family: what travels, what is
 * judged and how, what is only reported. */
static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(rt_mesh_ctr_kind("symbol_error"), RT_MESH_CTR_LINK);
	assert_int_equal(rt_mesh_ctr_kind("port_xmit_discards"), RT_MESH_CTR_LINK);
	assert_int_equal(rt_mesh_ctr_kind("rcvd_seq_err"), RT_MESH_CTR_RETRANSMIT);
	assert_int_equal(rt_mesh_ctr_kind("np_cnp_sent"), RT_MESH_CTR_CONGESTION);
	assert_int_equal(rt_mesh_ctr_kind("port_xmit_wait"), RT_MESH_CTR_CONGESTION);
	/* a RoCE netdev's (ethctr.h): pauses and the port's discards */
	assert_int_equal(rt_mesh_ctr_kind("rx_prio3_pause"), RT_MESH_CTR_CONGESTION);
	assert_int_equal(rt_mesh_ctr_kind("rx_discards_phy"), RT_MESH_CTR_CONGESTION);
	assert_int_equal(rt_mesh_ctr_kind("rx_prio3_pause_duration"), RT_MESH_CTR_NONE);
	assert_int_equal(rt_mesh_ctr_kind("rcvd_rnr_err"), RT_MESH_CTR_NONE);
	assert_int_equal(rt_mesh_ctr_kind("sent_pkts"), RT_MESH_CTR_NONE);
	assert_int_equal(rt_mesh_ctr_kind("vendor_magic"), RT_MESH_CTR_NONE);
	assert_int_equal(rt_mesh_ctr_kind(NULL), RT_MESH_CTR_NONE);
	assert_int_equal(rt_mesh_ctr_id_kind((unsigned)rt_portctr_id("np_cnp_sent")),
			 RT_MESH_CTR_CONGESTION);
	assert_int_equal(rt_mesh_ctr_id_kind(250), RT_MESH_CTR_NONE);
}

/* meshcong keeps every congestion counter the table knows apart: its
 * fixed array holds them all. */
static void test_congestion_fits(void **state)
{
	unsigned n = 0;

	(void)state;
	for (unsigned id = 0; rt_portctr_id_name(id); id++)
		n += rt_mesh_ctr_id_kind(id) == RT_MESH_CTR_CONGESTION;
	assert_true(n >= 25);
	assert_true(n <= RT_MESH_CONG_MAX);
}

/* rise / sent > ppm / 10^6, exactly: 1000 per million is not above
 * 1000, 1001 is; no packets: no rate; 64-bit figures do not overflow. */
static void test_per_million(void **state)
{
	(void)state;
	assert_false(rt_mesh_ctr_above_ppm(1000, 1000000, 1000));
	assert_true(rt_mesh_ctr_above_ppm(1001, 1000000, 1000));
	assert_false(rt_mesh_ctr_above_ppm(1, 1000, 1000));
	assert_true(rt_mesh_ctr_above_ppm(2, 1999, 1000));
	assert_false(rt_mesh_ctr_above_ppm(5, 0, 0));
	assert_true(rt_mesh_ctr_above_ppm(1, UINT64_MAX, 0));
	assert_false(rt_mesh_ctr_above_ppm(UINT64_MAX, UINT64_MAX, 1000000));
	assert_true(rt_mesh_ctr_above_ppm(UINT64_MAX, UINT64_MAX, 999999));
	assert_true(rt_mesh_ctr_above_ppm(UINT64_MAX, 1, 1000000));
	assert_false(rt_mesh_ctr_above_ppm(UINT64_MAX / 1000000, UINT64_MAX - 1, 1));
	assert_false(rt_mesh_ctr_above_ppm(UINT64_MAX / 1000, UINT64_MAX, 1000));
	assert_true(rt_mesh_ctr_above_ppm(UINT64_MAX / 1000 + 1, UINT64_MAX, 1000));
	assert_true(rt_mesh_ctr_ppm(52, 10000) > 5199.9 && rt_mesh_ctr_ppm(52, 10000) < 5200.1);
	assert_true(rt_mesh_ctr_ppm(52, 0) == 0);
	{
		struct rt_mesh_ctrs c = {.sent_known = 3, .sent = {UINT64_MAX, 5}};

		assert_true(rt_mesh_ctr_sent(&c) == UINT64_MAX);
		c.sent_known = 2;
		assert_int_equal(rt_mesh_ctr_sent(&c), 5);
	}
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_root, drop_root)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_rxe_rises), T(test_mlx5_rises), cmocka_unit_test(test_join_bound),
		cmocka_unit_test(test_congestion_last), cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_congestion_fits),
		cmocka_unit_test(test_per_million),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
