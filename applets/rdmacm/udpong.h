/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* udpong's server side of one datagram (udpong.c has the protocol):
 * what a client's message does to the client table, apart from the
 * socket, so that any bytes a peer sends can be tried on it. */
#ifndef RDMATEST_UDPONG_H
#define RDMATEST_UDPONG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_UDPONG_PAYLOAD 2048
#define RT_UDPONG_HDR 8

struct rt_udpong_msg {
	uint8_t op, id, seqno, reserved;
	uint32_t data; /* big-endian */
	uint8_t buf[RT_UDPONG_PAYLOAD];
};

/* Memory is fixed: client ids are 8 bits, as upstream's. */
struct rt_udpong_clients {
	uint64_t count[256];
	bool gone[256]; /* said goodbye (a client sends it several times) */
	unsigned logins, byes, ignored;
};

enum rt_udpong_take {
	RT_UDPONG_FOREIGN, /* not udpong: ignored (and counted) */
	RT_UDPONG_LOGIN,   /* a new client: m->id is its id; answer m */
	RT_UDPONG_ANSWER,  /* answer m as it now is */
	RT_UDPONG_COUNTED, /* data: counted, no answer */
	RT_UDPONG_BYE,     /* a goodbye: no answer */
};

/* Applies the n-byte datagram in m to t as upstream's server does,
 * rewriting m into its answer where there is one. */
enum rt_udpong_take rt_udpong_take(struct rt_udpong_clients *t, struct rt_udpong_msg *m,
				   size_t n);

#endif
