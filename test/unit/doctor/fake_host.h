/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A fake host for doctor's unit tests: a scratch tree (fake_tree.h) that
 * they fill with the files sysfs and procfs would hold, and the local
 * addresses getifaddrs would give. */
#ifndef RDMATEST_FAKE_HOST_H
#define RDMATEST_FAKE_HOST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../fake_tree.h"
#include "doctor/diag.h"
#include "rdmatest/util.h"

/* Adds IPv4 address `ip` on interface `ifname` to d's local addresses. */
static inline void fake_addr(struct rt_diag *d, const char *ifname, const char *ip)
{
	struct rt_diag_addr *a = &d->addrs[d->naddrs++];
	struct sockaddr_in *sin = (struct sockaddr_in *)&a->sa;

	rt_strlcpy(a->ifname, ifname, sizeof(a->ifname));
	sin->sin_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, ip, &sin->sin_addr), 1);
}

#endif
