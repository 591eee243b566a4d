/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/rsocket.h>

#include "rdmatest/addr.h"
#include "rdmatest/interrupt.h"
#include "rdmacm/rsock.h"
#include "rdmacm/rsock_wait.h"
#include "rdmatest/util.h"

/* ---- the two ops tables ---------------------------------------------------- */

/* Wrappers, because glibc declares some of these with transparent-union
 * address arguments that do not match a plain function pointer. */
static int k_socket(int d, int t, int p) { return socket(d, t, p); }
static int k_bind(int fd, const struct sockaddr *sa, socklen_t l) { return bind(fd, sa, l); }
static int k_listen(int fd, int b) { return listen(fd, b); }
static int k_accept(int fd, struct sockaddr *sa, socklen_t *l) { return accept(fd, sa, l); }
static int k_connect(int fd, const struct sockaddr *sa, socklen_t l) { return connect(fd, sa, l); }
static int k_poll(struct pollfd *f, nfds_t n, int t) { return poll(f, n, t); }
static int k_shutdown(int fd, int how) { return shutdown(fd, how); }
static int k_close(int fd) { return close(fd); }

/* A peer that went away must be an error to report, not a SIGPIPE. */
static ssize_t k_send(int fd, const void *b, size_t l, int f)
{
	return send(fd, b, l, f | MSG_NOSIGNAL);
}

static ssize_t k_recv(int fd, void *b, size_t l, int f) { return recv(fd, b, l, f); }

static ssize_t k_sendto(int fd, const void *b, size_t l, int f,
			const struct sockaddr *sa, socklen_t n)
{
	return sendto(fd, b, l, f | MSG_NOSIGNAL, sa, n);
}

static ssize_t k_recvfrom(int fd, void *b, size_t l, int f, struct sockaddr *sa,
			  socklen_t *n)
{
	return recvfrom(fd, b, l, f, sa, n);
}

static int k_setsockopt(int fd, int lv, int n, const void *v, socklen_t l)
{
	return setsockopt(fd, lv, n, v, l);
}

static int k_getsockopt(int fd, int lv, int n, void *v, socklen_t *l)
{
	return getsockopt(fd, lv, n, v, l);
}

/* Only F_GETFL and F_SETFL are used. */
static int k_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	int arg;

	if (cmd != F_SETFL)
		return fcntl(fd, cmd);
	va_start(ap, cmd);
	arg = va_arg(ap, int);
	va_end(ap);
	return fcntl(fd, cmd, arg);
}

const struct rt_sock_ops rt_sock_kernel = {
	.name = "socket", .prefix = 0, .rdma = false,
	.socket = k_socket, .bind = k_bind, .listen = k_listen,
	.accept = k_accept, .connect = k_connect, .send = k_send,
	.recv = k_recv, .sendto = k_sendto, .recvfrom = k_recvfrom,
	.poll = k_poll, .setsockopt = k_setsockopt,
	.getsockopt = k_getsockopt, .fcntl = k_fcntl, .shutdown = k_shutdown,
	.close = k_close,
};

const struct rt_sock_ops rt_sock_rdma = {
	.name = "rsocket", .prefix = 'r', .rdma = true,
	.socket = rsocket, .bind = rbind, .listen = rlisten,
	.accept = raccept, .connect = rconnect, .send = rsend,
	.recv = rrecv, .sendto = rsendto, .recvfrom = rrecvfrom,
	.poll = rpoll, .setsockopt = rsetsockopt,
	.getsockopt = rgetsockopt, .fcntl = rfcntl, .shutdown = rshutdown,
	.close = rclose,
};

/* ---- setup ------------------------------------------------------------------ */

int rt_sock_open(const struct rt_sock_ops *ops, int family, int *fd,
		 struct rt_error *err)
{
	char c[16];

	*fd = ops->socket(family, SOCK_STREAM, 0);
	if (*fd >= 0)
		return 0;
	if (ops->rdma && (errno == ENODEV || errno == ENOENT || errno == ENOSYS))
		return rt_fail(err, RT_EXIT_ENV, "rsocket: no RDMA device found "
			       "(-T s runs the test over kernel TCP sockets)");
	return rt_fail_errno(err, RT_EXIT_FAIL, errno, "%s",
			     rt_sock_call(ops, "socket", c, sizeof(c)));
}

static int set_nonblock(const struct rt_sock_ops *ops, int fd, bool on)
{
	int fl = ops->fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
	return ops->fcntl(fd, F_SETFL, fl);
}

int rt_sock_listen(const struct rt_sock_ops *ops, int fd,
		   const struct sockaddr *sa, socklen_t len, struct rt_error *err)
{
	char c[16], a[80];
	int one = 1;

	rt_addr_str(sa, a, sizeof(a));
	if (ops->setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "%s SO_REUSEADDR",
				     rt_sock_call(ops, "setsockopt", c, sizeof(c)));
	if (set_nonblock(ops, fd, true))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "%s O_NONBLOCK",
				     rt_sock_call(ops, "fcntl", c, sizeof(c)));
	if (ops->bind(fd, sa, len)) {
		int e = errno;

		return rt_fail_errno(err, e == EADDRNOTAVAIL || e == ENODEV
					? RT_EXIT_ENV : RT_EXIT_FAIL, e, "%s %s%s",
				     rt_sock_call(ops, "bind", c, sizeof(c)), a,
				     e == EADDRINUSE ? " (another server holds this port)" :
				     e == EADDRNOTAVAIL || e == ENODEV
					? " (not an address of this host's RDMA devices)" : "");
	}
	if (ops->listen(fd, 1))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "%s %s",
				     rt_sock_call(ops, "listen", c, sizeof(c)), a);
	return 0;
}

int rt_sock_accept(const struct rt_sock_ops *ops, int lfd, long long timeout_ms,
		   int *fd, struct rt_error *err)
{
	uint64_t deadline = timeout_ms > 0 ? rt_deadline_after_ms(timeout_ms) : 0;
	char c[16];

	for (;;) {
		int left;

		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		*fd = ops->accept(lfd, NULL, NULL);
		if (*fd >= 0)
			return 0;
		if (!rt_sock_would_block(errno) && errno != ECONNABORTED)
			return rt_fail_errno(err, RT_EXIT_FAIL, errno, "%s",
					     rt_sock_call(ops, "accept", c, sizeof(c)));
		left = rt_ms_until(deadline);
		if (left == 0)
			return rt_fail(err, RT_EXIT_TIMEOUT, "no client connected "
				       "within %g s", (double)timeout_ms / 1000);
		rt_sock_poll_one(ops, lfd, POLLIN,
			 rt_sock_slice(left, ops->rdma ? RT_SOCK_CM_SLICE_MS : 0));
	}
}

/* ---- tuning ----------------------------------------------------------------- */

static void keepalive(const struct rt_sock_ops *o, int fd, int idle,
		      const struct rt_log *log)
{
	int on = 1, v = 0;
	socklen_t len = sizeof(v);

	if (o->setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on))) {
		rt_warn(log, "%s SO_KEEPALIVE: %s", o->rdma ? "rsetsockopt" : "setsockopt",
			strerror(errno));
		return;
	}
	if (o->setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)))
		rt_warn(log, "TCP_KEEPIDLE %d: %s", idle, strerror(errno));
	if (!o->getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &v, &len))
		rt_say(log, "Keepalive: %s", v ? "ON" : "OFF");
	len = sizeof(v);
	if (!o->getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &v, &len))
		rt_say(log, "  time: %i", v);
}

void rt_sock_tune(const struct rt_sock_ops *o, int fd,
		  const struct rt_sock_tuning *t, const struct rt_log *log)
{
	int one = 1;

	if (t->bufsize) {
		o->setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &t->bufsize, sizeof(t->bufsize));
		o->setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &t->bufsize, sizeof(t->bufsize));
	}
	if (t->nodelay)
		o->setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (o->rdma && t->inline_size >= 0 &&
	    o->setsockopt(fd, SOL_RDMA, RDMA_INLINE, &t->inline_size, sizeof(t->inline_size)))
		rt_dbg(log, "rsetsockopt RDMA_INLINE %d: %s", t->inline_size, strerror(errno));
	if (o->rdma && t->iomap_size > 0 &&
	    o->setsockopt(fd, SOL_RDMA, RDMA_IOMAPSIZE, &t->iomap_size, sizeof(t->iomap_size)))
		rt_dbg(log, "rsetsockopt RDMA_IOMAPSIZE %d: %s", t->iomap_size, strerror(errno));
	if (t->keepalive_s)
		keepalive(o, fd, t->keepalive_s, log);
}

/* ---- connected streams ------------------------------------------------------------ */

int rt_stream_set_wait(struct rt_stream *s, struct rt_error *err)
{
	bool block = s->wait == RT_WAIT_BLOCK;
	char c[16];

	if (set_nonblock(s->ops, s->fd, !block))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "%s O_NONBLOCK",
				     rt_sock_call(s->ops, "fcntl", c, sizeof(c)));
	if (block && !s->ops->rdma) {
		struct timeval tv = { .tv_sec = s->timeout_ms / 1000,
				      .tv_usec = s->timeout_ms % 1000 * 1000 };

		if (setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
		    setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
			return rt_fail_errno(err, RT_EXIT_FAIL, errno,
					     "setsockopt SO_RCVTIMEO");
	}
	return 0;
}

static int connect_failed(struct rt_stream *s, const char *addr, int e,
			  struct rt_error *err)
{
	char c[16];

	rt_sock_call(s->ops, "connect", c, sizeof(c));
	switch (e) {
	case ECONNREFUSED:
		if (!err->set)
			err->err_no = e;
		return rt_fail(err, RT_EXIT_FAIL, "%s %s: connection refused: nothing "
			       "listening on that port%s", c, addr, s->ops->rdma
			       ? " (is the server running, and without -T s?)"
			       : " (is the server running, with -T s?)");
	case ETIMEDOUT:
		return rt_fail_errno(err, RT_EXIT_TIMEOUT, e, "%s %s", c, addr);
	case ENODEV:
	case EADDRNOTAVAIL:
		return rt_fail_errno(err, RT_EXIT_ENV, e, "%s %s", c, addr);
	default:
		return rt_fail_errno(err, RT_EXIT_FAIL, e, "%s %s", c, addr);
	}
}

/* rdma-core 44's rpoll could spin for good once a slice timed out (see
 * rpoll_bounded in rsock_wait.c); with that avoided, the connect's own
 * bound holds for rsockets too. */
int rt_stream_connect(struct rt_stream *s, const struct sockaddr *sa,
		      socklen_t len, long long timeout_ms, struct rt_error *err)
{
	uint64_t deadline = rt_deadline_after_ms(timeout_ms);
	char a[80], c[16];
	int so_err = 0;
	socklen_t sl = sizeof(so_err);

	rt_addr_str(sa, a, sizeof(a));
	if (set_nonblock(s->ops, s->fd, true))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "%s O_NONBLOCK",
				     rt_sock_call(s->ops, "fcntl", c, sizeof(c)));
	if (s->ops->connect(s->fd, sa, len) == 0) {
		s->connected = true;
		return rt_stream_set_wait(s, err);
	}
	if (errno != EINPROGRESS && !rt_sock_would_block(errno))
		return connect_failed(s, a, errno, err);
	for (;;) {
		int left = rt_ms_until(deadline);
		short ev;

		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		if (left == 0)
			return rt_fail(err, RT_EXIT_TIMEOUT, "%s %s: no answer within %g s",
				       rt_sock_call(s->ops, "connect", c, sizeof(c)), a,
				       (double)timeout_ms / 1000);
		ev = rt_sock_poll_one(s->ops, s->fd, POLLOUT,
			      rt_sock_slice(left, s->ops->rdma ? RT_SOCK_CM_SLICE_MS : 0));
		if (ev & (POLLOUT | POLLERR | POLLHUP))
			break;
	}
	if (s->ops->getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &so_err, &sl))
		return connect_failed(s, a, errno, err);
	if (so_err)
		return connect_failed(s, a, so_err, err);
	s->connected = true;
	return rt_stream_set_wait(s, err);
}

int rt_sock_set_tos(const struct rt_sock_ops *o, int fd, int family, uint8_t tos,
		    struct rt_error *err)
{
	int v = tos;
	char c[16];

	if (family == AF_INET6 && !o->rdma) {
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v)))
			return rt_fail_errno(err, RT_EXIT_FAIL, errno, "--tos %u: "
					     "setsockopt IPV6_TCLASS", tos);
		return 0;
	}
	/* One byte: the kernel's RDMA_OPTION_ID_TOS takes exactly a u8, and
	 * librdmacm's rsetsockopt(IP_TOS) passes the length on to it while
	 * it reads an int from the value for itself (rsocket.c,
	 * rsetsockopt()); so every byte of that int is the TOS, whichever
	 * byte comes first. IP_TOS of a kernel socket takes one byte too. */
	memset(&v, tos, sizeof(v));
	if (o->setsockopt(fd, IPPROTO_IP, IP_TOS, &v, 1))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "--tos %u: %s IP_TOS", tos,
				     rt_sock_call(o, "setsockopt", c, sizeof(c)));
	return 0;
}

/* One try: a fresh socket in s->fd, closed by the caller on failure. */
static int dial_once(struct rt_stream *s, const struct rt_sockaddr *a,
		     const struct rt_sock_tuning *t, const struct rt_log *log,
		     struct rt_error *e)
{
	const struct rt_sock_ops *o = s->ops;
	char c[16], buf[80];

	s->sent = s->received = 0;
	if (rt_sock_open(o, a->addr.ss_family, &s->fd, e))
		return -1;
	rt_sock_tune(o, s->fd, t, log);
	if (a->src_len && o->bind(s->fd, (const struct sockaddr *)&a->src, a->src_len))
		return rt_fail_errno(e, errno == EADDRNOTAVAIL ? RT_EXIT_ENV : RT_EXIT_FAIL,
				     errno, "%s %s", rt_sock_call(o, "bind", c, sizeof(c)),
				     rt_addr_str((const struct sockaddr *)&a->src, buf, sizeof(buf)));
	/* before the route: a path given whole is not resolved again */
	if (t->set_tos && rt_sock_set_tos(o, s->fd, a->addr.ss_family, t->tos, e))
		return -1;
	if (a->route && o->setsockopt(s->fd, SOL_RDMA, RDMA_ROUTE, a->route,
				      (socklen_t)a->route_len))
		return rt_fail_errno(e, RT_EXIT_FAIL, errno, "rsetsockopt RDMA_ROUTE");
	return rt_stream_connect(s, (const struct sockaddr *)&a->addr, a->addr_len,
				 s->timeout_ms, e);
}

int rt_stream_dial(struct rt_stream *s, const struct rt_sockaddr *a,
		   const struct rt_sock_tuning *t, long long wait_server_ms,
		   const struct rt_log *log, struct rt_error *err)
{
	uint64_t until = rt_deadline_after_ms(wait_server_ms);

	for (;;) {
		struct rt_error e = { 0 };
		int rc = dial_once(s, a, t, log, &e);

		if (!rc)
			return 0;
		rt_stream_close(s, false);
		if (rc == RT_INTERRUPTED)
			return rc;
		if (wait_server_ms <= 0 || rt_ms_until(until) < 200 ||
		    (e.exit_code != RT_EXIT_FAIL && e.exit_code != RT_EXIT_TIMEOUT))
			return rt_error_adopt(err, &e);
		rt_dbg(log, "%s; retrying", e.reason);
		usleep(200000);
	}
}
