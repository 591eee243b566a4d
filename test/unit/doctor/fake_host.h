/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A fake host for doctor's unit tests: a scratch tree under /tmp that
 * they fill with the files sysfs and procfs would hold (read by the
 * module under test through its root argument), and the local addresses
 * getifaddrs would give. */
#ifndef RDMATEST_FAKE_HOST_H
#define RDMATEST_FAKE_HOST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "doctor/diag.h"
#include "rdmatest/util.h"

/* Makes a fresh directory /tmp/NAME.XXXXXX into root (64 bytes). */
static inline void fake_root(char *root, size_t len, const char *name)
{
	snprintf(root, len, "/tmp/%s.XXXXXX", name);
	assert_non_null(mkdtemp(root));
}

/* Writes root/rel (creating its directories) with `text` and a newline. */
static inline void fake_put(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static inline void fake_remove(const char *root)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

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
