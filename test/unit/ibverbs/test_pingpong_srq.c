/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_srq_pingpong's block of 256 records without a device: the layout
 * (unused records are upstream's all-zero record), the round trip, a
 * peer whose -q differs named from either side, a bad record named with
 * its index, and the result lines' arithmetic over global counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ibverbs/pingpong_srq.h"

static char block[RT_PP_SRQ_BLOCK];

static void fill(struct rt_pp_dest *d, unsigned n)
{
	memset(d, 0, sizeof(*d) * n);
	for (unsigned i = 0; i < n; i++) {
		d[i].lid = 7;
		d[i].qpn = 0x100 + i;
		d[i].psn = 0xabc000 + i;
		d[i].gid.raw[15] = (uint8_t)i;
	}
}

static void test_layout(void **state)
{
	struct rt_pp_dest d[3];

	(void)state;
	fill(d, 3);
	memset(block, 'x', sizeof(block));
	rt_pp_srq_block_encode(block, d, 3);
	assert_string_equal(block + RT_PP_REC_LEN, "0007:000101:abc001:"
			    "00000000000000000000000000000001");
	/* records 3..255: the zero record, text and NUL, as upstream sends them */
	for (unsigned i = 3; i < RT_PP_SRQ_MAX_QP; i++)
		assert_string_equal(block + (size_t)i * RT_PP_REC_LEN,
				    "0000:000000:000000:00000000000000000000000000000000");
}

static void test_roundtrip(void **state)
{
	struct rt_pp_dest d[255], got[255];
	struct rt_error err = { 0 };

	(void)state;
	for (unsigned n = 1; n < RT_PP_SRQ_MAX_QP; n += 127) {
		fill(d, n);
		rt_pp_srq_block_encode(block, d, n);
		memset(got, 0, sizeof(got));
		assert_int_equal(rt_pp_srq_block_decode(block, n, got, "peer", &err), 0);
		for (unsigned i = 0; i < n; i++) { /* fields: padding is not data */
			assert_int_equal(got[i].lid, d[i].lid);
			assert_int_equal(got[i].qpn, d[i].qpn);
			assert_int_equal(got[i].psn, d[i].psn);
			assert_memory_equal(got[i].gid.raw, d[i].gid.raw, 16);
		}
	}
}

static void mismatch(unsigned theirs, unsigned mine, const char *want)
{
	struct rt_pp_dest d[255];
	struct rt_error err = { 0 };

	fill(d, theirs);
	rt_pp_srq_block_encode(block, d, theirs);
	assert_int_equal(rt_pp_srq_block_decode(block, mine, d, "10.0.0.2:18515", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	if (!strstr(err.reason, want))
		fail_msg("reason \"%s\" lacks \"%s\"", err.reason, want);
}

static void test_q_mismatch(void **state)
{
	(void)state;
	mismatch(8, 16, "10.0.0.2:18515 has 8 QPs (its -q), this side 16: both sides "
		 "must use the same -q (QP records from the peer have QPN 0)");
	mismatch(16, 8, "has 16 QPs (its -q), this side 8: both sides must use the same -q");
	mismatch(255, 1, "has 255 QPs");
}

static void test_bad_record_named(void **state)
{
	struct rt_pp_dest d[16];
	struct rt_error err = { 0 };

	(void)state;
	fill(d, 16);
	rt_pp_srq_block_encode(block, d, 16);
	block[200 * RT_PP_REC_LEN + 4] = ';';
	assert_int_equal(rt_pp_srq_block_decode(block, 16, d, "peer", &err), -1);
	assert_non_null(strstr(err.reason, "peer (record 200)"));
	assert_non_null(strstr(err.reason, "separators"));
}

static void test_result_lines(void **state)
{
	struct rt_pp_srq_loop l = { .size = 4096, .iters = 1000, .elapsed_us = 250000 };
	char b[256];

	(void)state;
	rt_pp_srq_print_result(&l, b, sizeof(b));
	assert_string_equal(b, "8192000 bytes in 0.25 seconds = 262.14 Mbit/sec\n"
			    "1000 iters in 0.25 seconds = 250.00 usec/iter");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_q_mismatch),
		cmocka_unit_test(test_bad_record_named),
		cmocka_unit_test(test_result_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
