/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/fdwait.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/oob.h"
#include "rdmatest/run.h"
#include "rdmatest/util.h"

#define RETRY_MS 100

void rt_oob_init(struct rt_oob *o, long long timeout_ms)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->lfd = -1;
	o->timeout_ms = timeout_ms;
	o->backlog = 1;
	rt_strlcpy(o->peer_name, "?", sizeof(o->peer_name));
}

/* "10 s" or "250 ms", for errors */
static const char *span(long long ms, char *buf, size_t len)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%lld s", ms / 1000);
	else
		snprintf(buf, len, "%lld ms", ms);
	return buf;
}

/* A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; the GID
 * choice and the messages want the plain IPv4 address. */
static void unmap(struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *in6 = (const void *)ss;
	struct sockaddr_in in;

	if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
		return;
	memset(&in, 0, sizeof(in));
	in.sin_family = AF_INET;
	in.sin_port = in6->sin6_port;
	memcpy(&in.sin_addr, &in6->sin6_addr.s6_addr[12], 4);
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, &in, sizeof(in));
}

static void learn_ends(struct rt_oob *o)
{
	socklen_t len = sizeof(o->local);

	if (getsockname(o->fd, (struct sockaddr *)&o->local, &len))
		memset(&o->local, 0, sizeof(o->local));
	len = sizeof(o->peer);
	if (getpeername(o->fd, (struct sockaddr *)&o->peer, &len))
		memset(&o->peer, 0, sizeof(o->peer));
	unmap(&o->local);
	unmap(&o->peer);
	rt_addr_str((const struct sockaddr *)&o->peer, o->peer_name,
		    sizeof(o->peer_name));
}

/* One bounded attempt: 0 connected, else the errno (ETIMEDOUT when the
 * peer did not answer within the bound). */
static int attempt(struct rt_oob *o, const struct addrinfo *ai)
{
	socklen_t len = sizeof(int);
	int fd, e = 0, n;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    ai->ai_protocol);
	if (fd < 0)
		return errno;
	if ((o->source && bind(fd, o->source, rt_addr_len(o->source))) ||
	    (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)) {
		e = errno;
		close(fd);
		return e;
	}
	n = rt_fdwait(fd, POLLOUT, rt_deadline_after_ms(o->timeout_ms));
	if (n == RT_INTERRUPTED)
		e = EINTR;
	else if (n == 0)
		e = ETIMEDOUT;
	else if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len))
		e = errno;
	if (e) {
		close(fd);
		return e;
	}
	o->fd = fd;
	learn_ends(o);
	return 0;
}

static int resolve(const char *host, unsigned port, bool passive, int family,
		   struct addrinfo **res, struct rt_error *err)
{
	struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) };
	char serv[8];
	int rc;

	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, res);
	if (rc)
		return rt_fail(err, RT_EXIT_USAGE, "cannot resolve %s: %s",
			       host ? host : "the wildcard address", gai_strerror(rc));
	return 0;
}

/* Sleeps ms, or less when interrupted: 0, or RT_INTERRUPTED. */
static int pause_ms(long ms)
{
	return rt_fdwait(-1, 0, rt_deadline_after_ms(ms)) == RT_INTERRUPTED ?
	       RT_INTERRUPTED : 0;
}

static int connect_fail(struct rt_oob *o, const char *host, unsigned port,
			long long wait_ms, int e, struct rt_error *err)
{
	char s[24];

	if (e == ETIMEDOUT)
		return rt_fail(err, RT_EXIT_TIMEOUT, "no answer from %s:%u within %s",
			       host, port, span(o->timeout_ms, s, sizeof(s)));
	if (e == ECONNREFUSED && wait_ms > 0)
		return rt_fail(err, RT_EXIT_TIMEOUT, "no server on %s:%u within %s "
			       "(connection refused until then)", host, port,
			       span(wait_ms, s, sizeof(s)));
	if (e == ECONNREFUSED)
		return rt_fail(err, RT_EXIT_FAIL, "connection to %s:%u refused "
			       "(is the server running? --wait-server retries)", host, port);
	return rt_fail_errno(err, RT_EXIT_FAIL, e, "connect to %s:%u", host, port);
}

int rt_oob_connect(struct rt_oob *o, const char *host, unsigned port,
		   long long wait_ms, struct rt_error *err)
{
	uint64_t deadline = rt_deadline_after_ms(wait_ms);
	struct addrinfo *res;
	int e = ECONNREFUSED;

	if (resolve(host, port, false, o->source ? o->source->sa_family : AF_UNSPEC,
		    &res, err))
		return -1;
	for (;;) {
		for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			e = attempt(o, ai);
			if (!e || e == ETIMEDOUT || e == EINTR)
				break;
		}
		if (e != ECONNREFUSED || !deadline || rt_ms_until(deadline) == 0)
			break;
		if (pause_ms(RT_MIN(RETRY_MS, rt_ms_until(deadline))) == RT_INTERRUPTED)
			e = EINTR;
	}
	freeaddrinfo(res);
	if (e == EINTR)
		return RT_INTERRUPTED; /* the run records the signal */
	return e ? connect_fail(o, host, port, wait_ms, e, err) : 0;
}

static int bind_listen(struct rt_oob *o, const struct sockaddr *sa, socklen_t len,
		       struct rt_error *err)
{
	int one = 1, zero = 0;
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, sa, len) || listen(fd, o->backlog)) {
		int e = errno;
		char s[64];

		close(fd);
		return rt_fail_errno(err, e == EADDRINUSE ? RT_EXIT_ENV : RT_EXIT_FAIL, e,
				     "listen on %s", rt_addr_str(sa, s, sizeof(s)));
	}
	o->lfd = fd;
	return 0;
}

static void learn_port(struct rt_oob *o)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(o->lfd, (struct sockaddr *)&ss, &len))
		return;
	if (ss.ss_family == AF_INET)
		o->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6)
		o->port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

int rt_oob_listen(struct rt_oob *o, const char *bind_host, unsigned port,
		  struct rt_error *err)
{
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
				     .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in any4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct addrinfo *res;
	int rc;

	o->port = port;
	if (!bind_host) {
		struct rt_error quiet = { 0 };

		/* dual stack first; a host without IPv6 takes IPv4 alone */
		rc = bind_listen(o, (struct sockaddr *)&any6, sizeof(any6), &quiet);
		if (rc && quiet.err_no == EAFNOSUPPORT)
			rc = bind_listen(o, (struct sockaddr *)&any4, sizeof(any4), err);
		else if (rc && !err->set)
			*err = quiet;
	} else {
		if (resolve(bind_host, port, true, AF_UNSPEC, &res, err))
			return -1;
		rc = bind_listen(o, res->ai_addr, res->ai_addrlen, err);
		freeaddrinfo(res);
	}
	if (!rc)
		learn_port(o);
	return rc;
}

int rt_oob_accept(struct rt_oob *o, struct rt_error *err)
{
	uint64_t deadline = rt_deadline_after_ms(o->timeout_ms);
	char s[24];
	int n, fd = -1;

	while (fd < 0) {
		n = rt_fdwait(o->lfd, POLLIN, deadline);
		if (n == RT_INTERRUPTED)
			return RT_INTERRUPTED; /* the run records the signal */
		if (n == 0)
			return rt_fail(err, RT_EXIT_TIMEOUT, "no client on port %u within %s",
				       o->port, span(o->timeout_ms, s, sizeof(s)));
		if (n < 0)
			return rt_fail_errno(err, RT_EXIT_FAIL, errno, "poll");
		fd = accept4(o->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0 && errno != EAGAIN && errno != ECONNABORTED && errno != EINTR)
			return rt_fail_errno(err, RT_EXIT_FAIL, errno, "accept");
	}
	close(o->lfd);
	o->lfd = -1;
	o->fd = fd;
	learn_ends(o);
	return 0;
}


static int io_fail(struct rt_oob *o, bool reading, int e, size_t done, size_t len,
		   struct rt_error *err)
{
	char s[24];

	if (e == ETIMEDOUT)
		return rt_fail(err, RT_EXIT_TIMEOUT, "%s %s: %zu of %zu bytes within %s",
			       reading ? "reading from" : "writing to", o->peer_name,
			       done, len, span(o->timeout_ms, s, sizeof(s)));
	if (e == 0 || e == ECONNRESET || e == EPIPE)
		return rt_fail(err, RT_EXIT_FAIL, "peer %s %s the connection after "
			       "%zu of %zu bytes", o->peer_name,
			       e == 0 ? "closed" : "reset", done, len);
	return rt_fail_errno(err, RT_EXIT_FAIL, e, "%s %s after %zu of %zu bytes",
			     reading ? "read from" : "write to", o->peer_name, done, len);
}

static int transfer(struct rt_oob *o, bool reading, void *buf, size_t len,
		    struct rt_error *err)
{
	uint64_t deadline = rt_deadline_after_ms(o->timeout_ms);
	size_t done = 0;

	if (o->fd < 0)
		return rt_fail(err, RT_EXIT_FAIL, "out-of-band channel is not connected");
	while (done < len) {
		ssize_t n = reading ? recv(o->fd, (char *)buf + done, len - done, 0)
				    : send(o->fd, (const char *)buf + done, len - done,
					   MSG_NOSIGNAL);
		int r;

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0)
			return io_fail(o, reading, 0, done, len, err);
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return io_fail(o, reading, errno, done, len, err);
		r = rt_fdwait(o->fd, reading ? POLLIN : POLLOUT, deadline);
		if (r == RT_INTERRUPTED)
			return RT_INTERRUPTED;
		if (r <= 0)
			return io_fail(o, reading, r == 0 ? ETIMEDOUT : errno, done, len, err);
	}
	return 0;
}

int rt_oob_write(struct rt_oob *o, const void *buf, size_t len,
		 struct rt_error *err)
{
	return transfer(o, false, (void *)(uintptr_t)buf, len, err);
}

int rt_oob_read(struct rt_oob *o, void *buf, size_t len, struct rt_error *err)
{
	return transfer(o, true, buf, len, err);
}

/* Reads until max bytes or the peer's close (EOF or reset), within the
 * bound; *got says how many came. */
static int read_tail(struct rt_oob *o, char *buf, size_t max, size_t *got,
		     struct rt_error *err)
{
	uint64_t deadline = rt_deadline_after_ms(o->timeout_ms);
	char s[24];

	*got = 0;
	while (o->fd >= 0) {
		ssize_t n = recv(o->fd, buf + *got, max - *got, 0);
		int r;

		if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE)))
			return 0;
		if (n > 0 && (*got += (size_t)n) >= max)
			return 0;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return rt_fail_errno(err, RT_EXIT_FAIL, errno, "read from %s",
					     o->peer_name);
		r = n > 0 ? 1 : rt_fdwait(o->fd, POLLIN, deadline);
		if (r == RT_INTERRUPTED)
			return RT_INTERRUPTED;
		if (r == 0)
			return rt_fail(err, RT_EXIT_TIMEOUT, "peer %s neither sent %zu "
				       "bytes nor closed the connection within %s",
				       o->peer_name, max, span(o->timeout_ms, s, sizeof(s)));
		if (r < 0)
			return rt_fail_errno(err, RT_EXIT_FAIL, errno, "poll");
	}
	return 0;
}

int rt_oob_read_upto(struct rt_oob *o, void *buf, size_t max, size_t *got,
		     struct rt_error *err)
{
	return read_tail(o, buf, max, got, err);
}

int rt_oob_await_close(struct rt_oob *o, struct rt_error *err)
{
	char c;
	size_t got;

	if (read_tail(o, &c, 1, &got, err))
		return -1;
	if (got)
		return rt_fail(err, RT_EXIT_FAIL, "peer %s sent more bytes where it "
			       "should close the connection", o->peer_name);
	return 0;
}

int rt_oob_open(struct rt_oob *o, const struct rt_run *run, const char *server,
		unsigned port, struct rt_error *err)
{
	long long bound = run->common.timeout_ms;
	int rc;

	rt_oob_init(o, bound);
	rt_error_phase(err, "connect");
	if (server)
		return rt_oob_connect(o, server, port, run->common.wait_server_ms, err);
	if (rt_oob_listen(o, NULL, port, err))
		return -1;
	o->timeout_ms = rt_run_accept_bound(run);
	rc = rt_oob_accept(o, err);
	o->timeout_ms = bound;
	return rc;
}

void rt_oob_close(struct rt_oob *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->lfd >= 0)
		close(o->lfd);
	o->fd = -1;
	o->lfd = -1;
}
