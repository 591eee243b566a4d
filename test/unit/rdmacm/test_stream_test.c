/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for applets/rdmacm/stream_test.c: the rows of a stream test between a
 * server in a child process and a client here, over a socketpair: a pass
 * with table lines and records, -T v, parameters that differ (both sides
 * name them at the sync), and a server that stalls (exit 124, where). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmacm/stream_test.h"
#include "rdmatest/util.h"

#define BUF 8192

struct side {
	struct rt_stream s;
	struct rt_stream_test t;
	struct rt_log log;
	struct rt_error err;
	struct rt_json results;
	char *out;
	size_t out_len;
	FILE *human;
	uint8_t sbuf[BUF], rbuf[BUF];
};

static void side_init(struct side *x, int fd, bool server, bool verify)
{
	memset(x, 0, sizeof(*x));
	x->human = open_memstream(&x->out, &x->out_len);
	x->log = (struct rt_log){ .prefix = "t", .human = x->human, .diag = stderr };
	rt_json_init(&x->results);
	rt_json_array_begin(&x->results);
	x->t = (struct rt_stream_test){
		.s = &x->s, .sbuf = x->sbuf, .rbuf = x->rbuf, .server = server,
		.verify = verify, .hint = "same -S/-C/-I?", .name = "t", .log = &x->log,
		.err = &x->err, .results = &x->results, .conn = 1,
	};
	x->s = (struct rt_stream){ .ops = &rt_sock_kernel, .fd = fd, .wait = RT_WAIT_POLL,
				   .timeout_ms = 500, .connected = true,
				   .describe = rt_stream_test_describe, .describe_arg = &x->t };
}

static void side_end(struct side *x)
{
	fclose(x->human);
	rt_json_array_end(&x->results);
	rt_json_finish(&x->results);
}

static void side_free(struct side *x)
{
	free(x->out);
	rt_json_free(&x->results);
}

/* The server, in a child: exit 0 on success, else its exit code; its
 * reason on stderr for the test log. */
static pid_t server(int fd, const struct rt_stream_row *rows, size_t n, bool verify,
		    bool stall)
{
	pid_t pid = fork();
	struct side *x;
	int rc;

	if (pid)
		return pid;
	x = calloc(1, sizeof(*x));
	side_init(x, fd, true, verify);
	if (stall)
		pause(); /* the client's waits must end by themselves */
	rc = rt_stream_test_rows(&x->t, rows, n);
	rt_stream_close(&x->s, rc == 0);
	if (rc)
		fprintf(stderr, "server: %s\n", x->err.reason);
	_exit(rc ? x->err.exit_code : 0);
}

/* A client side here and a server child over a socketpair: the server
 * runs srows, the client gets ready; returns the server's pid. */
static pid_t pair_up(struct side *c, const struct rt_stream_row *srows, size_t n,
		     bool verify, bool stall)
{
	int sv[2];
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = server(sv[1], srows, n, verify, stall);
	close(sv[1]);
	side_init(c, sv[0], false, verify);
	return pid;
}

static int server_exit(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void rows_pass_with_lines_and_records(void **state)
{
	struct rt_stream_row rows[2];
	struct side *c = calloc(1, sizeof(*c));
	pid_t pid;

	(void)state;
	rt_stream_row_init(&rows[0], RT_ROW_CUSTOM, 100, 5, 3);
	rt_stream_row_init(&rows[1], RT_ROW_LAT, 64, 0, 0);
	rows[1].iters = 10;
	pid = pair_up(c, rows, 2, false, false);
	assert_int_equal(rt_stream_test_rows(&c->t, rows, 2), 0);
	rt_stream_close(&c->s, true);
	side_end(c);
	assert_int_equal(server_exit(pid), 0);
	assert_int_equal(strncmp(c->out, "custom    100     5       3       2.9k    ", 42), 0);
	assert_non_null(strstr(c->out, "\n64_lat    64      1       10      1.2k    "));
	assert_non_null(strstr(rt_json_text(&c->results), "[{\"name\":\"custom\",\"connection\":1,"));
	assert_non_null(strstr(rt_json_text(&c->results), "},{\"name\":\"64_lat\","));
	assert_non_null(strstr(rt_json_text(&c->results), "\"latency_us\":{\"count\":10,"));
	assert_int_equal(c->s.sent, 2 * 16 + 100 * 5 * 3 + 64 * 10);
	assert_null(c->t.row);
	side_free(c);
	free(c);
}

static void verified_rows_count_every_byte(void **state)
{
	struct rt_stream_row r;
	struct side *c = calloc(1, sizeof(*c));
	pid_t pid;

	(void)state;
	rt_stream_row_init(&r, RT_ROW_CUSTOM, 1000, 10, 3);
	pid = pair_up(c, &r, 1, true, false);
	assert_int_equal(rt_stream_test_rows(&c->t, &r, 1), 0);
	rt_stream_close(&c->s, true);
	side_end(c);
	assert_int_equal(server_exit(pid), 0);
	assert_int_equal(c->t.v.checked, 16 + 1000 * 10 * 3);
	side_free(c);
	free(c);
}

/* The server runs -C 100, the client -C 50: both fail at the sync, and
 * the client names the peer's parameters (the server answers first). */
static void differing_rows_are_named_at_the_sync(void **state)
{
	struct rt_stream_row mine, theirs;
	struct side *c = calloc(1, sizeof(*c));
	pid_t pid;

	(void)state;
	rt_stream_row_init(&mine, RT_ROW_CUSTOM, 1000, 50, 1);
	rt_stream_row_init(&theirs, RT_ROW_CUSTOM, 1000, 100, 1);
	pid = pair_up(c, &theirs, 1, false, false);
	assert_int_equal(rt_stream_test_rows(&c->t, &mine, 1), -1);
	rt_stream_close(&c->s, false);
	side_end(c);
	assert_int_equal(server_exit(pid), RT_EXIT_FAIL);
	assert_int_equal(c->err.exit_code, RT_EXIT_FAIL);
	assert_string_equal(c->err.reason, "row custom: sync: the peer runs -S 1000 -C 100 -I 1, "
			    "this side -S 1000 -C 50 -I 1: same -S/-C/-I?");
	side_free(c);
	free(c);
}

static void stalled_peer_is_124_naming_the_row(void **state)
{
	struct rt_stream_row r;
	struct side *c = calloc(1, sizeof(*c));
	uint64_t t0 = rt_now_ns();
	pid_t pid;

	(void)state;
	rt_stream_row_init(&r, RT_ROW_CUSTOM, 100, 1, 1);
	pid = pair_up(c, &r, 1, false, true);
	assert_int_equal(rt_stream_test_rows(&c->t, &r, 1), -1);
	assert_true((rt_now_ns() - t0) / 1000000 < 3000);
	assert_int_equal(c->err.exit_code, RT_EXIT_TIMEOUT);
	assert_non_null(strstr(c->err.reason, "row custom: sync"));
	kill(pid, SIGKILL);
	server_exit(pid);
	rt_stream_close(&c->s, false);
	side_end(c);
	side_free(c);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_pass_with_lines_and_records),
		cmocka_unit_test(verified_rows_count_every_byte),
		cmocka_unit_test(differing_rows_are_named_at_the_sync),
		cmocka_unit_test(stalled_peer_is_124_naming_the_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
