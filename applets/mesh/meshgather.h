/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Rank 0 waiting for the hello of every rank of a mesh run (meshwire.h)
 * on one listening socket, all at once: a poll() over the listener
 * (always) and every connection not yet identified, one deadline for the
 * whole gathering. A rank that has not said hello when it passes is
 * absent (meshagg.h), never waited for again. A connection must send its
 * hello within 2 s (or io_ms when shorter); at most RT_MESH_PENDING_MAX
 * wait at once, and a new one evicts the oldest: idle connections cannot
 * lock the ranks out. A connection that sends anything but a valid hello
 * of this mesh, or claims a rank already taken (the first stays), is
 * closed and counted, and the rest go on. One that spoke the protocol is
 * also named: a stranger (rt_mesh_agg_stranger: its address and reason,
 * never in the verdict) when it cannot show the job's token (another
 * job's token, version or mesh size, a malformed header or hello); a
 * refused peer (rt_mesh_agg_refuse: the run is not READY) when it can but
 * loses its place (a rank taken, another host than the list's).
 * When the run authenticates (rt_mesh_admit's key, meshkey.h) a
 * connection first proves the job's secret (meshauth.h), all within its
 * own bound: its CHALLENGE (44 bytes), rank 0's ANSWER (under MUNGE the
 * CRED first: rank 0 runs munge for it, and the connection's bound starts
 * again once answered), its PROOF (44), then its HELLO sealed (at most
 * RT_MESH_AUTH_FRAME_MAX bytes). Each read takes what has come, never
 * waiting in it; the answer (at most 1,108 bytes) goes out in one send
 * that a fresh connection's socket buffer takes whole, or the connection
 * is dropped. A connection that fails the handshake is a stranger: a
 * plain HELLO (a rank run with --auth none), a challenge of another size,
 * a proof that does not fit (another secret); a connection whose bytes
 * are no handshake at all is dropped unnamed, as a scanner. Its end of
 * the handshake survives into the rounds: auth, per rank.
 * Memory: per rank one struct rt_oob (344 B) and, authenticated, one
 * struct rt_mesh_auth (200 B); at most RT_MESH_PENDING_MAX connections
 * not yet identified, 6,044 B each (the sealed HELLO's room, the
 * handshake's state): 1,511 KiB. */
#ifndef RDMATEST_MESHGATHER_H
#define RDMATEST_MESHGATHER_H

#include <stdint.h>

#include "rdmatest/error.h"
#include "mesh/hostlist.h"
#include "mesh/meshagg.h"
#include "mesh/meshkey.h"
#include "rdmatest/oob.h"

#define RT_MESH_PENDING_MAX 256u

struct rt_mesh_gather {
	uint32_t n;
	struct rt_oob *conn; /* per rank; fd -1 when absent */
	/* per rank, its connection's end after the handshake; NULL: the run
	 * does not authenticate */
	struct rt_mesh_auth *auth;
	uint32_t present;    /* ranks that said hello */
	uint32_t refused;    /* connections closed: bad, repeated, late or evicted */
};

/* Takes connections on the listening socket lfd (made by rt_oob_listen
 * with backlog RT_MESH_PENDING_MAX: a backlog of 1 drops the SYNs of ranks
 * that come together, and each waits a second to try again) until all n ranks said
 * hello (recorded in g) or wait_ms passed; a connection must send its
 * hello within the shorter of io_ms and 2 s, and io_ms bounds every later
 * read and write on it.
 * Both bounds must be > 0 (exit 2). Absent ranks are not an error: exit
 * 1 only when poll or accept fail. SIGINT/SIGTERM ends the gathering as
 * its deadline would (the run's next wait reports the interrupt). */
int rt_mesh_gather(struct rt_mesh_gather *gt, int lfd, uint32_t n,
		   long long wait_ms, long long io_ms, struct rt_mesh_agg *g,
		   struct rt_error *err);
/* Who may join, beyond a valid hello of this mesh: */
struct rt_mesh_admit {
	/* the job token's hash (launch.h) a hello must carry: 0 admits only
	 * hellos without a token */
	uint64_t token;
	/* the host of every rank (hosts->n == n), resolved once before the
	 * gathering: rank k only from an address of entry k (rank 0 also from
	 * loopback), and entry k is the host its partners are told; NULL:
	 * any address, the hello's host */
	const struct rt_hostlist *hosts;
	/* the run's authentication: a connection proves the job's secret
	 * before its hello (above); NULL or mode none: none */
	struct rt_mesh_key *key;
};

/* rt_mesh_gather with admission: a hello of another token is a stranger
 * ("another job's token"), one from another host than the list's is
 * refused with the address it came from and the one the list names. req
 * NULL admits as rt_mesh_gather. */
int rt_mesh_gather_admit(struct rt_mesh_gather *gt, int lfd, uint32_t n,
			 long long wait_ms, long long io_ms,
			 const struct rt_mesh_admit *req, struct rt_mesh_agg *g,
			 struct rt_error *err);
void rt_mesh_gather_close(struct rt_mesh_gather *gt);

/* A connection's hello as its bytes trickle in, in chunks of any size:
 * the header first, then as much more as the header announces (and the
 * trailer of a sealed one: RT_MESH_AUTH_TRAILER). */
struct rt_mesh_hello_in {
	size_t got, want; /* want: the header, then the whole message */
	size_t trailer;   /* bytes after the payload: 0 plain, sealed the trailer */
	uint8_t buf[RT_MESH_AUTH_FRAME_MAX];
};
enum rt_mesh_hello_step {
	RT_MESH_HELLO_MORE,     /* read up to want - got more bytes at buf + got */
	RT_MESH_HELLO_WHOLE,    /* buf[0..got) is the whole message, to decode */
	RT_MESH_HELLO_STRANGER, /* not a mesh peer at all (a scanner) */
	RT_MESH_HELLO_REFUSED,  /* a mesh peer's bad header or other message: e
				 * (a stranger: it has shown no token) */
};
#define RT_MESH_HELLO_IN_INIT { .want = RT_MESHMSG_HDR }
/* n (1..want - got) bytes came at buf + got: what the connection has
 * sent so far makes. */
enum rt_mesh_hello_step rt_mesh_hello_took(struct rt_mesh_hello_in *h, size_t n,
					   struct rt_error *e);

#endif
