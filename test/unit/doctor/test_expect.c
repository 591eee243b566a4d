/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The expected-state file (expect.h): `key value` lines, comments and
 * blank lines skipped, values with spaces kept whole; each malformed
 * input refused with its line; the bounds; saved, then loaded the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doctor/expect.h"
#include "fake_host.h"

static struct rt_diag_expect x;

static int setup(void **state)
{
	(void)state;
	rt_diag_expect_init(&x);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rt_diag_expect_free(&x);
	return 0;
}

static int parse(const char *text, unsigned *line, char *why, size_t len)
{
	return rt_diag_expect_parse(&x, text, strlen(text), line, why, len);
}

static void test_parse(void **state)
{
	char why[128];
	unsigned line;

	(void)state;
	assert_int_equal(parse("# a comment\n\nkernel 6.1.0-28-amd64\n"
			       "  mlx5_0.pcie_speed   16.0 GT/s PCIe  \n"
			       "mlx5_0/1.rate_gbps\t400", &line, why, sizeof(why)), 0);
	assert_int_equal(x.n, 3);
	assert_string_equal(rt_diag_expect_get(&x, "kernel"), "6.1.0-28-amd64");
	assert_string_equal(rt_diag_expect_get(&x, "mlx5_0.pcie_speed"), "16.0 GT/s PCIe");
	assert_string_equal(rt_diag_expect_get(&x, "mlx5_0/1.rate_gbps"), "400");
	assert_int_equal(x.e[1].line, 4);
	assert_null(rt_diag_expect_get(&x, "mlx5_0/1.state"));
}

/* Each is refused, naming the line at fault. */
static void test_malformed(void **state)
{
	static const struct { const char *text; unsigned line; const char *why; } bad[] = {
		{ "kernel 6.1\nmlx5_0/1.state\n", 2, "a value is 1 to" },
		{ "# ok\nkern=el 6.1\n", 2, "a key is one word" },
		{ "kernel 6.1\nkernel 6.2\n", 2, "kernel given twice" },
		{ "kernel 6.1\x01\n", 1, "printable" },
	};
	char why[128];
	unsigned line;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		x.n = 0;
		assert_int_equal(parse(bad[i].text, &line, why, sizeof(why)), -1);
		assert_int_equal(line, bad[i].line);
		if (!strstr(why, bad[i].why))
			fail_msg("%s: %s lacks %s", bad[i].text, why, bad[i].why);
	}
	/* a NUL byte inside a line, not at its end */
	x.n = 0;
	assert_int_equal(rt_diag_expect_parse(&x, "kernel 6.1\n\nrdma_core 50\0.0\n", 28,
					      &line, why, sizeof(why)), -1);
	assert_int_equal(line, 3);
	assert_string_equal(why, "holds a NUL byte");
}

static void test_bounds(void **state)
{
	char *text = calloc(1, RT_DIAG_EXPECT_BYTES + 2), why[128];
	unsigned line;

	(void)state;
	memset(text, '#', RT_DIAG_EXPECT_BYTES + 1);
	assert_int_equal(rt_diag_expect_parse(&x, text, RT_DIAG_EXPECT_BYTES + 1, &line, why,
					      sizeof(why)), -1);
	assert_int_equal(line, 0);
	assert_non_null(strstr(why, "larger than"));
	/* a line one byte too long */
	memset(text, 'k', RT_DIAG_EXPECT_LINE + 1);
	assert_int_equal(rt_diag_expect_parse(&x, text, RT_DIAG_EXPECT_LINE + 1, &line, why,
					      sizeof(why)), -1);
	assert_int_equal(line, 1);
	assert_non_null(strstr(why, "longer than"));
	free(text);
	/* the table is full at RT_DIAG_EXPECT_MAX */
	for (int i = 0; i < RT_DIAG_EXPECT_MAX; i++) {
		char key[32];

		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(rt_diag_expect_add(&x, key, "%d", i), 0);
	}
	assert_int_equal(rt_diag_expect_add(&x, "one_more", "1"), -1);
}

static void test_save_then_load(void **state)
{
	struct rt_diag_expect back;
	char root[64], path[96], why[128];
	unsigned line;

	(void)state;
	fake_root(root, sizeof(root), "test_expect");
	snprintf(path, sizeof(path), "%s/expect", root);
	assert_int_equal(rt_diag_expect_add(&x, "kernel", "%s", "6.1.0-28-amd64"), 0);
	assert_int_equal(rt_diag_expect_add(&x, "mlx5_0/1.gid_type", "%s", "RoCE v2"), 0);
	assert_int_equal(rt_diag_expect_add(&x, "kernel", "%s", "again"), -1);
	assert_int_equal(rt_diag_expect_save(&x, path, "saved by a test"), 0);
	rt_diag_expect_init(&back);
	assert_int_equal(rt_diag_expect_load(&back, path, &line, why, sizeof(why)), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(rt_diag_expect_get(&back, "mlx5_0/1.gid_type"), "RoCE v2");
	assert_int_equal(back.e[0].line, 2); /* after the header comment */
	rt_diag_expect_free(&back);
	/* a file that is not there */
	rt_diag_expect_init(&back);
	snprintf(path, sizeof(path), "%s/nosuch", root);
	assert_int_equal(rt_diag_expect_load(&back, path, &line, why, sizeof(why)), -1);
	assert_int_equal(line, 0);
	assert_string_equal(why, "No such file or directory");
	rt_diag_expect_free(&back);
	fake_remove(root);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_parse), T(test_malformed), T(test_bounds), T(test_save_then_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
