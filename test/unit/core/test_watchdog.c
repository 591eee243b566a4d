/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The spinning waits' watchdog: when it looks, what it sees (a stall
 * after the bound, an interrupt before anything else), and progress
 * restarting the bound. Times are given, not read, so nothing sleeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <cmocka.h>

#include "rdmatest/watchdog.h"

#define MS 1000000ull
#define T0 (1000 * MS)

static void looks_every_nth_spin(void **state)
{
	struct rt_watchdog w;
	unsigned looks = 0;

	(void)state;
	rt_watchdog_start(&w, 100, 4, T0);
	for (int i = 0; i < 12; i++)
		looks += rt_watchdog_due(&w);
	assert_int_equal(looks, 3);
	rt_watchdog_start(&w, 100, 1, T0);
	assert_true(rt_watchdog_due(&w));
}

static void stall_after_the_bound(void **state)
{
	struct rt_watchdog w;

	(void)state;
	rt_interrupt_restore();
	rt_watchdog_start(&w, 100, 1024, T0);
	assert_int_equal(rt_watchdog_check(&w, T0 + 99 * MS), RT_WATCHDOG_OK);
	assert_int_equal(rt_watchdog_check(&w, T0 + 100 * MS), RT_WATCHDOG_TIMEOUT);
	/* progress restarts the bound */
	rt_watchdog_progress(&w, T0 + 90 * MS);
	assert_int_equal(rt_watchdog_check(&w, T0 + 150 * MS), RT_WATCHDOG_OK);
	assert_int_equal(rt_watchdog_check(&w, T0 + 190 * MS), RT_WATCHDOG_TIMEOUT);
}

/* An interrupt is seen first, even when the bound has passed too; once
 * the run winds down it is not seen again. */
static void interrupt_comes_first(void **state)
{
	struct rt_watchdog w;
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_interrupt_install(), 0);
	rt_watchdog_start(&w, 100, 1024, T0);
	rt_interrupt_raise(SIGINT);
	assert_int_equal(rt_watchdog_check(&w, T0), RT_WATCHDOG_INTERRUPTED);
	assert_int_equal(rt_watchdog_check(&w, T0 + 500 * MS), RT_WATCHDOG_INTERRUPTED);
	rt_interrupt_wind_down(&e);
	assert_int_equal(rt_watchdog_check(&w, T0), RT_WATCHDOG_OK);
	assert_int_equal(rt_watchdog_check(&w, T0 + 500 * MS), RT_WATCHDOG_TIMEOUT);
	rt_interrupt_restore();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(looks_every_nth_spin),
		cmocka_unit_test(stall_after_the_bound),
		cmocka_unit_test(interrupt_comes_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
