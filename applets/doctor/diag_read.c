/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The helpers doctor's local checks share (diag_read.h). */
#include <glob.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor/diag_read.h"
#include "rdmatest/util.h"

bool rt_diag_exists(const char *root, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &st) == 0;
}

bool rt_diag_read_at(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	buf[0] = '\0';
	return rt_read_line(path, buf, len);
}

void rt_diag_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static int natcmp_paths(const void *a, const void *b)
{
	return rt_natural_cmp(*(char *const *)a, *(char *const *)b);
}

int rt_diag_list(const char *dir, const char *pattern, char names[][64], int max)
{
	char path[512];
	glob_t g;
	int n = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, pattern) >= (int)sizeof(path) ||
	    glob(path, GLOB_NOSORT, NULL, &g))
		return 0;
	/* the paths share dir: their order is their names' */
	qsort(g.gl_pathv, g.gl_pathc, sizeof(g.gl_pathv[0]), natcmp_paths);
	for (size_t i = 0; i < g.gl_pathc; i++, n++)
		if (n < max)
			rt_strlcpy(names[n], strrchr(g.gl_pathv[i], '/') + 1, 64);
	globfree(&g);
	return n;
}
