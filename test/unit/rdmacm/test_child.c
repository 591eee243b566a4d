/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for applets/rdmacm/child.c: real child processes that pass, fail with
 * a reason, end without one, die of a signal, hang past the bound, and
 * one that an interrupt of the parent reaches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmacm/child.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"

/* Exits with *arg, or dies of signal -*arg. */
static int ends(struct rt_child_share *s, void *arg)
{
	int how = *(int *)arg;

	(void)s;
	if (how < 0)
		raise(-how);
	return how;
}

/* Starts a child and waits for it: rt_child_wait's return. */
static int run(rt_child_fn *fn, void *arg, long long bound, struct rt_error *err)
{
	struct rt_child c;

	assert_int_equal(rt_child_start(&c, fn, arg, err), 0);
	return rt_child_wait(&c, bound, "the job", NULL, err);
}

static int passes_with_rows(struct rt_child_share *s, void *arg)
{
	(void)arg;
	rt_child_beat(s);
	rt_child_result(s, "{\"row\":1}");
	rt_child_result(s, "{\"row\":2}");
	return 0;
}

static void exit_0_passes_and_hands_over_results(void **state)
{
	struct rt_child c;
	struct rt_error err = { 0 };
	struct rt_json j;

	(void)state;
	rt_json_init(&j);
	rt_json_array_begin(&j);
	rt_json_raw(&j, "{\"row\":0}");
	assert_int_equal(rt_child_start(&c, passes_with_rows, NULL, &err), 0);
	assert_int_equal(rt_child_wait(&c, 5000, "child", &j, &err), 0);
	assert_false(err.set);
	assert_null(c.share);
	rt_json_array_end(&j);
	rt_json_finish(&j);
	assert_string_equal(rt_json_text(&j), "[{\"row\":0},{\"row\":1},{\"row\":2}]");
	rt_json_free(&j);
}

static int fails_with_reason(struct rt_child_share *s, void *arg)
{
	struct rt_error e = { 0 };

	(void)arg;
	rt_error_phase(&e, "transfer");
	rt_fail_errno(&e, RT_EXIT_TIMEOUT, 110, "row 4k: no data for 3 s");
	rt_child_error(s, &e);
	return e.exit_code;
}

static void child_record_is_the_verdict(void **state)
{
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(run(fails_with_reason, NULL, 5000, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_TIMEOUT);
	assert_int_equal(err.err_no, 110);
	assert_string_equal(err.phase, "transfer");
	assert_non_null(strstr(err.reason, "row 4k: no data for 3 s"));
}

static void exit_without_reason_is_named(void **state)
{
	struct rt_error err = { 0 };
	int how = 1;

	(void)state;
	assert_int_equal(run(ends, &how, 5000, &err), -1);
	assert_int_equal(err.exit_code, 1);
	assert_string_equal(err.reason, "the job ended with exit 1 and no reason");
}

static void signal_death_is_a_failure(void **state)
{
	struct rt_error err = { 0 };
	int how = -SIGKILL;

	(void)state;
	assert_int_equal(run(ends, &how, 5000, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_string_equal(err.reason, "the job died of signal 9");
}

/* Beats for 400 ms (longer than the 200 ms bound), then hangs. */
static int beats_then_hangs(struct rt_child_share *s, void *arg)
{
	uint64_t until = rt_deadline_after_ms(400);

	(void)arg;
	while (rt_ms_until(until) > 0) {
		rt_child_beat(s);
		usleep(20000);
	}
	for (;;)
		pause();
	return 0;
}

static void silence_past_the_bound_is_killed(void **state)
{
	struct rt_child c;
	struct rt_error err = { 0 };
	uint64_t t0 = rt_now_ns(), ms;

	(void)state;
	assert_int_equal(rt_child_start(&c, beats_then_hangs, NULL, &err), 0);
	assert_int_equal(rt_child_wait(&c, 200, "the job", NULL, &err), -1);
	ms = (rt_now_ns() - t0) / 1000000;
	assert_int_equal(err.exit_code, RT_EXIT_TIMEOUT);
	assert_string_equal(err.reason, "the job made no progress for 0.2 s");
	assert_true(ms >= 550); /* the beats kept it alive */
	assert_true(ms < 3000);
	assert_int_equal(kill(c.pid, 0), -1); /* killed and reaped */
}

static int waits_for_interrupt(struct rt_child_share *s, void *arg)
{
	struct rt_error e = { 0 };

	(void)arg;
	while (!rt_interrupt_signal())
		usleep(5000);
	rt_interrupt_record(&e, rt_interrupt_signal());
	rt_child_error(s, &e);
	return e.exit_code;
}

static void interrupt_is_passed_on(void **state)
{
	struct rt_child c;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_interrupt_install(), 0);
	assert_int_equal(rt_child_start(&c, waits_for_interrupt, NULL, &err), 0);
	usleep(50000);
	raise(SIGINT); /* the parent's handler records it; the wait passes it on */
	assert_int_equal(rt_child_wait(&c, 5000, "the job", NULL, &err), -1);
	rt_interrupt_restore();
	assert_int_equal(err.exit_code, 130);
}

static void results_are_bounded(void **state)
{
	static struct rt_child_share s;
	char rec[1001];

	(void)state;
	memset(rec, '1', sizeof(rec) - 1);
	rec[sizeof(rec) - 1] = '\0';
	while (rt_child_result(&s, rec))
		;
	assert_true(s.results_len < sizeof(s.results));
	assert_int_equal(strlen(s.results), s.results_len);
	assert_true(s.results_len > sizeof(s.results) - 2 * sizeof(rec));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_0_passes_and_hands_over_results),
		cmocka_unit_test(child_record_is_the_verdict),
		cmocka_unit_test(exit_without_reason_is_named),
		cmocka_unit_test(signal_death_is_a_failure),
		cmocka_unit_test(silence_past_the_bound_is_killed),
		cmocka_unit_test(interrupt_is_passed_on),
		cmocka_unit_test(results_are_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
