/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The verbs-only pair test's record of a connection (meshvtest.h): what
 * one rank sends the other about each rail without an address, and the
 * strict reading of what came. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshvtest.h"

static struct rt_mesh_vrec rec(void)
{
	struct rt_mesh_vrec v = { .rail = 3, .peer_rail = 5, .grh = 1, .lid = 0x1234,
				  .qpn = 0xabcdef, .psn = 0x123456 };

	for (unsigned i = 0; i < 16; i++)
		v.gid[i] = (uint8_t)(0xf0 + i);
	return v;
}

static void round_trip(void **state)
{
	struct rt_mesh_vrec v = rec(), back;
	uint8_t buf[RT_MESH_VREC_LEN];
	char why[128] = "";

	(void)state;
	rt_mesh_vrec_put(&v, buf);
	assert_int_equal(buf[0], 3);
	assert_int_equal(buf[12], 5);
	assert_int_equal(buf[2], 0x12);
	assert_int_equal(buf[4], 0x00);
	assert_int_equal(buf[5], 0xab);
	assert_int_equal(rt_mesh_vrec_take(buf, &back, why, sizeof(why)), 0);
	assert_int_equal(back.rail, 3);
	assert_int_equal(back.peer_rail, 5);
	assert_int_equal(back.grh, 1);
	assert_int_equal(back.lid, 0x1234);
	assert_int_equal(back.qpn, 0xabcdef);
	assert_int_equal(back.psn, 0x123456);
	assert_memory_equal(back.gid, v.gid, 16);
}

/* Byte `off` set to `val`: refused, the reason naming `part`. */
static void refused(size_t off, uint8_t val, const char *part)
{
	struct rt_mesh_vrec v = rec(), back;
	uint8_t buf[RT_MESH_VREC_LEN];
	char why[128] = "";

	rt_mesh_vrec_put(&v, buf);
	buf[off] = val;
	assert_int_equal(rt_mesh_vrec_take(buf, &back, why, sizeof(why)), -1);
	if (!strstr(why, part))
		fail_msg("byte %zu = %u: '%s' lacks '%s'", off, val, why, part);
}

static void strict_reading(void **state)
{
	(void)state;
	refused(0, 32, "rail 32 to 5");
	refused(12, 32, "rail 3 to 32");
	refused(1, 2, "GRH 2");
	refused(4, 1, "QPN");
	refused(8, 1, "PSN");
	for (size_t off = 13; off < 16; off++)
		refused(off, 1, "pad byte");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(strict_reading),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
