/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A message channel over one RC connection made with the RDMA CM: the
 * out-of-band exchange of tools that keep it off TCP (perftest's -R and
 * -z run their whole exchange this way). It carries messages, not a byte
 * stream: each send is one SEND of its bytes, each receive takes exactly
 * one message, whose length must be the one asked for (a message of
 * another length means the peer walks another sequence). One receive is
 * kept posted and re-posted once its message was taken, so the peers go
 * in lock step, as perftest's do; a sender that gets ahead waits in the
 * hardware's RNR retry (7: until the receive is posted).
 *
 * Built on the CM reactor (cm.h): every wait is bounded by the run's
 * --timeout (a server's wait for its client by --accept-timeout, a
 * client's refused connect is retried for --wait-server) and ends at
 * SIGINT/SIGTERM; a peer that disconnects ends a wait at once. Failures
 * are recorded in the run's error, one line each.
 *
 * A server takes one client and then stops listening, so that the port
 * is free again for whatever the tool listens for next (perftest's test
 * QPs use the same port).
 *
 * Memory: one reactor, one connection, two registered buffers of
 * msg_max bytes (at most RT_CMCHAN_MSG_MAX). */
#ifndef RDMATEST_CMCHAN_H
#define RDMATEST_CMCHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rdmatest/run.h"

#define RT_CMCHAN_MSG_MAX 4096

struct rt_cmchan;

struct rt_cmchan_spec {
	const char *server;   /* the client's server; NULL: be the server */
	const char *source;   /* NULL, or the client's source address, the
			       * server's address to listen on */
	unsigned port;
	size_t msg_max;       /* the largest message (the receive's length) */
	uint8_t retry_count;  /* the connection's transport retries */
	int ack_timeout;      /* the ACK timeout exponent; -1: the CM's */
};

/* Connects (client) or takes one client (server) and waits until the
 * connection is established. NULL with the run's error set. */
struct rt_cmchan *rt_cmchan_open(struct rt_run *run, const struct rt_cmchan_spec *s);
/* One message of len (1..msg_max) bytes, until its send completed. */
int rt_cmchan_send(struct rt_cmchan *ch, const void *buf, size_t len);
/* The next message, which must be len bytes long. */
int rt_cmchan_recv(struct rt_cmchan *ch, void *buf, size_t len);
/* Waits for the next message without taking it: up to max_ms of
 * silence (-1: no bound but the peer's life). Expiry is exit 124 naming
 * `what`; a peer that disconnected is exit 1. */
int rt_cmchan_await(struct rt_cmchan *ch, long long max_ms, const char *what);
/* Whether the next message is there (1) or not (0), after at most one
 * millisecond's look; a peer that is gone also answers 1, so that the
 * read that follows names it. -1 or RT_INTERRUPTED as rt_cm_run. */
int rt_cmchan_peek(struct rt_cmchan *ch);
/* "192.0.2.1:18515", for messages. */
const char *rt_cmchan_peer(const struct rt_cmchan *ch);
/* The connection's two ends (the local one is the address the peer
 * reached: where a tool's next CM listener or GID choice belongs). */
const struct sockaddr *rt_cmchan_local(const struct rt_cmchan *ch);
const struct sockaddr *rt_cmchan_remote(const struct rt_cmchan *ch);
/* Disconnects and frees; NULL is a no-op. */
void rt_cmchan_close(struct rt_cmchan *ch);

/* The channel's connection, for a tool that runs its own waits on the
 * reactor (rdmacm's one-message exchanges, applets/rdmacm/hello.c): an RC
 * QP of one send and one receive, signalled, a registered buffer each way
 * of msg_max bytes, the receive posted before the connect or accept, a
 * second connection request refused. */
struct rt_conn;
struct rt_buf;
struct rt_cmchan_conn {
	struct rt_conn *conn;   /* set once set up */
	struct rt_buf *in, *out;
};
/* The setup hook's work: 0, or -1 with the connection failed. */
int rt_cmchan_conn_setup(struct rt_conn *c, size_t msg_max, uint32_t max_inline,
			 struct rt_cmchan_conn *one);
/* A failed hook: a request beyond the first is a warning, not the end. */
bool rt_cmchan_extra_request(struct rt_conn *c);

#endif
