/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The multicall entry: pick the applet from argv[0] or argv[1], and the
 * multiplexer's own commands (--help, --list, --install, --version). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "rdmatest/applet.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The applet column is as wide as the longest name. */
static size_t name_width(void)
{
	size_t width = 0;

	for (size_t i = 0; rt_applets[i]; i++)
		if (strlen(rt_applets[i]->name) > width)
			width = strlen(rt_applets[i]->name);
	return width;
}

static int banner(void)
{
	size_t width = name_width();

	printf("rdmatest %s: one binary for RDMA fabric tests, wire-compatible with\n"
	       "the librdmacm example tools.\n\n"
	       "Usage: rdmatest APPLET [OPTIONS]   (or a link named APPLET)\n"
	       "       rdmatest --list | --install [-s] DIR | --version | --help\n\n"
	       "Applets:\n", RT_VERSION);
	for (size_t i = 0; rt_applets[i]; i++) {
		int col = printf("  %-*s ", (int)width, rt_applets[i]->name);

		rt_text_wrap(stdout, rt_applets[i]->summary, (size_t)col, (size_t)col, 79);
	}
	if (!rt_applets[0])
		printf("  (none built)\n");
	printf("\n'rdmatest APPLET --help' describes an applet's options.\n");
	return 0;
}

static int list(void)
{
	for (size_t i = 0; rt_applets[i]; i++)
		printf("%s\n", rt_applets[i]->name);
	return 0;
}

static int self_path(const char *argv0, char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n > 0) {
		buf[n] = '\0';
		return 0;
	}
	if (argv0[0] == '/' && realpath(argv0, buf))
		return 0;
	fprintf(stderr, "rdmatest: --install: cannot find my own path "
			"(no /proc/self/exe and argv[0] is not absolute)\n");
	return -1;
}

/* Makes DIR/name point at self; an existing link is replaced, anything
 * else is left alone. */
static int install_one(const char *self, const char *dir, const char *name,
		       bool soft)
{
	char path[PATH_MAX];
	struct stat st, me;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		fprintf(stderr, "rdmatest: --install: path too long: %s/%s\n", dir, name);
		return -1;
	}
	if (!lstat(path, &st)) {
		bool our_hardlink = !stat(self, &me) && S_ISREG(st.st_mode) &&
				    st.st_ino == me.st_ino && st.st_dev == me.st_dev;

		if (!S_ISLNK(st.st_mode) && !our_hardlink) {
			fprintf(stderr, "rdmatest: --install: refusing to overwrite %s: "
					"not a link to rdmatest\n", path);
			return -1;
		}
		if (unlink(path)) {
			fprintf(stderr, "rdmatest: --install: unlink %s: %s\n", path,
				strerror(errno));
			return -1;
		}
	}
	if ((soft ? symlink(self, path) : link(self, path))) {
		fprintf(stderr, "rdmatest: --install: %s %s: %s%s\n",
			soft ? "symlink" : "link", path, strerror(errno),
			errno == EXDEV ? " (use -s for symbolic links)" : "");
		return -1;
	}
	return 0;
}

static int install(int argc, char **argv)
{
	bool soft = argc > 2 && !strcmp(argv[2], "-s");
	const char *dir = argv[soft ? 3 : 2];
	char self[PATH_MAX];
	struct stat st;
	int rc = 0;

	if (!dir || argc > (soft ? 4 : 3)) {
		fprintf(stderr, "rdmatest: usage: rdmatest --install [-s] DIR\n");
		return 2;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rdmatest: --install: %s is not a directory\n", dir);
		return 1;
	}
	if (self_path(argv[0], self, sizeof(self)))
		return 1;
	for (size_t i = 0; rt_applets[i]; i++)
		if (install_one(self, dir, rt_applets[i]->name, soft))
			rc = 1;
	return rc;
}

static int multiplexer(int argc, char **argv, const struct rt_main_hooks *hooks)
{
	const char *cmd = argc > 1 ? argv[1] : "--help";
	const struct rt_applet *a;

	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return banner();
	if (!strcmp(cmd, "--list"))
		return list();
	if (!strcmp(cmd, "--version")) {
		printf("rdmatest %s\n", RT_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "--install"))
		return install(argc, argv);
	if (cmd[0] == '-') {
		fprintf(stderr, "rdmatest: unknown option '%s'\n"
				"Try 'rdmatest --help' for more information.\n", cmd);
		return 2;
	}
	a = rt_applet_find(cmd);
	if (!a) {
		fprintf(stderr, "rdmatest: unknown applet '%s' (see rdmatest --list)\n", cmd);
		return 127;
	}
	return rt_applet_run(a, argc - 1, argv + 1, hooks);
}

int rt_dispatch(int argc, char **argv, const struct rt_main_hooks *hooks)
{
	const char *name = argc > 0 && argv[0] ? base_name(argv[0]) : "rdmatest";
	const struct rt_applet *a;

	if (!strncmp(name, "rdmatest", 8))
		return multiplexer(argc, argv, hooks);
	a = rt_applet_find(name);
	if (!a) {
		fprintf(stderr, "rdmatest: unknown applet '%s' (see rdmatest --list)\n", name);
		return 127;
	}
	return rt_applet_run(a, argc, argv, hooks);
}
