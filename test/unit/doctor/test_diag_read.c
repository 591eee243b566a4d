/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The helpers doctor's checks share (diag_read.h), on a scratch folder:
 * listing is in natural order and counts past its bound, reads cut the newline
 * and leave "" when the file is missing, evidence text never overflows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "doctor/diag_read.h"
#include "rdmatest/addr.h"

static char dir[64];

/* Device nodes out of glob's order, and a two-line attribute. */
static int make_dir(void **state)
{
	static const char *const files[][2] = {
		{ "uverbs1", "" }, { "uverbs0", "" }, { "uverbs10", "" }, { "uverbs2", "" },
		{ "rdma_cm", "" }, { "state", "4: ACTIVE\nsecond line\n" },
	};

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_diag_read.XXXXXX");
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(files[i][1], f);
		fclose(f);
	}
	return 0;
}

static int drop_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void test_list_sorted_and_counted(void **state)
{
	char names[3][64];

	(void)state;
	/* four match, three fit: the count says there are more; natural
	 * order, so uverbs2 before uverbs10 and the one left out is the last */
	assert_int_equal(rt_diag_list(dir, "uverbs*", names, 3), 4);
	assert_string_equal(names[0], "uverbs0");
	assert_string_equal(names[1], "uverbs1");
	assert_string_equal(names[2], "uverbs2");
	assert_int_equal(rt_diag_list(dir, "nosuch*", names, 2), 0);
}

static void test_read_at_and_exists(void **state)
{
	char buf[32] = "stale";

	(void)state;
	assert_true(rt_diag_read_at(buf, sizeof(buf), "%s/%s", dir, "state"));
	assert_string_equal(buf, "4: ACTIVE");
	strcpy(buf, "stale");
	assert_false(rt_diag_read_at(buf, sizeof(buf), "%s/missing", dir));
	assert_string_equal(buf, "");
	assert_true(rt_diag_exists(dir, "rdma_cm"));
	assert_false(rt_diag_exists(dir, "missing"));
}

static void test_append_bounded(void **state)
{
	char buf[8] = "";

	(void)state;
	rt_diag_append(buf, sizeof(buf), "%s ", "ib_core");
	assert_string_equal(buf, "ib_core");
	/* full: nothing more, still terminated */
	rt_diag_append(buf, sizeof(buf), "%s", "x");
	assert_string_equal(buf, "ib_core");
}

static void test_ip_str(void **state)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6 };
	struct sockaddr_storage none = { .ss_family = AF_UNSPEC };
	char buf[64];

	(void)state;
	inet_pton(AF_INET, "192.0.2.1", &v4.sin_addr);
	inet_pton(AF_INET6, "2001:db8::1", &v6.sin6_addr);
	assert_string_equal(rt_addr_host_str((struct sockaddr *)&v4, buf, sizeof(buf)),
			    "192.0.2.1");
	assert_string_equal(rt_addr_host_str((struct sockaddr *)&v6, buf, sizeof(buf)),
			    "2001:db8::1");
	assert_string_equal(rt_addr_host_str((struct sockaddr *)&none, buf, sizeof(buf)), "?");
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_dir, drop_dir)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_list_sorted_and_counted), T(test_read_at_and_exists),
		T(test_append_bounded), T(test_ip_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
