/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Applet descriptors and the multicall dispatcher. The list of applets
 * comes from the build (applets.def, one APPLET(name) line each), so a
 * listed applet without a descriptor is a link error, never a silent drop. */
#ifndef RDMATEST_APPLET_H
#define RDMATEST_APPLET_H

#include <stdbool.h>
#include <stddef.h>

#include "rdmatest/opt.h"
#include "rdmatest/run.h"

struct rt_applet {
	const char *name;
	const char *summary;  /* one line for `rdmatest --help` */
	const char *synopsis; /* usage after the name, e.g. "-s [-vV] [-S size]" */
	const char *description; /* a paragraph for --help and the man page */
	const struct rt_opt *opts;
	const struct rt_opt_refused *refused; /* upstream options refused */
	size_t cfg_size;
	/* Optional, set after the description in RT_APPLET: */
	/* the man page's EXAMPLES: entries separated by a blank line, each a
	 * sentence and then the command lines it speaks of, one a line */
	const char *examples;
	/* names of the applet's own options that are internal (what one
	 * rdmatest process passes another), NULL-terminated: parsed, but
	 * left out of --help, the man page and the completion */
	const char *const *internal_opts;
	/* names of common options (rt_common_opts) that do not apply to the
	 * applet, NULL-terminated: neither listed nor accepted */
	const char *const *common_unused;
	/* names of the applet's options whose values are secrets (mesh
	 * --token), NULL-terminated: --json's params say only whether one
	 * was given, never the value */
	const char *const *secret_opts;
	/* upstream parses with getopt_long (libibverbs' examples, perftest;
	 * not librdmacm's, which use getopt): long names may be abbreviated
	 * to a unique prefix, "--bidir" for "--bidirectional" (opt.h) */
	bool long_prefixes;
	/* the exit status after --help and --version (and the applet's own
	 * -h or -V): upstream's, which for perftest is 1; 0 otherwise */
	int info_exit;
	/* Runs the applet on a parsed, zeroed-then-defaulted config. Returns
	 * 0, or -1 with run->err set. */
	int (*main)(struct rt_run *run, void *cfg);
};

/* An applet file says who it is right after its option table, the way
 * toybox's NEWTOY lines do: RT_APPLET(rping, summary, synopsis,
 * description) defines applet_rping from rping_opts, the file's RT_CFG
 * (opt.h) and rping_main, which the file defines further down. Optional
 * members follow as designated initializers: `.examples = "..."`. */
#define RT_APPLET(n, summary_, synopsis_, description_, ...)                 \
	static int n##_main(struct rt_run *run, void *cfg);                  \
	const struct rt_applet applet_##n = {                                \
		.name = #n, .summary = (summary_), .synopsis = (synopsis_),  \
		.description = (description_), .opts = n##_opts,             \
		.cfg_size = sizeof(RT_CFG), .main = n##_main, __VA_ARGS__    \
	}

/* The same for an applet that refuses upstream options it does not
 * implement, listed in `refused_` (opt.h). */
#define RT_APPLET_REFUSING(n, refused_, summary_, synopsis_, description_, ...) \
	static int n##_main(struct rt_run *run, void *cfg);                  \
	const struct rt_applet applet_##n = {                                \
		.name = #n, .summary = (summary_), .synopsis = (synopsis_),  \
		.description = (description_), .opts = n##_opts,             \
		.refused = (refused_), .cfg_size = sizeof(RT_CFG),           \
		.main = n##_main, __VA_ARGS__                                \
	}

/* NULL-terminated, sorted by name. */
extern const struct rt_applet *const rt_applets[];

const struct rt_applet *rt_applet_find(const char *name);
size_t rt_applet_count(void);

/* What the program around the dispatcher joins into every run, so that
 * core names no family: main() fills it from the families this build
 * has (core/main.c). Any member may be NULL. */
struct rt_main_hooks {
	/* After an applet failed: may put a finding that bears on the
	 * failure into err->hint (doctor's, for the device, address, route,
	 * GID and memory errors its findings explain). `applet` is the failed applet's name. */
	void (*failure_hint)(const char *applet, struct rt_error *err);
};

/* Parses argv (argv[0] is the applet name) and runs the applet; returns
 * the exit status. Handles --help and --version centrally. `hooks` may be
 * NULL. */
int rt_applet_run(const struct rt_applet *a, int argc, char **argv,
		  const struct rt_main_hooks *hooks);

/* The applet's two option tables: its own rows writing into cfg, and the
 * common rows that apply to it (all but a->common_unused) copied into
 * `common_rows` (RT_OPT_MAX_ROWS + 1 of them) writing into `common`. */
void rt_applet_tables(const struct rt_applet *a, void *cfg, struct rt_common *common,
		      struct rt_opt *common_rows, struct rt_opt_table tabs[2]);

/* The --help text on stdout (for an applet whose upstream also has -h). */
void rt_applet_help(const struct rt_applet *a);

/* main() of the multicall binary, with main's hooks (may be NULL). */
int rt_dispatch(int argc, char **argv, const struct rt_main_hooks *hooks);

#endif
