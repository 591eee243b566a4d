/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Linking Debian's static RDMA libraries (built against glibc) into a musl
 * binary (CC=musl-gcc, -Dstatic=true; docs/embedded.md). Only compiled in
 * such a build. Two gaps, found by linking and by the lab:
 *  - the libraries were built with _FORTIFY_SOURCE, so they call glibc's
 *    checked variants; these do the same checks and call musl's functions;
 *  - librdmacm's rdma_getaddrinfo reads RAI_PASSIVE back from the flags of
 *    getaddrinfo's results, which glibc fills in from the hints and musl
 *    leaves 0 (a passive lookup then has no source address): the wrapper
 *    (-Wl,--wrap=getaddrinfo) copies them as glibc does. */
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <syslog.h>
#include <unistd.h>

int __printf_chk(int flag, const char *fmt, ...);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...);
int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...);
int __asprintf_chk(char **s, int flag, const char *fmt, ...);
int __vasprintf_chk(char **s, int flag, const char *fmt, va_list ap);
void *__memcpy_chk(void *d, const void *s, size_t n, size_t dlen);
char *__strcpy_chk(char *d, const char *s, size_t dlen);
char *__strncat_chk(char *d, const char *s, size_t n, size_t dlen);
long __fdelt_chk(long fd);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
void __syslog_chk(int pri, int flag, const char *fmt, ...);
int __real_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res);
int __wrap_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res);

int __printf_chk(int flag, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	va_start(ap, fmt);
	r = vprintf(fmt, ap);
	va_end(ap);
	return r;
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	va_start(ap, fmt);
	r = vfprintf(f, fmt, ap);
	va_end(ap);
	return r;
}

int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	return vfprintf(f, fmt, ap);
}

int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	if (n > slen)
		abort();
	va_start(ap, fmt);
	r = vsnprintf(s, n, fmt, ap);
	va_end(ap);
	return r;
}

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	va_start(ap, fmt);
	r = vsnprintf(s, slen, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= slen)
		abort();
	return r;
}

int __asprintf_chk(char **s, int flag, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	va_start(ap, fmt);
	r = vasprintf(s, fmt, ap);
	va_end(ap);
	return r;
}

int __vasprintf_chk(char **s, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	return vasprintf(s, fmt, ap);
}

void *__memcpy_chk(void *d, const void *s, size_t n, size_t dlen)
{
	if (n > dlen)
		abort();
	return memcpy(d, s, n);
}

char *__strcpy_chk(char *d, const char *s, size_t dlen)
{
	if (strlen(s) >= dlen)
		abort();
	return strcpy(d, s);
}

char *__strncat_chk(char *d, const char *s, size_t n, size_t dlen)
{
	size_t have = strnlen(d, dlen), add = strnlen(s, n);

	if (have + add >= dlen)
		abort();
	return strncat(d, s, n);
}

long __fdelt_chk(long fd)
{
	if (fd < 0 || fd >= FD_SETSIZE)
		abort();
	return fd / (8 * (long)sizeof(long));
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	if (n > buflen)
		abort();
	return pread(fd, buf, n, off);
}

void __syslog_chk(int pri, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	vsyslog(pri, fmt, ap);
	va_end(ap);
}

int __wrap_getaddrinfo(const char *node, const char *service,
		       const struct addrinfo *hints, struct addrinfo **res)
{
	int ret = __real_getaddrinfo(node, service, hints, res);

	if (!ret && hints)
		for (struct addrinfo *a = *res; a; a = a->ai_next)
			a->ai_flags = hints->ai_flags;
	return ret;
}
