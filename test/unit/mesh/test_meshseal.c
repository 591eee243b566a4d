/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* meshauth.h over a connection (meshseal.h): rank 0 in a child process,
 * a rank in the test, a socket pair between them. The HMAC is the
 * kernel's, or OpenSSL's where the kernel has no AF_ALG (afalg_fake.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "mesh/meshseal.h"
#include "../afalg_fake.h"

static const uint8_t secret[RT_MESH_AUTH_SECRET] = "the job's 32-byte run secret...";
static const uint8_t other[RT_MESH_AUTH_SECRET] = "another job's secret, 32 bytes.";

#define SIZE 4u

/* Rank 0 in a child: admits one rank with its secret, takes its RESULT,
 * sends a VERDICT; exits 0, or 1 with its reason on stderr. */
/* rt_oob's connections are non-blocking (its waits are polls with a
 * deadline): the socket pair is made so. The child closes the rank's end,
 * so that the rank's close reaches it as EOF. */
static pid_t coordinator(int fd, int rank_fd, const uint8_t *key, struct rt_mesh_munge *munge)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct rt_hmac mac = RT_HMAC_INIT;
		struct rt_mesh_auth a;
		struct rt_error err = {0};
		struct rt_oob o;
		struct rt_meshmsg m = {.type = RT_MESHMSG_VERDICT};
		struct rt_meshmsg got;

		close(rank_fd);
		rt_oob_init(&o, 5000);
		o.fd = fd;
		m.u.verdict.ready = 1;
		if (rt_hmac_open(&mac, &err))
			goto out;
		rt_mesh_auth_init(&a, &mac, key, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
		if (rt_mesh_seal_admit(&o, &a, munge, &err) ||
		    rt_meshmsg_read_sealed(&o, &a, SIZE, &got, &err))
			goto out;
		if (got.type != RT_MESHMSG_RESULT || got.u.result.round != 5) {
			rt_fail(&err, RT_EXIT_FAIL, "not the result sent");
			goto out;
		}
		rt_meshmsg_write_sealed(&o, &a, &m, &err);
out:
		if (err.set)
			fprintf(stderr, "rank 0: %s\n", err.reason);
		_exit(err.set ? 1 : 0);
	}
	close(fd);
	return pid;
}

static int rank_side(int fd, const uint8_t *key, struct rt_mesh_munge *munge,
		     struct rt_error *err)
{
	struct rt_hmac mac = RT_HMAC_INIT;
	struct rt_mesh_auth a;
	struct rt_oob o;
	struct rt_meshmsg m = {.type = RT_MESHMSG_RESULT};
	int rc;

	rt_oob_init(&o, 5000);
	o.fd = fd;
	m.u.result = (struct rt_mesh_result){.round = 5, .a = 1, .b = 2,
		.status = RT_MESH_FAILED};
	assert_int_equal(rt_hmac_open(&mac, err), 0);
	rt_mesh_auth_init(&a, &mac, key, RT_MESH_AUTH_RANK, 2, SIZE);
	rc = rt_mesh_seal_join(&o, &a, munge, err);
	if (!rc)
		rc = rt_meshmsg_write_sealed(&o, &a, &m, err);
	if (!rc)
		rc = rt_meshmsg_read_sealed(&o, &a, SIZE, &m, err);
	if (!rc && (m.type != RT_MESHMSG_VERDICT || !m.u.verdict.ready))
		rc = rt_fail(err, RT_EXIT_FAIL, "not the verdict sent");
	rt_mesh_auth_wipe(&a);
	rt_hmac_close(&mac);
	rt_oob_close(&o);
	return rc;
}

static int exit_of(pid_t pid)
{
	int ws;

	assert_int_equal(waitpid(pid, &ws, 0), pid);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static void sealed_exchange(void **state)
{
	struct rt_error err = {0};
	int sv[2];
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
	pid = coordinator(sv[1], sv[0], secret, NULL);
	if (rank_side(sv[0], secret, NULL, &err))
		fail_msg("%s", err.reason);
	assert_int_equal(exit_of(pid), 0);
}

/* A stranger on rank 0's end: the rank refuses it and sends nothing
 * sealed; the stranger learns no proof (it reads EOF, exits 1). */
static void stranger_as_rank0(void **state)
{
	struct rt_error err = {0};
	int sv[2];
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
	pid = coordinator(sv[1], sv[0], other, NULL);
	assert_int_equal(rank_side(sv[0], secret, NULL, &err), -1);
	assert_string_equal(err.reason, "mesh auth: rank 0 could not prove the job's secret "
			    "(a stranger on its port, or another job's secret)");
	assert_int_equal(exit_of(pid), 1);
}

/* A rank that waits for a MUNGE credential from a rank 0 that runs with
 * a token file: named, not a hang. */
static void munge_rank_file_coordinator(void **state)
{
	struct rt_mesh_munge munge = { .job = "1" };
	struct rt_error err = {0};
	int sv[2];
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
	pid = coordinator(sv[1], sv[0], secret, NULL);
	assert_int_equal(rank_side(sv[0], secret, &munge, &err), -1);
	assert_string_equal(err.reason, "mesh auth: no MUNGE credential from rank 0 (it runs "
			    "with another --auth)");
	assert_int_equal(exit_of(pid), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sealed_exchange),
		cmocka_unit_test(stranger_as_rank0),
		cmocka_unit_test(munge_rank_file_coordinator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
