/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rcopy's server on one client message (rt_rcopy_parse), then an OPEN's
 * path and mode through rt_confine_open in a scratch directory made once
 * per process: a message is taken only whole and valid, an OPEN's path
 * ends inside the buffer, and a file is opened only below the directory,
 * never through its symbolic link, FIFO, directory or hard-linked file,
 * with no set-id bits, and execute bits only when allowed; discarding it
 * leaves the directory as it was.
 * Input: byte 0 (bit 0: --allow-exec), then the client's bytes. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#include "rdmacm/confine.h"
#include "rdmacm/rcopy.h"

static char scratch[] = "/tmp/fuzz_rcopy.XXXXXX";

static void remove_scratch(void)
{
	static const char *const names[] = { "f", "hard", "hard2", "d/f", "d", "fifo", "up" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char p[64];

		snprintf(p, sizeof(p), "%s/%s", scratch, names[i]);
		if (unlink(p))
			rmdir(p);
	}
	rmdir(scratch);
}

/* A file, a subdirectory, a hard link pair, a FIFO and a link out. */
static int scratch_dir(void)
{
	static int fd = -1;
	char p[64];

	if (fd >= 0)
		return fd;
	FUZZ_CHECK(mkdtemp(scratch), "mkdtemp");
	atexit(remove_scratch);
	fd = open(scratch, O_RDONLY | O_DIRECTORY);
	FUZZ_CHECK(fd >= 0, "open %s", scratch);
	FUZZ_CHECK(!mkdirat(fd, "d", 0700), "mkdir");
	close(openat(fd, "f", O_CREAT | O_WRONLY, 0600));
	close(openat(fd, "d/f", O_CREAT | O_WRONLY, 0600));
	close(openat(fd, "hard", O_CREAT | O_WRONLY, 0600));
	snprintf(p, sizeof(p), "%s/hard2", scratch);
	FUZZ_CHECK(!linkat(fd, "hard", AT_FDCWD, p, 0), "link %s", p);
	FUZZ_CHECK(!mkfifoat(fd, "fifo", 0600), "mkfifo");
	FUZZ_CHECK(!symlinkat("/tmp", fd, "up"), "symlink");
	return fd;
}

static unsigned entries(int dirfd)
{
	DIR *d = fdopendir(dup(dirfd));
	unsigned n = 0;

	FUZZ_CHECK(d, "fdopendir");
	rewinddir(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A ".." component, not a name that merely starts with two dots. */
static bool climbs(const char *path)
{
	for (const char *c = path; c; c = strchr(c, '/'), c = c ? c + 1 : c)
		if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || !c[2]))
			return true;
	return false;
}

static void try_open(int dirfd, const struct rt_rcopy_msg *m, bool allow_exec)
{
	struct rt_confined c;
	const char *why = NULL;
	unsigned before = entries(dirfd);
	struct stat st;

	if (rt_confine_open(dirfd, m->path, (mode_t)m->h.data, allow_exec, &c, &why) < 0) {
		FUZZ_CHECK(why, "refused without a reason");
		FUZZ_CHECK(entries(dirfd) == before, "a refusal left a file behind");
		return;
	}
	FUZZ_CHECK(m->path[0] != '/' && !climbs(m->path), "opened '%s'", m->path);
	FUZZ_CHECK(!fstat(c.fd, &st) && S_ISREG(st.st_mode), "not a regular file");
	FUZZ_CHECK(!(st.st_mode & 07000), "mode %o", (unsigned)st.st_mode);
	FUZZ_CHECK(allow_exec || !(st.st_mode & 0111), "mode %o", (unsigned)st.st_mode);
	rt_confine_discard(&c);
	FUZZ_CHECK(entries(dirfd) == before, "a discarded file stayed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	bool allow_exec = fuzz_u8(&in) & 1;
	size_t len;
	uint8_t *buf = fuzz_bytes(&in, in.n, &len);
	struct rt_rcopy_msg m;
	char why[96] = "";
	int rc = rt_rcopy_parse(buf, len, &m, why, sizeof(why));

	FUZZ_CHECK(rc == 0 || rc == RT_RCOPY_MORE || (rc == 22 && why[0]), "rc %d", rc);
	FUZZ_CHECK(rc != RT_RCOPY_MORE || m.need > len, "more wanted with %zu of %zu",
		   len, m.need);
	if (!rc) {
		FUZZ_CHECK(m.need <= len && m.h.len >= 16, "taken with %zu of %zu", len, m.need);
		if (m.h.command == RT_RCOPY_OPEN) {
			FUZZ_CHECK(memchr(m.path, 0, m.need - 16), "path past the message");
			try_open(scratch_dir(), &m, allow_exec);
		}
	}
	free(buf);
	return 0;
}
