/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Payload verification on untrusted bytes: rt_msg_check, rt_msg_check_seq
 * and rt_pattern_check must never read outside the buffer, must report a
 * bad offset inside it, and must agree with the generator: a message made
 * by rt_msg_fill checks clean, and one with bytes changed by the input
 * is reported at exactly the first changed byte.
 *
 * Input: bytes 0..3 a sender, 4..11 a sequence number, 12..13 a length
 * for generated messages, then pairs (offset, xor) of changes; all of it
 * is also checked as a received message as is. */
#include "fuzz.h"

#include "rdmatest/verify.h"

static void check_received(const uint8_t *buf, size_t len, uint32_t sender,
			   uint64_t seq)
{
	struct rt_msg_hdr h, h2;
	size_t bad = (size_t)-1;
	enum rt_msg_status st = rt_msg_check(buf, len, &h, &bad), st2;
	int64_t off;

	FUZZ_CHECK(st <= RT_MSG_CORRUPT, "status %d", (int)st);
	FUZZ_CHECK(rt_msg_status_str(st) != NULL, "no text");
	if (st == RT_MSG_CORRUPT)
		FUZZ_CHECK(bad < len, "bad offset %zu of %zu", bad, len);
	else
		FUZZ_CHECK(bad == (size_t)-1, "bad offset written on status %d", (int)st);
	FUZZ_CHECK(st != RT_MSG_SHORT || len < RT_MSG_HDR_LEN, "short at %zu", len);
	if (st == RT_MSG_OK) {
		FUZZ_CHECK(h.len == len && h.flags == 0, "ok with len %u flags %u",
			   h.len, h.flags);
		/* the same message checked as the expected one is fine too */
		st2 = rt_msg_check_seq(buf, len, h.sender, h.seq, &bad);
		FUZZ_CHECK(st2 == RT_MSG_OK, "check_seq says %d", (int)st2);
	}
	/* NULL out-parameters are allowed */
	st2 = rt_msg_check(buf, len, NULL, NULL);
	FUZZ_CHECK(st2 == st, "NULL hdr changes the verdict: %d vs %d", (int)st2, (int)st);

	bad = (size_t)-1;
	st = rt_msg_check_seq(buf, len, sender, seq, &bad);
	FUZZ_CHECK(st <= RT_MSG_CORRUPT && st != RT_MSG_SHORT, "check_seq status %d", (int)st);
	if (st == RT_MSG_CORRUPT)
		FUZZ_CHECK(bad < len, "check_seq bad offset %zu of %zu", bad, len);
	if (st == RT_MSG_OK && len >= RT_MSG_HDR_LEN) {
		FUZZ_CHECK(rt_msg_hdr_decode(buf, len, &h2) == RT_MSG_OK &&
			   h2.sender == sender && h2.seq == seq && h2.len == len,
			   "check_seq accepted another message");
	}

	off = rt_pattern_check(buf, len, sender, seq);
	FUZZ_CHECK(off >= -1 && off < (int64_t)len, "pattern offset %lld of %zu",
		   (long long)off, len);
}

/* A generated message, changed where the input says: the first changed
 * byte is what the checks must report. */
static void check_generated(struct fuzz_in *in, uint32_t sender, uint64_t seq,
			    size_t len)
{
	uint8_t *buf = malloc(len ? len : 1), *ref = malloc(len ? len : 1);
	size_t first = len, bad = (size_t)-1;
	struct rt_msg_hdr h;
	enum rt_msg_status st;
	int64_t off;

	if (!buf || !ref)
		abort();
	rt_msg_fill(ref, len, sender, seq);
	memcpy(buf, ref, len);
	st = rt_msg_check_seq(buf, len, sender, seq, &bad);
	FUZZ_CHECK(st == RT_MSG_OK, "clean message of %zu: %d at %zu", len, (int)st, bad);
	if (len >= RT_MSG_HDR_LEN) {
		st = rt_msg_check(buf, len, &h, &bad);
		FUZZ_CHECK(st == RT_MSG_OK && h.sender == sender && h.seq == seq,
			   "clean message of %zu: %d", len, (int)st);
	} else {
		off = rt_pattern_check(buf, len, sender, seq);
		FUZZ_CHECK(off == -1, "clean bare pattern of %zu: %lld", len, (long long)off);
	}
	while (len && in->n >= 3) {
		size_t at = (size_t)fuzz_u64(in, 2) % len;
		uint8_t x = fuzz_u8(in);

		buf[at] ^= x;
	}
	for (size_t i = 0; i < len; i++)
		if (buf[i] != ref[i]) {
			first = i;
			break;
		}
	bad = (size_t)-1;
	st = rt_msg_check_seq(buf, len, sender, seq, &bad);
	if (first == len) {
		FUZZ_CHECK(st == RT_MSG_OK, "unchanged message: %d", (int)st);
	} else if (len < RT_MSG_HDR_LEN || first >= 8) {
		/* past magic and version: a precise offset (a changed length
		 * field is BAD_LENGTH when nothing before it changed) */
		if (first >= 12 && first < 16 && len >= RT_MSG_HDR_LEN)
			FUZZ_CHECK(st == RT_MSG_BAD_LENGTH, "length field changed: %d", (int)st);
		else
			FUZZ_CHECK(st == RT_MSG_CORRUPT && bad == first,
				   "first change at %zu of %zu: status %d at %zu",
				   first, len, (int)st, bad);
	} else if (first < 4) {
		FUZZ_CHECK(st == RT_MSG_BAD_MAGIC, "magic changed: %d", (int)st);
	} else if (first == 4) {
		FUZZ_CHECK(st == RT_MSG_BAD_VERSION, "version changed: %d", (int)st);
	} else {
		FUZZ_CHECK(st == RT_MSG_CORRUPT && bad == first,
			   "flags/reserved changed at %zu: %d at %zu", first, (int)st, bad);
	}
	free(buf);
	free(ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint32_t sender = (uint32_t)fuzz_u64(&in, 4);
	uint64_t seq = fuzz_u64(&in, 8);
	size_t len = (size_t)fuzz_u64(&in, 2) % 2049;
	uint8_t *copy;

	if (size > 8192)
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	check_received(copy, size, sender, seq);
	free(copy);
	check_generated(&in, sender, seq, len);
	return 0;
}
