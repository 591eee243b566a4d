/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The mesh's authentication (meshauth.h): the handshake between rank 0
 * and a rank, and the frames after it, against strangers, replays,
 * reflections, tampering and truncation. The HMAC is the kernel's, or
 * OpenSSL's where the kernel has no AF_ALG (afalg_fake.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshauth.h"
#include "../afalg_fake.h"

static struct rt_hmac mac = RT_HMAC_INIT;
static const uint8_t secret[RT_MESH_AUTH_SECRET] = "the job's 32-byte run secret...";
static const uint8_t other[RT_MESH_AUTH_SECRET] = "another job's secret, 32 bytes.";

#define SIZE 8u

static int setup(void **state)
{
	struct rt_error err = {0};

	(void)state;
	return rt_hmac_open(&mac, &err);
}

static int teardown(void **state)
{
	(void)state;
	rt_hmac_close(&mac);
	return 0;
}

/* A whole handshake of rank `rank` with rank 0, each with its secret. */
static void handshake(struct rt_mesh_auth *coord, struct rt_mesh_auth *rank, uint32_t r)
{
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];
	struct rt_error err = {0};

	rt_mesh_auth_init(coord, &mac, secret, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
	rt_mesh_auth_init(rank, &mac, secret, RT_MESH_AUTH_RANK, r, SIZE);
	assert_int_equal(rt_mesh_auth_challenge(rank, ch, &err), 0);
	assert_int_equal(rt_mesh_auth_answer(coord, ch, an, &err), 0);
	assert_int_equal(rt_mesh_auth_prove(rank, an, pr, &err), 0);
	assert_int_equal(rt_mesh_auth_check(coord, pr, &err), 0);
	assert_false(err.set);
}

/* E(label) as docs/dev/mesh-auth.md writes it, computed here apart from
 * meshauth.c: HMAC(secret, label | 0 | ctx | 1). */
static void expand(const uint8_t *key, const char *label, uint32_t rank,
		   const uint8_t *nonce_r, const uint8_t *nonce_0, uint8_t out[RT_HMAC_LEN])
{
	uint8_t buf[128];
	size_t n = strlen(label);
	struct rt_error err = {0};
	struct iovec part;

	memcpy(buf, label, n);
	buf[n++] = 0;
	buf[n++] = 1; /* version */
	memset(buf + n, 0, 4), n += 4;
	buf[n++] = (uint8_t)(rank >> 24), buf[n++] = (uint8_t)(rank >> 16);
	buf[n++] = (uint8_t)(rank >> 8), buf[n++] = (uint8_t)rank;
	buf[n++] = 0, buf[n++] = 0, buf[n++] = 0, buf[n++] = SIZE;
	memcpy(buf + n, nonce_r, 32), n += 32;
	memcpy(buf + n, nonce_0, 32), n += 32;
	buf[n++] = 1;
	part = (struct iovec){ buf, n };
	assert_int_equal(rt_hmac_sha256(&mac, key, 32, &part, 1, out, &err), 0);
}

static size_t verdict(uint8_t *buf, uint8_t ready)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_VERDICT};

	m.u.verdict.ready = ready;
	m.u.verdict.bad_links = ready ? 0 : 3;
	return rt_meshmsg_encode(&m, buf);
}

static size_t result(uint8_t *buf, uint32_t round)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_RESULT};

	m.u.result = (struct rt_mesh_result){.round = round, .a = 3, .b = 4,
		.status = RT_MESH_OK, .flags = RT_MESH_HAS_RTT, .rtt_p50_ns = 9000,
		.rtt_p99_ns = 12000};
	return rt_meshmsg_encode(&m, buf);
}

static void good_handshake_and_frames(void **state)
{
	struct rt_mesh_auth coord, rank;
	uint8_t msg[RT_MESHMSG_MAX], frame[RT_MESH_AUTH_FRAME_MAX];
	uint8_t p0[RT_HMAC_LEN], pr[RT_HMAC_LEN];
	struct rt_meshmsg m;
	struct rt_error err = {0};
	size_t len;
	int n;

	(void)state;
	handshake(&coord, &rank, 3);
	assert_int_equal(coord.rank, 3);
	assert_int_equal(coord.state, RT_MESH_AUTH_OPEN);
	assert_int_equal(rank.state, RT_MESH_AUTH_OPEN);
	/* each end sends with the key the other takes with, and the two
	 * directions' keys differ */
	assert_memory_equal(coord.send_key, rank.recv_key, RT_HMAC_LEN);
	assert_memory_equal(coord.recv_key, rank.send_key, RT_HMAC_LEN);
	assert_memory_not_equal(coord.send_key, coord.recv_key, RT_HMAC_LEN);
	/* the proofs are the documented derivation, and differ by role */
	expand(secret, "rdmatest mesh proof by rank 0", 3, rank.nonce_rank, rank.nonce_coord, p0);
	expand(secret, "rdmatest mesh proof by rank", 3, rank.nonce_rank, rank.nonce_coord, pr);
	assert_memory_not_equal(p0, pr, RT_HMAC_LEN);
	expand(secret, "rdmatest mesh key 0 to rank", 3, rank.nonce_rank, rank.nonce_coord, p0);
	assert_memory_equal(p0, coord.send_key, RT_HMAC_LEN);

	/* rank 0's verdict reaches the rank whole, three times over */
	for (uint8_t i = 0; i < 3; i++) {
		len = verdict(msg, i & 1);
		n = rt_mesh_auth_seal(&coord, msg, len, frame, &err);
		assert_int_equal(n, (int)(len + RT_MESH_AUTH_TRAILER));
		assert_int_equal(rt_mesh_auth_frame_len(frame, &err), n);
		assert_int_equal(rt_mesh_auth_open(&rank, frame, (size_t)n, &err), (int)len);
		assert_int_equal(rt_meshmsg_decode(frame, len, SIZE, &m, &err), 0);
		assert_int_equal(m.u.verdict.ready, i & 1);
	}
	/* and the rank's result reaches rank 0 */
	len = result(msg, 2);
	n = rt_mesh_auth_seal(&rank, msg, len, frame, &err);
	assert_int_equal(rt_mesh_auth_open(&coord, frame, (size_t)n, &err), (int)len);
	assert_int_equal(coord.taken, 1);
	assert_int_equal(rank.taken, 3);
	assert_false(err.set);
	rt_mesh_auth_wipe(&coord);
	assert_int_equal(coord.state, RT_MESH_AUTH_REFUSED);
	assert_int_equal(coord.secret[0], 0);
}

/* A stranger on rank 0's port, with another secret, answers: the rank
 * refuses it and sends no proof. */
static void rank0_without_the_secret(void **state)
{
	struct rt_mesh_auth fake, rank;
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];
	uint8_t msg[RT_MESHMSG_MAX], frame[RT_MESH_AUTH_FRAME_MAX];
	struct rt_error err = {0};
	int n;

	(void)state;
	rt_mesh_auth_init(&fake, &mac, other, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
	rt_mesh_auth_init(&rank, &mac, secret, RT_MESH_AUTH_RANK, 5, SIZE);
	assert_int_equal(rt_mesh_auth_challenge(&rank, ch, &err), 0);
	assert_int_equal(rt_mesh_auth_answer(&fake, ch, an, &err), 0);
	memset(pr, 0xee, sizeof(pr));
	assert_int_equal(rt_mesh_auth_prove(&rank, an, pr, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_string_equal(err.reason, "mesh auth: rank 0 could not prove the job's secret "
			    "(a stranger on its port, or another job's secret)");
	for (size_t i = 0; i < sizeof(pr); i++)
		assert_int_equal(pr[i], 0xee); /* nothing written for it */
	/* and the forged verdict it sends next is never taken */
	fake.state = RT_MESH_AUTH_OPEN;
	err = (struct rt_error){0};
	n = rt_mesh_auth_seal(&fake, msg, verdict(msg, 1), frame, &err);
	assert_true(n > 0);
	assert_int_equal(rt_mesh_auth_open(&rank, frame, (size_t)n, &err), -1);
	assert_non_null(strstr(err.reason, "already refused"));
}

/* A stranger rank (another secret) proves with its own: refused by name. */
static void rank_without_the_secret(void **state)
{
	struct rt_mesh_auth coord, rank;
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];
	struct rt_error err = {0};

	(void)state;
	rt_mesh_auth_init(&coord, &mac, secret, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
	rt_mesh_auth_init(&rank, &mac, other, RT_MESH_AUTH_RANK, 6, SIZE);
	assert_int_equal(rt_mesh_auth_challenge(&rank, ch, &err), 0);
	assert_int_equal(rt_mesh_auth_answer(&coord, ch, an, &err), 0);
	/* it skips checking rank 0 and proves what it can */
	memcpy(pr, an, 12);
	pr[3] = 3;
	expand(other, "rdmatest mesh proof by rank", 6, ch + 12, an + 12, pr + 12);
	assert_int_equal(rt_mesh_auth_check(&coord, pr, &err), -1);
	assert_string_equal(err.reason, "mesh auth: rank 6 could not prove the job's secret "
			    "(a stranger, or another job's secret)");
	assert_int_equal(coord.state, RT_MESH_AUTH_REFUSED);
}

/* Proofs recorded from one connection do not fit the next: each side's
 * nonce is fresh. */
static void replayed_answer_and_proof(void **state)
{
	struct rt_mesh_auth coord, rank, coord2, rank2;
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];
	uint8_t ch2[RT_MESH_AUTH_CHALLENGE], an2[RT_MESH_AUTH_ANSWER], pr2[RT_MESH_AUTH_PROOF];
	struct rt_error err = {0};

	(void)state;
	rt_mesh_auth_init(&coord, &mac, secret, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
	rt_mesh_auth_init(&rank, &mac, secret, RT_MESH_AUTH_RANK, 2, SIZE);
	assert_int_equal(rt_mesh_auth_challenge(&rank, ch, &err), 0);
	assert_int_equal(rt_mesh_auth_answer(&coord, ch, an, &err), 0);
	assert_int_equal(rt_mesh_auth_prove(&rank, an, pr, &err), 0);
	assert_int_equal(rt_mesh_auth_check(&coord, pr, &err), 0);

	/* a stranger replays the recorded answer to a new rank 2 */
	rt_mesh_auth_init(&rank2, &mac, secret, RT_MESH_AUTH_RANK, 2, SIZE);
	assert_int_equal(rt_mesh_auth_challenge(&rank2, ch2, &err), 0);
	assert_memory_not_equal(ch + 12, ch2 + 12, RT_MESH_AUTH_NONCE);
	assert_int_equal(rt_mesh_auth_prove(&rank2, an, pr2, &err), -1);
	assert_non_null(strstr(err.reason, "rank 0 could not prove the job's secret"));

	/* a stranger replays the recorded challenge and proof to rank 0 */
	err = (struct rt_error){0};
	rt_mesh_auth_init(&coord2, &mac, secret, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
	assert_int_equal(rt_mesh_auth_answer(&coord2, ch, an2, &err), 0);
	assert_memory_not_equal(an + 12, an2 + 12, RT_MESH_AUTH_NONCE);
	assert_int_equal(rt_mesh_auth_check(&coord2, pr, &err), -1);
	assert_non_null(strstr(err.reason, "rank 2 could not prove the job's secret"));
}

/* Rank 0's own proof sent back to it as a rank's (a reflection). */
static void reflected_proof(void **state)
{
	struct rt_mesh_auth coord, rank;
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];
	struct rt_error err = {0};

	(void)state;
	rt_mesh_auth_init(&coord, &mac, secret, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
	rt_mesh_auth_init(&rank, &mac, secret, RT_MESH_AUTH_RANK, 1, SIZE);
	assert_int_equal(rt_mesh_auth_challenge(&rank, ch, &err), 0);
	assert_int_equal(rt_mesh_auth_answer(&coord, ch, an, &err), 0);
	memcpy(pr, an, 12);
	pr[3] = 3;
	memcpy(pr + 12, an + 12 + RT_MESH_AUTH_NONCE, RT_HMAC_LEN);
	assert_int_equal(rt_mesh_auth_check(&coord, pr, &err), -1);
	assert_non_null(strstr(err.reason, "rank 1 could not prove the job's secret"));
}

/* Handshake messages out of place: a plain hello (no authentication at
 * the other end), a wrong type, rank, size or version. */
static void handshake_refusals(void **state)
{
	struct rt_mesh_auth coord, rank;
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], bad[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER];
	static const struct { size_t at; uint8_t v; const char *why; } cases[] = {
		{ 1, 'M', "runs without authentication (--auth none)" },
		{ 0, 'X', "not a mesh challenge" },
		{ 2, 2, "challenge of version 2, want 1" },
		{ 3, 2, "message type 2 where the challenge (type 1) belongs" },
		{ 4, 1, "challenge of rank 16777217 of 8, want a rank of 0 to 7" },
		{ 7, 8, "challenge of rank 8 of 8" },
		{ 11, 9, "challenge of rank 1 of 9" },
	};
	struct rt_error err = {0};

	(void)state;
	rt_mesh_auth_init(&rank, &mac, secret, RT_MESH_AUTH_RANK, 1, SIZE);
	assert_int_equal(rt_mesh_auth_challenge(&rank, ch, &err), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err = (struct rt_error){0};
		memcpy(bad, ch, sizeof(ch));
		bad[cases[i].at] = cases[i].v;
		rt_mesh_auth_init(&coord, &mac, secret, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
		assert_int_equal(rt_mesh_auth_answer(&coord, bad, an, &err), -1);
		if (!strstr(err.reason, cases[i].why))
			fail_msg("case %zu: '%s'", i, err.reason);
		/* nothing goes on after a refusal */
		err = (struct rt_error){0};
		assert_int_equal(rt_mesh_auth_answer(&coord, ch, an, &err), -1);
		assert_non_null(strstr(err.reason, "already refused"));
	}
	/* steps out of turn */
	err = (struct rt_error){0};
	assert_int_equal(rt_mesh_auth_challenge(&rank, ch, &err), -1);
	assert_non_null(strstr(err.reason, "challenge out of turn"));
}

/* The CRED head under MUNGE: its length's bounds, and a secret set
 * after init counts. */
static void cred_head_and_late_secret(void **state)
{
	struct rt_mesh_auth coord, rank, copy;
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];
	uint8_t head[RT_MESH_AUTH_CRED_HEAD];
	struct rt_error err = {0};

	(void)state;
	rt_mesh_auth_init(&coord, &mac, secret, RT_MESH_AUTH_COORDINATOR, 0, SIZE);
	rt_mesh_auth_init(&rank, &mac, other, RT_MESH_AUTH_RANK, 1, SIZE);
	assert_int_equal(rt_mesh_auth_challenge(&rank, ch, &err), 0);
	rt_mesh_auth_cred_head(head, 250);
	copy = rank;
	assert_int_equal(rt_mesh_auth_cred_len(&copy, head, &err), 250);
	rt_mesh_auth_cred_head(head, RT_MESH_AUTH_CRED_MAX - 1);
	assert_int_equal(rt_mesh_auth_cred_len(&copy, head, &err), (int)RT_MESH_AUTH_CRED_MAX - 1);
	rt_mesh_auth_cred_head(head, RT_MESH_AUTH_CRED_MAX);
	assert_int_equal(rt_mesh_auth_cred_len(&copy, head, &err), -1);
	assert_string_equal(err.reason, "mesh auth: a MUNGE credential of 1024 bytes, want 1 to 1023");
	err = (struct rt_error){0};
	copy = rank;
	rt_mesh_auth_cred_head(head, 0);
	assert_int_equal(rt_mesh_auth_cred_len(&copy, head, &err), -1);
	assert_non_null(strstr(err.reason, "of 0 bytes"));
	/* the rank learns the secret from the credential, then proves it */
	err = (struct rt_error){0};
	rt_mesh_auth_secret(&rank, secret);
	assert_int_equal(rt_mesh_auth_answer(&coord, ch, an, &err), 0);
	assert_int_equal(rt_mesh_auth_prove(&rank, an, pr, &err), 0);
	assert_int_equal(rt_mesh_auth_check(&coord, pr, &err), 0);
}

/* An open pair and one sealed frame from rank 0 to the rank. */
static int sealed(struct rt_mesh_auth *coord, struct rt_mesh_auth *rank, uint8_t *frame)
{
	uint8_t msg[RT_MESHMSG_MAX];
	struct rt_error err = {0};

	handshake(coord, rank, 4);
	return rt_mesh_auth_seal(coord, msg, verdict(msg, 1), frame, &err);
}

static void tampered_byte_anywhere(void **state)
{
	struct rt_mesh_auth coord, rank, copy;
	uint8_t frame[RT_MESH_AUTH_FRAME_MAX];
	struct rt_error err;
	int n;

	(void)state;
	n = sealed(&coord, &rank, frame);
	for (int i = 0; i < n; i++)
		for (int bit = 0; bit < 8; bit++) {
			err = (struct rt_error){0};
			copy = rank;
			frame[i] ^= (uint8_t)(1u << bit);
			assert_int_equal(rt_mesh_auth_open(&copy, frame, (size_t)n, &err), -1);
			frame[i] ^= (uint8_t)(1u << bit);
			/* the length bytes make it short or long; every other
			 * byte is the MAC's */
			if (!strstr(err.reason, "altered or foreign message from rank 0") &&
			    !(i >= 4 && i < 8 && strstr(err.reason, "truncated message")))
				fail_msg("byte %d bit %d: '%s'", i, bit, err.reason);
			assert_int_equal(copy.state, RT_MESH_AUTH_REFUSED);
		}
	err = (struct rt_error){0};
	assert_int_equal(rt_mesh_auth_open(&rank, frame, (size_t)n, &err), n - 40);
}

static void truncated_at_every_length(void **state)
{
	struct rt_mesh_auth coord, rank, copy;
	uint8_t frame[RT_MESH_AUTH_FRAME_MAX];
	struct rt_error err;
	int n;

	(void)state;
	n = sealed(&coord, &rank, frame);
	for (int k = 0; k < n; k++) {
		/* an exactly sized copy, so that a read past it is caught */
		uint8_t *cut = malloc((size_t)k + 1);

		memcpy(cut, frame, (size_t)k);
		err = (struct rt_error){0};
		copy = rank;
		assert_int_equal(rt_mesh_auth_open(&copy, cut, (size_t)k, &err), -1);
		if (!strstr(err.reason, "truncated message from rank 0"))
			fail_msg("%d bytes: '%s'", k, err.reason);
		free(cut);
	}
	/* one byte too many is refused too */
	err = (struct rt_error){0};
	frame[n] = 0;
	copy = rank;
	assert_int_equal(rt_mesh_auth_open(&copy, frame, (size_t)n + 1, &err), -1);
	assert_non_null(strstr(err.reason, "its header says"));
}

static void replayed_and_reordered(void **state)
{
	struct rt_mesh_auth coord, rank, copy;
	uint8_t msg[RT_MESHMSG_MAX], f1[RT_MESH_AUTH_FRAME_MAX], f2[RT_MESH_AUTH_FRAME_MAX];
	struct rt_error err = {0};
	int n1, n2;

	(void)state;
	handshake(&coord, &rank, 7);
	n1 = rt_mesh_auth_seal(&rank, msg, result(msg, 1), f1, &err);
	n2 = rt_mesh_auth_seal(&rank, msg, result(msg, 2), f2, &err);
	/* the second before the first: one is missing */
	copy = coord;
	assert_int_equal(rt_mesh_auth_open(&copy, f2, (size_t)n2, &err), -1);
	assert_string_equal(err.reason, "mesh auth: reordered or dropped message from rank 7 "
			    "(sequence 2, want 1)");
	/* in order, then the first again */
	err = (struct rt_error){0};
	assert_true(rt_mesh_auth_open(&coord, f1, (size_t)n1, &err) > 0);
	copy = coord;
	assert_int_equal(rt_mesh_auth_open(&copy, f1, (size_t)n1, &err), -1);
	assert_string_equal(err.reason, "mesh auth: replayed message from rank 7 (sequence 1, "
			    "the last taken 1)");
	err = (struct rt_error){0};
	assert_true(rt_mesh_auth_open(&coord, f2, (size_t)n2, &err) > 0);
	copy = coord;
	assert_int_equal(rt_mesh_auth_open(&copy, f1, (size_t)n1, &err), -1);
	assert_non_null(strstr(err.reason, "replayed message from rank 7"));
}

/* A frame sent back to its sender, or to another connection of the
 * same rank and secret, has the wrong key. */
static void reflected_and_foreign_frames(void **state)
{
	struct rt_mesh_auth coord, rank, coord2, rank2;
	uint8_t msg[RT_MESHMSG_MAX], frame[RT_MESH_AUTH_FRAME_MAX];
	struct rt_error err = {0};
	int n;

	(void)state;
	handshake(&coord, &rank, 4);
	handshake(&coord2, &rank2, 4);
	n = rt_mesh_auth_seal(&rank, msg, result(msg, 1), frame, &err);
	/* back to the rank itself: it is open, and takes from rank 0 only */
	assert_int_equal(rt_mesh_auth_open(&rank, frame, (size_t)n, &err), -1);
	assert_non_null(strstr(err.reason, "altered or foreign message from rank 0"));
	err = (struct rt_error){0};
	assert_int_equal(rt_mesh_auth_open(&coord2, frame, (size_t)n, &err), -1);
	assert_non_null(strstr(err.reason, "altered or foreign message from rank 4"));
	err = (struct rt_error){0};
	assert_true(rt_mesh_auth_open(&coord, frame, (size_t)n, &err) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_handshake_and_frames),
		cmocka_unit_test(rank0_without_the_secret),
		cmocka_unit_test(rank_without_the_secret),
		cmocka_unit_test(replayed_answer_and_proof),
		cmocka_unit_test(reflected_proof),
		cmocka_unit_test(handshake_refusals),
		cmocka_unit_test(cred_head_and_late_secret),
		cmocka_unit_test(tampered_byte_anywhere),
		cmocka_unit_test(truncated_at_every_length),
		cmocka_unit_test(replayed_and_reordered),
		cmocka_unit_test(reflected_and_foreign_frames),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
