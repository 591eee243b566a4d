/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdio.h>
#include <string.h>

#include "mesh/meshauth.h"
#include "rdmatest/random.h"

enum { CHALLENGE = 1, ANSWER = 2, PROOF = 3, CRED = 4 };

#define CTX_LEN (1u + 4u + 4u + 4u + 2u * RT_MESH_AUTH_NONCE)

static const char proof_by_coord[] = "rdmatest mesh proof by rank 0";
static const char proof_by_rank[] = "rdmatest mesh proof by rank";
static const char key_up[] = "rdmatest mesh key rank to 0";
static const char key_down[] = "rdmatest mesh key 0 to rank";

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static int refuse(struct rt_mesh_auth *a)
{
	a->state = RT_MESH_AUTH_REFUSED;
	return -1;
}

void rt_mesh_auth_init(struct rt_mesh_auth *a, struct rt_hmac *mac,
		       const uint8_t secret[RT_MESH_AUTH_SECRET],
		       enum rt_mesh_auth_side side, uint32_t rank, uint32_t size)
{
	memset(a, 0, sizeof(*a));
	a->mac = mac;
	a->side = (uint8_t)side;
	a->rank = rank;
	a->size = size;
	memcpy(a->secret, secret, RT_MESH_AUTH_SECRET);
}

void rt_mesh_auth_secret(struct rt_mesh_auth *a, const uint8_t secret[RT_MESH_AUTH_SECRET])
{
	memcpy(a->secret, secret, RT_MESH_AUTH_SECRET);
}

void rt_mesh_auth_wipe(struct rt_mesh_auth *a)
{
	explicit_bzero(a, sizeof(*a));
	a->state = RT_MESH_AUTH_REFUSED;
}

/* E(label) of meshauth.h: HKDF-Expand (RFC 5869 section 2.3) of one
 * block, the secret as the pseudorandom key. */
static int expand(struct rt_mesh_auth *a, const char *label, uint8_t out[RT_HMAC_LEN],
		  struct rt_error *err)
{
	static const uint8_t zero = 0, one = 1;
	uint8_t ctx[CTX_LEN];
	struct iovec parts[4] = {
		{ (void *)label, strlen(label) }, { (void *)&zero, 1 },
		{ ctx, sizeof(ctx) }, { (void *)&one, 1 },
	};

	ctx[0] = RT_MESH_AUTH_VERSION;
	put32(ctx + 1, 0);
	put32(ctx + 5, a->rank);
	put32(ctx + 9, a->size);
	memcpy(ctx + 13, a->nonce_rank, RT_MESH_AUTH_NONCE);
	memcpy(ctx + 13 + RT_MESH_AUTH_NONCE, a->nonce_coord, RT_MESH_AUTH_NONCE);
	return rt_hmac_sha256(a->mac, a->secret, RT_MESH_AUTH_SECRET, parts, 4, out, err);
}

static void head(uint8_t *out, uint8_t type, uint32_t rank, uint32_t size)
{
	out[0] = 'R', out[1] = 'A', out[2] = RT_MESH_AUTH_VERSION, out[3] = type;
	put32(out + 4, rank);
	put32(out + 8, size);
}

/* The head of a handshake message: its magic, version, type and the
 * rank and size it names. */
static int take_head(struct rt_mesh_auth *a, const uint8_t *in, uint8_t type,
		     const char *what, struct rt_error *err)
{
	uint32_t rank = get32(in + 4), size = get32(in + 8);

	if (in[0] == 'R' && in[1] == 'M')
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: a plain mesh message where the "
			       "%s belongs: the other end runs without authentication "
			       "(--auth none)", what);
	if (in[0] != 'R' || in[1] != 'A')
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: not a mesh %s (magic 0x%02x%02x)",
			       what, in[0], in[1]);
	if (in[2] != RT_MESH_AUTH_VERSION)
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: %s of version %u, want %u", what,
			       in[2], RT_MESH_AUTH_VERSION);
	if (in[3] != type)
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: message type %u where the %s "
			       "(type %u) belongs", in[3], what, type);
	/* rank 0's own rank joins over loopback as any rank does */
	if (size != a->size || rank >= size)
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: %s of rank %u of %u, want a rank "
			       "of 0 to %u", what, rank, size, a->size - 1);
	if (a->side == RT_MESH_AUTH_COORDINATOR && type == CHALLENGE)
		a->rank = rank;
	else if (rank != a->rank)
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: %s names rank %u, not rank %u",
			       what, rank, a->rank);
	return 0;
}

static int want_state(struct rt_mesh_auth *a, enum rt_mesh_auth_side side,
		      enum rt_mesh_auth_state state, const char *step, struct rt_error *err)
{
	if (a->side == side && a->state == state)
		return 0;
	if (a->state == RT_MESH_AUTH_REFUSED)
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: %s on a connection already refused",
			       step);
	return rt_fail(err, RT_EXIT_FAIL, "mesh auth: %s out of turn", step);
}

int rt_mesh_auth_challenge(struct rt_mesh_auth *a, uint8_t out[RT_MESH_AUTH_CHALLENGE],
			   struct rt_error *err)
{
	if (want_state(a, RT_MESH_AUTH_RANK, RT_MESH_AUTH_START, "challenge", err) ||
	    rt_random_bytes(a->nonce_rank, RT_MESH_AUTH_NONCE, err))
		return refuse(a);
	head(out, CHALLENGE, a->rank, a->size);
	memcpy(out + 12, a->nonce_rank, RT_MESH_AUTH_NONCE);
	a->state = RT_MESH_AUTH_CHALLENGED;
	return 0;
}

int rt_mesh_auth_answer(struct rt_mesh_auth *a, const uint8_t in[RT_MESH_AUTH_CHALLENGE],
			uint8_t out[RT_MESH_AUTH_ANSWER], struct rt_error *err)
{
	if (want_state(a, RT_MESH_AUTH_COORDINATOR, RT_MESH_AUTH_START, "answer", err) ||
	    take_head(a, in, CHALLENGE, "challenge", err))
		return refuse(a);
	memcpy(a->nonce_rank, in + 12, RT_MESH_AUTH_NONCE);
	if (rt_random_bytes(a->nonce_coord, RT_MESH_AUTH_NONCE, err))
		return refuse(a);
	head(out, ANSWER, a->rank, a->size);
	memcpy(out + 12, a->nonce_coord, RT_MESH_AUTH_NONCE);
	if (expand(a, proof_by_coord, out + 12 + RT_MESH_AUTH_NONCE, err))
		return refuse(a);
	a->state = RT_MESH_AUTH_ANSWERED;
	return 0;
}

void rt_mesh_auth_cred_head(uint8_t out[RT_MESH_AUTH_CRED_HEAD], uint32_t len)
{
	out[0] = 'R', out[1] = 'A', out[2] = RT_MESH_AUTH_VERSION, out[3] = CRED;
	put32(out + 4, len);
}

int rt_mesh_auth_cred_len(struct rt_mesh_auth *a, const uint8_t in[RT_MESH_AUTH_CRED_HEAD],
			  struct rt_error *err)
{
	uint32_t len = get32(in + 4);

	if (want_state(a, RT_MESH_AUTH_RANK, RT_MESH_AUTH_CHALLENGED, "credential", err))
		return refuse(a);
	if (in[0] != 'R' || in[1] != 'A' || in[2] != RT_MESH_AUTH_VERSION || in[3] != CRED) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: no MUNGE credential from rank 0 (it runs "
			"with another --auth)");
		return refuse(a);
	}
	if (len == 0 || len >= RT_MESH_AUTH_CRED_MAX) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: a MUNGE credential of %u bytes, want 1 "
			"to %u", len, RT_MESH_AUTH_CRED_MAX - 1);
		return refuse(a);
	}
	return (int)len;
}

/* Both proved: the two directions' keys. */
static int open_keys(struct rt_mesh_auth *a, struct rt_error *err)
{
	bool coord = a->side == RT_MESH_AUTH_COORDINATOR;

	if (expand(a, coord ? key_down : key_up, a->send_key, err) ||
	    expand(a, coord ? key_up : key_down, a->recv_key, err))
		return -1;
	a->state = RT_MESH_AUTH_OPEN;
	return 0;
}

int rt_mesh_auth_prove(struct rt_mesh_auth *a, const uint8_t in[RT_MESH_AUTH_ANSWER],
		       uint8_t out[RT_MESH_AUTH_PROOF], struct rt_error *err)
{
	uint8_t want[RT_HMAC_LEN];

	if (want_state(a, RT_MESH_AUTH_RANK, RT_MESH_AUTH_CHALLENGED, "proof", err) ||
	    take_head(a, in, ANSWER, "answer", err))
		return refuse(a);
	memcpy(a->nonce_coord, in + 12, RT_MESH_AUTH_NONCE);
	if (expand(a, proof_by_coord, want, err))
		return refuse(a);
	if (!rt_hmac_equal(want, in + 12 + RT_MESH_AUTH_NONCE, RT_HMAC_LEN)) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: rank 0 could not prove the job's secret "
			"(a stranger on its port, or another job's secret)");
		return refuse(a);
	}
	head(out, PROOF, a->rank, a->size);
	if (expand(a, proof_by_rank, out + 12, err) || open_keys(a, err))
		return refuse(a);
	return 0;
}

int rt_mesh_auth_check(struct rt_mesh_auth *a, const uint8_t in[RT_MESH_AUTH_PROOF],
		       struct rt_error *err)
{
	uint8_t want[RT_HMAC_LEN];

	if (want_state(a, RT_MESH_AUTH_COORDINATOR, RT_MESH_AUTH_ANSWERED, "check", err) ||
	    take_head(a, in, PROOF, "proof", err) || expand(a, proof_by_rank, want, err))
		return refuse(a);
	if (!rt_hmac_equal(want, in + 12, RT_HMAC_LEN)) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: rank %u could not prove the job's secret "
			"(a stranger, or another job's secret)", a->rank);
		return refuse(a);
	}
	return open_keys(a, err) ? refuse(a) : 0;
}

static int frame_mac(struct rt_mesh_auth *a, const uint8_t *key, const uint8_t seq[8],
		     const uint8_t *msg, size_t len, uint8_t out[RT_HMAC_LEN],
		     struct rt_error *err)
{
	struct iovec parts[2] = { { (void *)seq, 8 }, { (void *)msg, len } };

	return rt_hmac_sha256(a->mac, key, RT_HMAC_LEN, parts, 2, out, err);
}

int rt_mesh_auth_seal(struct rt_mesh_auth *a, const uint8_t *msg, size_t len,
		      uint8_t *out, struct rt_error *err)
{
	if (want_state(a, a->side, RT_MESH_AUTH_OPEN, "seal", err))
		return -1;
	if (len < RT_MESHMSG_HDR || len > RT_MESHMSG_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: a message of %zu bytes to seal, "
			       "want %u to %u", len, RT_MESHMSG_HDR, RT_MESHMSG_MAX);
	memmove(out, msg, len);
	put64(out + len, a->sent + 1);
	if (frame_mac(a, a->send_key, out + len, out, len, out + len + 8, err))
		return refuse(a);
	a->sent++;
	return (int)(len + RT_MESH_AUTH_TRAILER);
}

int rt_mesh_auth_frame_len(const uint8_t hdr[RT_MESHMSG_HDR], struct rt_error *err)
{
	uint8_t type;
	int plen = rt_meshmsg_header(hdr, &type, err);

	return plen < 0 ? -1 : (int)(RT_MESHMSG_HDR + RT_MESH_AUTH_TRAILER) + plen;
}

int rt_mesh_auth_open(struct rt_mesh_auth *a, const uint8_t *frame, size_t n,
		      struct rt_error *err)
{
	char peer[16];
	uint8_t want[RT_HMAC_LEN];
	struct rt_error quiet = {0};
	uint64_t seq;
	size_t len;
	int whole;

	if (want_state(a, a->side, RT_MESH_AUTH_OPEN, "open", err))
		return -1;
	snprintf(peer, sizeof(peer), "rank %u",
		 a->side == RT_MESH_AUTH_COORDINATOR ? a->rank : 0u);
	/* the header says how long the frame is */
	if (n < RT_MESHMSG_HDR) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: truncated message from %s (%zu bytes, "
			"shorter than a header)", peer, n);
		return refuse(a);
	}
	whole = rt_mesh_auth_frame_len(frame, &quiet);
	if (whole < 0) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: altered or foreign message from %s (%s)",
			peer, quiet.reason);
		return refuse(a);
	}
	if (n < (size_t)whole) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: truncated message from %s (%zu of %d bytes)",
			peer, n, whole);
		return refuse(a);
	}
	if (n > (size_t)whole) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: altered or foreign message from %s "
			"(%zu bytes, its header says %d)", peer, n, whole);
		return refuse(a);
	}
	len = n - RT_MESH_AUTH_TRAILER;
	if (frame_mac(a, a->recv_key, frame + len, frame, len, want, err))
		return refuse(a);
	if (!rt_hmac_equal(want, frame + len + 8, RT_HMAC_LEN)) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: altered or foreign message from %s",
			peer);
		return refuse(a);
	}
	seq = get64(frame + len);
	if (seq <= a->taken) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: replayed message from %s (sequence "
			"%llu, the last taken %llu)", peer, (unsigned long long)seq,
			(unsigned long long)a->taken);
		return refuse(a);
	}
	if (seq != a->taken + 1) {
		rt_fail(err, RT_EXIT_FAIL, "mesh auth: reordered or dropped message from "
			"%s (sequence %llu, want %llu)", peer,
			(unsigned long long)seq, (unsigned long long)a->taken + 1);
		return refuse(a);
	}
	a->taken = seq;
	return (int)len;
}
