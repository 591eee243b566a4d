/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The applet registry and running one applet: options, help, the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rdmatest/applet.h"
#include "rdmatest/util.h"

#define APPLET(n) extern const struct rt_applet applet_##n;
#include "applets.def"
#undef APPLET

#define APPLET(n) &applet_##n,
const struct rt_applet *const rt_applets[] = {
#include "applets.def"
	NULL,
};
#undef APPLET

const struct rt_applet *rt_applet_find(const char *name)
{
	for (size_t i = 0; rt_applets[i]; i++)
		if (!strcmp(rt_applets[i]->name, name))
			return rt_applets[i];
	return NULL;
}

size_t rt_applet_count(void)
{
	return ARRAY_SIZE(rt_applets) - 1;
}

void rt_applet_tables(const struct rt_applet *a, void *cfg, struct rt_common *common,
		      struct rt_opt *common_rows, struct rt_opt_table tabs[2])
{
	tabs[0] = (struct rt_opt_table){ a->opts, cfg, { 0 }, a->refused, a->long_prefixes };
	tabs[1] = (struct rt_opt_table){
		rt_opt_without(common_rows, rt_common_opts, a->common_unused), common, { 0 }, NULL,
		a->long_prefixes
	};
}

/* Width of --help's text: lines break before it. */
#define HELP_WIDTH 79

void rt_applet_help(const struct rt_applet *a)
{
	struct rt_opt common_rows[RT_OPT_MAX_ROWS + 1];
	struct rt_run run = { .name = a->name };

	rt_applet_tables(a, NULL, NULL, common_rows, run.tabs);
	printf("Usage: %s ", a->name);
	rt_text_wrap(stdout, a->synopsis, strlen("Usage: ") + strlen(a->name) + 1,
		     strlen("Usage: "), HELP_WIDTH);
	printf("\n%s\n", a->summary);
	if (a->description) {
		printf("\n");
		rt_text_wrap(stdout, a->description, 0, 0, HELP_WIDTH);
	}
	printf("\nOptions:\n");
	rt_opt_help_except(stdout, run.tabs, 2, a->internal_opts);
	printf("\n");
	rt_text_wrap(stdout, "Exit status: 0 pass, 1 test failed, 2 usage error, "
		     "3 environment (no device, capability), 124 a wait timed out, "
		     "130/143 interrupted by SIGINT/SIGTERM.", 0, 0, HELP_WIDTH);
}

static bool wants(int argc, char **argv, const char *word)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], word))
			return true;
	return false;
}

int rt_applet_run(const struct rt_applet *a, int argc, char **argv,
		  const struct rt_main_hooks *hooks)
{
	struct rt_opt common_rows[RT_OPT_MAX_ROWS + 1];
	struct rt_run run = { .name = a->name };
	void *cfg;
	int rc = -1;

	if (wants(argc, argv, "--help")) {
		rt_applet_help(a);
		return a->info_exit;
	}
	if (wants(argc, argv, "--version")) {
		printf("%s (rdmatest) %s\n", a->name, RT_VERSION);
		return a->info_exit;
	}
	cfg = rt_xcalloc(1, a->cfg_size ? a->cfg_size : 1);
	rt_applet_tables(a, cfg, &run.common, common_rows, run.tabs);
	run.secret_opts = a->secret_opts;
	rt_json_init(&run.results);
	rt_json_object_begin(&run.results);
	rt_error_phase(&run.err, "options");
	if (!rt_opt_parse(run.tabs, 2, argc, argv, &run.err)) {
		rt_log_init(&run.log, a->name, run.common.json, run.common.quiet,
			    run.common.debug);
		rt_run_start(&run);
		rc = a->main(&run, cfg);
		if (rc && hooks && hooks->failure_hint)
			hooks->failure_hint(a->name, &run.err);
	} else {
		run.common.json = wants(argc, argv, "--json");
		rt_log_init(&run.log, a->name, run.common.json, false, false);
	}
	rc = rt_run_finish(&run, rc);
	if (run.err.exit_code == RT_EXIT_USAGE)
		fprintf(stderr, "Try '%s --help' for more information.\n", a->name);
	rt_json_free(&run.results);
	free(cfg);
	return rc;
}
