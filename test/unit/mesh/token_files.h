/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the authenticated mesh tests share: this job's and another job's
 * token files (private, 0600, in /tmp; made by setup, removed by
 * teardown) and the run's key from one, as mesh opens it. Include after
 * cmocka.h and mesh/meshkey.h. */
#ifndef RDMATEST_TEST_TOKEN_FILES_H
#define RDMATEST_TEST_TOKEN_FILES_H
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char token_path[64], other_path[64];

static void write_token(char *path, const char *text)
{
	int fd;

	strcpy(path, "/tmp/test_mesh_token.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, 0600), 0);
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	write_token(token_path, "this job's secret, from a token file\n");
	write_token(other_path, "some other job's secret\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(token_path);
	unlink(other_path);
	return 0;
}

/* The run's key from a token file, as mesh opens it. */
static int key_of(struct rt_mesh_key *k, const char *path, bool coordinator,
		  struct rt_error *err)
{
	struct rt_mesh_key_env env = { 0 };

	return rt_mesh_key_mode(k, NULL, path, &env, err) ||
	       rt_mesh_key_open(k, path, coordinator, err) ? -1 : 0;
}
#endif
