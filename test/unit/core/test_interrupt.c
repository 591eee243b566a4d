/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* SIGINT/SIGTERM: the signal state, the verdict and exit code of an
 * interrupted run, waits that return RT_INTERRUPTED, and the last words
 * a signal handler writes (the rsocket backstop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmatest/applet.h"
#include "rdmatest/fdwait.h"
#include "rdmatest/interrupt.h"
#include "rdmacm/rsock.h"
#include "rdmatest/util.h"

static const struct rt_opt no_opts[] = { { 0 } };
static const struct rt_applet fake = { .name = "fake", .opts = no_opts };

static void run_init(struct rt_run *run, bool json)
{
	memset(run, 0, sizeof(*run));
	run->name = fake.name;
	run->tabs[0] = (struct rt_opt_table){ no_opts, NULL, { 0 }, NULL, false };
	run->tabs[1] = (struct rt_opt_table){ rt_common_opts, &run->common, { 0 }, NULL, false };
	run->common.json = json;
	run->common.timeout_ms = 10000;
	rt_log_init(&run->log, "fake", json, false, false);
	rt_json_init(&run->results);
	rt_json_object_begin(&run->results);
}

/* The exit status of rt_run_finish after `sig` (0: none) with the
 * applet's return rc, whether an interrupt is the run's normal end, and
 * an earlier failure (0: none). */
static int finish(int sig, int rc, bool is_end, int failure)
{
	struct rt_run run;
	int code;

	run_init(&run, false);
	rt_interrupt_restore();
	if (sig)
		rt_interrupt_raise(sig);
	run.interrupt_is_end = is_end;
	if (failure)
		rt_fail(&run.err, failure, "an earlier failure");
	code = rt_run_finish(&run, rc);
	rt_json_free(&run.results);
	return code;
}

static void exit_codes(void **state)
{
	(void)state;
	assert_int_equal(rt_interrupt_exit_code(SIGINT), 130);
	assert_int_equal(rt_interrupt_exit_code(SIGTERM), 143);
	assert_string_equal(rt_exit_name(130), "interrupted");
	assert_string_equal(rt_exit_name(143), "interrupted");
	assert_string_equal(rt_interrupt_name(SIGINT), "SIGINT");
	assert_string_equal(rt_interrupt_name(SIGTERM), "SIGTERM");
	/* not the run's normal end: interrupted, 128 + signal */
	assert_int_equal(finish(SIGINT, RT_INTERRUPTED, false, 0), 130);
	assert_int_equal(finish(SIGTERM, RT_INTERRUPTED, false, 0), 143);
	assert_int_equal(finish(SIGINT, 0, false, 0), 130); /* even if it wound down */
	/* its normal end (rping -C 0, rping -P): the rounds before decide */
	assert_int_equal(finish(SIGINT, RT_INTERRUPTED, true, 0), 0);
	assert_int_equal(finish(SIGTERM, 0, true, 0), 0);
	assert_int_equal(finish(SIGINT, -1, true, RT_EXIT_FAIL), 1);
	/* a failure before the interrupt is the verdict */
	assert_int_equal(finish(SIGINT, -1, false, RT_EXIT_FAIL), 1);
	assert_int_equal(finish(SIGTERM, -1, false, RT_EXIT_TIMEOUT), 124);
	/* without a signal nothing changes */
	assert_int_equal(finish(0, 0, true, 0), 0);
	assert_int_equal(finish(0, -1, false, 0), 1);
	assert_int_equal(finish(0, RT_INTERRUPTED, true, 0), 1);
	assert_int_equal(rt_interrupt_signal(), 0); /* finish forgets it */
}

/* Runs fn in a child with stdout and stderr on pipes; returns its wait
 * status and what it wrote. */
static int in_child(void (*fn)(void *), void *arg, char *out, size_t outlen,
		    char *err, size_t errlen)
{
	int po[2], pe[2], st = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		fn(arg);
		_exit(99);
	}
	close(po[1]);
	close(pe[1]);
	n = read(po[0], out, outlen - 1); /* the documents are one write each */
	out[n > 0 ? n : 0] = '\0';
	n = read(pe[0], err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	close(po[0]);
	close(pe[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void interrupted_json_child(void *arg)
{
	struct rt_run run;

	(void)arg;
	run_init(&run, true);
	rt_run_start(&run);
	rt_json_kv_uint(&run.results, "pings", 7);
	raise(SIGTERM); /* caught: only recorded */
	exit(rt_run_finish(&run, RT_INTERRUPTED));
}

static void interrupted_run_json(void **state)
{
	char out[4096], err[512];
	int st;

	(void)state;
	st = in_child(interrupted_json_child, NULL, out, sizeof(out), err, sizeof(err));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 143);
	assert_non_null(strstr(out, "\"outcome\":{\"verdict\":\"interrupted\","
			       "\"exit_code\":143,\"interrupted\":true,\"signal\":"
			       "\"SIGTERM\",\"error\":{"));
	assert_non_null(strstr(out, "\"reason\":\"interrupted by SIGTERM\"}},"
			       "\"results\":{\"pings\":7}}\n"));
	assert_string_equal(err, "fake: interrupted by SIGTERM\n");
}

static void signal_state(void **state)
{
	struct pollfd p;

	(void)state;
	assert_int_equal(rt_interrupt_install(), 0);
	assert_int_equal(rt_interrupt_signal(), 0);
	assert_false(rt_interrupt_pending());
	p = (struct pollfd){ .fd = rt_interrupt_fd(), .events = POLLIN };
	assert_true(p.fd >= 0);
	assert_int_equal(poll(&p, 1, 0), 0);
	raise(SIGINT);
	assert_int_equal(rt_interrupt_signal(), SIGINT);
	assert_true(rt_interrupt_pending());
	assert_int_equal(poll(&p, 1, 0), 1); /* the reactor's poll wakes */
	rt_interrupt_wind_down(&(struct rt_error){ .phase = "transfer" });
	assert_false(rt_interrupt_pending());
	assert_int_equal(rt_interrupt_signal(), SIGINT); /* still the verdict's */
	{
		struct rt_error e = { .phase = "disconnect" };

		rt_interrupt_record(&e, SIGINT); /* names where it stopped */
		assert_string_equal(e.phase, "transfer");
		assert_int_equal(e.exit_code, 130);
		assert_string_equal(e.reason, "interrupted by SIGINT");
	}
	assert_int_equal(rt_interrupt_fd(), -1);
	rt_interrupt_restore();
	assert_int_equal(rt_interrupt_signal(), 0);
}

static void second_signal_child(void *arg)
{
	(void)arg;
	rt_interrupt_install();
	raise(SIGTERM);
	raise(SIGTERM); /* GNU timeout's second copy: the same interrupt */
	if (rt_interrupt_signal() != SIGTERM)
		_exit(1);
	sleep(3);
	raise(SIGINT); /* the user insists: ends here, 128 + SIGINT */
	_exit(2);
}

/* A repeat at once is ignored, one seconds later exits at once. */
static void second_signal_ends_at_once(void **state)
{
	char out[64], err[64];
	int st;

	(void)state;
	st = in_child(second_signal_child, NULL, out, sizeof(out), err, sizeof(err));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 130);
}

/* A receive with nothing coming returns at once after the interrupt,
 * records nothing, in every wait mode. */
static void stream_waits_return_interrupted(void **state)
{
	static const enum rt_stream_wait modes[] = { RT_WAIT_SPIN, RT_WAIT_POLL,
						     RT_WAIT_BLOCK };
	uint8_t buf[16] = { 0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct rt_stream s = { .ops = &rt_sock_kernel, .wait = modes[i],
				       .timeout_ms = 5000 };
		struct rt_error e = { 0 };
		uint64_t t0 = rt_now_ns();
		int sv[2];

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		s.fd = sv[0];
		assert_int_equal(rt_stream_set_wait(&s, &e), 0);
		rt_interrupt_restore();
		rt_interrupt_raise(SIGINT);
		assert_int_equal(rt_stream_recv_all(&s, buf, sizeof(buf), &e), RT_INTERRUPTED);
		assert_false(e.set);
		assert_true(rt_now_ns() - t0 < 1000000000ull);
		rt_interrupt_wind_down(&e); /* winding down: waits run to their end */
		assert_int_equal(write(sv[1], buf, sizeof(buf)), (ssize_t)sizeof(buf));
		assert_int_equal(rt_stream_recv_all(&s, buf, sizeof(buf), &e), 0);
		close(sv[0]);
		close(sv[1]);
	}
	rt_interrupt_restore();
}

static void last_words_child(void *arg)
{
	struct rt_run run;

	run_init(&run, *(bool *)arg);
	rt_run_start(&run);
	rt_json_kv_string(&run.results, "role", "client");
	rt_json_key(&run.results, "rows");
	rt_json_array_begin(&run.results); /* still open, as mid-run */
	rt_last_words_prepare(RT_EXIT_TIMEOUT, "rconnect 192.0.2.9:7471: no answer");
	rt_last_words_exit();
}

/* The backstop's exit: the line, and with --json the whole document,
 * written from the handler; the run's own results stay open. */
static void last_words_carry_the_document(void **state)
{
	char out[4096], err[512];
	bool json = true;
	int st;

	(void)state;
	st = in_child(last_words_child, &json, out, sizeof(out), err, sizeof(err));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 124);
	assert_string_equal(err, "fake: rconnect 192.0.2.9:7471: no answer\n");
	assert_non_null(strstr(out, "{\"tool\":\"rdmatest\","));
	assert_non_null(strstr(out, "\"outcome\":{\"verdict\":\"timeout\",\"exit_code\":124,"
			       "\"interrupted\":false,\"error\":{"));
	assert_non_null(strstr(out, "\"results\":{\"role\":\"client\",\"rows\":[]}}\n"));
	json = false;
	st = in_child(last_words_child, &json, out, sizeof(out), err, sizeof(err));
	assert_int_equal(WEXITSTATUS(st), 124);
	assert_string_equal(out, "");
	assert_string_equal(err, "fake: rconnect 192.0.2.9:7471: no answer\n");
}

static long cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000L +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000L;
}

/* In a forked child: a 300 ms wait must time out at its deadline, and
 * not by spinning. The exit status says which check failed; SIGALRM
 * ends a wait that ignores its deadline. */
static int child_waits_out_its_deadline(void)
{
	uint64_t t0 = rt_now_ns();
	long cpu0 = cpu_ms();
	int rc;

	alarm(3);
	rc = rt_fdwait(-1, 0, rt_deadline_after_ms(300));
	if (rc != RT_FDWAIT_TIMEOUT)
		return 1;
	if (rt_now_ns() - t0 < 250ull * 1000000ull)
		return 2;
	return cpu_ms() - cpu0 > 100 ? 3 : 0;
}

static int exit_status(pid_t pid)
{
	int st = 0;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

/* The parent was interrupted before the fork: the child's own state has
 * no signal, so its waits run to their deadlines. */
static void child_starts_without_the_parents_signal(void **state)
{
	pid_t pid;

	(void)state;
	assert_int_equal(rt_interrupt_install(), 0);
	raise(SIGINT);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		rt_interrupt_after_fork();
		_exit(rt_interrupt_pending() || rt_interrupt_fd() < 0 ? 9 :
		      child_waits_out_its_deadline());
	}
	assert_int_equal(exit_status(pid), 0);
	assert_int_equal(rt_interrupt_signal(), SIGINT);
	rt_interrupt_restore();
}

/* Only the parent is signalled after the fork, and the child shares its
 * self-pipe (a child that did not call rt_interrupt_after_fork): the
 * child's wait drains the byte instead of spinning on it. */
static void child_sharing_the_pipe_does_not_spin(void **state)
{
	pid_t pid;

	(void)state;
	assert_int_equal(rt_interrupt_install(), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_waits_out_its_deadline());
	kill(getpid(), SIGTERM);
	assert_int_equal(exit_status(pid), 0);
	assert_int_equal(rt_interrupt_signal(), SIGTERM);
	rt_interrupt_restore();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_codes),
		cmocka_unit_test(interrupted_run_json),
		cmocka_unit_test(signal_state),
		cmocka_unit_test(second_signal_ends_at_once),
		cmocka_unit_test(stream_waits_return_interrupted),
		cmocka_unit_test(last_words_carry_the_document),
		cmocka_unit_test(child_starts_without_the_parents_signal),
		cmocka_unit_test(child_sharing_the_pipe_does_not_spin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
