/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rdmacm/confine.h"

#define NAME_MAX_LEN RT_CONFINE_NAME_MAX
/* Until the type is known nothing may block (a FIFO) or become the
 * controlling terminal (a tty device). */
#define SAFE_OPEN (O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
#define TEMP_TRIES 16

static int refuse(int e, const char **why, const char *what)
{
	*why = what;
	errno = e;
	return -1;
}

/* The next component of *p (at most NAME_MAX_LEN bytes) into name. */
static int component(const char **p, char *name, const char **why)
{
	size_t n = strcspn(*p, "/");

	if (n == 0)
		return refuse(EPERM, why, "empty path component");
	if (n > NAME_MAX_LEN)
		return refuse(ENAMETOOLONG, why, "path component too long");
	memcpy(name, *p, n);
	name[n] = '\0';
	if (!strcmp(name, ".."))
		return refuse(EPERM, why, "'..' leaves the directory");
	*p += n;
	return 0;
}

/* The existing target, looked at without opening it for I/O (O_PATH):
 * absent, or a regular file with one link. */
static int check_target(int dir, const char *name, const char **why)
{
	struct stat st;
	int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), bad;

	if (fd < 0)
		return errno == ENOENT ? 0 : refuse(errno, why, "cannot open");
	bad = fstat(fd, &st);
	close(fd);
	if (bad)
		return refuse(errno, why, "cannot open");
	if (S_ISLNK(st.st_mode))
		return refuse(ELOOP, why, "a symbolic link");
	if (S_ISDIR(st.st_mode))
		return refuse(EISDIR, why, "cannot open");
	if (!S_ISREG(st.st_mode))
		return refuse(EINVAL, why, "not a regular file");
	if (st.st_nlink != 1)
		return refuse(EMLINK, why, "a file with other hard links");
	return 0;
}

static unsigned long long temp_suffix(void)
{
	unsigned long long r;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_nsec * 2654435761u ^ (unsigned long long)getpid();
}

/* A fresh file no one else has a name for: O_EXCL on a random name. */
static int create_temp(struct rt_confined *c, mode_t perm, const char **why)
{
	struct stat st;

	for (int i = 0; i < TEMP_TRIES; i++) {
		snprintf(c->temp, sizeof(c->temp), ".rcopy-%016llx", temp_suffix());
		c->fd = openat(c->dir, c->temp, O_RDWR | O_CREAT | O_EXCL | SAFE_OPEN, perm);
		if (c->fd >= 0 || errno != EEXIST)
			break;
	}
	if (c->fd < 0) {
		c->temp[0] = '\0';
		return refuse(errno, why, "cannot create a temporary file");
	}
	if (fstat(c->fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    fcntl(c->fd, F_SETFL, 0))
		return refuse(EINVAL, why, "temporary file is not a fresh regular file");
	return 0;
}

static int open_last(struct rt_confined *c, mode_t mode, bool allow_exec,
		     const char **why)
{
	mode_t perm = mode & (allow_exec ? 0777u : 0666u);

	if (check_target(c->dir, c->name, why) || create_temp(c, perm, why)) {
		int e = errno;

		rt_confine_discard(c);
		errno = e;
		return -1;
	}
	return c->fd;
}

/* O_DIRECTORY|O_NOFOLLOW says ENOTDIR for a link: name the link. */
static int dir_refusal(int dir, const char *name, const char **why)
{
	int e = errno;
	struct stat st;

	if (e == ENOTDIR && !fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode))
		return refuse(ELOOP, why, "a symbolic link on the way");
	return refuse(e, why, e == ENOTDIR ? "no directory on the way"
					   : "cannot open a directory on the way");
}

/* The directory holding the last component, a descriptor of its own. */
static int walk(int dirfd, const char **p, char *name, const char **why)
{
	int dir = dup(dirfd), fd;

	if (dir < 0)
		return refuse(errno, why, "cannot open a directory on the way");
	for (;;) {
		if (component(p, name, why))
			break;
		while (**p == '/')
			(*p)++;
		if (!**p)
			return dir;
		fd = openat(dir, name, O_RDONLY | O_DIRECTORY | SAFE_OPEN);
		if (fd < 0)
			fd = dir_refusal(dir, name, why);
		close(dir);
		if (fd < 0)
			return -1;
		dir = fd;
	}
	fd = errno;
	close(dir);
	errno = fd;
	return -1;
}

int rt_confine_open(int dirfd, const char *path, mode_t mode, bool allow_exec,
		    struct rt_confined *c, const char **why)
{
	const char *p = path;

	*c = (struct rt_confined){ .fd = -1, .dir = -1 };
	*why = "";
	if (path[0] == '/')
		return refuse(EPERM, why, "absolute path");
	c->dir = walk(dirfd, &p, c->name, why);
	if (c->dir < 0)
		return -1;
	if (!strcmp(c->name, ".")) {
		rt_confine_discard(c);
		return refuse(EISDIR, why, "not a regular file");
	}
	return open_last(c, mode, allow_exec, why);
}

int rt_confine_commit(struct rt_confined *c, const char **why)
{
	int e;

	*why = "";
	if (fsync(c->fd))
		*why = "fsync";
	else if (!check_target(c->dir, c->name, why) &&
		 renameat(c->dir, c->temp, c->dir, c->name))
		*why = "cannot rename over the target";
	if (**why) {
		e = errno;
		rt_confine_discard(c);
		errno = e;
		return -1;
	}
	c->temp[0] = '\0';
	rt_confine_discard(c);
	return 0;
}

void rt_confine_discard(struct rt_confined *c)
{
	if (c->temp[0] && c->dir >= 0)
		unlinkat(c->dir, c->temp, 0);
	c->temp[0] = '\0';
	if (c->fd >= 0)
		close(c->fd);
	if (c->dir >= 0)
		close(c->dir);
	c->fd = c->dir = -1;
}

static size_t escape_byte(unsigned char b, char *out)
{
	const char *named = b == '\n' ? "\\n" : b == '\t' ? "\\t" : b == '\r' ? "\\r"
			  : b == '\\' ? "\\\\" : NULL;

	if (named)
		return (size_t)snprintf(out, 5, "%s", named);
	if (b < 0x20 || b > 0x7e)
		return (size_t)snprintf(out, 5, "\\x%02x", b);
	out[0] = (char)b;
	out[1] = '\0';
	return 1;
}

char *rt_confine_escape(const char *s, char *out, size_t outlen)
{
	size_t used = 0;
	char one[5];

	for (; *s; s++) {
		size_t n = escape_byte((unsigned char)*s, one);

		if (used + n >= outlen)
			break;
		memcpy(out + used, one, n);
		used += n;
	}
	if (outlen)
		out[used] = '\0';
	return out;
}

void rt_cksum_init(struct rt_cksum *c)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t r = i << 24;

		for (int b = 0; b < 8; b++)
			r = r & 0x80000000u ? (r << 1) ^ 0x04c11db7u : r << 1;
		c->table[i] = r;
	}
	c->crc = 0;
}

void rt_cksum_add(struct rt_cksum *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		c->crc = (c->crc << 8) ^ c->table[(c->crc >> 24) ^ p[i]];
}

uint32_t rt_cksum_end(const struct rt_cksum *c, uint64_t total)
{
	struct rt_cksum t = *c;
	uint8_t b;

	for (; total; total >>= 8) {
		b = (uint8_t)total;
		rt_cksum_add(&t, &b, 1);
	}
	return ~t.crc;
}
