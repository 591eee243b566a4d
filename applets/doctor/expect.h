/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An expected state: a plain text file of `key value` lines, the key one
 * word, the value the rest of the line (it may hold spaces); blank lines
 * and lines starting with '#' are ignored, a key given twice is an error.
 * This module knows the format only (read, write, look up); which keys
 * there are and what a difference means is doctor's (diag_expect.c).
 * Bounded: the file at most RT_DIAG_EXPECT_BYTES, a line at most
 * RT_DIAG_EXPECT_LINE bytes, RT_DIAG_EXPECT_MAX entries. */
#ifndef RDMATEST_EXPECT_H
#define RDMATEST_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#define RT_DIAG_EXPECT_BYTES (256 * 1024)
#define RT_DIAG_EXPECT_LINE 256
#define RT_DIAG_EXPECT_MAX 4096
#define RT_DIAG_EXPECT_KEY 96
#define RT_DIAG_EXPECT_VALUE 128

struct rt_diag_expect_entry {
	char key[RT_DIAG_EXPECT_KEY];
	char value[RT_DIAG_EXPECT_VALUE];
	unsigned line; /* in the file it came from; 0 when made here */
};

struct rt_diag_expect {
	struct rt_diag_expect_entry *e; /* heap, RT_DIAG_EXPECT_MAX of them */
	int n;
};

void rt_diag_expect_init(struct rt_diag_expect *x);
void rt_diag_expect_free(struct rt_diag_expect *x);
/* Adds key and value (printf); -1 when full, the key is not one word of
 * [A-Za-z0-9_.:/-], either is too long, or the key is there already. */
int rt_diag_expect_add(struct rt_diag_expect *x, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The value of `key`, or NULL. */
const char *rt_diag_expect_get(const struct rt_diag_expect *x, const char *key);
/* Parses `text` (`len` bytes, NUL not needed) into x. 0, or -1 with
 * *line the line at fault (0: the whole text) and why in `why`. */
int rt_diag_expect_parse(struct rt_diag_expect *x, const char *text, size_t len,
			 unsigned *line, char *why, size_t why_len);
/* Reads and parses the file at `path`; as rt_diag_expect_parse. */
int rt_diag_expect_load(struct rt_diag_expect *x, const char *path, unsigned *line,
			char *why, size_t why_len);
/* Writes x to `path` (a temporary file renamed over it), `header` as a
 * comment line first. 0, or -1 with errno. */
int rt_diag_expect_save(const struct rt_diag_expect *x, const char *path,
			const char *header);

#endif
