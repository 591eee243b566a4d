/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The mesh authentication's decoders (meshauth.h) on an open connection
 * and mid-handshake. Byte 0 picks what the rest is:
 *   0  a frame from the peer: never taken (the keys come from fresh
 *      nonces, which the input cannot know), always refused with a reason,
 *      and the connection stays refused
 *   1  a mesh message to seal: sealed, it opens at the peer to exactly
 *      its length; the same frame again is a replay; with any one byte
 *      changed (byte 1 of the rest picks it) it is refused
 *   2  handshake messages: a challenge for rank 0, an answer for a rank,
 *      a proof for rank 0: each refused with a reason or, a challenge
 *      only, answered
 * The HMAC is the kernel's, or OpenSSL's where the kernel has no AF_ALG
 * (test/unit/afalg_fake.h). */
#include "fuzz.h"

#include "mesh/meshauth.h"
#include "../unit/afalg_fake.h"

static const uint8_t secret[RT_MESH_AUTH_SECRET] = "fuzz secret, thirty-two bytes...";

static void pair(struct rt_hmac *mac, struct rt_mesh_auth *coord, struct rt_mesh_auth *rank)
{
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];
	struct rt_error err = {0};

	rt_mesh_auth_init(coord, mac, secret, RT_MESH_AUTH_COORDINATOR, 0, 8);
	rt_mesh_auth_init(rank, mac, secret, RT_MESH_AUTH_RANK, 3, 8);
	FUZZ_CHECK(!rt_mesh_auth_challenge(rank, ch, &err) &&
		   !rt_mesh_auth_answer(coord, ch, an, &err) &&
		   !rt_mesh_auth_prove(rank, an, pr, &err) &&
		   !rt_mesh_auth_check(coord, pr, &err), "handshake: %s", err.reason);
}

static void refused(struct rt_mesh_auth *a, int rc, const struct rt_error *err)
{
	FUZZ_CHECK(rc == -1 && err->set && err->reason[0], "taken (%d)", rc);
	FUZZ_CHECK(a->state == RT_MESH_AUTH_REFUSED, "state %u after a refusal", a->state);
	FUZZ_CHECK(!strchr(err->reason, '\n'), "two lines: %s", err->reason);
}

static void foreign_frame(struct rt_mesh_auth *rank, const uint8_t *d, size_t n)
{
	struct rt_error err = {0};
	size_t len;
	uint8_t *frame;
	struct fuzz_in in = { d, n };

	frame = fuzz_bytes(&in, n, &len);
	refused(rank, rt_mesh_auth_open(rank, frame, len, &err), &err);
	free(frame);
}

static void sealed_frame(struct rt_mesh_auth *coord, struct rt_mesh_auth *rank,
			 const uint8_t *d, size_t n)
{
	uint8_t out[RT_MESH_AUTH_FRAME_MAX], type;
	struct rt_error err = {0};
	struct rt_mesh_auth copy;
	size_t at = n ? d[0] : 0;
	int f, len;

	if (n)
		d++, n--;
	if (n < RT_MESHMSG_HDR || rt_meshmsg_header(d, &type, &err) < 0 ||
	    n != (size_t)rt_meshmsg_header(d, &type, &err) + RT_MESHMSG_HDR)
		return;
	f = rt_mesh_auth_seal(rank, d, n, out, &err);
	FUZZ_CHECK(f == (int)(n + RT_MESH_AUTH_TRAILER), "sealed %zu bytes into %d", n, f);
	FUZZ_CHECK(rt_mesh_auth_frame_len(out, &err) == f, "frame length");
	copy = *coord;
	out[at % (size_t)f] ^= 0x5a;
	refused(&copy, rt_mesh_auth_open(&copy, out, (size_t)f, &err), &err);
	out[at % (size_t)f] ^= 0x5a;
	len = rt_mesh_auth_open(coord, out, (size_t)f, &err);
	FUZZ_CHECK(len == (int)n && !memcmp(out, d, n), "opened %d of %zu: %s", len, n,
		   err.reason);
	err = (struct rt_error){0};
	refused(coord, rt_mesh_auth_open(coord, out, (size_t)f, &err), &err);
	FUZZ_CHECK(strstr(err.reason, "replayed message"), "%s", err.reason);
}

static void handshake(struct rt_hmac *mac, const uint8_t *d, size_t n)
{
	uint8_t buf[RT_MESH_AUTH_ANSWER] = {0}, an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];
	struct rt_mesh_auth a;
	struct rt_error err = {0};
	int rc;

	memcpy(buf, d, n < sizeof(buf) ? n : sizeof(buf));
	rt_mesh_auth_init(&a, mac, secret, RT_MESH_AUTH_COORDINATOR, 0, 8);
	rc = rt_mesh_auth_answer(&a, buf, an, &err);
	/* rank 0 too: rank 0's own rank joins over loopback as any rank does */
	if (rc == 0)
		FUZZ_CHECK(a.rank < 8 && a.state == RT_MESH_AUTH_ANSWERED, "answered rank %u",
			   a.rank);
	else
		refused(&a, rc, &err);
	/* no proof the input can write passes, before or after an answer */
	err = (struct rt_error){0};
	if (rc == 0)
		refused(&a, rt_mesh_auth_check(&a, buf, &err), &err);
	err = (struct rt_error){0};
	rt_mesh_auth_init(&a, mac, secret, RT_MESH_AUTH_RANK, 3, 8);
	FUZZ_CHECK(!rt_mesh_auth_challenge(&a, pr, &err), "challenge: %s", err.reason);
	refused(&a, rt_mesh_auth_prove(&a, buf, pr, &err), &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_hmac mac = RT_HMAC_INIT;
	struct rt_mesh_auth coord, rank;
	struct rt_error err = {0};
	uint8_t mode = size ? data[0] % 3 : 0;

	if (size)
		data++, size--;
	FUZZ_CHECK(!rt_hmac_open(&mac, &err), "%s", err.reason);
	pair(&mac, &coord, &rank);
	if (mode == 0)
		foreign_frame(&rank, data, size);
	else if (mode == 1)
		sealed_frame(&coord, &rank, data, size);
	else
		handshake(&mac, data, size);
	rt_hmac_close(&mac);
	return 0;
}
