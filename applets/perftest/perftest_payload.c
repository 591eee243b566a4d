/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* --payload_file_path (perftest_payload.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest/perftest_opts.h"
#include "perftest/perftest_payload.h"

/* "0x" and eight hex digits, spaces around it allowed: bytes little endian */
static bool dword(const char *t, size_t n, uint8_t b[4])
{
	char hex[9];

	while (n && isspace((unsigned char)*t))
		t++, n--;
	while (n && isspace((unsigned char)t[n - 1]))
		n--;
	if (n != 10 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
		return false;
	for (int i = 0; i < 8; i++)
		if (!isxdigit((unsigned char)t[2 + i]))
			return false;
	memcpy(hex, t + 2, 8);
	hex[8] = 0;
	unsigned long v = strtoul(hex, NULL, 16);
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	return true;
}

int rt_pt_payload_parse(const char *text, const char *what, uint8_t *out,
			size_t max, size_t *len, struct rt_error *err)
{
	size_t n = 0, k = 0;

	for (const char *t = text; n < max; k++) {
		const char *end = strchr(t, ',');
		size_t tl = end ? (size_t)(end - t) : strlen(t);
		uint8_t b[4];

		if (!end && k && strspn(t, " \t\r\n") == tl)
			break; /* after a trailing comma: the line's end */
		if (!dword(t, tl, b))
			return rt_fail(err, RT_EXIT_USAGE, "--payload_file_path %s: DWORD %zu "
				       "is not 0x and eight hex digits", what, k);
		for (int i = 0; i < 4 && n < max; i++)
			out[n++] = b[i];
		if (!end)
			break;
		t = end + 1;
	}
	*len = n;
	return 0;
}

static int load_text(const char *path, char **text, struct rt_error *err)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return rt_fail_errno(err, RT_EXIT_USAGE, errno, "--payload_file_path %s", path);
	*text = calloc(1, RT_PT_PAYLOAD_FILE + 2);
	n = *text ? fread(*text, 1, RT_PT_PAYLOAD_FILE + 1, f) : 0;
	fclose(f);
	if (!*text)
		return rt_fail(err, RT_EXIT_ENV, "--payload_file_path %s: out of memory", path);
	if (n > RT_PT_PAYLOAD_FILE)
		return rt_fail(err, RT_EXIT_USAGE, "--payload_file_path %s: above %u bytes",
			       path, RT_PT_PAYLOAD_FILE);
	if (!n || strspn(*text, " \t\r\n") == n)
		return rt_fail(err, RT_EXIT_USAGE, "--payload_file_path %s: empty", path);
	return 0;
}

int rt_pt_payload_load(const char *path, size_t max, uint8_t **out, size_t *len,
		       struct rt_error *err)
{
	char *text = NULL;
	int rc = load_text(path, &text, err);

	*out = NULL;
	if (!rc && !(*out = malloc(max ? max : 1)))
		rc = rt_fail(err, RT_EXIT_ENV, "--payload_file_path %s: out of memory", path);
	if (!rc)
		rc = rt_pt_payload_parse(text, path, *out, max, len, err);
	free(text);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

void rt_pt_payload_fill(uint8_t *a, size_t n, const uint8_t *pat, size_t len)
{
	for (size_t i = 0; len && i < n; i++)
		a[i] = pat[i % len];
}

int rt_pt_payload_rules(struct rt_pt_params *p, struct rt_error *err)
{
	size_t max = (size_t)(p->opt.all ? RT_PT_ALL_MAX : (uint64_t)p->opt.size);
	uint8_t *pat;
	size_t len;

	if (!p->opt.payload.file)
		return 0;
	/* checked now, before anything is connected; the connection loads it */
	if (rt_pt_payload_load(p->opt.payload.file, max, &pat, &len, err))
		return -1;
	free(pat);
	return 0;
}
