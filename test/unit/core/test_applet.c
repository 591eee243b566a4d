/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Walks every registered applet's option table and the registry itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/applet.h"

static void every_table_is_sound(void **state)
{
	(void)state;
	for (size_t i = 0; rt_applets[i]; i++) {
		const struct rt_applet *a = rt_applets[i];
		struct rt_error e = { 0 };

		if (rt_opt_table_check(a->opts, &e))
			fail_msg("%s: %s", a->name, e.reason);
		/* long names must not collide with the common options */
		for (const struct rt_opt *o = a->opts; o->name; o++)
			for (const struct rt_opt *c = rt_common_opts; c->name; c++)
				if (!strcmp(o->name, c->name))
					fail_msg("%s: --%s is a common option", a->name, o->name);
		assert_non_null(a->summary);
		assert_non_null(a->synopsis);
		assert_non_null(a->main);
	}
}

static void common_table_is_sound(void **state)
{
	struct rt_error e = { 0 };

	(void)state;
	if (rt_opt_table_check(rt_common_opts, &e))
		fail_msg("common: %s", e.reason);
}

static void registry_is_sorted_and_findable(void **state)
{
	(void)state;
	for (size_t i = 0; rt_applets[i]; i++) {
		assert_ptr_equal(rt_applet_find(rt_applets[i]->name), rt_applets[i]);
		if (i)
			assert_true(strcmp(rt_applets[i - 1]->name, rt_applets[i]->name) < 0);
	}
	assert_null(rt_applet_find("no-such-applet"));
	assert_null(rt_applet_find(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_table_is_sound),
		cmocka_unit_test(common_table_is_sound),
		cmocka_unit_test(registry_is_sorted_and_findable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
