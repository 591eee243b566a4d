/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests for core/log.c: the transient progress line, written to a
 * memstream with the times given by the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/log.h"

#define MS 1000000ull

/* Output caught in memory: open, write, then close and compare. */
struct caught {
	char *text;
	size_t len;
	FILE *f;
};

static FILE *catch_open(struct caught *c)
{
	c->text = NULL;
	c->f = open_memstream(&c->text, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static void catch_is(struct caught *c, const char *want)
{
	fclose(c->f);
	assert_string_equal(c->text, want);
	free(c->text);
}

static void progress_waits_a_second_then_every_250ms(void **state)
{
	struct rt_progress p = { 0 };
	struct caught c;
	FILE *out = catch_open(&c);

	(void)state;
	rt_progress_start(&p, out, 5000 * MS);
	assert_false(rt_progress_due(&p, 5000 * MS));
	assert_false(rt_progress_due(&p, 5999 * MS)); /* not before a second */
	assert_true(rt_progress_due(&p, 6000 * MS));
	rt_progress_show(&p, "x: %s %3d%%", "row", 7);
	assert_false(rt_progress_due(&p, 6249 * MS)); /* not more often */
	assert_true(rt_progress_due(&p, 6250 * MS));
	rt_progress_show(&p, "x: %s %3d%%", "row", 42);
	rt_progress_clear(&p);
	rt_progress_clear(&p); /* cleared once only */
	catch_is(&c, "\rx: row   7%\rx: row  42%\r\033[K");
}

/* Nothing without a stream, nor a clear for a line never shown; a new
 * task clears the last one's line and times itself afresh. */
static void quiet_until_shown_and_rearmed_per_task(void **state)
{
	struct rt_progress p = { 0 };
	struct caught c;
	FILE *out = catch_open(&c);

	(void)state;
	rt_progress_start(&p, NULL, 0);
	assert_false(rt_progress_due(&p, 10000 * MS));
	rt_progress_show(&p, "never");
	rt_progress_clear(&p);
	rt_progress_start(&p, out, 0);
	rt_progress_clear(&p);
	assert_true(rt_progress_due(&p, 2000 * MS));
	rt_progress_show(&p, "a");
	rt_progress_start(&p, out, 2000 * MS);
	assert_false(rt_progress_due(&p, 2500 * MS));
	catch_is(&c, "\ra\r\033[K");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(progress_waits_a_second_then_every_250ms),
		cmocka_unit_test(quiet_until_shown_and_rearmed_per_task),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
