#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmacm/confine.h"

#define NAME_MAX_LEN 255

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

static int open_last(int dir, const char *name, mode_t mode, const char **why)
{
	struct stat st;
	int fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			mode & 0777);

	if (fd < 0)
		return refuse(errno, why, errno == ELOOP ? "a symbolic link" : "cannot open");
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(EINVAL, why, "not a regular file");
	}
	/* no O_TRUNC at open: a FIFO or device is refused before anything */
	if (ftruncate(fd, 0) || fcntl(fd, F_SETFL, 0)) {
		int e = errno;

		close(fd);
		return refuse(e, why, "cannot truncate");
	}
	return fd;
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

int rt_confine_open(int dirfd, const char *path, mode_t mode, const char **why)
{
	char name[NAME_MAX_LEN + 1];
	const char *p = path;
	int dir = dirfd, fd;

	*why = "";
	if (path[0] == '/')
		return refuse(EPERM, why, "absolute path");
	for (;;) {
		if (component(&p, name, why))
			break;
		while (*p == '/')
			p++;
		if (!*p) { /* the file itself */
			fd = strcmp(name, ".") ? open_last(dir, name, mode, why)
					       : refuse(EISDIR, why, "not a regular file");
			if (dir != dirfd)
				close(dir);
			return fd;
		}
		fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			fd = dir_refusal(dir, name, why);
		if (dir != dirfd)
			close(dir);
		if (fd < 0)
			return -1;
		dir = fd;
	}
	if (dir != dirfd) {
		int e = errno;

		close(dir);
		errno = e;
	}
	return -1;
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
