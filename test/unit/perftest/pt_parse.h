/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One ib_* command line through an option table into perftest params,
 * for the perftest unit tests: the NULL-terminated arguments after the
 * program's name (at most 30), parsed as the applet parses them, then
 * rt_pt_params_init's rules for test t. The config lives in a static
 * (params point into it), so one parse a test file at a time. Include
 * after cmocka.h and perftest/perftest_opts.h. */
#ifndef RDMATEST_TEST_PT_PARSE_H
#define RDMATEST_TEST_PT_PARSE_H

#include <stdarg.h>
#include <string.h>

static int pt_vparse(struct rt_pt_params *p, struct rt_error *err, const struct rt_opt *opts,
		     const char *prog, struct rt_pt_test t, va_list ap)
{
	static struct rt_pt_cfg cfg;
	struct rt_opt_table tab = { opts, &cfg, { 0 }, rt_pt_refused, true };
	char *argv[32] = { (char *)prog };
	int argc = 1;

	memset(&cfg, 0, sizeof(cfg));
	memset(err, 0, sizeof(*err));
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	if (rt_opt_parse(&tab, 1, argc, argv, err))
		return -1;
	return rt_pt_params_init(p, &cfg, t, &tab, err);
}

#endif
