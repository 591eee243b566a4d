/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The one bounded wait on descriptors: ready, expired, interrupted (by a
 * real signal through the self-pipe, and by one already pending), and a
 * wind-down that lets a wait run to its deadline again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "rdmatest/fdwait.h"
#include "rdmatest/util.h"

#define MS 1000000ull

static void readable_pipe_is_ready_at_once(void **state)
{
	int fds[2];
	uint64_t t0;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	t0 = rt_now_ns();
	assert_int_equal(rt_fdwait(fds[0], POLLIN, rt_deadline_after_ms(20000)),
			 RT_FDWAIT_READY);
	assert_true(rt_now_ns() - t0 < 1000 * MS);
	close(fds[0]);
	close(fds[1]);
}

/* A quiet descriptor, or none at all (a sleep), waits out its deadline
 * and not a millisecond less. */
static void quiet_wait_ends_at_its_deadline(void **state)
{
	int fds[2];
	uint64_t t0;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	t0 = rt_now_ns();
	assert_int_equal(rt_fdwait(fds[0], POLLIN, rt_deadline_after_ms(80)),
			 RT_FDWAIT_TIMEOUT);
	assert_true(rt_now_ns() - t0 >= 80 * MS);
	t0 = rt_now_ns();
	assert_int_equal(rt_fdwait(-1, 0, rt_deadline_after_ms(30)), RT_FDWAIT_TIMEOUT);
	assert_true(rt_now_ns() - t0 >= 30 * MS);
	close(fds[0]);
	close(fds[1]);
}

/* Only the ready entry of several carries revents. */
static void many_marks_the_ready_one(void **state)
{
	int a[2], b[2];
	struct pollfd fds[3] = { { .events = POLLIN }, { .events = POLLIN } };

	(void)state;
	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	fds[0].fd = a[0];
	fds[1].fd = b[0];
	assert_int_equal(write(b[1], "x", 1), 1);
	assert_int_equal(rt_fdwait_many(fds, 2, rt_deadline_after_ms(20000)),
			 RT_FDWAIT_READY);
	assert_int_equal(fds[0].revents, 0);
	assert_true(fds[1].revents & POLLIN);
	for (int i = 0; i < 2; i++) {
		close(a[i]);
		close(b[i]);
	}
}

/* A SIGINT from another process wakes a long wait through the pipe. */
static void signal_ends_a_long_wait(void **state)
{
	int fds[2];
	uint64_t t0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(rt_interrupt_install(), 0);
	t0 = rt_now_ns();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec soon = { 0, 100000000 };

		nanosleep(&soon, NULL);
		_exit(kill(getppid(), SIGINT) != 0);
	}
	assert_int_equal(rt_fdwait(fds[0], POLLIN, rt_deadline_after_ms(20000)),
			 RT_FDWAIT_INTERRUPTED);
	assert_true(rt_now_ns() - t0 < 5000 * MS);
	assert_int_equal(rt_interrupt_signal(), SIGINT);
	waitpid(pid, NULL, 0);
	rt_interrupt_restore();
	close(fds[0]);
	close(fds[1]);
}

/* A pending interrupt ends a wait before it polls, even on a ready
 * descriptor; once the run winds down, waits run to their end again. */
static void pending_interrupt_and_wind_down(void **state)
{
	struct rt_error e = { 0 };
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	assert_int_equal(rt_interrupt_install(), 0);
	rt_interrupt_raise(SIGTERM);
	assert_int_equal(rt_fdwait(fds[0], POLLIN, rt_deadline_after_ms(20000)),
			 RT_FDWAIT_INTERRUPTED);
	rt_interrupt_wind_down(&e);
	assert_int_equal(rt_fdwait(fds[0], POLLIN, rt_deadline_after_ms(20000)),
			 RT_FDWAIT_READY);
	assert_int_equal(rt_fdwait(-1, 0, rt_deadline_after_ms(10)), RT_FDWAIT_TIMEOUT);
	rt_interrupt_restore();
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(readable_pipe_is_ready_at_once),
		cmocka_unit_test(quiet_wait_ends_at_its_deadline),
		cmocka_unit_test(many_marks_the_ready_one),
		cmocka_unit_test(signal_ends_a_long_wait),
		cmocka_unit_test(pending_interrupt_and_wind_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
