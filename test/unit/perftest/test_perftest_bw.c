/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The bandwidth engine's pure parts: where message k lands (perftest's
 * address walk through the cycle buffer), the peak over perftest's
 * windows against figures worked out by hand. The data pattern is
 * verify.h's (test/unit/core/test_verify.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "perftest/perftest_bw.h"
#include "perftest/perftest_report.h"

static void offsets_walk_the_cycle_buffer(void **state)
{
	(void)state;
	/* 2-byte messages step by a 64-byte line, wrap after 4096 / 64 = 64 */
	assert_int_equal(rt_pt_msg_offset(0, 2, 4096, 64, 1), 0);
	assert_int_equal(rt_pt_msg_offset(1, 2, 4096, 64, 1), 64);
	assert_int_equal(rt_pt_msg_offset(63, 2, 4096, 64, 1), 63 * 64);
	assert_int_equal(rt_pt_msg_offset(64, 2, 4096, 64, 1), 0);
	/* 1000 bytes round up to 1024: four per 4 KiB */
	assert_int_equal(rt_pt_msg_offset(3, 1000, 4096, 64, 1), 3072);
	assert_int_equal(rt_pt_msg_offset(4, 1000, 4096, 64, 1), 0);
	/* half the cycle buffer still walks; more than half does not */
	assert_int_equal(rt_pt_msg_offset(1, 2048, 4096, 64, 1), 2048);
	assert_int_equal(rt_pt_msg_offset(1, 2049, 4096, 64, 1), 0);
	assert_int_equal(rt_pt_msg_offset(5, 65536, 4096, 64, 1), 0);
	/* a post list keeps every message at the start */
	assert_int_equal(rt_pt_msg_offset(1, 2, 4096, 64, 4), 0);
}

/* The places messages go to: the atomic check reads each of them. */
static void places_agree_with_offsets(void **state)
{
	(void)state;
	assert_int_equal(rt_pt_msg_places(8, 4096, 64, 1), 64);
	assert_int_equal(rt_pt_msg_places(1000, 4096, 64, 1), 4);
	assert_int_equal(rt_pt_msg_places(2049, 4096, 64, 1), 1);
	assert_int_equal(rt_pt_msg_places(8, 4096, 64, 4), 1);
	/* a larger negotiated page walks further */
	assert_int_equal(rt_pt_msg_places(8, 65536, 128, 1), 512);
	for (uint64_t k = 0; k < 200; k++)
		assert_int_equal(rt_pt_msg_offset(k, 8, 4096, 64, 1),
				 k % rt_pt_msg_places(8, 4096, 64, 1) * 64);
}

static void peak_is_the_best_window(void **state)
{
	/* 4 messages posted at 0, 10, 20, 30; completions stamped at index 1
	 * (time 50) and index 3 (time 70), -Q 2. Windows: i=0: j=1 50/2=25,
	 * j=3 70/4=17; i=1: j=1 40/1=40, j=3 60/3=20; i=2: j=3 50/2=25;
	 * i=3: j=3 40. Best 17 (integer ns). */
	const uint64_t tpost[] = { 0, 10, 20, 30 }, tcomp[] = { 0, 50, 0, 70 };

	(void)state;
	assert_int_equal(rt_pt_peak_ns(tpost, tcomp, 4, 1, 2), 17);
	/* with -l 2 only i = 0 and 2 start windows: 17 still from i = 0 */
	assert_int_equal(rt_pt_peak_ns(tpost, tcomp, 4, 2, 2), 17);
	/* no completion stamped: no window */
	assert_int_equal(rt_pt_peak_ns(tpost, (const uint64_t[]){ 0, 0, 0, 0 }, 4, 1, 2), 0);
}

static void peak_takes_the_odd_tail(void **state)
{
	/* 3 messages, -Q 2: the last completion (index 2) ends a window too */
	const uint64_t tpost[] = { 0, 100, 200 }, tcomp[] = { 0, 400, 230 };

	(void)state;
	/* i=2: j=2 (tail) 30/1 = 30 is the best */
	assert_int_equal(rt_pt_peak_ns(tpost, tcomp, 3, 1, 2), 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(offsets_walk_the_cycle_buffer),
		cmocka_unit_test(places_agree_with_offsets),
		cmocka_unit_test(peak_is_the_best_window),
		cmocka_unit_test(peak_takes_the_odd_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
