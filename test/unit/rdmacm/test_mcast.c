/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device-free parts of mcast: group addresses and the MTU, size and
 * group checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "rdmacm/mcast.h"
#include "rdmatest/addr.h"
#include "rdmatest/vconn.h"

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
	assert_string_equal(rt_addr_host_str((struct sockaddr *)&ss, buf, sizeof(buf)),
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

/* The port's MTU that --size must fit (rt_mc_port_query) comes from
 * core's rt_mtu_bytes: checked here until test_vconn covers it. */
static void mtu_enum_to_bytes(void **state)
{
	(void)state;
	assert_int_equal(rt_mtu_bytes(IBV_MTU_256), 256);
	assert_int_equal(rt_mtu_bytes(IBV_MTU_1024), 1024);
	assert_int_equal(rt_mtu_bytes(IBV_MTU_4096), 4096);
	assert_int_equal(rt_mtu_bytes((enum ibv_mtu)0), 0);
	assert_int_equal(rt_mtu_bytes((enum ibv_mtu)6), 0);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
