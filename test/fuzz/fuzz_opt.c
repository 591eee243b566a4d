/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The option parser, for every registered applet's table plus the common
 * one, exactly as rt_applet_run sets them up. The input is an argv:
 * NUL-separated arguments after the applet name, each its own exactly
 * sized heap string. Checked: no memory error, success leaves every value
 * in its row's range (or one of its choices), failure is a usage error
 * with a reason, a second parse gives the same result, and the parameter
 * record (rt_opt_to_json) and the error reason make valid JSON. */
#include "fuzz.h"

#include "rdmatest/applet.h"
#include "rdmatest/json.h"
#include "rdmatest/opt.h"
#include "rdmatest/run.h"

#define MAX_ARGS 64

static bool is_choice(const struct rt_enum *c, long long v)
{
	for (; c && c->name; c++)
		if (c->value == v)
			return true;
	return false;
}

static void check_values(const char *applet, const struct rt_opt_table *t)
{
	for (size_t r = 0; t->opts[r].name; r++) {
		const struct rt_opt *o = &t->opts[r];
		const char *p = (const char *)t->base + o->offset;
		long long min, max, v;

		switch (o->kind) {
		case RT_OPT_FLAG:
			FUZZ_CHECK(*(const int *)p == 0 || *(const int *)p == 1,
				   "%s --%s", applet, o->name);
			break;
		case RT_OPT_COUNTER:
			FUZZ_CHECK(*(const int *)p >= 0, "%s --%s", applet, o->name);
			break;
		case RT_OPT_ENUM:
			FUZZ_CHECK(is_choice(o->choices, *(const int *)p),
				   "%s --%s = %d", applet, o->name, *(const int *)p);
			break;
		case RT_OPT_FLAGS: {
			int all = 0;

			for (const struct rt_enum *c = o->choices; c && c->name; c++)
				all |= c->value;
			FUZZ_CHECK((*(const int *)p & ~all) == 0, "%s --%s = %#x",
				   applet, o->name, (unsigned)*(const int *)p);
			break;
		}
		case RT_OPT_STRING:
			break;
		case RT_OPT_ADDR:
		case RT_OPT_OPERAND: {
			const char *s = *(const char *const *)p;

			FUZZ_CHECK(!s || *s, "%s --%s: empty address accepted",
				   applet, o->name);
			break;
		}
		default:
			v = *(const long long *)p;
			rt_opt_range(o, &min, &max);
			FUZZ_CHECK((v >= min && v <= max) || is_choice(o->choices, v),
				   "%s --%s = %lld outside %lld..%lld", applet,
				   o->name, v, min, max);
		}
	}
	for (size_t i = rt_opt_count(t->opts); i < RT_OPT_MAX_ROWS; i++)
		FUZZ_CHECK(!rt_opt_row_given(t, i), "%s: given bits past the table", applet);
}

static void check_json(const struct rt_opt_table *tabs, const struct rt_error *e)
{
	struct rt_json j;
	const char *why;

	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_json_key(&j, "params");
	rt_json_object_begin(&j);
	rt_opt_to_json(&j, tabs, 2, NULL);
	rt_json_object_end(&j);
	if (e->set)
		rt_json_kv_string(&j, "reason", e->reason);
	rt_json_finish(&j);
	why = fuzz_json_invalid(rt_json_text(&j), j.len);
	FUZZ_CHECK(!why, "%s: %s", why, rt_json_text(&j));
	rt_json_free(&j);
}

/* Parses argv for one applet, as rt_applet_run does; returns the rc. */
static int parse(const struct rt_applet *a, int argc, char **argv, void *cfg,
		 struct rt_common *common, struct rt_opt_table tabs[2],
		 struct rt_error *e)
{
	memset(cfg, 0, a->cfg_size ? a->cfg_size : 1);
	memset(common, 0, sizeof(*common));
	memset(e, 0, sizeof(*e));
	tabs[0] = (struct rt_opt_table){ a->opts, cfg, { 0 }, a->refused, false };
	tabs[1] = (struct rt_opt_table){ rt_common_opts, common, { 0 }, NULL, false };
	return rt_opt_parse(tabs, 2, argc, argv, e);
}

static void one_applet(const struct rt_applet *a, int argc, char **argv)
{
	size_t size = a->cfg_size ? a->cfg_size : 1;
	void *cfg = malloc(size), *cfg2 = malloc(size);
	struct rt_common common, common2;
	struct rt_opt_table tabs[2], tabs2[2];
	struct rt_error e, e2;
	int rc, rc2;

	if (!cfg || !cfg2)
		abort();
	argv[0] = (char *)a->name;
	rc = parse(a, argc, argv, cfg, &common, tabs, &e);
	FUZZ_CHECK(rc == 0 || rc == -1, "%s: rc %d", a->name, rc);
	if (rc) {
		FUZZ_CHECK(e.set && e.exit_code == RT_EXIT_USAGE && e.reason[0],
			   "%s: failure without a usage error", a->name);
		FUZZ_CHECK(memchr(e.reason, '\0', sizeof(e.reason)), "%s: reason unterminated",
			   a->name);
	} else {
		FUZZ_CHECK(!e.set, "%s: success with an error: %s", a->name, e.reason);
		check_values(a->name, &tabs[0]);
		check_values("common", &tabs[1]);
	}
	/* no hidden state: the same argv parses the same way again */
	rc2 = parse(a, argc, argv, cfg2, &common2, tabs2, &e2);
	FUZZ_CHECK(rc2 == rc && !memcmp(cfg, cfg2, size) &&
		   !memcmp(&common, &common2, sizeof(common)) &&
		   !memcmp(tabs[0].given, tabs2[0].given, sizeof(tabs[0].given)) &&
		   !memcmp(tabs[1].given, tabs2[1].given, sizeof(tabs[1].given)) &&
		   !strcmp(e.reason, e2.reason), "%s: second parse differs", a->name);
	check_json(tabs, &e);
	free(cfg);
	free(cfg2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2];
	int argc = 1;
	size_t i = 0;

	if (size > 4096)
		return 0;
	while (i < size && argc <= MAX_ARGS) {
		const uint8_t *end = memchr(data + i, '\0', size - i);
		size_t len = end ? (size_t)(end - (data + i)) : size - i;

		argv[argc] = malloc(len + 1);
		if (!argv[argc])
			abort();
		memcpy(argv[argc], data + i, len);
		argv[argc][len] = '\0';
		argc++;
		i += len + 1;
	}
	argv[argc] = NULL;
	for (size_t k = 0; rt_applets[k]; k++)
		one_applet(rt_applets[k], argc, argv);
	for (int k = 1; k < argc; k++)
		free(argv[k]);
	return 0;
}
