/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdmatest/util.h"

static _Noreturn void oom(size_t size)
{
	fprintf(stderr, "rdmatest: out of memory allocating %zu bytes\n", size);
	exit(1);
}

void *rt_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *rt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *rt_xrealloc(void *old, size_t size)
{
	void *p = realloc(old, size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

char *rt_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(rt_xmalloc(n), s, n);
}

uint64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rt_deadline_after_ms(int64_t ms)
{
	if (ms <= 0)
		return 0;
	return rt_now_ns() + (uint64_t)ms * 1000000u;
}

int rt_ms_until(uint64_t deadline)
{
	uint64_t now;
	uint64_t left_ms;

	if (!deadline)
		return -1;
	now = rt_now_ns();
	if (now >= deadline)
		return 0;
	/* round up, so a wait never ends a hair before its deadline */
	left_ms = (deadline - now + 999999) / 1000000;
	return left_ms > 0x7fffffff ? 0x7fffffff : (int)left_ms;
}

size_t rt_strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

bool rt_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok && buf[0];
}

void rt_put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

void rt_put_be64(uint8_t *p, uint64_t v)
{
	rt_put_be32(p, (uint32_t)(v >> 32));
	rt_put_be32(p + 4, (uint32_t)v);
}

uint32_t rt_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint64_t rt_get_be64(const uint8_t *p)
{
	return (uint64_t)rt_get_be32(p) << 32 | rt_get_be32(p + 4);
}

int rt_set_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int rt_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t rt_utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past Unicode are invalid */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int rt_natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (is_digit(*a) && is_digit(*b)) {
			size_t na, nb;
			int c;

			while (*a == '0' && is_digit(a[1]))
				a++;
			while (*b == '0' && is_digit(b[1]))
				b++;
			na = strspn(a, "0123456789");
			nb = strspn(b, "0123456789");
			if (na != nb)
				return na < nb ? -1 : 1;
			c = strncmp(a, b, na);
			if (c)
				return c;
			a += na;
			b += nb;
			continue;
		}
		if (*a != *b)
			break;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}
