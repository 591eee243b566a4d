/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Payload verification without hidden state. Upstream's format_buf and
 * verify_buf share a process-wide byte counter, so one lost or reordered
 * message shifts every later check and concurrent connections interfere.
 * Here the expected bytes are a pure function of (seed, seq, offset): any
 * message can be checked on its own, in any order, on any connection.
 *
 * Everything in this module is plain computation on byte buffers (no
 * verbs, no I/O), and every checker treats its input as untrusted peer
 * data: it never reads past the length it is given. */
#ifndef RDMATEST_VERIFY_H
#define RDMATEST_VERIFY_H

#include <stddef.h>
#include <stdint.h>

/* Fills buf with the pattern for (seed, seq): byte i is byte i % 8 of the
 * little-endian encoding of word i / 8, and every word is a splitmix64
 * output keyed by seed and seq. Same arguments, same bytes, on any host. */
void rt_pattern_fill(uint8_t *buf, size_t len, uint64_t seed, uint64_t seq);

/* -1 when buf holds exactly the pattern for (seed, seq), else the offset
 * of the first byte that differs. */
int64_t rt_pattern_check(const uint8_t *buf, size_t len, uint64_t seed,
			 uint64_t seq);

/*
 * A message carries a header so that a receiver that cannot know what
 * comes next (multicast datagrams get lost and reordered) can still check
 * it. Wire layout, all big-endian:
 *
 *   0  magic   "RDMT" (0x52444d54)    12  total message length, header included
 *   4  version 1                      16  sequence number (8 bytes)
 *   5  flags   0                      24  payload: the pattern for (sender, seq)
 *   6  reserved 0 (2 bytes)
 *   8  sender id
 *
 * Version 1 defines no flags, so flags and reserved must be 0; anything
 * else is treated as corruption, which leaves no header bit unchecked. A
 * future flag needs a new version.
 *
 * Messages shorter than the header carry the bare pattern for (sender,
 * seq) instead; only a receiver that knows both can check them.
 */
#define RT_MSG_HDR_LEN 24
#define RT_MSG_MAGIC 0x52444d54u
#define RT_MSG_VERSION 1

struct rt_msg_hdr {
	uint32_t sender;
	uint32_t len;	/* total message length, header included */
	uint64_t seq;
	uint8_t flags;	/* 0 in version 1 */
};

enum rt_msg_status {
	RT_MSG_OK,
	RT_MSG_SHORT,		/* fewer bytes than a header */
	RT_MSG_BAD_MAGIC,
	RT_MSG_BAD_VERSION,
	RT_MSG_BAD_LENGTH,	/* length field differs from the bytes received */
	RT_MSG_CORRUPT,		/* some byte differs; see bad_offset */
};

const char *rt_msg_status_str(enum rt_msg_status st);

/* Writes the 24-byte header; returns RT_MSG_HDR_LEN, or -1 (writing
 * nothing) when cap is too small. The caller's flags go out as given, so
 * tests can build headers a version-1 receiver must reject. */
int rt_msg_hdr_encode(uint8_t *buf, size_t cap, const struct rt_msg_hdr *h);

/* Reads the header at the start of buf[0..len). Returns RT_MSG_SHORT,
 * RT_MSG_BAD_MAGIC or RT_MSG_BAD_VERSION leaving *h untouched, otherwise
 * fills *h and returns RT_MSG_OK, or RT_MSG_CORRUPT when flags or
 * reserved are not 0. It does not look at the length field's value. */
enum rt_msg_status rt_msg_hdr_decode(const uint8_t *buf, size_t len,
				     struct rt_msg_hdr *h);

/* A message of len bytes: header (flags 0) and the pattern for (sender,
 * seq) when len >= RT_MSG_HDR_LEN, else the bare pattern for (sender,
 * seq). len must be below 4 GiB (an RDMA message is at most 2 GiB). */
void rt_msg_fill(uint8_t *buf, size_t len, uint32_t sender, uint64_t seq);

/* Checks a message whose sender and seq are not known in advance: decodes
 * the header into *hdr (see rt_msg_hdr_decode for when it is filled),
 * requires its length field to equal len, then checks the payload against
 * the header's sender and seq. Messages shorter than the header give
 * RT_MSG_SHORT. On RT_MSG_CORRUPT, *bad_offset (if bad_offset is not NULL)
 * is the offset in buf of the first bad byte; it is not written otherwise.
 *
 * Without the expected sender and seq, a bit flip in those fields shows
 * only as a payload that no longer matches: it escapes with odds of 1 in
 * 256 per payload byte (1 in 2^64 from 8 bytes on), and always when there
 * is no payload. Callers that know more should use rt_msg_check_seq. */
enum rt_msg_status rt_msg_check(const uint8_t *buf, size_t len,
				struct rt_msg_hdr *hdr, size_t *bad_offset);

/* Checks a message whose sender and seq are known (in-order streams):
 * like rt_msg_check, but a header whose sender or seq differs from the
 * expected one is RT_MSG_CORRUPT with *bad_offset at the first differing
 * byte of that field; this is how a lost or reordered message shows.
 * Messages shorter than the header are checked as the bare pattern. */
enum rt_msg_status rt_msg_check_seq(const uint8_t *buf, size_t len,
				    uint32_t sender, uint64_t seq,
				    size_t *bad_offset);

#endif
