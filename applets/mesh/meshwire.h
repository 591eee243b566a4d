/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The coordination messages of a mesh run, between every rank and rank 0
 * (the coordinator) over one TCP connection each (oob.h). Binary, big
 * endian, one fixed size per type so that a reader knows how much to
 * take before it trusts anything:
 *   header   magic "RM" (2 bytes), version 5, type, payload length (u32)
 *   HELLO    rank, size, test port, job token hash (u64, 0: none; version
 *            4), host name, the most RDMA payload its port carries in
 *            Mbit/s (u32, 0: unknown; version 5)         rank -> 0
 *   ASSIGN   round, rounds, peer (or rest), role, port, host   0 -> rank
 *   RESULT   round, a, b, status, flags, connect, RTT p50/p99, Mbit/s
 *            a to b and b to a (version 2; version 1 had one direction)
 *   VERDICT  ready, interrupted, bad hosts, bad links, absent hosts,
 *            untested hosts (version 3)                  0 -> rank
 * The decoder is strict: a wrong magic, version, type or length, a
 * non-zero pad byte, a rank outside the size, an unterminated or
 * non-name host, an unknown status or flag, a payload rate above the
 * fastest port's (12X XDR, linerate.h) is exit 1 naming the field.
 * A message is at most RT_MESHMSG_MAX bytes; nothing is allocated. */
#ifndef RDMATEST_MESHWIRE_H
#define RDMATEST_MESHWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"

#define RT_MESHMSG_HDR 8u
#define RT_MESHMSG_MAX 96u     /* header + the largest payload */
#define RT_MESH_HOST_LEN 64u   /* host field, NUL-terminated and padded */
#define RT_MESH_NO_PEER UINT32_MAX

enum rt_meshmsg_type {
	RT_MESHMSG_HELLO = 1,
	RT_MESHMSG_ASSIGN = 2,
	RT_MESHMSG_RESULT = 3,
	RT_MESHMSG_VERDICT = 4,
};

enum rt_mesh_role { RT_MESH_LISTEN = 0, RT_MESH_CONNECT = 1, RT_MESH_REST = 2 };

enum rt_mesh_status {
	RT_MESH_OK = 0,      /* measured */
	RT_MESH_FAILED = 1,  /* the test ran and failed (refused, error) */
	RT_MESH_TIMEOUT = 2, /* a bound expired */
	RT_MESH_ABSENT = 3,  /* the peer never said hello */
	RT_MESH_STATUS_MAX = RT_MESH_ABSENT,
};

#define RT_MESH_HAS_RTT 1u
#define RT_MESH_HAS_BW 2u /* both directions' figures */

struct rt_mesh_hello {
	uint32_t rank, size;
	uint16_t port;
	uint64_t token; /* rt_launch_token_hash, 0: none */
	char host[RT_MESH_HOST_LEN];
	/* the most RDMA WRITE payload the port carrying `host` moves at its
	 * active MTU (linerate.h), Mbit/s; 0: unknown */
	uint32_t payload_mbps;
};

struct rt_mesh_assign {
	uint32_t round, rounds;
	uint32_t peer; /* RT_MESH_NO_PEER with RT_MESH_REST */
	uint8_t role;  /* enum rt_mesh_role */
	uint16_t port;
	char host[RT_MESH_HOST_LEN];
};

struct rt_mesh_result {
	uint32_t round, a, b;
	uint8_t status; /* enum rt_mesh_status */
	uint8_t flags;  /* RT_MESH_HAS_* */
	uint64_t connect_ns, rtt_p50_ns, rtt_p99_ns;
	uint64_t mbps, mbps_rev; /* a to b, b to a */
};

struct rt_mesh_verdict {
	uint8_t ready;
	uint8_t interrupted; /* rank 0 was stopped mid-run: never ready */
	uint32_t bad_nodes, bad_links, absent, untested;
};

struct rt_meshmsg {
	uint8_t type;
	union {
		struct rt_mesh_hello hello;
		struct rt_mesh_assign assign;
		struct rt_mesh_result result;
		struct rt_mesh_verdict verdict;
	} u;
};

/* Writes m into buf (RT_MESHMSG_MAX bytes); returns the length. The host
 * fields must already be valid (rt_mesh_host_valid). */
size_t rt_meshmsg_encode(const struct rt_meshmsg *m, uint8_t *buf);
/* The payload length of a valid header, or -1 (message in err). */
int rt_meshmsg_header(const uint8_t *hdr, uint8_t *type, struct rt_error *err);
/* A whole message (header and payload, exactly len bytes). size bounds
 * every rank (a HELLO's own size must equal it; 0 takes any size up to
 * 65536). */
int rt_meshmsg_decode(const uint8_t *buf, size_t len, uint32_t size,
		      struct rt_meshmsg *m, struct rt_error *err);
/* A host name that fits the host field: 1 to 63 name characters. */
int rt_mesh_host_valid(const char *host);
const char *rt_mesh_status_name(unsigned status);

struct rt_oob;
/* One message from / to a connection, within the connection's bound. */
int rt_meshmsg_read(struct rt_oob *o, uint32_t size, struct rt_meshmsg *m,
		    struct rt_error *err);
int rt_meshmsg_write(struct rt_oob *o, const struct rt_meshmsg *m,
		     struct rt_error *err);

#endif
