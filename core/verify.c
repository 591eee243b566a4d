/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/util.h"
#include "rdmatest/verify.h"

/* splitmix64: the golden-ratio step and its output mix. Each output word
 * depends only on the counter value, so a word never waits for the one
 * before it and the loops below run at memory speed. */
#define GAMMA 0x9e3779b97f4a7c15ull

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Adding GAMMA first keeps seed 0 off mix64's fixed point at 0. Two
 * (seed, seq) pairs share a stream only if their keys collide, which for
 * distinct pairs has odds of about 2^-64. */
static uint64_t stream_key(uint64_t seed, uint64_t seq)
{
	return mix64(mix64(seed + GAMMA) ^ seq);
}

/* Byte-wise so the pattern is the same on any host; compilers turn these
 * into one unaligned load or store where the host allows it. */
static uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	       (uint64_t)p[7] << 56;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	p[4] = (uint8_t)(v >> 32);
	p[5] = (uint8_t)(v >> 40);
	p[6] = (uint8_t)(v >> 48);
	p[7] = (uint8_t)(v >> 56);
}

void rt_pattern_fill(uint8_t *buf, size_t len, uint64_t seed, uint64_t seq)
{
	uint64_t ctr = stream_key(seed, seq);
	uint64_t w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		ctr += GAMMA;
		put_le64(buf + i, mix64(ctr));
	}
	w = mix64(ctr + GAMMA);
	for (; i < len; i++, w >>= 8)
		buf[i] = (uint8_t)w;
}

/* Index of the lowest non-zero byte of a non-zero word: with little-endian
 * words that is the first differing byte in memory order. */
static size_t first_set_byte(uint64_t diff)
{
	size_t k = 0;

	while (!(diff & 0xff)) {
		diff >>= 8;
		k++;
	}
	return k;
}

int64_t rt_pattern_check(const uint8_t *buf, size_t len, uint64_t seed,
			 uint64_t seq)
{
	uint64_t ctr = stream_key(seed, seq);
	uint64_t w, diff;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		ctr += GAMMA;
		diff = get_le64(buf + i) ^ mix64(ctr);
		if (diff)
			return (int64_t)(i + first_set_byte(diff));
	}
	w = mix64(ctr + GAMMA);
	for (; i < len; i++, w >>= 8)
		if (buf[i] != (uint8_t)w)
			return (int64_t)i;
	return -1;
}

const char *rt_msg_status_str(enum rt_msg_status st)
{
	switch (st) {
	case RT_MSG_OK:
		return "ok";
	case RT_MSG_SHORT:
		return "shorter than the header";
	case RT_MSG_BAD_MAGIC:
		return "bad magic, not an rdmatest message";
	case RT_MSG_BAD_VERSION:
		return "unsupported message version";
	case RT_MSG_BAD_LENGTH:
		return "length field differs from the bytes received";
	case RT_MSG_CORRUPT:
		return "data corrupt";
	}
	return "unknown status";
}

int rt_msg_hdr_encode(uint8_t *buf, size_t cap, const struct rt_msg_hdr *h)
{
	if (cap < RT_MSG_HDR_LEN)
		return -1;
	rt_put_be32(buf, RT_MSG_MAGIC);
	buf[4] = RT_MSG_VERSION;
	buf[5] = h->flags;
	buf[6] = 0;
	buf[7] = 0;
	rt_put_be32(buf + 8, h->sender);
	rt_put_be32(buf + 12, h->len);
	rt_put_be64(buf + 16, h->seq);
	return RT_MSG_HDR_LEN;
}

/* The decoder proper; it also says where a CORRUPT header went wrong. */
static enum rt_msg_status decode(const uint8_t *buf, size_t len,
				 struct rt_msg_hdr *h, size_t *bad)
{
	size_t off;

	if (len < RT_MSG_HDR_LEN)
		return RT_MSG_SHORT;
	if (rt_get_be32(buf) != RT_MSG_MAGIC)
		return RT_MSG_BAD_MAGIC;
	if (buf[4] != RT_MSG_VERSION)
		return RT_MSG_BAD_VERSION;
	h->flags = buf[5];
	h->sender = rt_get_be32(buf + 8);
	h->len = rt_get_be32(buf + 12);
	h->seq = rt_get_be64(buf + 16);
	for (off = 5; off < 8; off++) {	/* flags and reserved */
		if (buf[off]) {
			*bad = off;
			return RT_MSG_CORRUPT;
		}
	}
	return RT_MSG_OK;
}

enum rt_msg_status rt_msg_hdr_decode(const uint8_t *buf, size_t len,
				     struct rt_msg_hdr *h)
{
	size_t unused;

	return decode(buf, len, h, &unused);
}

void rt_msg_fill(uint8_t *buf, size_t len, uint32_t sender, uint64_t seq)
{
	struct rt_msg_hdr h = {
		.sender = sender, .len = (uint32_t)len, .seq = seq,
	};

	if (rt_msg_hdr_encode(buf, len, &h) < 0) {
		rt_pattern_fill(buf, len, sender, seq);
		return;
	}
	rt_pattern_fill(buf + RT_MSG_HDR_LEN, len - RT_MSG_HDR_LEN, sender, seq);
}

static enum rt_msg_status corrupt_at(size_t off, size_t *bad_offset)
{
	if (bad_offset)
		*bad_offset = off;
	return RT_MSG_CORRUPT;
}

/* Pattern check of buf[start..len), reporting offsets within buf. */
static enum rt_msg_status check_from(const uint8_t *buf, size_t len,
				     size_t start, uint32_t sender,
				     uint64_t seq, size_t *bad_offset)
{
	int64_t off = rt_pattern_check(buf + start, len - start, sender, seq);

	if (off < 0)
		return RT_MSG_OK;
	return corrupt_at(start + (size_t)off, bad_offset);
}

enum rt_msg_status rt_msg_check(const uint8_t *buf, size_t len,
				struct rt_msg_hdr *hdr, size_t *bad_offset)
{
	struct rt_msg_hdr local;
	enum rt_msg_status st;
	size_t bad = 0;

	if (!hdr)
		hdr = &local;
	st = decode(buf, len, hdr, &bad);
	if (st == RT_MSG_CORRUPT)
		return corrupt_at(bad, bad_offset);
	if (st != RT_MSG_OK)
		return st;
	if (hdr->len != len)
		return RT_MSG_BAD_LENGTH;
	return check_from(buf, len, RT_MSG_HDR_LEN, hdr->sender, hdr->seq,
			  bad_offset);
}

/* Offset of the first byte where a and b differ, n when they do not. */
static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;

	while (i < n && a[i] == b[i])
		i++;
	return i;
}

enum rt_msg_status rt_msg_check_seq(const uint8_t *buf, size_t len,
				    uint32_t sender, uint64_t seq,
				    size_t *bad_offset)
{
	struct rt_msg_hdr got, want = { .sender = sender, .seq = seq };
	uint8_t ref[RT_MSG_HDR_LEN];
	enum rt_msg_status st;
	size_t bad = 0, off;

	if (len < RT_MSG_HDR_LEN)
		return check_from(buf, len, 0, sender, seq, bad_offset);
	st = decode(buf, len, &got, &bad);
	if (st == RT_MSG_CORRUPT)
		return corrupt_at(bad, bad_offset);
	if (st != RT_MSG_OK)
		return st;
	/* compare the fields as bytes, in wire order, to name the first bad one */
	rt_msg_hdr_encode(ref, sizeof(ref), &want);
	off = first_diff(buf + 8, ref + 8, 4);
	if (off < 4)
		return corrupt_at(8 + off, bad_offset);
	if (got.len != len)
		return RT_MSG_BAD_LENGTH;
	off = first_diff(buf + 16, ref + 16, 8);
	if (off < 8)
		return corrupt_at(16 + off, bad_offset);
	return check_from(buf, len, RT_MSG_HDR_LEN, sender, seq, bad_offset);
}
