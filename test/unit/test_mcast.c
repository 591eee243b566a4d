/* The device-free parts of mcast: group addresses, the MTU and size
 * checks, and the accounting of received datagrams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "rdmatest/mcast.h"
#include "rdmatest/verify.h"

static void gid_text_parses_into_af_ib(void **state)
{
	struct sockaddr_ib sib;
	uint8_t want[16] = { 0xff, 0x0e, [15] = 0x01 };

	(void)state;
	assert_int_equal(rt_mc_parse_gid("ff0e::1", &sib), 0);
	assert_int_equal(sib.sib_family, AF_IB);
	assert_memory_equal(sib.sib_addr.sib_raw, want, 16);
	assert_int_equal(sib.sib_pkey, 0);
	assert_true(sib.sib_sid == 0 && sib.sib_sid_mask == 0 && sib.sib_flowinfo == 0);
	assert_true(rt_mc_addr_is_multicast((struct sockaddr *)&sib));
	assert_int_equal(rt_mc_addr_len((struct sockaddr *)&sib), sizeof(sib));
	/* an SA-assigned MGID as a joined line prints it */
	assert_int_equal(rt_mc_parse_gid("ff15:a01b:ffff::1:2", &sib), 0);
}

static void zero_gid_spellings(void **state)
{
	struct sockaddr_ib sib;

	(void)state;
	assert_int_equal(rt_mc_parse_gid("0", &sib), 0);
	assert_true(rt_mc_addr_is_zero((struct sockaddr *)&sib));
	assert_int_equal(rt_mc_parse_gid("::", &sib), 0);
	assert_true(rt_mc_addr_is_zero((struct sockaddr *)&sib));
	assert_false(rt_mc_addr_is_multicast((struct sockaddr *)&sib));
}

static void bad_gids_are_refused(void **state)
{
	struct sockaddr_ib sib;

	(void)state;
	assert_int_equal(rt_mc_parse_gid("fe80::1", &sib), -1); /* unicast */
	assert_int_equal(rt_mc_parse_gid("ff0e::1::2", &sib), -1);
	assert_int_equal(rt_mc_parse_gid("239.1.2.3", &sib), -1);
	assert_int_equal(rt_mc_parse_gid("", &sib), -1);
	assert_int_equal(rt_mc_parse_gid("00", &sib), -1);
}

static void groups_must_be_multicast_or_zero(void **state)
{
	struct sockaddr_storage ss;
	struct rt_error err = { 0 };
	char buf[64];

	(void)state;
	assert_int_equal(rt_mc_parse_group("239.1.2.3", "-m", &ss, &err), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_string_equal(rt_mc_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)),
			    "239.1.2.3");
	assert_int_equal(rt_mc_parse_group("0.0.0.0", "-m", &ss, &err), 0);
	assert_true(rt_mc_addr_is_zero((struct sockaddr *)&ss));
	assert_int_equal(rt_mc_parse_group("ff12::1", "-m", &ss, &err), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_false(err.set);
	assert_int_equal(rt_mc_parse_group("192.0.2.1", "-m", &ss, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "-m 192.0.2.1: not a multicast address"));
}

static void local_addresses(void **state)
{
	struct sockaddr_storage ss;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_mc_parse_local("192.0.2.1", "-b", &ss, &err), 0);
	assert_int_equal(rt_mc_parse_local("224.0.0.1", "-b", &ss, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "-b 224.0.0.1: a multicast address"));
}

static void mtu_enum_to_bytes(void **state)
{
	(void)state;
	assert_int_equal(rt_mc_mtu_bytes(IBV_MTU_256), 256);
	assert_int_equal(rt_mc_mtu_bytes(IBV_MTU_1024), 1024);
	assert_int_equal(rt_mc_mtu_bytes(IBV_MTU_4096), 4096);
	assert_int_equal(rt_mc_mtu_bytes((enum ibv_mtu)0), 0);
	assert_int_equal(rt_mc_mtu_bytes((enum ibv_mtu)6), 0);
}

static void size_must_fit_the_mtu(void **state)
{
	struct rt_mc_port p = { .dev = "rxe0", .port = 1, .mtu = 1024, .ethernet = true };
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_mc_check_size(1024, 10, &p, &err), 0);
	assert_int_equal(rt_mc_check_size(0, 10, &p, &err), 0);
	assert_int_equal(rt_mc_check_size(4096, 0, &p, &err), 0); /* nothing sent */
	assert_false(err.set);
	assert_int_equal(rt_mc_check_size(1025, 10, &p, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "--size 1025 is larger than the active MTU 1024 of rxe0 port 1"));
}

static void zero_group_needs_infiniband(void **state)
{
	struct rt_mc_port roce = { .dev = "rxe0", .port = 1, .mtu = 1024, .ethernet = true };
	struct rt_mc_port ib = { .dev = "mlx5_0", .port = 1, .mtu = 4096 };
	struct sockaddr_storage zero, grp;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_mc_parse_group("0.0.0.0", "-m", &zero, &err), 0);
	assert_int_equal(rt_mc_parse_group("239.1.1.1", "-m", &grp, &err), 0);
	assert_int_equal(rt_mc_check_group((struct sockaddr *)&zero, &ib, &err), 0);
	assert_int_equal(rt_mc_check_group((struct sockaddr *)&grp, &roce, &err), 0);
	assert_false(err.set);
	assert_int_equal(rt_mc_check_group((struct sockaddr *)&zero, &roce, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "needs InfiniBand"));
}

static void qps_within_the_attach_limit(void **state)
{
	struct rt_mc_port p = { .dev = "rxe0", .port = 1, .mtu = 1024, .ethernet = true };
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_mc_check_qps(56, false, 56, &p, &err), 0);
	assert_int_equal(rt_mc_check_qps(128, true, 56, &p, &err), 0); /* not attached */
	assert_int_equal(rt_mc_check_qps(128, false, 0, &p, &err), 0); /* no limit known */
	assert_false(err.set);
	assert_int_equal(rt_mc_check_qps(57, false, 56, &p, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "-c 57: rxe0 attaches at most 56 QPs"));
}

/* ---- accounting ---- */

#define SIZE 100

static enum rt_mc_class feed(struct rt_mc_tally *t, uint32_t sender, uint64_t seq)
{
	uint8_t buf[SIZE];
	uint32_t who;
	enum rt_mc_class c;

	rt_msg_fill(buf, sizeof(buf), sender, seq);
	c = rt_mc_tally_add(t, buf, sizeof(buf), &who);
	assert_int_equal(who, sender);
	return c;
}

static void in_order_stream_completes(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 10, 1, SIZE);
	assert_int_equal(rt_mc_tally_missing(&t), 10); /* nobody heard yet */
	for (uint64_t i = 0; i < 10; i++) {
		assert_int_equal(feed(&t, 7, i), RT_MC_NEW);
		assert_int_equal(rt_mc_tally_missing(&t), 9 - i);
	}
	assert_int_equal(t.received, 10);
	assert_int_equal(t.distinct, 10);
	assert_int_equal(t.duplicates + t.out_of_order + t.foreign + t.corrupt, 0);
	assert_int_equal(t.nsnd, 1);
	rt_mc_tally_free(&t);
}

static void loss_duplicates_and_reordering(void **state)
{
	struct rt_mc_tally t;
	static const uint64_t order[] = { 0, 1, 3, 2, 3, 5, 9, 4 };

	(void)state;
	rt_mc_tally_init(&t, 10, 1, SIZE);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		feed(&t, 1, order[i]);
	/* 2 came after 3, 4 after 9; the second 3 is a duplicate;
	 * 6, 7 and 8 never came */
	assert_int_equal(t.received, 8);
	assert_int_equal(t.distinct, 7);
	assert_int_equal(t.out_of_order, 2);
	assert_int_equal(t.duplicates, 1);
	assert_int_equal(rt_mc_tally_missing(&t), 3);
	assert_int_equal(feed(&t, 1, 8), RT_MC_OUT_OF_ORDER);
	assert_int_equal(feed(&t, 1, 8), RT_MC_DUPLICATE);
	assert_int_equal(rt_mc_tally_missing(&t), 2);
	rt_mc_tally_free(&t);
}

static void each_sender_counts_on_its_own(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 4, 2, SIZE);
	for (uint64_t i = 0; i < 4; i++)
		feed(&t, 0xaaaa, i);
	/* a second sender is expected: four datagrams missing */
	assert_int_equal(rt_mc_tally_missing(&t), 4);
	/* interleaving of two senders is not reordering */
	feed(&t, 0xbbbb, 0);
	feed(&t, 0xbbbb, 1);
	feed(&t, 0xbbbb, 3);
	assert_int_equal(t.out_of_order, 0);
	assert_int_equal(rt_mc_tally_missing(&t), 1);
	/* a third, unexpected sender adds what it lacks */
	feed(&t, 0xcccc, 0);
	assert_int_equal(rt_mc_tally_missing(&t), 1 + 3);
	assert_int_equal(t.nsnd, 3);
	rt_mc_tally_free(&t);
}

static void beyond_the_count(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 2, 1, SIZE);
	assert_int_equal(feed(&t, 3, 0), RT_MC_NEW);
	assert_int_equal(feed(&t, 3, 2), RT_MC_BEYOND);
	/* 2 was not counted, so 1 is simply next */
	assert_int_equal(feed(&t, 3, 1), RT_MC_NEW);
	assert_int_equal(t.beyond, 1);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	rt_mc_tally_free(&t);
}

/* A shortfall shaped like a -C or --senders mismatch is named as such;
 * one with gaps is loss, and gets no hint. */
static void mismatch_hints(void **state)
{
	struct rt_mc_tally t;
	char buf[160];

	(void)state;
	rt_mc_tally_init(&t, 20, 2, SIZE);
	assert_null(rt_mc_tally_hint(&t, buf, sizeof(buf))); /* nothing heard */
	for (uint64_t i = 0; i < 10; i++) {
		feed(&t, 1, i);
		feed(&t, 2, i);
	}
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "after datagram 10 of 20"));
	feed(&t, 2, 12); /* a gap: loss, not a count mismatch */
	assert_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	rt_mc_tally_free(&t);

	rt_mc_tally_init(&t, 3, 2, SIZE);
	for (uint64_t i = 0; i < 3; i++)
		feed(&t, 7, i);
	assert_non_null(rt_mc_tally_hint(&t, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "heard 1 of 2 senders"));
	rt_mc_tally_free(&t);
}

/* Upstream senders send uninitialised memory: counted, never checked. */
static void foreign_datagrams_count_towards_the_total(void **state)
{
	struct rt_mc_tally t;
	uint8_t junk[SIZE] = { 0 };
	uint32_t who = 99;

	(void)state;
	rt_mc_tally_init(&t, 3, 1, SIZE);
	assert_int_equal(rt_mc_tally_add(&t, junk, sizeof(junk), &who), RT_MC_FOREIGN);
	assert_int_equal(who, 0);
	memset(junk, 0xa5, sizeof(junk));
	assert_int_equal(rt_mc_tally_add(&t, junk, sizeof(junk), &who), RT_MC_FOREIGN);
	assert_int_equal(rt_mc_tally_missing(&t), 1);
	assert_int_equal(rt_mc_tally_add(&t, junk, sizeof(junk), &who), RT_MC_FOREIGN);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	assert_int_equal(t.foreign, 3);
	assert_int_equal(t.corrupt, 0);
	rt_mc_tally_free(&t);
}

/* Below the header size a datagram cannot name its sender. */
static void short_datagrams_are_unverified(void **state)
{
	struct rt_mc_tally t;
	uint8_t buf[10];
	uint32_t who;

	(void)state;
	rt_mc_tally_init(&t, 1, 1, sizeof(buf));
	rt_msg_fill(buf, sizeof(buf), 5, 0);
	assert_int_equal(rt_mc_tally_add(&t, buf, sizeof(buf), &who), RT_MC_FOREIGN);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	assert_int_equal(t.wrong_size, 0);
	rt_mc_tally_free(&t);
}

static void corruption_is_caught_and_described(void **state)
{
	struct rt_mc_tally t;
	uint8_t buf[SIZE];
	uint32_t who;

	(void)state;
	rt_mc_tally_init(&t, 5, 1, SIZE);
	rt_msg_fill(buf, sizeof(buf), 0x1234, 2);
	buf[60] ^= 0x10;
	assert_int_equal(rt_mc_tally_add(&t, buf, sizeof(buf), &who), RT_MC_CORRUPT);
	assert_int_equal(who, 0x1234);
	assert_int_equal(t.corrupt, 1);
	assert_int_equal(t.distinct, 0);
	assert_non_null(strstr(t.problem, "seq 2: corrupt at byte 60"));
	/* a truncated rdmatest datagram: its length field disagrees */
	rt_msg_fill(buf, sizeof(buf), 0x1234, 3);
	assert_int_equal(rt_mc_tally_add(&t, buf, 50, &who), RT_MC_CORRUPT);
	assert_int_equal(t.wrong_size, 1);
	rt_mc_tally_free(&t);
}

static void wrong_size_is_noted(void **state)
{
	struct rt_mc_tally t;
	uint8_t buf[200];
	uint32_t who;

	(void)state;
	rt_mc_tally_init(&t, 1, 1, SIZE);
	rt_msg_fill(buf, sizeof(buf), 9, 0);
	assert_int_equal(rt_mc_tally_add(&t, buf, sizeof(buf), &who), RT_MC_NEW);
	assert_int_equal(t.wrong_size, 1);
	assert_non_null(strstr(t.problem, "a datagram of 200 bytes, expected 100"));
	rt_mc_tally_free(&t);
}

static void zero_count_is_complete_at_once(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, 0, 4, SIZE);
	assert_int_equal(rt_mc_tally_missing(&t), 0);
	assert_int_equal(feed(&t, 1, 0), RT_MC_BEYOND);
	rt_mc_tally_free(&t);
}

static void large_counts_do_not_overflow(void **state)
{
	struct rt_mc_tally t;

	(void)state;
	rt_mc_tally_init(&t, UINT64_MAX / 2, 65536, SIZE);
	assert_true(rt_mc_tally_missing(&t) == UINT64_MAX);
	rt_mc_tally_free(&t);
	rt_mc_tally_init(&t, 1 << 20, 1, SIZE);
	assert_int_equal(feed(&t, 1, (1 << 20) - 1), RT_MC_NEW);
	assert_int_equal(feed(&t, 1, 0), RT_MC_OUT_OF_ORDER);
	assert_int_equal(rt_mc_tally_missing(&t), (1 << 20) - 2);
	rt_mc_tally_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gid_text_parses_into_af_ib),
		cmocka_unit_test(zero_gid_spellings),
		cmocka_unit_test(bad_gids_are_refused),
		cmocka_unit_test(groups_must_be_multicast_or_zero),
		cmocka_unit_test(local_addresses),
		cmocka_unit_test(mtu_enum_to_bytes),
		cmocka_unit_test(size_must_fit_the_mtu),
		cmocka_unit_test(zero_group_needs_infiniband),
		cmocka_unit_test(qps_within_the_attach_limit),
		cmocka_unit_test(in_order_stream_completes),
		cmocka_unit_test(loss_duplicates_and_reordering),
		cmocka_unit_test(each_sender_counts_on_its_own),
		cmocka_unit_test(beyond_the_count),
		cmocka_unit_test(mismatch_hints),
		cmocka_unit_test(foreign_datagrams_count_towards_the_total),
		cmocka_unit_test(short_datagrams_are_unverified),
		cmocka_unit_test(corruption_is_caught_and_described),
		cmocka_unit_test(wrong_size_is_noted),
		cmocka_unit_test(zero_count_is_complete_at_once),
		cmocka_unit_test(large_counts_do_not_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
