/* Files a peer names, kept below one directory (rcopy's server): a
 * relative path without "..", every component walked with O_NOFOLLOW so
 * that no symbolic link leads out, and only a regular file opened. */
#ifndef RDMATEST_CONFINE_H
#define RDMATEST_CONFINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Opens (creating, mode & 0777) and truncates `path` below the directory
 * `dirfd` for writing. Returns the fd, or -1 with errno and *why set:
 * EPERM for an absolute path, ".." or an empty name; ELOOP for a symbolic
 * link on the way; EISDIR/EINVAL for something not a regular file; else
 * what the system said. *why is a short phrase for the refusal line. */
int rt_confine_open(int dirfd, const char *path, mode_t mode, const char **why);

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
