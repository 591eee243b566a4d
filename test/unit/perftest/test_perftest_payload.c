/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* --payload_file_path's DWORDs (perftest_payload.h): their bytes, the
 * -s bound, the refusal naming the bad DWORD, and the pattern's repeat. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "perftest/perftest_payload.h"

static void payload_parse(void **state)
{
	uint8_t out[16], pat[3] = { 1, 2, 3 }, a[7];
	size_t len = 0;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_pt_payload_parse("0x01020304, 0xAABBCCDD,\n", "f", out,
					     sizeof(out), &len, &err), 0);
	assert_int_equal(len, 8);
	assert_memory_equal(out, ((uint8_t[]){ 4, 3, 2, 1, 0xdd, 0xcc, 0xbb, 0xaa }), 8);
	/* at most max bytes (-s) */
	assert_int_equal(rt_pt_payload_parse("0x01020304,0x05060708", "f", out, 6, &len,
					     &err), 0);
	assert_int_equal(len, 6);
	assert_memory_equal(out, ((uint8_t[]){ 4, 3, 2, 1, 8, 7 }), 6);
	assert_int_equal(rt_pt_payload_parse("0x01020304,0x0506070g", "f", out,
					     sizeof(out), &len, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "f: DWORD 1 is not"));
	assert_int_equal(rt_pt_payload_parse("1234567890", "f", out, sizeof(out), &len,
					     &err), -1);
	rt_pt_payload_fill(a, sizeof(a), pat, sizeof(pat));
	assert_memory_equal(a, ((uint8_t[]){ 1, 2, 3, 1, 2, 3, 1 }), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(payload_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
