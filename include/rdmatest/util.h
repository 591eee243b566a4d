/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Small helpers every module may use: allocation that cannot fail, array
 * sizes, monotonic time. Allocation failure is the one error the core
 * does not return: there is no sensible recovery from it in a test tool. */
#ifndef RDMATEST_UTIL_H
#define RDMATEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define RT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RT_MAX(a, b) ((a) > (b) ? (a) : (b))

void *rt_xmalloc(size_t size);
void *rt_xcalloc(size_t n, size_t size);
void *rt_xrealloc(void *old, size_t size);
char *rt_xstrdup(const char *s);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t rt_now_ns(void);

/* Deadlines are absolute monotonic times in ns; 0 means "no deadline". */
uint64_t rt_deadline_after_ms(int64_t ms);
/* Milliseconds left until the deadline, for poll(): -1 when there is no
 * deadline, 0 when it has passed. */
int rt_ms_until(uint64_t deadline);

/* The first line of a small file (sysfs attributes), without its newline;
 * false when the file cannot be read or the line is empty. */
bool rt_read_line(const char *path, char *buf, size_t len);

/* Big-endian (network order) integers in byte buffers of any alignment. */
void rt_put_be32(uint8_t *p, uint32_t v);
void rt_put_be64(uint8_t *p, uint64_t v);
uint32_t rt_get_be32(const uint8_t *p);
uint64_t rt_get_be64(const uint8_t *p);

/* Sets O_NONBLOCK on a file descriptor (event and completion channels);
 * -1 with errno on failure. */
int rt_set_nonblock(int fd);

/* The value of a hex digit (either case), -1 for any other character:
 * the peers' text records are parsed with it. */
int rt_hex_digit(char c);

/* Copy with truncation and guaranteed NUL; returns strlen(src). */
size_t rt_strlcpy(char *dst, const char *src, size_t size);

/* The length of the valid UTF-8 sequence at s[0..n), or 0 when it is not
 * one (overlong forms, surrogates and values past Unicode are not): the
 * JSON and Prometheus writers replace what is not. */
size_t rt_utf8_len(const unsigned char *s, size_t n);

/* strcmp with runs of digits compared as numbers (leading zeros ignored),
 * so mlx5_2 sorts before mlx5_10: the order an operator reads device,
 * port and counter names in, whatever order the kernel lists them. */
int rt_natural_cmp(const char *a, const char *b);

#endif
