/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's network checks with ADDR: the peer's port facts over a
 * bounded TCP exchange (only a `doctor --listen` peer answers), and one
 * RDMA CM connection through the reactor to any CM server on the port
 * (doctor --listen, rping -s). And the --listen side of both. */
#ifndef RDMATEST_DIAG_PEER_H
#define RDMATEST_DIAG_PEER_H

#include "doctor/diag.h"
#include "rdmatest/log.h"

struct rt_diag_peer_params {
	const char *addr;   /* the peer (client), or the address to bind (listen) */
	unsigned port;      /* RDMA CM port, and the TCP port of the facts */
	long long timeout_ms; /* each step */
	long long accept_ms;  /* listen: bound on the wait for the client */
};

/* The one line a --listen peer sends: its port facts, < 128 bytes. */
#define RT_DIAG_FACTS_MAX 128
void rt_diag_facts_format(const struct rt_diag_port *p, char *buf, size_t len);
/* Parses a facts line into p (dev, port, active_mtu, ndev, ndev_mtu);
 * -1 when it is not one. */
int rt_diag_facts_parse(const char *line, struct rt_diag_port *p);
/* Compares the local port with the peer's facts: an active MTU that
 * differs is a FAIL (the larger side's packets are dropped), netdev MTUs
 * that differ alone a WARN. */
void rt_diag_mtu_compare(struct rt_diag *d, const struct rt_diag_port *local,
			 const struct rt_diag_port *peer);

/* Client: facts, MTU comparison and the CM connection; lines into d.
 * `local` is the port the route leaves through (NULL if none). */
void rt_diag_peer(struct rt_diag *d, const struct rt_diag_env *e,
		  const struct rt_diag_port *local,
		  const struct rt_diag_peer_params *p, struct rt_log *log);
/* The line that says the client's checks did not run: without a local
 * RDMA device there is nothing to test the peer with. */
void rt_diag_peer_skipped(struct rt_diag *d, const char *addr);
/* Server: serves one client its facts, then takes its CM connection
 * until it closes. 0, or -1 with err set. */
int rt_diag_listen(const struct rt_diag *d, const struct rt_diag_env *e,
		   const struct rt_diag_peer_params *p, struct rt_log *log,
		   struct rt_error *err);

#endif
