/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/util.h"
#include "rdmatest/verify.h"

/* The sizes around the header boundary, plus a typical and a page. */
static const size_t sizes[] = { 1, 23, 24, 25, 100, 4096 };

/* Deterministic, so a failing fuzz case is the same on every run. */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Exactly len bytes on the heap, so valgrind sees any read past the end. */
static uint8_t *msg_new(size_t len, uint32_t sender, uint64_t seq)
{
	uint8_t *b = rt_xmalloc(len);

	rt_msg_fill(b, len, sender, seq);
	return b;
}

static void pattern_is_deterministic_and_keyed(void **state)
{
	uint8_t a[100], b[100], zero[100] = { 0 };

	(void)state;
	rt_pattern_fill(a, sizeof(a), 0, 0);
	rt_pattern_fill(b, sizeof(b), 0, 0);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, zero, sizeof(a));
	assert_int_equal(rt_pattern_check(a, sizeof(a), 0, 0), -1);
	/* a byte depends on its offset only, not on the buffer length */
	rt_pattern_fill(b, 13, 0, 0);
	assert_memory_equal(a, b, 13);
	assert_int_equal(rt_pattern_check(a, 13, 0, 0), -1);
	rt_pattern_fill(b, sizeof(b), 1, 0);
	assert_memory_not_equal(a, b, sizeof(a));
	rt_pattern_fill(b, sizeof(b), 0, 1);
	assert_memory_not_equal(a, b, sizeof(a));
	assert_int_equal(rt_pattern_check(NULL, 0, 5, 5), -1);
}

/* A fixed point of the byte order: the pattern must not change between
 * hosts or releases, since peers of different builds check each other. */
static void pattern_bytes_are_stable(void **state)
{
	static const uint8_t want[] = { 0xb1, 0xa7, 0xe1, 0x0b, 0x47, 0xd0,
					0xf6, 0xd2, 0xaf, 0xa9 };
	uint8_t b[sizeof(want)];

	(void)state;
	rt_pattern_fill(b, sizeof(b), 1, 2);
	assert_memory_equal(b, want, sizeof(want));
}

static void pattern_catches_every_bit_flip(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t len = sizes[i];
		uint8_t *b = rt_xmalloc(len);

		rt_pattern_fill(b, len, 42, 7);
		assert_int_equal(rt_pattern_check(b, len, 42, 7), -1);
		for (size_t off = 0; off < len; off++) {
			for (int bit = 0; bit < 8; bit++) {
				b[off] ^= (uint8_t)(1u << bit);
				assert_int_equal(rt_pattern_check(b, len, 42, 7),
						 (int64_t)off);
				b[off] ^= (uint8_t)(1u << bit);
			}
		}
		free(b);
	}
}

static void pattern_reports_first_of_several(void **state)
{
	uint8_t b[4096];

	(void)state;
	rt_pattern_fill(b, sizeof(b), 3, 3);
	b[4095] ^= 0x80;
	assert_int_equal(rt_pattern_check(b, sizeof(b), 3, 3), 4095);
	b[1000] ^= 1;
	assert_int_equal(rt_pattern_check(b, sizeof(b), 3, 3), 1000);
	b[7] ^= 0x10;
	assert_int_equal(rt_pattern_check(b, sizeof(b), 3, 3), 7);
	b[8] ^= 0x10;
	assert_int_equal(rt_pattern_check(b, sizeof(b), 3, 3), 7);
}

static void msg_roundtrip(void **state)
{
	const size_t lens[] = { 0, 1, 23, 24, 25, 100, 4096, 65536 };
	struct rt_msg_hdr h;
	size_t bad = 12345;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		uint8_t *b = msg_new(lens[i], 0xdeadbeef, 1ull << 40);

		assert_int_equal(rt_msg_check_seq(b, lens[i], 0xdeadbeef,
						  1ull << 40, &bad), RT_MSG_OK);
		if (lens[i] < RT_MSG_HDR_LEN) {
			assert_int_equal(rt_msg_check(b, lens[i], &h, &bad),
					 RT_MSG_SHORT);
		} else {
			memset(&h, 0xff, sizeof(h));
			assert_int_equal(rt_msg_check(b, lens[i], &h, &bad),
					 RT_MSG_OK);
			assert_int_equal(h.sender, 0xdeadbeef);
			assert_int_equal(h.len, lens[i]);
			assert_int_equal(h.seq, 1ull << 40);
			assert_int_equal(h.flags, 0);
			assert_int_equal(rt_msg_check(b, lens[i], NULL, NULL),
					 RT_MSG_OK);
		}
		free(b);
	}
	assert_int_equal(bad, 12345); /* only written on CORRUPT */
}

/* What rt_msg_check_seq must say when byte off is the first bad one:
 * the checks run in wire order, so the first bad byte decides. */
static enum rt_msg_status seq_verdict(size_t len, size_t off)
{
	if (len < RT_MSG_HDR_LEN || off >= 16 || (off >= 5 && off < 12))
		return RT_MSG_CORRUPT;
	if (off < 4)
		return RT_MSG_BAD_MAGIC;
	if (off == 4)
		return RT_MSG_BAD_VERSION;
	return RT_MSG_BAD_LENGTH;
}

static void msg_check_seq_catches_every_bit_flip(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t len = sizes[i], bad;
		uint8_t *b = msg_new(len, 9, 77);

		for (size_t off = 0; off < len; off++) {
			enum rt_msg_status want = seq_verdict(len, off);

			for (int bit = 0; bit < 8; bit++) {
				b[off] ^= (uint8_t)(1u << bit);
				bad = SIZE_MAX;
				assert_int_equal(rt_msg_check_seq(b, len, 9, 77, &bad),
						 want);
				if (want == RT_MSG_CORRUPT)
					assert_int_equal(bad, off);
				b[off] ^= (uint8_t)(1u << bit);
			}
		}
		free(b);
	}
}

/* Without the expected identity, a flipped sender or seq is a header for
 * a different message, whose payload is then wrong from its first byte
 * that differs between the two patterns. */
static void check_flipped_identity(const uint8_t *b, size_t len)
{
	struct rt_msg_hdr h;
	size_t bad = SIZE_MAX;
	int64_t first;

	assert_int_equal(rt_msg_hdr_decode(b, len, &h), RT_MSG_OK);
	first = rt_pattern_check(b + RT_MSG_HDR_LEN, len - RT_MSG_HDR_LEN,
				 h.sender, h.seq);
	if (len - RT_MSG_HDR_LEN >= 8)
		assert_true(first >= 0);
	if (first < 0) { /* too little payload: the caller sees the new id */
		assert_int_equal(rt_msg_check(b, len, &h, &bad), RT_MSG_OK);
		assert_true(h.sender != 9 || h.seq != 77);
		return;
	}
	assert_int_equal(rt_msg_check(b, len, &h, &bad), RT_MSG_CORRUPT);
	assert_int_equal(bad, RT_MSG_HDR_LEN + (size_t)first);
}

static void msg_check_catches_every_bit_flip(void **state)
{
	struct rt_msg_hdr h;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t len = sizes[i], bad;
		uint8_t *b = msg_new(len, 9, 77);

		for (size_t off = 0; off < len; off++) {
			bool identity = (off >= 8 && off < 12) ||
					(off >= 16 && off < 24);
			enum rt_msg_status want = len < RT_MSG_HDR_LEN ?
				RT_MSG_SHORT : seq_verdict(len, off);

			for (int bit = 0; bit < 8; bit++) {
				b[off] ^= (uint8_t)(1u << bit);
				bad = SIZE_MAX;
				if (identity && len >= RT_MSG_HDR_LEN) {
					check_flipped_identity(b, len);
				} else {
					assert_int_equal(rt_msg_check(b, len, &h, &bad),
							 want);
					if (want == RT_MSG_CORRUPT)
						assert_int_equal(bad, off);
				}
				b[off] ^= (uint8_t)(1u << bit);
			}
		}
		free(b);
	}
}

static void truncation_and_extension(void **state)
{
	const size_t lens[] = { 24, 25, 100, 4096 };
	struct rt_msg_hdr h;
	size_t bad;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		size_t n = lens[i];
		uint8_t *b = rt_xmalloc(n + 1);

		rt_msg_fill(b, n, 1, 2);
		b[n] = 0;
		assert_int_equal(rt_msg_check(b, n + 1, &h, &bad),
				 RT_MSG_BAD_LENGTH);
		assert_int_equal(rt_msg_check_seq(b, n + 1, 1, 2, &bad),
				 RT_MSG_BAD_LENGTH);
		if (n - 1 < RT_MSG_HDR_LEN) {
			assert_int_equal(rt_msg_check(b, n - 1, &h, &bad),
					 RT_MSG_SHORT);
			/* checked as a bare pattern, the header cannot pass */
			assert_int_equal(rt_msg_check_seq(b, n - 1, 1, 2, &bad),
					 RT_MSG_CORRUPT);
		} else {
			assert_int_equal(rt_msg_check(b, n - 1, &h, &bad),
					 RT_MSG_BAD_LENGTH);
			assert_int_equal(rt_msg_check_seq(b, n - 1, 1, 2, &bad),
					 RT_MSG_BAD_LENGTH);
		}
		free(b);
	}
}

static void reordering_is_caught(void **state)
{
	uint8_t m1[100], m2[100], s1[16], s2[16];
	struct rt_msg_hdr h;
	size_t bad = 0;

	(void)state;
	rt_msg_fill(m1, sizeof(m1), 3, 5);
	/* seq 5 where 4 was due: the last byte of the seq field differs */
	assert_int_equal(rt_msg_check_seq(m1, sizeof(m1), 3, 4, &bad),
			 RT_MSG_CORRUPT);
	assert_int_equal(bad, 23);
	assert_int_equal(rt_msg_check_seq(m1, sizeof(m1), 3, 5 + 0x100, &bad),
			 RT_MSG_CORRUPT);
	assert_int_equal(bad, 22);
	assert_int_equal(rt_msg_check_seq(m1, sizeof(m1), 3 + 0x10000, 5, &bad),
			 RT_MSG_CORRUPT);
	assert_int_equal(bad, 9);

	/* two messages swapped in flight */
	rt_msg_fill(m1, sizeof(m1), 3, 1);
	rt_msg_fill(m2, sizeof(m2), 3, 2);
	assert_int_equal(rt_msg_check_seq(m2, sizeof(m2), 3, 1, &bad),
			 RT_MSG_CORRUPT);
	assert_int_equal(bad, 23);
	assert_int_equal(rt_msg_check_seq(m1, sizeof(m1), 3, 2, &bad),
			 RT_MSG_CORRUPT);
	assert_int_equal(bad, 23);
	/* a receiver without expectations still learns the real order */
	assert_int_equal(rt_msg_check(m2, sizeof(m2), &h, &bad), RT_MSG_OK);
	assert_int_equal(h.seq, 2);

	/* headerless messages swapped: the bare patterns differ */
	rt_msg_fill(s1, sizeof(s1), 3, 1);
	rt_msg_fill(s2, sizeof(s2), 3, 2);
	assert_int_equal(rt_msg_check_seq(s2, sizeof(s2), 3, 1, &bad),
			 RT_MSG_CORRUPT);
	assert_int_equal(bad, (size_t)rt_pattern_check(s2, sizeof(s2), 3, 1));
}

static void senders_and_seqs_give_different_data(void **state)
{
	enum { N = 16, LEN = RT_MSG_HDR_LEN + 64 };
	static uint8_t m[N * N][LEN];
	uint8_t mixed[LEN];
	size_t bad;

	(void)state;
	for (int i = 0; i < N * N; i++)
		rt_msg_fill(m[i], LEN, (uint32_t)(i / N), (uint64_t)(i % N));
	for (int i = 0; i < N * N; i++)
		for (int k = i + 1; k < N * N; k++)
			assert_memory_not_equal(m[i] + RT_MSG_HDR_LEN,
						m[k] + RT_MSG_HDR_LEN, 64);
	/* another sender's payload under this header is caught */
	for (int i = 0; i < N * N; i++) {
		memcpy(mixed, m[i], RT_MSG_HDR_LEN);
		memcpy(mixed + RT_MSG_HDR_LEN, m[(i + N) % (N * N)] + RT_MSG_HDR_LEN, 64);
		assert_int_equal(rt_msg_check(mixed, LEN, NULL, &bad),
				 RT_MSG_CORRUPT);
		assert_true(bad >= RT_MSG_HDR_LEN && bad < LEN);
	}
}

static void header_wire_format(void **state)
{
	static const uint8_t want[RT_MSG_HDR_LEN] = {
		'R', 'D', 'M', 'T', 1, 0, 0, 0,
		0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x10, 0x00,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	};
	struct rt_msg_hdr h = { .sender = 0x01020304, .len = 4096,
				.seq = 0x1122334455667788ull };
	struct rt_msg_hdr got;
	uint8_t b[RT_MSG_HDR_LEN + 1];

	(void)state;
	memset(b, 0xaa, sizeof(b));
	assert_int_equal(rt_msg_hdr_encode(b, RT_MSG_HDR_LEN - 1, &h), -1);
	assert_int_equal(b[0], 0xaa);
	assert_int_equal(rt_msg_hdr_encode(b, sizeof(b), &h), RT_MSG_HDR_LEN);
	assert_memory_equal(b, want, sizeof(want));
	assert_int_equal(b[RT_MSG_HDR_LEN], 0xaa);
	memset(&got, 0xff, sizeof(got));
	assert_int_equal(rt_msg_hdr_decode(b, RT_MSG_HDR_LEN, &got), RT_MSG_OK);
	assert_int_equal(got.sender, h.sender);
	assert_int_equal(got.len, h.len);
	assert_int_equal(got.seq, h.seq);
	assert_int_equal(got.flags, 0);
}

static void header_decode_rejects(void **state)
{
	struct rt_msg_hdr h = { .sender = 1, .len = 24, .seq = 2 }, got;
	uint8_t b[RT_MSG_HDR_LEN];
	size_t bad;

	(void)state;
	rt_msg_hdr_encode(b, sizeof(b), &h);
	memset(&got, 0x5a, sizeof(got));
	assert_int_equal(rt_msg_hdr_decode(b, 23, &got), RT_MSG_SHORT);
	b[3] = 'X';
	assert_int_equal(rt_msg_hdr_decode(b, 24, &got), RT_MSG_BAD_MAGIC);
	b[3] = 'T';
	b[4] = 2;
	assert_int_equal(rt_msg_hdr_decode(b, 24, &got), RT_MSG_BAD_VERSION);
	assert_int_equal(got.sender, 0x5a5a5a5a); /* untouched so far */
	b[4] = 1;
	h.flags = 0x40; /* no flag is defined in version 1 */
	rt_msg_hdr_encode(b, sizeof(b), &h);
	assert_int_equal(rt_msg_hdr_decode(b, 24, &got), RT_MSG_CORRUPT);
	assert_int_equal(got.flags, 0x40);
	assert_int_equal(got.seq, 2);
	assert_int_equal(rt_msg_check(b, 24, NULL, &bad), RT_MSG_CORRUPT);
	assert_int_equal(bad, 5);
	b[5] = 0;
	b[7] = 1;
	assert_int_equal(rt_msg_check_seq(b, 24, 1, 2, &bad), RT_MSG_CORRUPT);
	assert_int_equal(bad, 7);
}

static void status_strings(void **state)
{
	(void)state;
	assert_string_equal(rt_msg_status_str(RT_MSG_OK), "ok");
	assert_string_equal(rt_msg_status_str(RT_MSG_SHORT),
			    "shorter than the header");
	assert_string_equal(rt_msg_status_str(RT_MSG_CORRUPT), "data corrupt");
	for (int a = RT_MSG_OK; a <= RT_MSG_CORRUPT; a++)
		for (int b = a + 1; b <= RT_MSG_CORRUPT; b++)
			assert_string_not_equal(rt_msg_status_str(a),
						rt_msg_status_str(b));
	assert_string_equal(rt_msg_status_str((enum rt_msg_status)99),
			    "unknown status");
}

/* Random bytes behind a valid header half of the time, so that the
 * fuzzing also reaches the payload check. */
static uint8_t *random_msg(uint64_t *rng, size_t len, int with_header)
{
	uint8_t *b = rt_xmalloc(len);
	struct rt_msg_hdr h = {
		.sender = (uint32_t)xorshift(rng), .len = (uint32_t)len,
		.seq = xorshift(rng),
	};

	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)xorshift(rng);
	if (with_header)
		rt_msg_hdr_encode(b, len, &h);
	return b;
}

static void fuzz_random_buffers(void **state)
{
	uint64_t rng = 0x243f6a8885a308d3ull;
	struct rt_msg_hdr h;
	size_t bad;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		size_t len = xorshift(&rng) % 200;
		uint8_t *b = random_msg(&rng, len, iter % 2);
		/* fewer random bytes than this may match by chance */
		int may_pass = len < RT_MSG_HDR_LEN + 8;
		enum rt_msg_status st;

		st = rt_msg_check(b, len, &h, &bad);
		assert_true(st != RT_MSG_OK || may_pass);
		if (st == RT_MSG_CORRUPT)
			assert_true(bad < len);
		st = rt_msg_check_seq(b, len, 1, 2, &bad);
		assert_true(st != RT_MSG_OK || len < 8);
		if (st == RT_MSG_CORRUPT)
			assert_true(bad < len);
		rt_msg_hdr_decode(b, len, &h);
		free(b);
	}
}

static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Random damage to valid messages: check_seq must name the first damaged
 * byte exactly, check must never pass a damaged message with a payload. */
static void fuzz_damaged_messages(void **state)
{
	uint64_t rng = 0x13198a2e03707344ull;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		size_t len = 1 + xorshift(&rng) % 300, first, bad = SIZE_MAX;
		uint32_t sender = (uint32_t)xorshift(&rng);
		uint64_t seq = xorshift(&rng);
		uint8_t *b = msg_new(len, sender, seq);
		uint8_t *ref = msg_new(len, sender, seq);
		int hits = 1 + (int)(xorshift(&rng) % 4);
		enum rt_msg_status st;

		for (int k = 0; k < hits; k++)
			b[xorshift(&rng) % len] ^= (uint8_t)xorshift(&rng);
		first = first_diff(b, ref, len); /* len: the damage cancelled out */
		st = rt_msg_check_seq(b, len, sender, seq, &bad);
		if (first == len)
			assert_int_equal(st, RT_MSG_OK);
		else
			assert_int_equal(st, seq_verdict(len, first));
		if (st == RT_MSG_CORRUPT)
			assert_int_equal(bad, first);
		if (first < len && len >= RT_MSG_HDR_LEN + 8) {
			st = rt_msg_check(b, len, NULL, &bad);
			assert_int_not_equal(st, RT_MSG_OK);
			if (st == RT_MSG_CORRUPT)
				assert_true(bad >= first && bad < len);
		}
		free(ref);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pattern_is_deterministic_and_keyed),
		cmocka_unit_test(pattern_bytes_are_stable),
		cmocka_unit_test(pattern_catches_every_bit_flip),
		cmocka_unit_test(pattern_reports_first_of_several),
		cmocka_unit_test(msg_roundtrip),
		cmocka_unit_test(msg_check_seq_catches_every_bit_flip),
		cmocka_unit_test(msg_check_catches_every_bit_flip),
		cmocka_unit_test(truncation_and_extension),
		cmocka_unit_test(reordering_is_caught),
		cmocka_unit_test(senders_and_seqs_give_different_data),
		cmocka_unit_test(header_wire_format),
		cmocka_unit_test(header_decode_rejects),
		cmocka_unit_test(status_strings),
		cmocka_unit_test(fuzz_random_buffers),
		cmocka_unit_test(fuzz_damaged_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
