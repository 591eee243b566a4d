/* Applet descriptors and the multicall dispatcher. The list of applets
 * comes from the build (applets.def, one APPLET(name) line each), so a
 * listed applet without a descriptor is a link error, never a silent drop. */
#ifndef RDMATEST_APPLET_H
#define RDMATEST_APPLET_H

#include <stddef.h>

#include "rdmatest/opt.h"
#include "rdmatest/run.h"

struct rt_applet {
	const char *name;
	const char *summary;  /* one line for `rdmatest --help` */
	const char *synopsis; /* usage after the name, e.g. "-s [-vV] [-S size]" */
	const char *description; /* a paragraph for --help and the man page */
	const struct rt_opt *opts;
	size_t cfg_size;
	/* Runs the applet on a parsed, zeroed-then-defaulted config. Returns
	 * 0, or -1 with run->err set. */
	int (*main)(struct rt_run *run, void *cfg);
};

/* The descriptor's fixed part for an applet `n` whose file defines
 * n_opts and n_main and whose config struct is RT_CFG (opt.h). */
#define RT_APPLET_OF(n) \
	.name = #n, .opts = n##_opts, .cfg_size = sizeof(RT_CFG), .main = n##_main

/* NULL-terminated, sorted by name. */
extern const struct rt_applet *const rt_applets[];

const struct rt_applet *rt_applet_find(const char *name);
size_t rt_applet_count(void);

/* Parses argv (argv[0] is the applet name) and runs the applet; returns
 * the exit status. Handles --help and --version centrally. */
int rt_applet_run(const struct rt_applet *a, int argc, char **argv);

/* main() of the multicall binary. */
int rt_dispatch(int argc, char **argv);

#endif
