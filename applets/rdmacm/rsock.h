/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Stream sockets: one ops table drives kernel TCP sockets or librdmacm's
 * rsockets, so the same code serves both (upstream switches with ternary
 * macros over a global). On top, helpers whose every wait is bounded:
 * connect and accept with a timeout, and send_all/recv_all that tell a
 * peer that closed (recv 0, reset) from one that stalled (no progress for
 * the timeout), and say so in one line: exit 1 or 124. Every wait returns
 * RT_INTERRUPTED (interrupt.h), recording nothing, once SIGINT or SIGTERM
 * arrived and the run has not begun winding down. */
#ifndef RDMATEST_RSOCK_H
#define RDMATEST_RSOCK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "rdmatest/addr.h"
#include "rdmatest/error.h"
#include "rdmatest/log.h"

struct rt_sock_ops {
	const char *name; /* "socket" or "rsocket" */
	char prefix;      /* prefix of call names in errors: 0 or 'r' ("rconnect") */
	bool rdma;
	int (*socket)(int domain, int type, int protocol);
	int (*bind)(int fd, const struct sockaddr *sa, socklen_t len);
	int (*listen)(int fd, int backlog);
	int (*accept)(int fd, struct sockaddr *sa, socklen_t *len);
	int (*connect)(int fd, const struct sockaddr *sa, socklen_t len);
	ssize_t (*send)(int fd, const void *buf, size_t len, int flags);
	ssize_t (*recv)(int fd, void *buf, size_t len, int flags);
	ssize_t (*sendto)(int fd, const void *buf, size_t len, int flags,
			  const struct sockaddr *sa, socklen_t salen);
	ssize_t (*recvfrom)(int fd, void *buf, size_t len, int flags,
			    struct sockaddr *sa, socklen_t *salen);
	int (*poll)(struct pollfd *fds, nfds_t n, int timeout_ms);
	int (*setsockopt)(int fd, int level, int name, const void *val, socklen_t len);
	int (*getsockopt)(int fd, int level, int name, void *val, socklen_t *len);
	int (*fcntl)(int fd, int cmd, ...);
	int (*shutdown)(int fd, int how);
	int (*close)(int fd);
};

extern const struct rt_sock_ops rt_sock_kernel;
extern const struct rt_sock_ops rt_sock_rdma;

/* Socket tuning, as rdma-core's stream tools do it. */
struct rt_sock_tuning {
	int bufsize;     /* SO_SNDBUF and SO_RCVBUF; 0: left alone */
	bool nodelay;    /* TCP_NODELAY */
	int inline_size; /* rsockets' RDMA_INLINE; -1: left alone */
	int keepalive_s; /* SO_KEEPALIVE with this TCP_KEEPIDLE; 0: off */
	int iomap_size;  /* rsockets' RDMA_IOMAPSIZE (riostream: 1); 0: none */
	/* a client's --tos, set before it connects (rt_stream_dial): the
	 * IP TOS byte; an rsocket hands it to its CM id */
	bool set_tos;
	uint8_t tos;
};

/* Applies t to fd. Only keepalive failures are reported (warnings): the
 * rest are hints, and rsockets take some only before connecting. With
 * keepalive the values read back are said as upstream does ("Keepalive:
 * ON", "  time: 7"). */
void rt_sock_tune(const struct rt_sock_ops *ops, int fd,
		  const struct rt_sock_tuning *t, const struct rt_log *log);

/* How a stream waits when a call would block. Every wait ends by the
 * stall timeout whatever the mode. */
enum rt_stream_wait {
	RT_WAIT_SPIN,  /* non-blocking calls retried at once (upstream's default) */
	RT_WAIT_POLL,  /* poll (sleeping) before every call */
	RT_WAIT_BLOCK, /* blocking socket: kernel sockets block in the call
			* (SO_RCVTIMEO/SO_SNDTIMEO bound it); rsockets, which have
			* no such option, sleep in rpoll first */
};

/* Names the transfer when one fails: `where` ends up in front of the
 * reason ("row 4k_lat, iteration 3 of 10k"), `hint` after it ("do -S/-C/-I
 * match on both sides?"). Called only on failure. */
typedef void rt_stream_describe_fn(void *arg, char *where, size_t wlen,
				   char *hint, size_t hlen);

struct rt_stream {
	const struct rt_sock_ops *ops;
	int fd;                 /* -1 when closed */
	enum rt_stream_wait wait;
	long long timeout_ms;   /* a stall: no progress for this long */
	uint64_t deadline_ns;   /* a whole-transfer bound on rt_now_ns()'s clock,
				 * however steady the progress; 0: none */
	uint64_t sent, received; /* bytes over this connection */
	bool connected;         /* connect or accept succeeded (see rt_stream_close) */
	rt_stream_describe_fn *describe;
	void *describe_arg;
};

/* A socket of the family; no RDMA device is exit 3, naming -T s. */
int rt_sock_open(const struct rt_sock_ops *ops, int family, int *fd,
		 struct rt_error *err);
/* SO_REUSEADDR, O_NONBLOCK (before listen: rsockets need it then), bind
 * and listen. */
int rt_sock_listen(const struct rt_sock_ops *ops, int fd,
		   const struct sockaddr *sa, socklen_t len, struct rt_error *err);
/* Waits up to timeout_ms (-1: forever) for a client. Timeout is exit 124. */
int rt_sock_accept(const struct rt_sock_ops *ops, int lfd, long long timeout_ms,
		   int *fd, struct rt_error *err);

/* Sets the descriptor's blocking flag and, for kernel sockets in
 * RT_WAIT_BLOCK, the send and receive timeouts. */
int rt_stream_set_wait(struct rt_stream *s, struct rt_error *err);
/* Connects s->fd within timeout_ms: a refusal is exit 1, no answer 124. */
int rt_stream_connect(struct rt_stream *s, const struct sockaddr *sa,
		      socklen_t len, long long timeout_ms, struct rt_error *err);
/* The type of service of fd's connection (IPv4 IP_TOS, IPv6
 * IPV6_TCLASS; an rsocket's CM id, RDMA_OPTION_ID_TOS), before it
 * connects. A refusal is exit 1 naming it. */
int rt_sock_set_tos(const struct rt_sock_ops *ops, int fd, int family, uint8_t tos,
		    struct rt_error *err);
/* A client's whole connect: a fresh socket of s->ops, tuned with t, bound
 * to a->src, given a->route (and t's TOS), connected to a->addr within
 * s->timeout_ms.
 * With wait_server_ms > 0 a refused or unanswered connect is tried again
 * every 200 ms on a fresh socket, until that bound passes. */
int rt_stream_dial(struct rt_stream *s, const struct rt_sockaddr *a,
		   const struct rt_sock_tuning *t, long long wait_server_ms,
		   const struct rt_log *log, struct rt_error *err);
int rt_stream_send_all(struct rt_stream *s, const void *buf, size_t len,
		       struct rt_error *err);
int rt_stream_recv_all(struct rt_stream *s, void *buf, size_t len,
		       struct rt_error *err);
/* riostream's transfers (rsockets only). rt_stream_iomap maps buf as the
 * connection's iomap at offset 0 for the peer to write into (a peer that
 * asked for no iomap slot is exit 1, any other refusal exit 3: this side
 * lacks iomap); rt_stream_iowrite_all writes len bytes to the peer's
 * offset 0 with riowrite, bounded as send_all; rt_stream_await_byte
 * waits, bounded by s->timeout_ms, until the peer's writes set *p to
 * want, and then counts len received bytes. */
int rt_stream_iomap(struct rt_stream *s, void *buf, size_t len, struct rt_error *err);
void rt_stream_iounmap(struct rt_stream *s, void *buf, size_t len);
int rt_stream_iowrite_all(struct rt_stream *s, const void *buf, size_t len,
			  struct rt_error *err);
int rt_stream_await_byte(struct rt_stream *s, const volatile uint8_t *p, uint8_t want,
			 size_t len, struct rt_error *err);
/* Waits up to timeout_ms for the peer to close, draining (and counting
 * into *extra) whatever it still sends: 0 once it closed (or reset), -1
 * when it did not within the time. Records no error. A server calls this
 * before closing, so that its close never races the client's last read. */
int rt_stream_await_close(struct rt_stream *s, long long timeout_ms,
			  uint64_t *extra);
/* Orderly shutdown and close (when `orderly`), else just close. An
 * rsocket's close waits without any bound of its own for the peer to
 * acknowledge the disconnect (rclose runs rshutdown), so for a connected
 * rsocket an orderly close ends the process with exit 124 after
 * timeout_ms + 2 s, and a failed one (orderly false) is not closed at all:
 * its peer may be unreachable, the run is ending, and the kernel reclaims
 * the QP with the process (at most one rsocket per failed connection). */
void rt_stream_close(struct rt_stream *s, bool orderly);

#endif
