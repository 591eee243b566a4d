/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Files a peer names, kept below one directory (rcopy's server): a
 * relative path without "..", every component walked with O_NOFOLLOW so
 * that no symbolic link leads out, and only a regular file with one link
 * replaced. The data goes to a fresh temporary file beside the target,
 * renamed over it only when the caller commits, so a transfer cut short
 * leaves the target as it was and no partial file behind. */
#ifndef RDMATEST_CONFINE_H
#define RDMATEST_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RT_CONFINE_NAME_MAX 255

/* One file being written: open until committed or discarded. */
struct rt_confined {
	int fd;   /* the temporary file, read-write; -1 when none */
	int dir;  /* the target's directory (its own descriptor) */
	char name[RT_CONFINE_NAME_MAX + 1]; /* the target, in dir */
	char temp[32];                      /* the temporary file, in dir */
};

/* Creates a temporary file (O_EXCL, a unique name) in the directory of
 * `path` below `dirfd`, with mode's permission bits less set-id and
 * sticky bits, less execute bits unless allow_exec, less the umask.
 * Returns c->fd, or -1 with errno and *why set: EPERM for an absolute
 * path, ".." or an empty name; ELOOP for a symbolic link on the way or
 * as the target; EISDIR/EINVAL for a target that is no regular file;
 * EMLINK for a target with more than one link; else what the system
 * said. *why is a short phrase for the refusal line. No open of the
 * target or on the way can block or acquire a terminal. */
int rt_confine_open(int dirfd, const char *path, mode_t mode, bool allow_exec,
		    struct rt_confined *c, const char **why);
/* fsyncs the temporary file and renames it over the target (checked
 * again first); -1 with errno and *why set, the file discarded. Either
 * way c is closed. */
int rt_confine_commit(struct rt_confined *c, const char **why);
/* Unlinks the temporary file and closes c; harmless on a closed c. */
void rt_confine_discard(struct rt_confined *c);

/* Writes s into out (at most outlen bytes, NUL included) with every
 * byte below 0x20 or above 0x7e escaped (\n, \t, \r, \\, else \xNN), so a
 * peer's name cannot start a line or a terminal sequence of its own.
 * 4 * strlen(s) + 1 bytes always suffice. Returns out. */
char *rt_confine_escape(const char *s, char *out, size_t outlen);

/* POSIX cksum(1): CRC-32 (polynomial 0x04c11db7) over the bytes, then
 * over the length, complemented; feed with rt_cksum_add, end with
 * rt_cksum_end(total length). */
struct rt_cksum {
	uint32_t table[256];
	uint32_t crc;
};
void rt_cksum_init(struct rt_cksum *c);
void rt_cksum_add(struct rt_cksum *c, const void *buf, size_t len);
uint32_t rt_cksum_end(const struct rt_cksum *c, uint64_t total);

#endif
