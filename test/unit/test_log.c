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

static void progress_waits_a_second_then_every_250ms(void **state)
{
	struct rt_progress p = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

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
	fclose(out);
	assert_string_equal(text, "\rx: row   7%\rx: row  42%\r\033[K");
	free(text);
}

/* A line never shown is never cleared: nothing on a non-terminal. */
static void no_output_without_a_stream(void **state)
{
	struct rt_progress p = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	rt_progress_start(&p, NULL, 0);
	assert_false(rt_progress_due(&p, 10000 * MS));
	rt_progress_show(&p, "never");
	rt_progress_clear(&p);
	rt_progress_start(&p, out, 0);
	rt_progress_clear(&p);
	fclose(out);
	assert_string_equal(text, "");
	free(text);
}

/* A new task clears the last one's line and times itself afresh. */
static void restart_clears_and_rearms(void **state)
{
	struct rt_progress p = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	rt_progress_start(&p, out, 0);
	assert_true(rt_progress_due(&p, 2000 * MS));
	rt_progress_show(&p, "a");
	rt_progress_start(&p, out, 2000 * MS);
	assert_false(rt_progress_due(&p, 2500 * MS));
	fclose(out);
	assert_string_equal(text, "\ra\r\033[K");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(progress_waits_a_second_then_every_250ms),
		cmocka_unit_test(no_output_without_a_stream),
		cmocka_unit_test(restart_clears_and_rearms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
