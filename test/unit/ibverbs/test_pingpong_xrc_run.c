/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The file ibv_xsrq_pingpong ties its XRC domain to : not
 * upstream's /tmp/xrc_domain, which a planted link could redirect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ibverbs/pingpong_xrc.h"

/* A regular file on no path: nothing in the file system to redirect. */
static void the_domain_file_has_no_name(void **state)
{
	int fd = rt_pp_xrc_domain_fd();
	struct stat st;
	char link[64], target[256];
	ssize_t n;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_nlink, 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_not_equal(target, "/tmp/xrc_domain");
	assert_non_null(strstr(target, "memfd:rdmatest-xrc-domain"));
	close(fd);
}

/* Two runs never meet in one file, so one cannot steer the other's. */
static void each_call_makes_its_own_file(void **state)
{
	int a = rt_pp_xrc_domain_fd(), b = rt_pp_xrc_domain_fd();
	struct stat sa, sb;

	(void)state;
	assert_true(a >= 0 && b >= 0);
	assert_int_equal(fstat(a, &sa), 0);
	assert_int_equal(fstat(b, &sb), 0);
	assert_true(sa.st_ino != sb.st_ino || sa.st_dev != sb.st_dev);
	close(a);
	close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_domain_file_has_no_name),
		cmocka_unit_test(each_call_makes_its_own_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
