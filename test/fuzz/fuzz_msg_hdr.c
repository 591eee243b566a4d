/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The payload header the mckey and ucmatose applets put on messages
 * (verify.h), and what mckey's receiver does with datagrams from anyone
 * on the group: rt_msg_hdr_decode must classify exactly as documented and
 * leave the header untouched when it says it did; rt_mc_tally_add must
 * keep its counters consistent whatever arrives.
 *
 * Input: bytes 0..3 the expected count per sender, 4..5 the expected
 * size; then datagrams, each a control byte (bits 0..2: the source QPN;
 * bit 7: the receive ring ran dry after it), a 2-byte length and that
 * many bytes. */
#include "fuzz.h"

#include "rdmacm/udtally.h"
#include "rdmatest/verify.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void check_decode(const uint8_t *buf, size_t len)
{
	struct rt_msg_hdr h, sentinel, again_h;
	uint8_t again[RT_MSG_HDR_LEN];
	enum rt_msg_status st;

	memset(&h, 0xa5, sizeof(h));
	memset(&sentinel, 0xa5, sizeof(sentinel));
	st = rt_msg_hdr_decode(buf, len, &h);
	if (len < RT_MSG_HDR_LEN) {
		FUZZ_CHECK(st == RT_MSG_SHORT, "%zu bytes: %d", len, (int)st);
	} else if (be32(buf) != RT_MSG_MAGIC) {
		FUZZ_CHECK(st == RT_MSG_BAD_MAGIC, "magic: %d", (int)st);
	} else if (buf[4] != RT_MSG_VERSION) {
		FUZZ_CHECK(st == RT_MSG_BAD_VERSION, "version: %d", (int)st);
	} else {
		FUZZ_CHECK(st == (buf[5] || buf[6] || buf[7] ? RT_MSG_CORRUPT : RT_MSG_OK),
			   "flags %u reserved %u %u: %d", buf[5], buf[6], buf[7], (int)st);
		FUZZ_CHECK(h.sender == be32(buf + 8) && h.len == be32(buf + 12) &&
			   h.seq == ((uint64_t)be32(buf + 16) << 32 | be32(buf + 20)) &&
			   h.flags == buf[5], "fields decoded wrong");
		if (st == RT_MSG_OK) { /* encoding gives the same bytes back */
			FUZZ_CHECK(rt_msg_hdr_encode(again, sizeof(again), &h) == RT_MSG_HDR_LEN &&
				   !memcmp(again, buf, RT_MSG_HDR_LEN), "re-encoding differs");
			FUZZ_CHECK(rt_msg_hdr_decode(again, sizeof(again), &again_h) == RT_MSG_OK &&
				   again_h.sender == h.sender && again_h.len == h.len &&
				   again_h.seq == h.seq && again_h.flags == h.flags,
				   "decode(encode) differs");
		}
		return;
	}
	FUZZ_CHECK(!memcmp(&h, &sentinel, sizeof(h)), "status %d wrote the header", (int)st);
	FUZZ_CHECK(rt_msg_hdr_encode(again, RT_MSG_HDR_LEN - 1, &h) == -1,
		   "encoded into a short buffer");
}

static void check_tally(const struct rt_mc_tally *t, uint64_t received)
{
	FUZZ_CHECK(t->received == received, "received %llu of %llu",
		   (unsigned long long)t->received, (unsigned long long)received);
	uint64_t missing = rt_mc_tally_missing(t);
	char hint[200];

	FUZZ_CHECK(t->received == t->distinct + t->duplicates + t->late + t->beyond +
				  t->foreign + t->corrupt, "classes do not add up");
	FUZZ_CHECK(t->out_of_order <= t->distinct && t->wrong_size <= t->received &&
		   t->untracked <= t->foreign, "counters out of bounds");
	FUZZ_CHECK(t->nsnd <= RT_MC_SENDERS_MAX && t->cap <= RT_MC_SENDERS_MAX,
		   "%zu senders tracked", t->nsnd);
	FUZZ_CHECK(memchr(t->problem, '\0', sizeof(t->problem)), "problem unterminated");
	for (size_t i = 0; i < t->nsnd; i++) {
		const struct rt_mc_sender *s = &t->snd[i];

		if (s->key & RT_MC_KEY_QPN)
			continue;
		FUZZ_CHECK(s->distinct <= s->next && s->next <= t->per_sender,
			   "sender %zu past the count", i);
	}
	FUZZ_CHECK(rt_mc_tally_overrun(t) <= missing &&
		   rt_mc_tally_expected(t) >= missing, "overrun or expected off");
	if (rt_mc_tally_hint(t, hint, sizeof(hint)))
		FUZZ_CHECK(memchr(hint, '\0', sizeof(hint)) && missing, "hint without loss");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint64_t per_sender = fuzz_u64(&in, 4) % ((1u << 20) + 1); /* mckey -C */
	size_t expect = (size_t)fuzz_u64(&in, 2);
	struct rt_mc_tally t;
	uint64_t received = 0;
	uint8_t *copy;

	if (size > 16384)
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	check_decode(copy, size);
	free(copy);

	rt_mc_tally_init(&t, per_sender, 1 + per_sender % 7, expect);
	t.ring = 1 + (uint32_t)(per_sender % 64);
	t.ring_max = 4096;
	while (in.n) {
		uint8_t ctl = fuzz_u8(&in);
		size_t want = (size_t)fuzz_u64(&in, 2), len;
		uint8_t *dg = fuzz_bytes(&in, want, &len);
		uint32_t sender = 0x5a5a5a5a;
		enum rt_mc_class c = rt_mc_tally_add(&t, dg, len, ctl & 7, &sender);

		received++;
		check_decode(dg, len);
		FUZZ_CHECK(c <= RT_MC_CORRUPT && rt_mc_class_str(c), "class %d", (int)c);
		FUZZ_CHECK(sender != 0x5a5a5a5a || (len >= 12 && be32(dg + 8) == sender),
			   "sender not written");
		if (c == RT_MC_FOREIGN && (len < RT_MSG_HDR_LEN || be32(dg) != RT_MSG_MAGIC))
			FUZZ_CHECK(sender == 0, "foreign datagram with sender %u", sender);
		if (ctl & 0x80)
			rt_mc_tally_dry(&t);
		check_tally(&t, received);
		free(dg);
	}
	rt_mc_tally_free(&t);
	return 0;
}
