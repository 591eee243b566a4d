/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* SIGINT and SIGTERM end a run with a verdict, as ping(8) does: the
 * handler only records the signal (and wakes the reactor's poll through a
 * self-pipe); waits notice it and return RT_INTERRUPTED; the applet stops
 * posting, disconnects within --timeout, prints its summary so far; and
 * rt_run_finish turns it into the verdict (docs/exit-codes.md). Repeats
 * within a second count as the same interrupt (GNU timeout sends its
 * signal twice); one that comes later (2 s) ends the process at once
 * with 128 + signal and no summary.
 *
 * Signal state is process-wide by nature, so it lives here and nowhere
 * else. The "last words" are for paths that must end the process while a
 * call cannot return (an rsocket close past its bound): the error line
 * and the JSON document are built beforehand and only written with
 * write(2). */
#ifndef RDMATEST_INTERRUPT_H
#define RDMATEST_INTERRUPT_H

#include <stdbool.h>

#include "rdmatest/error.h"

/* What a wait returns when an interrupt is pending (other failures: -1). */
#define RT_INTERRUPTED (-2)

/* Catches SIGINT and SIGTERM for this run; rt_interrupt_restore puts the
 * default dispositions back and forgets any signal (tests, end of run). */
int rt_interrupt_install(void);
void rt_interrupt_restore(void);

/* The signal that arrived, 0 if none. */
int rt_interrupt_signal(void);
/* A signal arrived and the applet has not started winding down: waits
 * return RT_INTERRUPTED. */
bool rt_interrupt_pending(void);
/* The applet is winding down (disconnecting, reporting): waits run to
 * their end again, each still bounded. e is the run's record: its phase
 * now is where the run stopped, which the verdict names (the wind-down
 * moves on to "disconnect"). */
void rt_interrupt_wind_down(const struct rt_error *e);
/* A descriptor that turns readable when a signal arrives, for poll();
 * -1 when not installed or once winding down. */
int rt_interrupt_fd(void);
/* In a child right after fork(): its own self-pipe and no signal, the
 * handlers kept. The inherited pipe is shared with the parent: a signal
 * to the parent alone would leave it readable in the child's waits for
 * good, each returning at once (a spin that ignores its deadline). */
void rt_interrupt_after_fork(void);
/* Empties the self-pipe when no signal is recorded: a wait found it
 * readable for a byte that is not (or no longer) an interrupt. */
void rt_interrupt_drain(void);

/* 128 + signal: 130 for SIGINT, 143 for SIGTERM. */
int rt_interrupt_exit_code(int sig);
/* "SIGINT", "SIGTERM", or "signal N". */
const char *rt_interrupt_name(int sig);
/* Records the interrupt as the run's outcome: verdict "interrupted". */
int rt_interrupt_record(struct rt_error *e, int sig);
/* For tests: act as if sig had arrived. */
void rt_interrupt_raise(int sig);

/* Builds the error line and JSON document for an exit from a signal
 * handler; set by the run, called by rt_last_words_prepare. */
typedef void rt_last_words_fn(void *ctx, int code, const char *reason,
			      char **line, char **doc);
void rt_last_words_source(rt_last_words_fn *fn, void *ctx);
/* Prepares (outside any handler) what rt_last_words_exit will write. */
void rt_last_words_prepare(int code, const char *reason);
void rt_last_words_clear(void);
/* Async-signal-safe: writes the prepared line to stderr and document to
 * stdout with write(2), then _exit(code). */
_Noreturn void rt_last_words_exit(void);

#endif
