/* Unit tests for applets/rdmacm/confine.c: what rcopy's server may write, in a
 * scratch directory with a symbolic link pointing out of it; and the
 * checksum against values cksum(1) prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

	errno = 0;
	assert_int_equal(rt_confine_open(s->dirfd, path, 0644, &why), -1);
	assert_int_equal(errno, e);
	assert_non_null(strstr(why, why_part));
}

static void writes_below(void **state)
{
	struct scratch *s = *state;
	const char *why;
	struct stat st;
	char p[160];
	int fd = rt_confine_open(s->dirfd, "sub//new.bin", 0100755, &why);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	snprintf(p, sizeof(p), "%s/sub/new.bin", s->root);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 3);
	/* file-type bits of the peer's st_mode are dropped */
	assert_int_equal(st.st_mode & ~0777u & ~(unsigned)S_IFMT, 0);
	fd = rt_confine_open(s->dirfd, "sub/new.bin", 0644, &why); /* truncates */
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 0);
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
		cmocka_unit_test_setup_teardown(refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(nothing_escaped, setup, teardown),
		cmocka_unit_test(cksum_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
