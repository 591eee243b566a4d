/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A scratch tree under /tmp that a unit test fills with the files sysfs
 * or procfs would hold, read by the module under test through its root
 * argument. Include after cmocka.h. */
#ifndef RDMATEST_FAKE_TREE_H
#define RDMATEST_FAKE_TREE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

#endif
