/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The out-of-band channel over real loopback TCP: exact reads and writes,
 * short data, a peer that closes, expired bounds, a server not yet up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "free_port.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/oob.h"
#include "rdmatest/run.h"
#include "rdmatest/util.h"

struct pair {
	struct rt_oob srv, cli;
	struct rt_error err;
};

/* A connected pair on 127.0.0.1, both sides bounded by timeout_ms. */
static void connect_pair(struct pair *p, long long timeout_ms)
{
	memset(p, 0, sizeof(*p));
	rt_oob_init(&p->srv, timeout_ms);
	rt_oob_init(&p->cli, timeout_ms);
	assert_int_equal(rt_oob_listen(&p->srv, "127.0.0.1", 0, &p->err), 0);
	assert_true(p->srv.port > 0);
	/* the kernel completes the handshake before accept: one thread will do */
	assert_int_equal(rt_oob_connect(&p->cli, "127.0.0.1", p->srv.port, 0, &p->err), 0);
	assert_int_equal(rt_oob_accept(&p->srv, &p->err), 0);
	assert_int_equal(p->srv.lfd, -1); /* one client: the listener is gone */
}

static void close_pair(struct pair *p)
{
	rt_oob_close(&p->srv);
	rt_oob_close(&p->cli);
}

static void exact_both_ways(void **state)
{
	struct pair p;
	uint8_t rec[52], got[52];
	char ends[64];

	(void)state;
	connect_pair(&p, 2000);
	for (size_t i = 0; i < sizeof(rec); i++)
		rec[i] = (uint8_t)(i * 13 + 1);
	assert_int_equal(rt_oob_write(&p.cli, rec, sizeof(rec), &p.err), 0);
	assert_int_equal(rt_oob_read(&p.srv, got, sizeof(got), &p.err), 0);
	assert_memory_equal(rec, got, sizeof(rec));
	assert_int_equal(rt_oob_write(&p.srv, "done", 5, &p.err), 0);
	assert_int_equal(rt_oob_read(&p.cli, ends, 5, &p.err), 0);
	assert_string_equal(ends, "done");
	/* both ends learnt the addresses, IPv4 shown as IPv4 */
	assert_int_equal(p.srv.local.ss_family, AF_INET);
	assert_int_equal(p.srv.peer.ss_family, AF_INET);
	snprintf(ends, sizeof(ends), "127.0.0.1:%u", p.srv.port);
	assert_string_equal(p.cli.peer_name, ends);
	assert_false(p.err.set);
	close_pair(&p);
}

/* A record split into pieces is still read whole. */
static void pieces_are_joined(void **state)
{
	struct pair p;
	uint8_t got[52];

	(void)state;
	connect_pair(&p, 2000);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rt_oob_write(&p.cli, "0123456789abc", 13, &p.err), 0);
	assert_int_equal(rt_oob_read(&p.srv, got, sizeof(got), &p.err), 0);
	assert_memory_equal(got + 39, "0123456789abc", 13);
	close_pair(&p);
}

static void peer_closes_early(void **state)
{
	struct pair p;
	uint8_t got[52];

	(void)state;
	connect_pair(&p, 2000);
	assert_int_equal(rt_oob_write(&p.cli, "twelve bytes", 12, &p.err), 0);
	rt_oob_close(&p.cli);
	assert_int_equal(rt_oob_read(&p.srv, got, sizeof(got), &p.err), -1);
	assert_int_equal(p.err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(p.err.reason, "closed the connection after 12 of 52 bytes"));
	assert_non_null(strstr(p.err.reason, "peer 127.0.0.1:"));
	close_pair(&p);
}

static void short_data_times_out(void **state)
{
	struct pair p;
	uint8_t got[52];
	uint64_t t0;

	(void)state;
	connect_pair(&p, 200);
	assert_int_equal(rt_oob_write(&p.cli, "twelve bytes", 12, &p.err), 0);
	t0 = rt_now_ns();
	assert_int_equal(rt_oob_read(&p.srv, got, sizeof(got), &p.err), -1);
	assert_true(rt_now_ns() - t0 >= 190 * 1000000ull);
	assert_int_equal(p.err.exit_code, RT_EXIT_TIMEOUT);
	assert_non_null(strstr(p.err.reason, "12 of 52 bytes within 200 ms"));
	close_pair(&p);
}

static void write_after_peer_reset(void **state)
{
	struct pair p;
	static uint8_t big[1 << 20];
	int rc = 0;

	(void)state;
	connect_pair(&p, 2000);
	rt_oob_close(&p.srv);
	/* the first write may still be taken by the kernel; the RST follows */
	for (int i = 0; i < 20 && !rc; i++)
		rc = rt_oob_write(&p.cli, big, sizeof(big), &p.err);
	assert_int_equal(rc, -1);
	assert_int_equal(p.err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(p.err.reason, "the connection after"));
	close_pair(&p);
}

/* A port nobody listens on: refused at once, or after the wait. */
static void refused_without_wait(void **state)
{
	struct rt_oob o;
	struct rt_error err = { 0 };

	(void)state;
	rt_oob_init(&o, 1000);
	assert_int_equal(rt_oob_connect(&o, "127.0.0.1", free_port(), 0, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "refused"));
	assert_int_equal(o.fd, -1);
}

static void wait_server_is_bounded(void **state)
{
	struct rt_oob o;
	struct rt_error err = { 0 };
	uint64_t t0 = rt_now_ns();
	unsigned port = free_port();
	char want[64];

	(void)state;
	rt_oob_init(&o, 1000);
	assert_int_equal(rt_oob_connect(&o, "127.0.0.1", port, 350, &err), -1);
	assert_true(rt_now_ns() - t0 >= 340 * 1000000ull);
	assert_true(rt_now_ns() - t0 < 2000 * 1000000ull);
	assert_int_equal(err.exit_code, RT_EXIT_TIMEOUT);
	snprintf(want, sizeof(want), "no server on 127.0.0.1:%u within 350 ms", port);
	assert_non_null(strstr(err.reason, want));
}

/* --wait-server: a server that comes up 300 ms later is reached. */
static void late_server_is_reached(void **state)
{
	struct rt_oob o;
	struct rt_error err = { 0 };
	unsigned port = free_port();
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rt_oob srv;
		struct timespec late = { 0, 300000000 };
		char b[4];

		nanosleep(&late, NULL);
		rt_oob_init(&srv, 3000);
		_exit(rt_oob_listen(&srv, "127.0.0.1", port, &err) || rt_oob_accept(&srv, &err) ||
		      rt_oob_read(&srv, b, sizeof(b), &err) || memcmp(b, "late", 4));
	}
	rt_oob_init(&o, 1000);
	assert_int_equal(rt_oob_connect(&o, "127.0.0.1", port, 5000, &err), 0);
	assert_int_equal(rt_oob_write(&o, "late", 4, &err), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	rt_oob_close(&o);
}

static void accept_is_bounded(void **state)
{
	struct rt_oob o;
	struct rt_error err = { 0 };

	(void)state;
	rt_oob_init(&o, 150);
	assert_int_equal(rt_oob_listen(&o, NULL, 0, &err), 0);
	assert_int_equal(rt_oob_accept(&o, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_TIMEOUT);
	assert_non_null(strstr(err.reason, "no client on port"));
	assert_non_null(strstr(err.reason, "within 150 ms"));
	rt_oob_close(&o);
}

/* rt_oob_open takes its bounds from the run: a server's accept from
 * --accept-timeout, a client's retries from --wait-server, and every
 * later wait from --timeout. */
static void open_takes_the_runs_bounds(void **state)
{
	struct rt_run run = { .common = { .timeout_ms = 700, .accept_timeout_ms = 120 } };
	struct rt_oob o;
	uint64_t t0 = rt_now_ns();
	unsigned port = free_port();

	(void)state;
	assert_int_equal(rt_oob_open(&o, &run, NULL, port, &run.err), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_TIMEOUT);
	assert_non_null(strstr(run.err.reason, "within 120 ms"));
	assert_true(rt_now_ns() - t0 < 600 * 1000000ull);
	rt_oob_close(&o);
	memset(&run.err, 0, sizeof(run.err));
	run.common.wait_server_ms = 250;
	t0 = rt_now_ns();
	assert_int_equal(rt_oob_open(&o, &run, "127.0.0.1", port, &run.err), -1);
	assert_true(rt_now_ns() - t0 >= 240 * 1000000ull);
	assert_non_null(strstr(run.err.reason, "within 250 ms"));
	assert_int_equal(o.timeout_ms, 700);
	rt_oob_close(&o);
}

/* A server waiting for its client ends at the first SIGINT, long before
 * its bound, with nothing recorded: the run's end names the signal. */
static void sigint_ends_a_waiting_accept(void **state)
{
	struct rt_oob o;
	struct rt_error err = { 0 };
	uint64_t t0;
	pid_t pid;

	(void)state;
	assert_int_equal(rt_interrupt_install(), 0);
	rt_oob_init(&o, 20000);
	assert_int_equal(rt_oob_listen(&o, "127.0.0.1", 0, &err), 0);
	t0 = rt_now_ns();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec soon = { 0, 150000000 };

		nanosleep(&soon, NULL);
		_exit(kill(getppid(), SIGINT) != 0);
	}
	assert_int_equal(rt_oob_accept(&o, &err), RT_INTERRUPTED);
	assert_true(rt_now_ns() - t0 < 5000 * 1000000ull);
	assert_false(err.set);
	assert_int_equal(rt_interrupt_signal(), SIGINT);
	waitpid(pid, NULL, 0);
	rt_oob_close(&o);
	rt_interrupt_restore();
}

/* A pending interrupt ends a read from a quiet peer and a client's
 * retries for a server that is not up. */
static void pending_interrupt_ends_reads_and_retries(void **state)
{
	struct pair p;
	char b[4];

	(void)state;
	connect_pair(&p, 20000);
	assert_int_equal(rt_interrupt_install(), 0);
	rt_interrupt_raise(SIGTERM);
	assert_int_equal(rt_oob_read(&p.cli, b, sizeof(b), &p.err), RT_INTERRUPTED);
	close_pair(&p);
	rt_oob_init(&p.cli, 1000);
	assert_int_equal(rt_oob_connect(&p.cli, "127.0.0.1", free_port(), 20000, &p.err),
			 RT_INTERRUPTED);
	assert_false(p.err.set);
	rt_interrupt_restore();
}

static void unknown_host_is_usage(void **state)
{
	struct rt_oob o;
	struct rt_error err = { 0 };

	(void)state;
	rt_oob_init(&o, 100);
	assert_int_equal(rt_oob_connect(&o, "no-such-host.invalid", 18515, 0, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "cannot resolve no-such-host.invalid"));
}

static void not_connected(void **state)
{
	struct rt_oob o;
	struct rt_error err = { 0 };
	char b[4];

	(void)state;
	rt_oob_init(&o, 100);
	assert_int_equal(rt_oob_read(&o, b, sizeof(b), &err), -1);
	assert_non_null(strstr(err.reason, "not connected"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_both_ways),
		cmocka_unit_test(pieces_are_joined),
		cmocka_unit_test(peer_closes_early),
		cmocka_unit_test(short_data_times_out),
		cmocka_unit_test(write_after_peer_reset),
		cmocka_unit_test(refused_without_wait),
		cmocka_unit_test(wait_server_is_bounded),
		cmocka_unit_test(late_server_is_reached),
		cmocka_unit_test(accept_is_bounded),
		cmocka_unit_test(open_takes_the_runs_bounds),
		cmocka_unit_test(sigint_ends_a_waiting_accept),
		cmocka_unit_test(pending_interrupt_ends_reads_and_retries),
		cmocka_unit_test(unknown_host_is_usage),
		cmocka_unit_test(not_connected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
