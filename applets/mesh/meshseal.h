/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* meshauth.h over a connection (oob.h): the handshake from either end,
 * blocking within the connection's bound, and mesh messages written and
 * read sealed. For a rank's one connection to rank 0, and for rank 0
 * where it serves one connection at a time; rank 0's gathering of many
 * at once drives meshauth.h's steps itself. */
#ifndef RDMATEST_MESHSEAL_H
#define RDMATEST_MESHSEAL_H

#include "mesh/meshauth.h"
#include "mesh/meshmunge.h"
#include "mesh/meshwire.h"
#include "rdmatest/oob.h"

/* A rank, just connected: CHALLENGE, (under MUNGE: the CRED, opened with
 * munge, its key set) ANSWER checked, PROOF. munge: NULL unless the
 * secret comes from rank 0's credential. */
int rt_mesh_seal_join(struct rt_oob *o, struct rt_mesh_auth *a,
		      const struct rt_mesh_munge *munge, struct rt_error *err);
/* Rank 0, a connection just taken: CHALLENGE read, (under MUNGE: a CRED
 * sealed now for this rank around a's secret) ANSWER, PROOF checked.
 * a->rank is then the rank that proved itself. */
int rt_mesh_seal_admit(struct rt_oob *o, struct rt_mesh_auth *a,
		       const struct rt_mesh_munge *munge, struct rt_error *err);

/* One mesh message, sealed (at most RT_MESH_AUTH_FRAME_MAX bytes). */
int rt_meshmsg_write_sealed(struct rt_oob *o, struct rt_mesh_auth *a,
			    const struct rt_meshmsg *m, struct rt_error *err);
/* One sealed mesh message: its frame checked (rt_mesh_auth_open), then
 * decoded as rt_meshmsg_read does. */
int rt_meshmsg_read_sealed(struct rt_oob *o, struct rt_mesh_auth *a, uint32_t size,
			   struct rt_meshmsg *m, struct rt_error *err);

/* The mesh messages of one connection, sealed when a is given (the run
 * authenticates: a is the connection's end, open), plain (meshwire.h)
 * when a is NULL: what meshrun.c and meshfollow.c write and read through. */
int rt_mesh_send(struct rt_oob *o, struct rt_mesh_auth *a, const struct rt_meshmsg *m,
		 struct rt_error *err);
int rt_mesh_recv(struct rt_oob *o, struct rt_mesh_auth *a, uint32_t size,
		 struct rt_meshmsg *m, struct rt_error *err);
/* For a reader that takes the bytes itself: how many follow the payload
 * the header announces (RT_MESH_AUTH_TRAILER sealed, else 0), and the
 * whole message buf[0..n) checked (sealed: rt_mesh_auth_open) and
 * decoded. */
size_t rt_mesh_trailer(const struct rt_mesh_auth *a);
int rt_mesh_unframe(struct rt_mesh_auth *a, const uint8_t *buf, size_t n, uint32_t size,
		    struct rt_meshmsg *m, struct rt_error *err);

#endif
