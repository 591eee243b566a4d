/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/json.h"

static void nesting_and_commas(void **state)
{
	struct rt_json j;

	(void)state;
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_json_kv_int(&j, "a", -3);
	rt_json_key(&j, "list");
	rt_json_array_begin(&j);
	rt_json_uint(&j, 18446744073709551615ULL);
	rt_json_bool(&j, true);
	rt_json_null(&j);
	rt_json_object_begin(&j);
	rt_json_object_end(&j);
	rt_json_array_end(&j);
	rt_json_kv_double(&j, "d", 0.5);
	rt_json_kv_double(&j, "nan", NAN);
	rt_json_object_end(&j);
	assert_string_equal(rt_json_text(&j),
		"{\"a\":-3,\"list\":[18446744073709551615,true,null,{}],\"d\":0.5,\"nan\":null}");
	rt_json_free(&j);
}

static void strings_are_escaped_and_made_valid_utf8(void **state)
{
	struct rt_json j;
	const char raw[] = "q\"b\\\n\x01\x7f ok \xc3\xa9 bad \xff \xc0\xaf \xed\xa0\x80 trunc \xe2\x82";

	(void)state;
	rt_json_init(&j);
	rt_json_string_n(&j, raw, sizeof(raw) - 1);
	assert_string_equal(rt_json_text(&j),
		"\"q\\\"b\\\\\\u000a\\u0001\\u007f ok \xc3\xa9 bad \\ufffd \\ufffd\\ufffd "
		"\\ufffd\\ufffd\\ufffd trunc \\ufffd\\ufffd\"");
	rt_json_free(&j);
}

static void embedded_nul_survives(void **state)
{
	struct rt_json j;

	(void)state;
	rt_json_init(&j);
	rt_json_string_n(&j, "a\0b", 3);
	assert_string_equal(rt_json_text(&j), "\"a\\u0000b\"");
	rt_json_free(&j);
}

static void misuse_still_yields_valid_json(void **state)
{
	struct rt_json j;

	(void)state;
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_json_int(&j, 1);          /* value without key */
	rt_json_key(&j, "k");        /* key without value, then end */
	rt_json_array_end(&j);       /* wrong closer: closes the object */
	rt_json_array_end(&j);       /* nothing open: ignored */
	assert_string_equal(rt_json_text(&j), "{\"\":1,\"k\":null}");
	rt_json_free(&j);

	rt_json_init(&j);
	rt_json_array_begin(&j);
	rt_json_key(&j, "ignored");
	rt_json_string(&j, NULL);
	rt_json_object_begin(&j);
	rt_json_key(&j, "x");
	rt_json_finish(&j);
	assert_string_equal(rt_json_text(&j), "[null,{\"x\":null}]");
	rt_json_free(&j);
}

/* Found by test/fuzz/fuzz_json: once the top-level value was complete,
 * further values were appended to it ("{...}nullnull", "12"): one
 * document holds one value, so the writer drops what comes after it, as
 * it drops closers with nothing open. */
static void nothing_follows_the_top_level_value(void **state)
{
	struct rt_json j;

	(void)state;
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_json_object_end(&j);
	rt_json_string(&j, NULL);
	rt_json_raw(&j, "");
	rt_json_int(&j, 1);
	rt_json_array_begin(&j);
	rt_json_kv_int(&j, "k", 2);
	rt_json_finish(&j);
	assert_string_equal(rt_json_text(&j), "{}");
	rt_json_free(&j);

	rt_json_init(&j);
	rt_json_int(&j, 1);
	rt_json_int(&j, 2);
	rt_json_string(&j, "x");
	rt_json_object_begin(&j);
	rt_json_finish(&j);
	assert_string_equal(rt_json_text(&j), "1");
	rt_json_free(&j);
}

static void deep_nesting_grows(void **state)
{
	struct rt_json j;

	(void)state;
	rt_json_init(&j);
	for (int i = 0; i < 100; i++)
		rt_json_array_begin(&j);
	rt_json_finish(&j);
	assert_int_equal(j.len, 200);
	assert_int_equal(rt_json_text(&j)[99], '[');
	assert_int_equal(rt_json_text(&j)[100], ']');
	rt_json_free(&j);
}

/* Flushed in pieces, the text written is the one document the whole
 * would have been: commas and keys across the pieces, nothing after the
 * top-level value even once it has gone out. */
static void flushed_pieces_make_one_document(void **state)
{
	struct rt_json j;
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	(void)state;
	assert_non_null(f);
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_json_kv_int(&j, "a", 1);
	assert_int_equal(rt_json_flush(&j, f), 0);
	assert_string_equal(rt_json_text(&j), "");
	rt_json_key(&j, "list");
	rt_json_array_begin(&j);
	rt_json_uint(&j, 2);
	assert_int_equal(rt_json_flush(&j, f), 0);
	rt_json_uint(&j, 3);
	rt_json_finish(&j);
	assert_int_equal(rt_json_flush(&j, f), 0);
	assert_int_equal(rt_json_flush(&j, f), 0); /* nothing left: nothing written */
	rt_json_int(&j, 4); /* a second top-level value is still dropped */
	assert_string_equal(rt_json_text(&j), "");
	assert_int_equal(j.flushed, strlen("{\"a\":1,\"list\":[2,3]}"));
	fclose(f);
	assert_string_equal(text, "{\"a\":1,\"list\":[2,3]}");
	free(text);
	rt_json_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nesting_and_commas),
		cmocka_unit_test(strings_are_escaped_and_made_valid_utf8),
		cmocka_unit_test(embedded_nul_survives),
		cmocka_unit_test(misuse_still_yields_valid_json),
		cmocka_unit_test(nothing_follows_the_top_level_value),
		cmocka_unit_test(deep_nesting_grows),
		cmocka_unit_test(flushed_pieces_make_one_document),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
