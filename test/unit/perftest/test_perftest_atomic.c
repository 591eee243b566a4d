/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The atomic tests' check (perftest_atomic.h): the values a sequence of
 * FETCH_AND_ADD or CMP_AND_SWAP on one counter must fetch from an unknown
 * first value, how many of a run's messages each counter takes, and a
 * counter's before/last/after check, each failure naming what it found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "perftest/perftest_atomic.h"

static void expected_values(void **state)
{
	(void)state;
	assert_true(rt_pt_atomic_expect(RT_PT_FETCH_ADD, 7, 0) == 7);
	assert_true(rt_pt_atomic_expect(RT_PT_FETCH_ADD, 7, 5) == 12);
	/* a random first value near the top wraps as the counter does */
	assert_true(rt_pt_atomic_expect(RT_PT_FETCH_ADD, UINT64_MAX, 2) == 1);
	/* compare with 0, swap in 0: the counter never changes */
	assert_true(rt_pt_atomic_expect(RT_PT_CMP_SWAP, 0xabcdef, 999) == 0xabcdef);
}

static void sequence_learns_the_first_then_checks(void **state)
{
	struct rt_pt_atomic_seq s = { 0 };
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_pt_atomic_seq_check(&s, RT_PT_FETCH_ADD, 0x1234, &err), 0);
	assert_int_equal(rt_pt_atomic_seq_check(&s, RT_PT_FETCH_ADD, 0x1235, &err), 0);
	assert_int_equal(rt_pt_atomic_seq_check(&s, RT_PT_FETCH_ADD, 0x1236, &err), 0);
	/* the 4th fetched the same as the 3rd: a repeated (or lost) add */
	assert_int_equal(rt_pt_atomic_seq_check(&s, RT_PT_FETCH_ADD, 0x1236, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "FETCH_AND_ADD of iteration 4 fetched 0x1236, "
				"expected 0x1237 (the first fetched 0x1234)"));
	assert_true(s.n == 4);
}

static void sequence_of_cmp_and_swap(void **state)
{
	struct rt_pt_atomic_seq s = { 0 };
	struct rt_error err = { 0 };

	(void)state;
	for (int i = 0; i < 10; i++)
		assert_int_equal(rt_pt_atomic_seq_check(&s, RT_PT_CMP_SWAP, 0, &err), 0);
	assert_int_equal(rt_pt_atomic_seq_check(&s, RT_PT_CMP_SWAP, 1, &err), -1);
	assert_non_null(strstr(err.reason, "CMP_AND_SWAP of iteration 11 fetched 0x1, "
				"expected 0"));
}

static void hits_per_counter(void **state)
{
	uint64_t sum = 0;

	(void)state;
	/* 1000 messages on 64 counters: 15 rounds and 40 more */
	assert_true(rt_pt_atomic_hits(1000, 64, 0) == 16);
	assert_true(rt_pt_atomic_hits(1000, 64, 39) == 16);
	assert_true(rt_pt_atomic_hits(1000, 64, 40) == 15);
	assert_true(rt_pt_atomic_hits(1000, 64, 63) == 15);
	for (unsigned c = 0; c < 64; c++)
		sum += rt_pt_atomic_hits(1000, 64, c);
	assert_true(sum == 1000);
	assert_true(rt_pt_atomic_hits(5, 64, 5) == 0);
	assert_true(rt_pt_atomic_hits(5, 1, 0) == 5);
	assert_true(rt_pt_atomic_hits(5, 1, 1) == 0);
	assert_true(rt_pt_atomic_hits(5, 0, 0) == 0);
}

static void counter_check(void **state)
{
	struct rt_pt_atomic_counter x = { .before = 100, .last = 115, .after = 116, .hits = 16 };
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_pt_atomic_counter_check(&x, RT_PT_FETCH_ADD, 0, 3, 64, &err), 0);
	/* the last atomic fetched a wrong value: named with its message */
	x.last = 114;
	assert_int_equal(rt_pt_atomic_counter_check(&x, RT_PT_FETCH_ADD, 0, 3, 64, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "QP 0, counter 3: the FETCH_AND_ADD of message "
				"963 (the last of 16 on it) fetched 0x72, expected 0x73"));
	/* one add too many: done twice */
	x.last = 115;
	x.after = 117;
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_pt_atomic_counter_check(&x, RT_PT_FETCH_ADD, 2, 3, 64, &err), -1);
	assert_non_null(strstr(err.reason, "QP 2, counter 3 holds 0x75 after the run, "
				"expected 0x74 (16 FETCH_AND_ADD from 0x64)"));
	/* a counter no message reached must not have moved */
	x = (struct rt_pt_atomic_counter){ .before = 9, .last = 0, .after = 9, .hits = 0 };
	assert_int_equal(rt_pt_atomic_counter_check(&x, RT_PT_FETCH_ADD, 0, 63, 64, &err), 0);
	x.after = 10;
	assert_int_equal(rt_pt_atomic_counter_check(&x, RT_PT_FETCH_ADD, 0, 63, 64, &err), -1);
	/* CMP_AND_SWAP with compare 0 and swap 0 leaves everything as it was */
	x = (struct rt_pt_atomic_counter){ .before = 5, .last = 5, .after = 5, .hits = 16 };
	assert_int_equal(rt_pt_atomic_counter_check(&x, RT_PT_CMP_SWAP, 0, 0, 64, &err), 0);
	x.after = 0;
	assert_int_equal(rt_pt_atomic_counter_check(&x, RT_PT_CMP_SWAP, 0, 0, 64, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expected_values),
		cmocka_unit_test(sequence_learns_the_first_then_checks),
		cmocka_unit_test(sequence_of_cmp_and_swap),
		cmocka_unit_test(hits_per_counter),
		cmocka_unit_test(counter_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
