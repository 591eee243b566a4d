/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Rank 0's gathering when the run authenticates (meshgather.h): every
 * connection proves the job's secret before its hello. A child process
 * plays the ranks and the strangers over loopback; rank 0 is the test.
 * The secret comes from a token file (meshkey.h's file mode); the HMAC is
 * the kernel's, or OpenSSL's where the kernel has no AF_ALG
 * (afalg_fake.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "mesh/meshgather.h"
#include "mesh/meshseal.h"
#include "rdmatest/util.h"
#include "../afalg_fake.h"
#include "token_files.h"

#define SIZE 4u
#define IO_MS 800 /* a connection's bound: its handshake and hello */

static int connect_to(struct rt_oob *o, unsigned port)
{
	struct rt_error err = { 0 };

	rt_oob_init(o, 5000);
	return rt_oob_connect(o, "127.0.0.1", port, 2000, &err);
}

/* A rank that proves key's secret, then says hello sealed. */
static int good_rank(struct rt_oob *o, struct rt_mesh_auth *a, struct rt_mesh_key *k,
		     unsigned port, uint32_t rank)
{
	struct rt_meshmsg m = { .type = RT_MESHMSG_HELLO,
				.u.hello = { .rank = rank, .size = SIZE, .port = 1 } };
	struct rt_error err = { 0 };

	snprintf(m.u.hello.host, sizeof(m.u.hello.host), "n%u", rank);
	rt_mesh_key_end(k, a, RT_MESH_AUTH_RANK, rank, SIZE);
	if (connect_to(o, port) || rt_mesh_seal_join(o, a, NULL, &err) ||
	    rt_mesh_send(o, a, &m, &err)) {
		fprintf(stderr, "rank %u: %s\n", rank, err.reason);
		return -1;
	}
	return 0;
}

/* A stranger posing as rank 2: a challenge of its own, an answer from
 * rank 0 it cannot check, and a proof it made up. */
static int forged_proof(struct rt_oob *o, unsigned port)
{
	uint8_t ch[RT_MESH_AUTH_CHALLENGE] = { 'R', 'A', 1, 1, 0, 0, 0, 2, 0, 0, 0, SIZE };
	uint8_t an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF] = { 'R', 'A', 1, 3, 0, 0, 0, 2,
								   0, 0, 0, SIZE };
	struct rt_error err = { 0 };

	memset(pr + 12, 0x5a, RT_HMAC_LEN);
	return connect_to(o, port) || rt_oob_write(o, ch, sizeof(ch), &err) ||
	       rt_oob_read(o, an, sizeof(an), &err) || rt_oob_write(o, pr, sizeof(pr), &err);
}

/* A connection that takes its answer, then says nothing more; returns
 * the milliseconds until rank 0 closes it, or -1. */
static long long stall(unsigned port)
{
	uint8_t ch[RT_MESH_AUTH_CHALLENGE] = { 'R', 'A', 1, 1, 0, 0, 0, 3, 0, 0, 0, SIZE };
	uint8_t an[RT_MESH_AUTH_ANSWER], more;
	struct rt_error err = { 0 };
	struct rt_oob o;
	uint64_t t0;
	ssize_t n;

	if (connect_to(&o, port) || rt_oob_write(&o, ch, sizeof(ch), &err) ||
	    rt_oob_read(&o, an, sizeof(an), &err))
		return -1;
	t0 = rt_now_ns();
	fcntl(o.fd, F_SETFL, fcntl(o.fd, F_GETFL) & ~O_NONBLOCK);
	n = read(o.fd, &more, 1); /* EOF when rank 0 drops it */
	rt_oob_close(&o);
	return n == 0 ? (long long)((rt_now_ns() - t0) / 1000000u) : -1;
}

/* The child's cast: a stall first (it holds a slot while the others
 * come), rank 0 and rank 1 proving the secret, a stranger with another
 * job's token file as rank 3, a forged proof as rank 2, a rank run
 * without authentication as rank 2. Ranks 0 and 1 then take a sealed
 * VERDICT. Exit 0, or the step that went wrong. */
static int cast(unsigned port)
{
	struct rt_mesh_key key, other;
	struct rt_mesh_auth a[2], wrong;
	struct rt_oob ok[2], stranger, forged, plain;
	struct rt_meshmsg hello = { .type = RT_MESHMSG_HELLO,
				    .u.hello = { .rank = 2, .size = SIZE, .port = 1 } };
	struct rt_error err = { 0 };
	struct rt_meshmsg v;
	long long stalled_ms;
	pid_t staller;
	int ws;

	if (key_of(&key, token_path, false, &err) || key_of(&other, other_path, false, &err))
		return 2;
	staller = fork();
	if (staller == 0) {
		stalled_ms = stall(port);
		/* dropped at its own bound, not at the gathering's end */
		_exit(stalled_ms >= IO_MS - 100 && stalled_ms < IO_MS + 1500 ? 0 : 1);
	}
	usleep(100000);
	if (good_rank(&ok[0], &a[0], &key, port, 0) || good_rank(&ok[1], &a[1], &key, port, 1))
		return 3;
	/* the wrong secret: rank 0's proof does not fit, nothing is proved */
	rt_mesh_key_end(&other, &wrong, RT_MESH_AUTH_RANK, 3, SIZE);
	if (connect_to(&stranger, port) || !rt_mesh_seal_join(&stranger, &wrong, NULL, &err) ||
	    !strstr(err.reason, "rank 0 could not prove the job's secret"))
		return 4;
	if (forged_proof(&forged, port))
		return 5;
	strcpy(hello.u.hello.host, "n2");
	if (connect_to(&plain, port) || rt_meshmsg_write(&plain, &hello, &err))
		return 6;
	for (int i = 0; i < 2; i++)
		if (rt_mesh_recv(&ok[i], &a[i], SIZE, &v, &err) || v.type != RT_MESHMSG_VERDICT ||
		    !v.u.verdict.ready)
			return 7 + i;
	if (waitpid(staller, &ws, 0) != staller || !WIFEXITED(ws) || WEXITSTATUS(ws))
		return 9;
	return 0;
}

static bool stranger_named(const struct rt_mesh_agg *g, const char *why)
{
	for (uint32_t i = 0; i < g->nstrangers && i < RT_MESH_STRANGER_LIST; i++)
		if (strstr(g->strangers[i].reason, why))
			return true;
	return false;
}

static void proved_ranks_only(void **state)
{
	struct rt_mesh_key key;
	struct rt_oob lis;
	struct rt_mesh_gather gt;
	struct rt_mesh_agg g;
	struct rt_error err = { 0 };
	struct rt_meshmsg v = { .type = RT_MESHMSG_VERDICT, .u.verdict = { .ready = 1 } };
	int status;
	pid_t child;

	(void)state;
	assert_int_equal(key_of(&key, token_path, true, &err), 0);
	rt_oob_init(&lis, 1000);
	lis.backlog = RT_MESH_PENDING_MAX;
	assert_int_equal(rt_oob_listen(&lis, "127.0.0.1", 0, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&g, SIZE, 0, &err), 0);
	fflush(NULL);
	child = fork();
	if (child == 0)
		_exit(cast(lis.port));
	assert_int_equal(rt_mesh_gather_admit(&gt, lis.lfd, SIZE, 3000, IO_MS,
					      &(struct rt_mesh_admit){ .key = &key }, &g, &err), 0);
	assert_int_equal(gt.present, 2);
	assert_true(g.nodes[0].present && g.nodes[1].present);
	assert_false(g.nodes[2].present || g.nodes[3].present);
	assert_non_null(gt.auth);
	assert_int_equal(gt.auth[1].state, RT_MESH_AUTH_OPEN);
	/* strangers are named and never make the run NOT READY */
	assert_int_equal(g.refused, 0);
	assert_true(stranger_named(&g, "rank 2 could not prove the job's secret"));
	assert_true(stranger_named(&g, "a hello without authentication"));
	/* the forged proof, the plain hello, the stall at its bound (the
	 * wrong secret too when it is dropped at its bound, not at its close) */
	assert_true(gt.refused >= 3);
	for (uint32_t r = 0; r < 2; r++)
		assert_int_equal(rt_mesh_send(&gt.conn[r], &gt.auth[r], &v, &err), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	rt_mesh_gather_close(&gt);
	rt_mesh_agg_free(&g);
	rt_oob_close(&lis);
	rt_mesh_key_close(&key);
}

/* A hello sealed for rank 1 after proving rank 1 is taken; the same
 * rank's hello read back with another connection's keys is not. */
static void hello_must_match_the_proof(void **state)
{
	struct rt_mesh_key key;
	struct rt_oob lis;
	struct rt_mesh_gather gt;
	struct rt_mesh_agg g;
	struct rt_error err = { 0 };
	int status;
	pid_t child;

	(void)state;
	assert_int_equal(key_of(&key, token_path, true, &err), 0);
	rt_oob_init(&lis, 1000);
	lis.backlog = RT_MESH_PENDING_MAX;
	assert_int_equal(rt_oob_listen(&lis, "127.0.0.1", 0, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&g, SIZE, 0, &err), 0);
	fflush(NULL);
	child = fork();
	if (child == 0) {
		struct rt_mesh_key k;
		struct rt_mesh_auth a;
		struct rt_oob o;
		struct rt_meshmsg m = { .type = RT_MESHMSG_HELLO,
					.u.hello = { .rank = 3, .size = SIZE, .port = 1 } };
		struct rt_error e = { 0 };
		uint8_t buf[4];

		strcpy(m.u.hello.host, "n3");
		/* proves rank 1, says hello as rank 3 */
		if (key_of(&k, token_path, false, &e))
			_exit(2);
		rt_mesh_key_end(&k, &a, RT_MESH_AUTH_RANK, 1, SIZE);
		if (connect_to(&o, lis.port) || rt_mesh_seal_join(&o, &a, NULL, &e) ||
		    rt_mesh_send(&o, &a, &m, &e))
			_exit(3);
		/* rank 0 closes it */
		_exit(rt_oob_read(&o, buf, 1, &e) ? 0 : 4);
	}
	assert_int_equal(rt_mesh_gather_admit(&gt, lis.lfd, SIZE, 1500, IO_MS,
					      &(struct rt_mesh_admit){ .key = &key }, &g, &err), 0);
	assert_int_equal(gt.present, 0);
	assert_true(stranger_named(&g, "a hello for rank 3 of 4 after proving rank 1 of 4"));
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	rt_mesh_gather_close(&gt);
	rt_mesh_agg_free(&g);
	rt_oob_close(&lis);
	rt_mesh_key_close(&key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(proved_ranks_only),
		cmocka_unit_test(hello_must_match_the_proof),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
