/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's --expect file (expect.h): whatever the bytes, the parser
 * stays inside them and its bounds, a file it takes holds only entries
 * that save and parse back the same, and one it refuses names a line
 * within the text. */
#include "fuzz.h"

#include "doctor/expect.h"

/* What rt_diag_expect_save writes, in memory. */
static size_t format(const struct rt_diag_expect *x, char *buf, size_t len)
{
	size_t at = 0;

	for (int i = 0; i < x->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s %s\n", x->e[i].key, x->e[i].value);
	return at < len ? at : len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_diag_expect x, y;
	char why[160], *again;
	size_t len;
	unsigned line, lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	rt_diag_expect_init(&x);
	if (rt_diag_expect_parse(&x, (const char *)data, size, &line, why, sizeof(why))) {
		FUZZ_CHECK(line <= lines, "refused at line %u of %u", line, lines);
		FUZZ_CHECK(memchr(why, '\0', sizeof(why)) && why[0], "no reason");
		rt_diag_expect_free(&x);
		return 0;
	}
	FUZZ_CHECK(x.n <= RT_DIAG_EXPECT_MAX, "%d entries", x.n);
	again = malloc(RT_DIAG_EXPECT_BYTES + 1);
	if (!again)
		abort();
	len = format(&x, again, RT_DIAG_EXPECT_BYTES + 1);
	rt_diag_expect_init(&y);
	FUZZ_CHECK(!rt_diag_expect_parse(&y, again, len, &line, why, sizeof(why)) && y.n == x.n,
		   "taken but its entries do not read back: line %u: %s", line, why);
	for (int i = 0; i < x.n; i++)
		FUZZ_CHECK(!strcmp(x.e[i].key, y.e[i].key) && !strcmp(x.e[i].value, y.e[i].value),
			   "entry %d reads back otherwise", i);
	rt_diag_expect_free(&y);
	rt_diag_expect_free(&x);
	free(again);
	return 0;
}
