/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh/meshsecret.h"

static const char *const mode_names[] = { "none", "file", "munge" };

const char *rt_mesh_auth_mode_name(unsigned mode)
{
	return mode < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[mode] : "?";
}

int rt_mesh_auth_mode_parse(const char *name, struct rt_error *err)
{
	for (unsigned i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(name, mode_names[i]))
			return (int)i;
	return rt_fail(err, RT_EXIT_USAGE, "--auth %s: want munge, file or none", name);
}

/* The file's owner and mode, as the descriptor read sees them (no window
 * between the check and the read). */
static int file_private(int fd, const char *path, struct rt_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return rt_fail_errno(err, RT_EXIT_USAGE, errno, "--token-file %s", path);
	if (!S_ISREG(st.st_mode))
		return rt_fail(err, RT_EXIT_USAGE, "--token-file %s: not a regular file", path);
	if (st.st_uid != geteuid())
		return rt_fail(err, RT_EXIT_USAGE, "--token-file %s: owned by uid %u, not by "
			       "this user (uid %u)", path, (unsigned)st.st_uid,
			       (unsigned)geteuid());
	if (st.st_mode & (S_IRWXG | S_IRWXO))
		return rt_fail(err, RT_EXIT_USAGE, "--token-file %s: open to its group or others "
			       "(mode %04o): chmod 600 %s", path,
			       (unsigned)(st.st_mode & 07777), path);
	return 0;
}

static int read_all(int fd, const char *path, uint8_t *buf, size_t cap, size_t *len,
		    struct rt_error *err)
{
	ssize_t n;

	*len = 0;
	do {
		n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rt_fail_errno(err, RT_EXIT_USAGE, errno, "--token-file %s", path);
		*len += (size_t)n;
	} while (n > 0 && *len < cap);
	return 0;
}

int rt_mesh_secret_file(struct rt_hmac *mac, const char *path,
			uint8_t secret[RT_MESH_AUTH_SECRET], struct rt_error *err)
{
	static const char salt[] = "rdmatest mesh token file";
	uint8_t buf[RT_MESH_SECRET_FILE_MAX + 1];
	struct iovec ikm;
	size_t len;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return rt_fail_errno(err, RT_EXIT_USAGE, errno, "--token-file %s", path);
	rc = file_private(fd, path, err);
	if (!rc)
		rc = read_all(fd, path, buf, sizeof(buf), &len, err);
	close(fd);
	if (rc)
		return -1;
	if (len > RT_MESH_SECRET_FILE_MAX)
		rc = rt_fail(err, RT_EXIT_USAGE, "--token-file %s: longer than %u bytes", path,
			     RT_MESH_SECRET_FILE_MAX);
	if (len && buf[len - 1] == '\n')
		len--;
	if (!rc && !len)
		rc = rt_fail(err, RT_EXIT_USAGE, "--token-file %s: empty", path);
	ikm = (struct iovec){ buf, len };
	if (!rc)
		rc = rt_hmac_sha256(mac, (const uint8_t *)salt, sizeof(salt) - 1, &ikm, 1,
				    secret, err);
	explicit_bzero(buf, sizeof(buf));
	return rc;
}

int rt_mesh_secret_check(const char *path, struct rt_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), rc;

	if (fd < 0)
		return rt_fail_errno(err, RT_EXIT_USAGE, errno, "--token-file %s", path);
	rc = file_private(fd, path, err);
	close(fd);
	return rc;
}
