/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rdmacm/child.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"

#define POLL_NS 10000000L

int rt_child_start(struct rt_child *c, rt_child_fn *fn, void *arg,
		   struct rt_error *err)
{
	size_t len = sizeof(*c->share);
	/* MAP_ANONYMOUS wants fd -1 (mmap(2)); cppcheck's model does not know it */
	/* cppcheck-suppress invalidFunctionArg */
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	c->share = NULL;
	if (m == MAP_FAILED)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "mmap");
	fflush(NULL); /* or the child prints our buffered lines again */
	c->pid = fork();
	if (c->pid < 0) {
		int e = errno;

		munmap(m, len);
		return rt_fail_errno(err, RT_EXIT_ENV, e, "fork");
	}
	if (c->pid == 0) {
		int code;

		rt_interrupt_after_fork();
		code = fn(m, arg);

		fflush(NULL);
		_exit(code);
	}
	c->share = m;
	return 0;
}

void rt_child_beat(struct rt_child_share *s)
{
	__atomic_add_fetch(&s->beats, 1, __ATOMIC_RELAXED);
}

bool rt_child_result(struct rt_child_share *s, const char *json)
{
	size_t len = strlen(json), need = len + (s->results_len ? 1 : 0);

	if (need >= sizeof(s->results) - s->results_len)
		return false;
	if (s->results_len)
		s->results[s->results_len++] = ',';
	memcpy(s->results + s->results_len, json, len + 1);
	s->results_len += len;
	return true;
}

void rt_child_error(struct rt_child_share *s, const struct rt_error *e)
{
	s->err = *e;
}

/* Polls until the child ends or stays silent too long; *hung when killed. */
static void await(struct rt_child *c, long long silence_ms, int *st, bool *hung)
{
	const struct timespec tick = { 0, POLL_NS };
	uint64_t seen = __atomic_load_n(&c->share->beats, __ATOMIC_RELAXED);
	uint64_t until = rt_deadline_after_ms(silence_ms);
	bool passed_on = false;

	*hung = false;
	for (;;) {
		pid_t r = waitpid(c->pid, st, WNOHANG);
		uint64_t now = __atomic_load_n(&c->share->beats, __ATOMIC_RELAXED);

		if (r == c->pid)
			return;
		if (r < 0 && errno != EINTR) { /* not ours to wait for (SIGCHLD ignored) */
			*st = -1;
			return;
		}

		if (rt_interrupt_signal() && !passed_on) {
			kill(c->pid, rt_interrupt_signal());
			passed_on = true;
		}
		if (now != seen) {
			seen = now;
			until = rt_deadline_after_ms(silence_ms);
		} else if (silence_ms >= 0 && rt_ms_until(until) == 0) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, st, 0);
			*hung = true;
			return;
		}
		nanosleep(&tick, NULL);
	}
}

static int verdict(const struct rt_child_share *s, int st, const char *what,
		   struct rt_error *err)
{
	if (WIFSIGNALED(st))
		return rt_fail(err, RT_EXIT_FAIL, "%s died of signal %d", what, WTERMSIG(st));
	if (!WIFEXITED(st))
		return rt_fail(err, RT_EXIT_FAIL, "%s ended (status %#x)", what, (unsigned)st);
	if (s->err.set && WEXITSTATUS(st)) {
		if (!err->set)
			*err = s->err;
		return -1;
	}
	if (WEXITSTATUS(st))
		return rt_fail(err, WEXITSTATUS(st), "%s ended with exit %d and no reason",
			       what, WEXITSTATUS(st));
	return 0;
}

int rt_child_wait(struct rt_child *c, long long silence_ms, const char *what,
		  struct rt_json *results, struct rt_error *err)
{
	int st = 0, rc;
	bool hung;

	await(c, silence_ms, &st, &hung);
	if (results && c->share->results_len)
		rt_json_raw(results, c->share->results);
	if (hung)
		rc = rt_fail(err, RT_EXIT_TIMEOUT, "%s made no progress for %g s", what,
			     (double)silence_ms / 1000);
	else
		rc = verdict(c->share, st, what, err);
	munmap(c->share, sizeof(*c->share));
	c->share = NULL;
	return rc;
}
