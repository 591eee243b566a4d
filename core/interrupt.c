/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"

/* Written by the handler, so sig_atomic_t; everything else is only
 * touched outside handlers. */
static volatile sig_atomic_t caught;
static volatile sig_atomic_t first_sec; /* CLOCK_MONOTONIC of the first */
static bool winding_down;
static char stopped_in[sizeof(((struct rt_error *)0)->phase)];
static int wake[2] = { -1, -1 };

static long mono_sec(void)
{
	struct timespec ts;

	return clock_gettime(CLOCK_MONOTONIC, &ts) ? 0 : (long)ts.tv_sec;
}

/* Only async-signal-safe calls. A repeat within a second or two is the
 * same interrupt: GNU timeout signals the command and then its whole
 * process group, so one `timeout` delivers SIGTERM twice. A later one
 * means the user will not wait for the wind-down: exit at once. */
static void on_signal(int sig)
{
	int saved = errno;
	ssize_t ignored = 0;

	if (caught) {
		if (mono_sec() - first_sec >= 2)
			_exit(rt_interrupt_exit_code(sig));
		return;
	}
	caught = sig;
	first_sec = (sig_atomic_t)mono_sec();
	if (wake[1] >= 0)
		ignored = write(wake[1], "", 1); /* a full pipe is readable anyway */
	(void)ignored;
	errno = saved;
}

static int make_pipe(void)
{
	return pipe2(wake, O_NONBLOCK | O_CLOEXEC);
}

int rt_interrupt_install(void)
{
	/* no SA_RESTART: a blocking call returns EINTR and its loop looks */
	struct sigaction sa = { .sa_handler = on_signal };

	rt_interrupt_restore();
	if (make_pipe())
		rt_interrupt_restore(); /* still works, polls just wake later */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -1;
	return 0;
}

static void close_pipe(void)
{
	for (int i = 0; i < 2; i++) {
		if (wake[i] >= 0)
			close(wake[i]);
		wake[i] = -1;
	}
}

void rt_interrupt_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	close_pipe();
	caught = 0;
	first_sec = 0;
	stopped_in[0] = '\0';
	winding_down = false;
}

int rt_interrupt_signal(void)
{
	return caught;
}

bool rt_interrupt_pending(void)
{
	return caught && !winding_down;
}

void rt_interrupt_wind_down(const struct rt_error *e)
{
	winding_down = true;
	rt_strlcpy(stopped_in, e->phase, sizeof(stopped_in));
}

void rt_interrupt_after_fork(void)
{
	int old[2] = { wake[0], wake[1] };
	int fresh[2] = { -1, -1 };

	/* the new pipe before the old one goes: a signal meanwhile still
	 * finds a descriptor of this process to write to */
	if (old[0] >= 0 && pipe2(fresh, O_NONBLOCK | O_CLOEXEC))
		fresh[0] = fresh[1] = -1; /* waits still end, only later */
	wake[0] = fresh[0];
	wake[1] = fresh[1];
	for (int i = 0; i < 2; i++)
		if (old[i] >= 0)
			close(old[i]);
	caught = 0;
	first_sec = 0;
	stopped_in[0] = '\0';
	winding_down = false;
}

void rt_interrupt_drain(void)
{
	char buf[64];

	if (caught || wake[0] < 0)
		return;
	while (read(wake[0], buf, sizeof(buf)) > 0)
		;
}

int rt_interrupt_fd(void)
{
	return winding_down ? -1 : wake[0];
}

int rt_interrupt_exit_code(int sig)
{
	return 128 + sig;
}

const char *rt_interrupt_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

int rt_interrupt_record(struct rt_error *e, int sig)
{
	if (!e->set && stopped_in[0])
		rt_strlcpy(e->phase, stopped_in, sizeof(e->phase));
	return rt_fail(e, rt_interrupt_exit_code(sig), "interrupted by %s",
		       rt_interrupt_name(sig));
}

void rt_interrupt_raise(int sig)
{
	caught = sig;
}

/* ---- last words ----------------------------------------------------------- */

static rt_last_words_fn *words_fn;
static void *words_ctx;
static char *words_line, *words_doc;
static size_t words_line_len, words_doc_len; /* no strlen in the handler */
static int words_code;

void rt_last_words_source(rt_last_words_fn *fn, void *ctx)
{
	words_fn = fn;
	words_ctx = ctx;
}

void rt_last_words_clear(void)
{
	free(words_line);
	free(words_doc);
	words_line = words_doc = NULL;
	words_line_len = words_doc_len = 0;
}

void rt_last_words_prepare(int code, const char *reason)
{
	rt_last_words_clear();
	words_code = code;
	if (words_fn) {
		words_fn(words_ctx, code, reason, &words_line, &words_doc);
	} else {
		size_t len = strlen(program_invocation_short_name) + strlen(reason) + 4;

		words_line = malloc(len);
		if (words_line)
			snprintf(words_line, len, "%s: %s\n",
				 program_invocation_short_name, reason);
	}
	words_line_len = words_line ? strlen(words_line) : 0;
	words_doc_len = words_doc ? strlen(words_doc) : 0;
}

static void write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n <= 0 && errno != EINTR)
			return;
		if (n > 0) {
			s += n;
			len -= (size_t)n;
		}
	}
}

_Noreturn void rt_last_words_exit(void)
{
	write_all(STDERR_FILENO, words_line, words_line_len);
	write_all(STDOUT_FILENO, words_doc, words_doc_len);
	_exit(words_code);
}
