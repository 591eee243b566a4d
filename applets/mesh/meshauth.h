/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The authentication of a mesh connection (docs/dev/mesh-auth.md): rank 0
 * and a rank prove to each other that they hold the run's secret
 * (meshsecret.h) over fresh nonces, then every mesh message travels in a
 * frame that a MAC keyed for its direction and a sequence number seal.
 * Pure functions over buffers: the caller moves the bytes (oob.h).
 *
 * The handshake, before any mesh message (big endian; "RA", version 1):
 *   CHALLENGE  rank -> 0   "RA" 1 1 | rank u32 | size u32 | nonce_r (32)
 *                          44 bytes
 *   ANSWER     0 -> rank   "RA" 1 2 | rank u32 | size u32 | nonce_0 (32)
 *                          | proof_0 (32): 76 bytes
 *   PROOF      rank -> 0   "RA" 1 3 | rank u32 | size u32 | proof_r (32)
 *                          44 bytes
 * with ctx = version u8 | 0 u32 (rank 0) | rank u32 | size u32 | nonce_r |
 * nonce_0, and E(label) = HMAC-SHA256(secret, label | 0x00 | ctx | 0x01),
 * which is RFC 5869's HKDF-Expand of one block with the secret as its
 * pseudorandom key and label | 0x00 | ctx as its info:
 *   proof_0 = E("rdmatest mesh proof by rank 0")
 *   proof_r = E("rdmatest mesh proof by rank")
 *   key up  = E("rdmatest mesh key rank to 0"), key down = E("... 0 to rank")
 * Each side's nonce is fresh (getrandom), so a proof recorded from
 * another connection never fits; the two labels differ, so a proof sent
 * back to its maker (a reflection) does not fit either; the rank proves
 * only after rank 0 has, so a stranger posing as rank 0 learns nothing
 * to replay.
 * Under MUNGE (meshmunge.h) rank 0 sends, between the CHALLENGE and its
 * ANSWER, the credential that holds the run key:
 *   CRED       0 -> rank   "RA" 1 4 | length u32 | the credential's text
 *                          (1 to RT_MESH_AUTH_CRED_MAX - 1 bytes)
 * and the rank sets the key it opens (rt_mesh_auth_secret) before it
 * checks the ANSWER.
 * A frame: the mesh message (header | payload, meshwire.h) | seq u64 |
 * MAC (32), the MAC = HMAC-SHA256(key of the direction, seq | header |
 * payload), seq 1 for a direction's first frame and one more each frame.
 * A frame is at most RT_MESH_AUTH_FRAME_MAX bytes; nothing is allocated.
 * Every refusal is exit 1 and leaves the connection refused: every later
 * call refuses too. */
#ifndef RDMATEST_MESHAUTH_H
#define RDMATEST_MESHAUTH_H

#include <stddef.h>
#include <stdint.h>

#include "mesh/meshwire.h"
#include "rdmatest/error.h"
#include "rdmatest/hmac.h"

#define RT_MESH_AUTH_VERSION 1u
#define RT_MESH_AUTH_SECRET 32u   /* the run's secret, bytes */
#define RT_MESH_AUTH_NONCE 32u
#define RT_MESH_AUTH_CHALLENGE 44u
#define RT_MESH_AUTH_ANSWER 76u
#define RT_MESH_AUTH_PROOF 44u
#define RT_MESH_AUTH_CRED_HEAD 8u
#define RT_MESH_AUTH_CRED_MAX 1024u /* a CRED's text, at most (meshmunge.h) */
#define RT_MESH_AUTH_TRAILER (8u + RT_HMAC_LEN) /* seq and MAC after a message */
#define RT_MESH_AUTH_FRAME_MAX (RT_MESHMSG_MAX + RT_MESH_AUTH_TRAILER)

enum rt_mesh_auth_side {
	RT_MESH_AUTH_COORDINATOR = 0, /* rank 0's end of a connection */
	RT_MESH_AUTH_RANK = 1,        /* a rank's end */
};

enum rt_mesh_auth_state {
	RT_MESH_AUTH_START = 0,
	RT_MESH_AUTH_CHALLENGED, /* the rank sent its challenge */
	RT_MESH_AUTH_ANSWERED,   /* rank 0 answered one */
	RT_MESH_AUTH_OPEN,       /* both proved: frames flow */
	RT_MESH_AUTH_REFUSED,    /* something was refused: nothing more */
};

/* One connection's end. The caller owns it, and the HMAC it points to
 * (one per process: rt_hmac_open). */
struct rt_mesh_auth {
	struct rt_hmac *mac;
	uint8_t side;   /* enum rt_mesh_auth_side */
	uint8_t state;  /* enum rt_mesh_auth_state */
	uint32_t rank;  /* the rank at the rank's end: its own, or (rank 0)
			 * the one its challenge names */
	uint32_t size;
	uint8_t secret[RT_MESH_AUTH_SECRET];
	uint8_t nonce_rank[RT_MESH_AUTH_NONCE], nonce_coord[RT_MESH_AUTH_NONCE];
	uint8_t send_key[RT_HMAC_LEN], recv_key[RT_HMAC_LEN];
	uint64_t sent, taken; /* the last sequence number sent, taken; 0: none */
};

/* A connection's end, before its handshake. rank: a rank's own (0 to
 * size - 1: rank 0's own rank, a child of it, joins as any rank); rank
 * 0's end gives 0 and learns the rank from the challenge. */
void rt_mesh_auth_init(struct rt_mesh_auth *a, struct rt_hmac *mac,
		       const uint8_t secret[RT_MESH_AUTH_SECRET],
		       enum rt_mesh_auth_side side, uint32_t rank, uint32_t size);
/* The run's secret, when it comes after init (a rank under MUNGE: from
 * the CRED; before rt_mesh_auth_prove). */
void rt_mesh_auth_secret(struct rt_mesh_auth *a, const uint8_t secret[RT_MESH_AUTH_SECRET]);
/* Forgets the keys (explicit_bzero): call when the connection closes. */
void rt_mesh_auth_wipe(struct rt_mesh_auth *a);

/* The rank: its CHALLENGE, with a fresh nonce. */
int rt_mesh_auth_challenge(struct rt_mesh_auth *a, uint8_t out[RT_MESH_AUTH_CHALLENGE],
			   struct rt_error *err);
/* Rank 0: takes a CHALLENGE, writes the ANSWER (its proof, a fresh nonce). */
int rt_mesh_auth_answer(struct rt_mesh_auth *a, const uint8_t in[RT_MESH_AUTH_CHALLENGE],
			uint8_t out[RT_MESH_AUTH_ANSWER], struct rt_error *err);
/* Rank 0 under MUNGE: the head of the CRED whose text is len bytes. */
void rt_mesh_auth_cred_head(uint8_t out[RT_MESH_AUTH_CRED_HEAD], uint32_t len);
/* The rank: how many bytes of text the CRED head in announces (1 to
 * RT_MESH_AUTH_CRED_MAX - 1), or -1. */
int rt_mesh_auth_cred_len(struct rt_mesh_auth *a, const uint8_t in[RT_MESH_AUTH_CRED_HEAD],
			  struct rt_error *err);
/* The rank: checks rank 0's proof in the ANSWER ("rank 0 could not prove
 * the job's secret"), writes its PROOF; the connection is open. */
int rt_mesh_auth_prove(struct rt_mesh_auth *a, const uint8_t in[RT_MESH_AUTH_ANSWER],
		       uint8_t out[RT_MESH_AUTH_PROOF], struct rt_error *err);
/* Rank 0: checks the rank's PROOF ("rank N could not prove the job's
 * secret"); the connection is open. */
int rt_mesh_auth_check(struct rt_mesh_auth *a, const uint8_t in[RT_MESH_AUTH_PROOF],
		       struct rt_error *err);

/* Seals the mesh message msg[0..len) (header and payload, as
 * rt_meshmsg_encode writes it) into out (RT_MESH_AUTH_FRAME_MAX bytes);
 * returns the frame's length, len + RT_MESH_AUTH_TRAILER, or -1. */
int rt_mesh_auth_seal(struct rt_mesh_auth *a, const uint8_t *msg, size_t len,
		      uint8_t *out, struct rt_error *err);
/* How many bytes the frame whose first RT_MESHMSG_HDR bytes are hdr
 * holds in all, or -1 (a header meshwire.h refuses); for the reader. */
int rt_mesh_auth_frame_len(const uint8_t hdr[RT_MESHMSG_HDR], struct rt_error *err);
/* Checks the frame frame[0..n): its length against its header's
 * ("truncated message"), its MAC ("altered or foreign message"), its
 * sequence number ("replayed message"; a number past the next one:
 * "reordered or dropped message"). Returns the length of the mesh
 * message at frame[0..], for rt_meshmsg_decode, or -1. */
int rt_mesh_auth_open(struct rt_mesh_auth *a, const uint8_t *frame, size_t n,
		      struct rt_error *err);

#endif
