/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* -R of the ib_* applets: their test QPs connected with the RDMA CM
 * instead of by hand from the exchanged records. The QPs stay the
 * applet's own (created on its device, its CQs, its buffer, already in
 * INIT); the CM only carries the connection, and its attributes move each
 * QP to RTR and RTS (rdma_init_qp_attr), as rping -q does with its own.
 * The TCP out-of-band exchange of perftest_conn.h goes on around it.
 *
 * One event channel, one id per QP (and a listener on a server, destroyed
 * once the last QP is connected); every CM step is a poll() bounded by
 * timeout_ms that also ends at SIGINT/SIGTERM (returns RT_INTERRUPTED
 * with nothing recorded). The client connects its QPs one after the
 * other, so the server pairs them in the same order. A CM event other
 * than the step's, or a path on another device or port than the QPs',
 * is one line, exit 1 (124 when a bound expires).
 *
 * Memory: the ids, n of them, and this record. */
#ifndef RDMATEST_PERFTEST_CM_H
#define RDMATEST_PERFTEST_CM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"

struct rt_pt_cm;

struct rt_pt_cm_spec {
	bool client;
	/* client: the server's address; server: the local address to listen
	 * on; both with the CM port (perftest's -p) */
	struct sockaddr_storage addr;
	/* client: the source to resolve from (--bind_source_ip), family 0: none */
	struct sockaddr_storage src;
	const char *dev;       /* the QPs' device and port: the CM must route there */
	unsigned ib_port;
	struct ibv_qp **qp;    /* n QPs in INIT */
	unsigned n;
	unsigned out_reads;    /* responder resources and initiator depth */
	uint8_t ack_timeout;   /* -u, the RTS ACK timeout exponent */
	int tos;               /* -T: client ids' type of service; -1: none */
	uint8_t retry_count;   /* --retry_count: the requests' retry and RNR retry */
	enum ibv_mtu mtu;      /* the agreed MTU: the CM's path MTU is capped to it */
	long long timeout_ms;  /* each CM step */
	const char *peer;      /* the peer's name for messages: "192.0.2.1:18515" */
};

/* Event channel; a server also binds and listens (backlog n), so that
 * it is listening before it tells the client to connect. */
struct rt_pt_cm *rt_pt_cm_create(const struct rt_pt_cm_spec *spec,
				 struct rt_error *err);
/* Client: resolves, connects and establishes each QP in turn. Server:
 * accepts n requests, QP i for the i-th, and waits until all are
 * established. psn[i] becomes QP i's send PSN the CM chose. */
int rt_pt_cm_connect(struct rt_pt_cm *cm, uint32_t *psn, struct rt_error *err);
/* Disconnects (without waiting for the peer) and destroys the ids and
 * the channel; NULL is a no-op. Call it before the QPs are destroyed. */
void rt_pt_cm_destroy(struct rt_pt_cm *cm);

#endif
