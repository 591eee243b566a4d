/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh run that authenticates (meshnode.h, meshkey.h), end to end over
 * loopback with the tests stubbed: a whole run READY with a token file,
 * its summary naming the mode; and a rank facing an impostor on rank 0's
 * port (a child process) that answers its challenge with a forged
 * VERDICT, or with a proof of another secret: the rank ends NOT READY
 * (exit 1) naming it, never READY. The HMAC is the kernel's, or
 * OpenSSL's where the kernel has no AF_ALG (afalg_fake.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "free_port.h"
#include "mesh/meshnode.h"
#include "mesh/meshseal.h"
#include "mesh/meshtext.h"
#include "../afalg_fake.h"
#include "token_files.h"

#define TIMEOUT_MS 3000

static void stub_test(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
		      struct rt_mesh_result *r)
{
	(void)ctx, (void)self;
	if (a->role == RT_MESH_CONNECT)
		*r = (struct rt_mesh_result){ .status = RT_MESH_OK, .flags = RT_MESH_HAS_RTT,
			.connect_ns = 200000, .rtt_p50_ns = 9000, .rtt_p99_ns = 12000 };
}

static void plan_of(struct rt_mesh_plan *p, struct rt_mesh_limits *lim, struct rt_mesh_key *k,
		    uint32_t rank, uint32_t size, unsigned port)
{
	*p = (struct rt_mesh_plan){ .rank = rank, .size = size, .coord_host = "127.0.0.1",
		.coord_port = port, .self_host = "127.0.0.1", .test_port = 20000 + rank,
		.kind = RT_SCHED_TOURNAMENT, .timeout_ms = TIMEOUT_MS, .lim = lim,
		.fn = stub_test, .key = k };
}

/* Three ranks and rank 0, every one with the token file: READY on all,
 * rank 0's own rank authenticated as the others. */
static void whole_run_with_a_token_file(void **state)
{
	struct rt_mesh_limits lim = { .rtt_factor = 0, .bw_fraction = 0, .min_links = 1 };
	struct rt_mesh_key key;
	struct rt_mesh_plan p;
	struct rt_mesh_agg g;
	struct rt_error err = { 0 };
	unsigned port = free_port();
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	pid_t pid[4];
	int ws;

	(void)state;
	fflush(NULL);
	for (uint32_t i = 1; i < 4; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct rt_mesh_verdict v;
			struct rt_error e = { 0 };

			if (key_of(&key, token_path, false, &e))
				_exit(2);
			plan_of(&p, &lim, &key, i, 4, port);
			if (rt_mesh_take_part(&p, &v, &e)) {
				fprintf(stderr, "rank %u: %s\n", i, e.reason);
				_exit(1);
			}
			_exit(v.ready ? 10 : 11);
		}
	}
	assert_int_equal(key_of(&key, token_path, true, &err), 0);
	plan_of(&p, &lim, &key, 0, 4, port);
	assert_int_equal(rt_mesh_lead(&p, &g, &err), 0);
	assert_true(g.ready);
	assert_int_equal(g.nstrangers, 0);
	for (uint32_t i = 1; i < 4; i++) {
		assert_int_equal(waitpid(pid[i], &ws, 0), pid[i]);
		assert_true(WIFEXITED(ws));
		assert_int_equal(WEXITSTATUS(ws), 10);
	}
	out = open_memstream(&text, &len);
	rt_mesh_summary(out, &g, &lim);
	fclose(out);
	assert_non_null(strstr(text, ", auth: file\n"));
	assert_non_null(strstr(text, "\nREADY\n"));
	free(text);
	rt_mesh_agg_free(&g);
	rt_mesh_key_close(&key);
}

/* The impostor on rank 0's port: takes one connection and its 44-byte
 * challenge, then (forge) sends a VERDICT of its own making, "ready", or
 * (else) answers as rank 0 does but with another job's secret; it keeps
 * the connection open until the rank closes it. */
static pid_t impostor(struct rt_oob *lis, bool forge)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rt_meshmsg v = { .type = RT_MESHMSG_VERDICT, .u.verdict = { .ready = 1 } };
		struct rt_error e = { 0 };
		struct rt_mesh_key other;
		struct rt_mesh_auth a;
		uint8_t buf[RT_MESHMSG_MAX];
		struct rt_oob *o = lis;

		if (rt_oob_accept(o, &e))
			_exit(2);
		if (forge) {
			/* the challenge read and ignored; the forged message, 28
			 * bytes, is what a VERDICT looks like on the wire */
			if (rt_oob_read(o, buf, RT_MESH_AUTH_CHALLENGE, &e) ||
			    rt_oob_write(o, buf, rt_meshmsg_encode(&v, buf), &e))
				_exit(3);
		} else {
			if (key_of(&other, other_path, true, &e))
				_exit(4);
			rt_mesh_key_end(&other, &a, RT_MESH_AUTH_COORDINATOR, 0, 2);
			(void)rt_mesh_seal_admit(o, &a, NULL, &e); /* the rank gives no proof */
		}
		(void)rt_oob_read(o, buf, 1, &e); /* until the rank closes */
		_exit(0);
	}
	return pid;
}

static void refuses(bool forge, const char *why)
{
	struct rt_mesh_limits lim = { .min_links = 1 };
	struct rt_mesh_key key;
	struct rt_mesh_plan p;
	struct rt_mesh_verdict v = { 0 };
	struct rt_error err = { 0 };
	struct rt_oob lis;
	pid_t pid;
	int ws, rc;

	rt_oob_init(&lis, 5000);
	assert_int_equal(rt_oob_listen(&lis, "127.0.0.1", 0, &err), 0);
	pid = impostor(&lis, forge);
	assert_int_equal(key_of(&key, token_path, false, &err), 0);
	plan_of(&p, &lim, &key, 1, 2, lis.port);
	rc = rt_mesh_take_part(&p, &v, &err);
	assert_int_equal(rc, -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_false(v.ready);
	if (!strstr(err.reason, why))
		fail_msg("%s", err.reason);
	assert_int_equal(strncmp(err.reason, "NOT READY: rank 0 could not prove the job's "
				 "secret", 50), 0);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
	rt_oob_close(&lis);
	rt_mesh_key_close(&key);
}

static void forged_verdict_is_not_ready(void **state)
{
	(void)state;
	refuses(true, "a plain mesh message where the answer belongs");
}

static void another_secret_is_not_ready(void **state)
{
	(void)state;
	refuses(false, "a stranger on its port, or another job's secret");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_run_with_a_token_file),
		cmocka_unit_test(forged_verdict_is_not_ready),
		cmocka_unit_test(another_secret_is_not_ready),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
