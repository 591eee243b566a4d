/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for applets/rdmacm/confine.c: what rcopy's server may write, in a
 * scratch directory with a symbolic link pointing out of it and a hard
 * link to a file outside; the modes it gives; the escaping of names; and
 * the checksum against values cksum(1) prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmacm/confine.h"

struct scratch {
	char root[64], outside[64];
	int dirfd;
};

static int setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	char p[160];

	snprintf(s->root, sizeof(s->root), "/tmp/rt-confine-XXXXXX");
	snprintf(s->outside, sizeof(s->outside), "/tmp/rt-outside-XXXXXX");
	if (!mkdtemp(s->root) || !mkdtemp(s->outside))
		return -1;
	snprintf(p, sizeof(p), "%s/sub", s->root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/out", s->root);
	if (symlink(s->outside, p))
		return -1;
	snprintf(p, sizeof(p), "%s/file-link", s->root);
	if (symlink("/etc/passwd-rt-never", p))
		return -1;
	snprintf(p, sizeof(p), "%s/fifo", s->root);
	if (mkfifo(p, 0600))
		return -1;
	snprintf(p, sizeof(p), "%s/victim", s->outside);
	if (close(open(p, O_WRONLY | O_CREAT, 0600)) || truncate(p, 7))
		return -1;
	{
		char q[160];

		snprintf(q, sizeof(q), "%s/hard", s->root);
		if (link(p, q))
			return -1;
	}
	s->dirfd = open(s->root, O_RDONLY | O_DIRECTORY);
	*state = s;
	return s->dirfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;
	char cmd[200];

	close(s->dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", s->root, s->outside);
	if (system(cmd))
		return -1;
	free(s);
	return 0;
}

static void expect_refusal(struct scratch *s, const char *path, int e, const char *why_part)
{
	const char *why;

	struct rt_confined c;

	errno = 0;
	assert_int_equal(rt_confine_open(s->dirfd, path, 0644, false, &c, &why), -1);
	assert_int_equal(errno, e);
	assert_non_null(strstr(why, why_part));
	assert_int_equal(c.fd, -1);
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;
}

static off_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void writes_below(void **state)
{
	struct scratch *s = *state;
	struct rt_confined c;
	const char *why;
	struct stat st;
	char p[160], sub[160];

	snprintf(sub, sizeof(sub), "%s/sub", s->root);
	snprintf(p, sizeof(p), "%s/sub/new.bin", s->root);
	assert_true(rt_confine_open(s->dirfd, "sub//new.bin", 0100644, false, &c, &why) >= 0);
	assert_int_equal(write(c.fd, "abc", 3), 3);
	assert_int_equal(stat(p, &st), -1); /* not there before the commit */
	assert_int_equal(rt_confine_commit(&c, &why), 0);
	assert_int_equal(c.fd, -1);
	assert_int_equal(size_of(p), 3);
	assert_int_equal(entries(sub), 1); /* no temporary file left */
}

/* A transfer cut short leaves the old file whole and nothing beside it. */
static void discard_keeps_target(void **state)
{
	struct scratch *s = *state;
	struct rt_confined c;
	const char *why;
	char p[160], sub[160];

	writes_below(state);
	snprintf(sub, sizeof(sub), "%s/sub", s->root);
	snprintf(p, sizeof(p), "%s/sub/new.bin", s->root);
	assert_true(rt_confine_open(s->dirfd, "sub/new.bin", 0644, false, &c, &why) >= 0);
	assert_int_equal(write(c.fd, "12345678", 8), 8);
	assert_int_equal(entries(sub), 2);
	rt_confine_discard(&c);
	rt_confine_discard(&c); /* harmless twice */
	assert_int_equal(size_of(p), 3);
	assert_int_equal(entries(sub), 1);
}

static mode_t mode_given(struct scratch *s, const char *name, mode_t mode, bool exec)
{
	struct rt_confined c;
	const char *why;
	struct stat st;

	assert_true(rt_confine_open(s->dirfd, name, mode, exec, &c, &why) >= 0);
	assert_int_equal(rt_confine_commit(&c, &why), 0);
	assert_int_equal(fstatat(s->dirfd, name, &st, 0), 0);
	return st.st_mode & 07777;
}

/* set-id and sticky bits never; execute bits only when allowed; umask */
static void modes(void **state)
{
	struct scratch *s = *state;
	mode_t old = umask(022);

	assert_int_equal(mode_given(s, "m1", 0106777, false), 0644);
	assert_int_equal(mode_given(s, "m2", 0106777, true), 0755);
	assert_int_equal(mode_given(s, "m3", 0100600, true), 0600);
	umask(old);
}

static void refuses(void **state)
{
	struct scratch *s = *state;

	expect_refusal(s, "/etc/passwd", EPERM, "absolute");
	expect_refusal(s, "../x", EPERM, "'..'");
	expect_refusal(s, "sub/../../x", EPERM, "'..'");
	expect_refusal(s, "", EPERM, "empty");
	expect_refusal(s, "out/escaped", ELOOP, "symbolic link");
	expect_refusal(s, "file-link", ELOOP, "symbolic link");
	expect_refusal(s, "fifo", EINVAL, "regular file");
	expect_refusal(s, "hard", EMLINK, "hard links");
	expect_refusal(s, "sub", EISDIR, "cannot open");
	expect_refusal(s, "missing/x", ENOENT, "directory on the way");
}

static void nothing_escaped(void **state)
{
	struct scratch *s = *state;
	char p[160];
	struct stat st;

	refuses(state);
	snprintf(p, sizeof(p), "%s/escaped", s->outside);
	assert_int_equal(stat(p, &st), -1);
	assert_int_equal(stat("/etc/passwd-rt-never", &st), -1);
	snprintf(p, sizeof(p), "%s/victim", s->outside);
	assert_int_equal(size_of(p), 7);
	assert_int_equal(entries(s->root), 5); /* sub out file-link fifo hard, no temp */
}

static void escapes(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(rt_confine_escape("plain/name.bin", out, sizeof(out)),
			    "plain/name.bin");
	assert_string_equal(rt_confine_escape("a\nb\x1b[31m\\\t\r\x7f\xc3",
					      out, sizeof(out)),
			    "a\\nb\\x1b[31m\\\\\\t\\r\\x7f\\xc3");
	/* cut only between whole escapes */
	assert_string_equal(rt_confine_escape("ab\n", out, 4), "ab");
}

static uint32_t sum(const char *text)
{
	struct rt_cksum c;

	rt_cksum_init(&c);
	rt_cksum_add(&c, text, strlen(text));
	return rt_cksum_end(&c, strlen(text));
}

/* printf 'X' | cksum, from GNU coreutils */
static void cksum_values(void **state)
{
	(void)state;
	assert_int_equal(sum(""), 4294967295u);
	assert_int_equal(sum("a"), 1220704766u);
	assert_int_equal(sum("hello\n"), 3015617425u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(writes_below, setup, teardown),
		cmocka_unit_test_setup_teardown(discard_keeps_target, setup, teardown),
		cmocka_unit_test_setup_teardown(modes, setup, teardown),
		cmocka_unit_test(escapes),
		cmocka_unit_test_setup_teardown(refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(nothing_escaped, setup, teardown),
		cmocka_unit_test(cksum_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
