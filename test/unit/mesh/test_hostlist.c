/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "mesh/hostlist.h"
#include "rdmatest/util.h"

/* Expands text and compares with the expected names, joined by spaces. */
static void expect_list(const char *text, const char *want)
{
	struct rt_hostlist l = {0};
	struct rt_error err = {0};
	char got[4096] = "";

	assert_int_equal(rt_hostlist_parse(&l, text, &err), 0);
	for (uint32_t i = 0; i < l.n; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, l.names[i]);
	}
	assert_string_equal(got, want);
	rt_hostlist_free(&l);
}

static void expect_bad(const char *text, const char *reason_part)
{
	struct rt_hostlist l = {0};
	struct rt_error err = {0};

	assert_int_equal(rt_hostlist_parse(&l, text, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	if (!strstr(err.reason, reason_part))
		fail_msg("'%s': reason '%s' lacks '%s'", text, err.reason, reason_part);
	assert_int_equal(l.n, 0);
	assert_null(l.names);
}

static void plain_names(void **state)
{
	(void)state;
	expect_list("a", "a");
	expect_list("a,b.example,c-1", "a b.example c-1");
	expect_list("10.0.0.1,fd00::2", "10.0.0.1 fd00::2");
}

static void ranges_and_padding(void **state)
{
	(void)state;
	/* each range has its own width, as in Slurm's scontrol show hostnames */
	expect_list("node[01-04,7]", "node01 node02 node03 node04 node7");
	expect_list("n[8-11]", "n8 n9 n10 n11");
	expect_list("n[098-101]", "n098 n099 n100 n101");
	expect_list("n[0]", "n0");
	expect_list("rack[1-2]-n[1-2]-ib", "rack1-n1-ib rack1-n2-ib rack2-n1-ib rack2-n2-ib");
	expect_list("a[1-2],b,c[3]x", "a1 a2 b c3x");
	expect_list("[1-3]", "1 2 3");
}

static void malformed(void **state)
{
	(void)state;
	expect_bad("", "empty");
	expect_bad("a,,b", "empty");
	expect_bad("a,", "empty");
	expect_bad(",a", "empty");
	expect_bad("n[1-", "without ']'");
	expect_bad("n1]", "without '['");
	expect_bad("n[[1]]", "inside");
	expect_bad("n[]", "bad range");
	expect_bad("n[4-1]", "bad range");
	expect_bad("n[1-2-3]", "bad range");
	expect_bad("n[a-b]", "bad range");
	expect_bad("n[1,]", "bad range");
	expect_bad("n[-3]", "bad range");
	expect_bad("n[1234567890]", "bad range");
	expect_bad("n[1:2]", "bad range");
	expect_bad("bad host", "not allowed");
	expect_bad("a;b", "not allowed");
	expect_bad("a[1][2][3][4][5][6][7][8][9]", "groups");
}

/* The cap is checked before anything is made, also across a product of
 * groups and across the expressions of one list. */
static void bounded(void **state)
{
	struct rt_hostlist l = {0};
	struct rt_error err = {0};
	char *big;

	(void)state;
	expect_bad("n[0-999999999]", "more than 65536");
	expect_bad("n[0-999]x[0-999]", "more than 65536");
	assert_int_equal(rt_hostlist_parse(&l, "n[1-65536]", &err), 0);
	assert_int_equal(l.n, 65536);
	assert_string_equal(l.names[65535], "n65536");
	assert_int_equal(rt_hostlist_parse(&l, "one-more", &err), -1);
	assert_int_equal(l.n, 65536); /* left as it was */
	rt_hostlist_free(&l);

	big = rt_xmalloc(300);
	memset(big, 'h', 299);
	big[299] = '\0';
	expect_bad(big, "longer than 253");
	memcpy(big + 252, "[8-12]", 7); /* n8, n9 fit, n10 does not */
	expect_bad(big, "longer than 253");
	free(big);
	big = rt_xcalloc(RT_HOSTLIST_TEXT_MAX + 10, 1);
	memset(big, 'a', RT_HOSTLIST_TEXT_MAX + 5);
	expect_bad(big, "longer than");
	free(big);
}

static void duplicates_and_find(void **state)
{
	struct rt_hostlist l = {0};
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_hostlist_check(&l, &err), -1);
	assert_non_null(strstr(err.reason, "no hosts"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_hostlist_parse(&l, "n[1-3],n2", &err), 0);
	assert_int_equal(rt_hostlist_check(&l, &err), -1);
	assert_non_null(strstr(err.reason, "'n2' is named twice"));
	rt_hostlist_free(&l);
	assert_int_equal(rt_hostlist_parse(&l, "n[1-3]", &err), 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_hostlist_check(&l, &err), 0);
	assert_int_equal(rt_hostlist_find(&l, "n3"), 2);
	assert_int_equal(rt_hostlist_find(&l, "n4"), -1);
	rt_hostlist_free(&l);
}

static char *write_tmp(const char *text, size_t len)
{
	char *path = rt_xstrdup("/tmp/test_hostlist.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static void files(void **state)
{
	static const char text[] = "# the rack\nn[1-2] n9\r\n\n  login1,login2 # two more\n";
	struct rt_hostlist l = {0};
	struct rt_error err = {0};
	char *path = write_tmp(text, sizeof(text) - 1);

	(void)state;
	assert_int_equal(rt_hostlist_load(&l, path, &err), 0);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.names[2], "n9");
	assert_string_equal(l.names[4], "login2");
	rt_hostlist_free(&l);
	unlink(path);
	free(path);

	path = write_tmp("# nothing\n\n", 11);
	assert_int_equal(rt_hostlist_load(&l, path, &err), -1);
	assert_non_null(strstr(err.reason, "no hosts"));
	unlink(path);
	free(path);

	memset(&err, 0, sizeof(err));
	path = write_tmp("a\0b\n", 4);
	assert_int_equal(rt_hostlist_load(&l, path, &err), -1);
	assert_non_null(strstr(err.reason, "NUL"));
	unlink(path);
	free(path);

	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_hostlist_load(&l, "/nonexistent/hosts", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
}

/* Random text from the syntax's alphabet: never a crash, and a success
 * always yields valid bounded names. */
static void fuzz_expressions(void **state)
{
	static const char alpha[] = "ab01-9[],[],-x";
	uint64_t x = 42;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		struct rt_hostlist l = {0};
		struct rt_error err = {0};
		char text[24];
		size_t n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		n = x % (sizeof(text) - 1);
		for (size_t i = 0; i < n; i++)
			text[i] = alpha[(x >> (i % 50)) % (sizeof(alpha) - 1)];
		text[n] = '\0';
		if (rt_hostlist_parse(&l, text, &err) == 0) {
			assert_true(l.n >= 1 && l.n <= RT_HOSTLIST_MAX);
			for (uint32_t i = 0; i < l.n; i++)
				assert_true(strlen(l.names[i]) >= 1 &&
					    strlen(l.names[i]) <= RT_HOST_NAME_MAX &&
					    !strpbrk(l.names[i], "[],"));
		} else {
			assert_true(err.set && l.n == 0);
		}
		rt_hostlist_free(&l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_names),
		cmocka_unit_test(ranges_and_padding),
		cmocka_unit_test(malformed),
		cmocka_unit_test(bounded),
		cmocka_unit_test(duplicates_and_find),
		cmocka_unit_test(files),
		cmocka_unit_test(fuzz_expressions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
