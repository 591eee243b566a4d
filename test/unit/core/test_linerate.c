/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Line rates worked by hand: each expected figure below is the arithmetic
 * of the comment beside it, not the function's own output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rdmatest/linerate.h"

#define NEAR(a, b) assert_true((a) > (b) - 0.01 && (a) < (b) + 0.01)

/* 400GbE RoCE v2: 82 bytes a packet (38 Ethernet, 20 IPv4, 8 UDP, 12 BTH,
 * 4 ICRC). 400 x 4096 / 4178 = 392.149; 400 x 1024 / 1106 = 370.344: the
 * issue's "about 392" and "about 370". */
static void roce_400g(void **state)
{
	struct rt_linerate r;

	(void)state;
	assert_int_equal(rt_linerate_of(RT_SPEED_NDR, RT_WIDTH_4X, true, 4096, &r), 0);
	assert_string_equal(r.speed, "NDR");
	assert_int_equal(r.lanes, 4);
	NEAR(r.nominal_gbps, 400);
	NEAR(r.data_gbps, 400);
	NEAR(r.signal_gbps, 425);         /* 4 x 106.25 PAM4 */
	NEAR(r.payload_gbps, 392.149);
	assert_int_equal(rt_linerate_of(RT_SPEED_NDR, RT_WIDTH_4X, true, 1024, &r), 0);
	NEAR(r.payload_gbps, 370.344);
	NEAR(rt_linerate_payload(400, true, 2048), 400.0 * 2048 / 2130); /* 384.6 */
}

/* 4X HDR InfiniBand: 4 x 53.125 signalling, 200 of data; 26 bytes a
 * packet (LRH 8, BTH 12, ICRC 4, VCRC 2): 200 x 4096 / 4122 = 198.739. */
static void ib_hdr_4x(void **state)
{
	struct rt_linerate r;

	(void)state;
	assert_int_equal(rt_linerate_of(RT_SPEED_HDR, RT_WIDTH_4X, false, 4096, &r), 0);
	NEAR(r.signal_gbps, 212.5);
	NEAR(r.data_gbps, 200);
	NEAR(r.payload_gbps, 198.739);
	assert_int_equal(rt_linerate_of(RT_SPEED_HDR, RT_WIDTH_4X, false, 2048, &r), 0);
	NEAR(r.payload_gbps, 197.493);    /* 200 x 2048 / 2074 */
}

/* 4X EDR: 4 x 25.78125 = 103.125 signalling, 64b/66b to 100 of data;
 * 100 x 4096 / 4122 = 99.369. The same port as 100GbE RoCE:
 * 100 x 4096 / 4178 = 98.037. */
static void edr_4x(void **state)
{
	struct rt_linerate r;

	(void)state;
	assert_int_equal(rt_linerate_of(RT_SPEED_EDR, RT_WIDTH_4X, false, 4096, &r), 0);
	NEAR(r.signal_gbps, 103.125);
	NEAR(r.data_gbps, 100);
	NEAR(r.payload_gbps, 99.369);
	assert_int_equal(rt_linerate_of(RT_SPEED_EDR, RT_WIDTH_4X, true, 4096, &r), 0);
	NEAR(r.payload_gbps, 98.037);
}

/* The older codings: 4X QDR signals 40 and carries 32 (8b/10b); 4X FDR
 * signals 56.25 and carries 56.25 x 64 / 66 = 54.545; 1X SDR 2.5 and 2. */
static void codings(void **state)
{
	struct rt_linerate r;

	(void)state;
	assert_int_equal(rt_linerate_of(RT_SPEED_QDR, RT_WIDTH_4X, false, 2048, &r), 0);
	NEAR(r.nominal_gbps, 40);
	NEAR(r.data_gbps, 32);
	assert_int_equal(rt_linerate_of(RT_SPEED_FDR, RT_WIDTH_4X, false, 4096, &r), 0);
	NEAR(r.signal_gbps, 56.25);
	NEAR(r.data_gbps, 54.545);
	NEAR(r.nominal_gbps, 56);
	assert_int_equal(rt_linerate_of(RT_SPEED_SDR, RT_WIDTH_1X, false, 256, &r), 0);
	NEAR(r.data_gbps, 2);
	NEAR(r.payload_gbps, 2.0 * 256 / 282);
	assert_int_equal(rt_linerate_of(RT_SPEED_XDR, RT_WIDTH_12X, false, 4096, &r), 0);
	assert_true(r.data_gbps <= RT_LINERATE_MAX_GBPS);
	NEAR(r.data_gbps, RT_LINERATE_MAX_GBPS);
	assert_int_equal(rt_linerate_of(RT_SPEED_NDR, RT_WIDTH_2X, false, 4096, &r), 0);
	assert_int_equal(r.lanes, 2);
}

/* Unknown codes and MTUs that are no IB MTU are refused, zeroed. */
static void refused(void **state)
{
	struct rt_linerate r;

	(void)state;
	assert_int_equal(rt_linerate_of(3, RT_WIDTH_4X, false, 4096, &r), -1);
	assert_null(r.speed);
	assert_int_equal(rt_linerate_of(RT_SPEED_EDR, 3, false, 4096, &r), -1);
	assert_int_equal(rt_linerate_of(RT_SPEED_EDR, RT_WIDTH_4X, false, 1500, &r), -1);
	assert_int_equal(rt_linerate_of(RT_SPEED_EDR, RT_WIDTH_4X, false, 8192, &r), -1);
	assert_int_equal(rt_linerate_of(RT_SPEED_EDR, RT_WIDTH_4X, false, 4095, &r), -1);
}

/* Without an MTU, the rates alone. */
static void no_mtu(void **state)
{
	struct rt_linerate r;

	(void)state;
	assert_int_equal(rt_linerate_of(RT_SPEED_EDR, RT_WIDTH_4X, false, 0, &r), 0);
	NEAR(r.data_gbps, 100);
	assert_true(r.payload_gbps == 0);
	assert_int_equal(r.mtu, 0);
}

/* The kernel's rate file, as rate_show writes it. */
static void parse(void **state)
{
	unsigned s, w;

	(void)state;
	assert_int_equal(rt_linerate_parse("400 Gb/sec (4X NDR)\n", &s, &w), 0);
	assert_int_equal(s, RT_SPEED_NDR);
	assert_int_equal(w, RT_WIDTH_4X);
	assert_int_equal(rt_linerate_parse("2.5 Gb/sec (1X SDR)", &s, &w), 0);
	assert_int_equal(s, RT_SPEED_SDR);
	assert_int_equal(w, RT_WIDTH_1X);
	assert_int_equal(rt_linerate_parse("40 Gb/sec (4X FDR10)", &s, &w), 0);
	assert_int_equal(s, RT_SPEED_FDR10);
	assert_int_equal(rt_linerate_parse("300 Gb/sec (12X EDR)", &s, &w), 0);
	assert_int_equal(w, RT_WIDTH_12X);
	assert_int_equal(rt_linerate_parse("100 Gb/sec (2X NDR)", &s, &w), 0);
	assert_int_equal(w, RT_WIDTH_2X);
	assert_int_equal(rt_linerate_parse("400 Gb/sec (3X NDR)", &s, &w), -1);
	assert_int_equal(rt_linerate_parse("400 Gb/sec (4X ZDR)", &s, &w), -1);
	assert_int_equal(s, 0);
	assert_int_equal(rt_linerate_parse("400 Gb/sec (4X NDR", &s, &w), -1);
	assert_int_equal(rt_linerate_parse("400 Gb/sec", &s, &w), -1);
	assert_int_equal(rt_linerate_parse("", &s, &w), -1);
	assert_int_equal(rt_linerate_parse(NULL, &s, &w), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roce_400g), cmocka_unit_test(ib_hdr_4x),
		cmocka_unit_test(edr_4x), cmocka_unit_test(codings),
		cmocka_unit_test(refused), cmocka_unit_test(no_mtu),
		cmocka_unit_test(parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
