/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The TCP out-of-band channel of verbs-only applets: one connection over
 * which the two sides trade QP attributes before any RDMA traffic. It
 * carries bytes only; every applet defines its own messages on top.
 * Every wait is bounded and every failure is one line: a refusal, a reset
 * or a peer that closed early is exit 1, an expired bound exit 124. Every
 * wait also ends at SIGINT/SIGTERM: it returns RT_INTERRUPTED (interrupt.h)
 * with no error recorded, and the run's end records the signal. */
#ifndef RDMATEST_OOB_H
#define RDMATEST_OOB_H

#include <stddef.h>
#include <sys/socket.h>

#include "rdmatest/error.h"

struct rt_oob {
	int fd;                /* the connection, -1 when closed */
	int lfd;               /* the listening socket (servers), -1 */
	unsigned port;         /* the port listened on (after rt_oob_listen) */
	int backlog;           /* rt_oob_listen's backlog: 1 (one peer) unless set */
	long long timeout_ms;  /* bound of each connect attempt, accept, read, write */
	struct sockaddr_storage local, peer; /* v4-mapped addresses unmapped */
	/* NULL, or the address a client binds before connecting (its family
	 * only reaches the server's addresses of that family) */
	const struct sockaddr *source;
	char peer_name[64];    /* "192.0.2.2:18515", for errors */
};

/* Closed channel whose waits are bounded by timeout_ms (> 0). */
void rt_oob_init(struct rt_oob *o, long long timeout_ms);

/* Client: connects to host:port. A refused connection is retried every
 * 100 ms until wait_ms has passed (0: one attempt), for servers that are
 * not up yet. Unknown host: exit 2. */
int rt_oob_connect(struct rt_oob *o, const char *host, unsigned port,
		   long long wait_ms, struct rt_error *err);
/* Server: listens on port (0: any free one, see o->port) on bind_host or,
 * when NULL, on every IPv4 and IPv6 address. */
int rt_oob_listen(struct rt_oob *o, const char *bind_host, unsigned port,
		  struct rt_error *err);
/* Takes one client within o->timeout_ms and closes the listener: a
 * verbs-only server serves one peer. */
int rt_oob_accept(struct rt_oob *o, struct rt_error *err);

/* A run's one peer: with `server` a client that connects (retrying for
 * --wait-server), without it a server that takes one client on `port`
 * within --accept-timeout (no bound when 0). Afterwards every wait is
 * bounded by --timeout. Opens the channel (no rt_oob_init needed). */
struct rt_run;
int rt_oob_open(struct rt_oob *o, const struct rt_run *run, const char *server,
		unsigned port, struct rt_error *err);

/* Exactly len bytes, all of them within o->timeout_ms. */
int rt_oob_write(struct rt_oob *o, const void *buf, size_t len,
		 struct rt_error *err);
int rt_oob_read(struct rt_oob *o, void *buf, size_t len, struct rt_error *err);

/* Reads until max bytes have come or the peer closed (EOF or reset),
 * within o->timeout_ms; *got tells which. For a peer that may or may
 * not send a last message before closing. */
int rt_oob_read_upto(struct rt_oob *o, void *buf, size_t max, size_t *got,
		     struct rt_error *err);
/* Waits within o->timeout_ms for the peer to close (EOF or reset: 0); a
 * byte instead is exit 1, the bound expiring exit 124. */
int rt_oob_await_close(struct rt_oob *o, struct rt_error *err);

void rt_oob_close(struct rt_oob *o);

#endif
