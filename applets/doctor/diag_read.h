/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What doctor's local checks share, private to the family: reading the
 * kernel's files under a root of struct rt_diag_env (so that unit tests
 * give a fake tree), and writing a finding's evidence. */
#ifndef RDMATEST_DIAG_READ_H
#define RDMATEST_DIAG_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

bool rt_diag_exists(const char *root, const char *rel);
/* The first line of the file the format names, newline cut; false when
 * it cannot be read or the line is empty, "" when it cannot be read. */
bool rt_diag_read_at(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends the text to buf within len. */
void rt_diag_append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The names matching dir/pattern, in natural order, each into names[] up
 * to max; returns how many there are. glob, not readdir: nothing is
 * shared between calls. */
int rt_diag_list(const char *dir, const char *pattern, char names[][64], int max);

#endif
