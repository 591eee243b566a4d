/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Host lists as launchers write them: Slurm's hostlist expressions
 * ("node[01-04,7],login[1-2]-ib"), plain comma-separated names, and
 * files of them. Expansion is bounded before it starts: a list never
 * holds more than RT_HOSTLIST_MAX names, a name is at most
 * RT_HOST_NAME_MAX bytes, a text or file at most RT_HOSTLIST_TEXT_MAX
 * bytes, so the largest list costs about 65536 x 254 B = 16 MiB. */
#ifndef RDMATEST_HOSTLIST_H
#define RDMATEST_HOSTLIST_H

#include <stdint.h>

#include "rdmatest/error.h"

#define RT_HOSTLIST_MAX 65536u          /* hosts in one list */
#define RT_HOST_NAME_MAX 253u           /* bytes of one name (DNS limit) */
#define RT_HOSTLIST_TEXT_MAX (1u << 20) /* bytes of an expression or file */

struct rt_hostlist {
	uint32_t n;
	char **names; /* n names, each its own allocation */
};

/* Appends the hosts of `text` (comma-separated expressions, each with any
 * number of [a-b,c] groups; a range's lower bound sets the zero-padded
 * width) to l. Bad or oversized input: exit 2 naming the problem, and l
 * is left as it was. Duplicates are allowed here (see rt_hostlist_check). */
int rt_hostlist_parse(struct rt_hostlist *l, const char *text,
		      struct rt_error *err);
/* Same for a file: expressions separated by whitespace or commas, '#'
 * starts a comment that runs to the end of the line. */
int rt_hostlist_load(struct rt_hostlist *l, const char *path,
		     struct rt_error *err);
/* A list that names every host once and is not empty (exit 2 otherwise):
 * a rank must map to exactly one host. */
int rt_hostlist_check(const struct rt_hostlist *l, struct rt_error *err);
/* The index of name in l, -1 when absent. Linear: for lookups made once. */
/* The decimal number s[0..len): 1 to 9 digits, no sign or space, so it
 * fits in 32 bits (host-list ranges, the launchers' variables). */
int rt_hostlist_number(const char *s, size_t len, uint32_t *v);
int64_t rt_hostlist_find(const struct rt_hostlist *l, const char *name);
void rt_hostlist_free(struct rt_hostlist *l);

#endif
