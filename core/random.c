/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <sys/random.h>

#include "rdmatest/random.h"

int rt_random_bytes(uint8_t *buf, size_t n, struct rt_error *err)
{
	ssize_t got;

	if (n > RT_RANDOM_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "random bytes: %zu asked, at most %u",
			       n, RT_RANDOM_MAX);
	do
		got = getrandom(buf, n, 0);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "getrandom");
	if ((size_t)got != n)
		return rt_fail(err, RT_EXIT_ENV, "getrandom gave %zd of %zu bytes", got, n);
	return 0;
}
