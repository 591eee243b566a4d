/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* perftest's out-of-band protocol (perftest's perftest_communication.c:
 * ctx_hand_shake, ctx_xchg_data, ctx_close_connection), the part
 * every ib_*_bw/lat applet shares: the messages, each with its exact size
 * and format, and the steps built from them. The client always writes
 * first and then reads; the server reads first and then writes, as
 * perftest does, so either side may be perftest 4.5 or 25.01.
 *
 * Two channels carry the same sequence: TCP (perftest's default), where
 * key records are text, and with -R a connection of the RDMA CM
 * (cmchan.h), where each message is one SEND and key records are
 * perftest's binary 56-byte struct.
 *
 * Everything read from the peer is untrusted: every message has a fixed
 * length, every field is checked, and a bad one is one line, exit 1,
 * naming the field. Every read and write is bounded by the channel's
 * timeout (oob.h, cmchan.h). Memory: nothing is allocated here. */
#ifndef RDMATEST_PERFTEST_WIRE_H
#define RDMATEST_PERFTEST_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/cmchan.h"
#include "rdmatest/oob.h"

#define RT_PT_PORT 18515
/* What perftest 4.5 announces: >= 5.70, so old peers accept it, and
 * < 6.28, so newer perftest skips its parameter negotiation. */
#define RT_PT_VERSION "6.06"
#define RT_PT_VERSION_LEN 16  /* NUL-padded text */
#define RT_PT_MIN_VERSION 570 /* 5.70, in hundredths */
#define RT_PT_INT_LEN 4       /* cycle buffer, cache line: big-endian int */
#define RT_PT_MTU_LEN 2       /* the ibv_mtu enum as one digit and NUL */
#define RT_PT_KEY_LEN 59      /* LID:OUT:QPN:PSN:RKEY:VADDR:SRQN and NUL */
#define RT_PT_KEY_GID_LEN 108 /* ...:VADDR:16 GID bytes:SRQN: and NUL */
#define RT_PT_KEY_BIN_LEN 56  /* -R: perftest's struct pingpong_dest on x86_64 */
#define RT_PT_DONE_LEN 5      /* "done" and NUL, written at close */
#define RT_PT_CYCLE_BUFFER 4096
#define RT_PT_CACHE_LINE 64
/* A peer's page size or cache line above this is refused: it sizes the
 * buffers both sides allocate. */
#define RT_PT_SYS_MAX (1 << 24)

/* One QP's record. */
struct rt_pt_key {
	uint16_t lid, out_reads;
	uint32_t qpn, psn; /* 24 bits */
	uint32_t rkey, srqn;
	uint64_t vaddr;
	union ibv_gid gid;
};

/* The out-of-band channel: TCP, or with -R messages over an RDMA CM
 * connection. */
struct rt_pt_chan {
	struct rt_oob tcp;     /* fd -1 when cm is used */
	struct rt_cmchan *cm;  /* -R, else NULL */
};

/* The peer's name, for messages. */
const char *rt_pt_peer(const struct rt_pt_chan *ch);
/* Exactly len bytes: on TCP as a stream, over the CM as one message. */
int rt_pt_chan_write(struct rt_pt_chan *ch, const void *buf, size_t len,
		     struct rt_error *err);
int rt_pt_chan_read(struct rt_pt_chan *ch, void *buf, size_t len,
		    struct rt_error *err);

/* -R's binary record: lid, out_reads, qpn, psn, rkey as big-endian 32-bit
 * words at 0, 4, 8, 12, 16; padding at 20; vaddr big-endian at 24; the raw
 * GID at 32; srqn and the GID index at 48 and 52 (perftest ignores both
 * on receipt, and so does this). */
void rt_pt_key_bin_encode(uint8_t out[RT_PT_KEY_BIN_LEN], const struct rt_pt_key *k);
/* Checks the fields a record's reader uses: 16-bit LID and out_reads,
 * 24-bit QPN and PSN, as the text form limits them. */
int rt_pt_key_bin_decode(const uint8_t in[RT_PT_KEY_BIN_LEN], struct rt_pt_key *k,
			 const char *who, struct rt_error *err);

/* The length of a key message: a side that uses a GID index sends and
 * expects the 108-byte form, otherwise the 59-byte one (perftest decides
 * this locally, so both sides must agree). */
size_t rt_pt_key_len(bool gid);
/* Writes rt_pt_key_len(gid) bytes as perftest formats them. */
void rt_pt_key_encode(char *out, bool gid, const struct rt_pt_key *k);
/* Parses exactly len bytes, which must be rt_pt_key_len(gid): a record of
 * the other form names the -x difference. `who` names the peer. */
int rt_pt_key_decode(const char *in, size_t len, bool gid, struct rt_pt_key *k,
		     const char *who, struct rt_error *err);

/* The version message: RT_PT_VERSION NUL-padded. */
void rt_pt_version_encode(char out[RT_PT_VERSION_LEN]);
/* Parses "M.mm" (digits, one dot, at most 15 characters, NUL-padded) to
 * hundredths (6.06 -> 606); a peer below 5.70 is refused as perftest
 * refuses it. */
int rt_pt_version_decode(const char in[RT_PT_VERSION_LEN], unsigned *hundredths,
			 const char *who, struct rt_error *err);
/* The MTU message: the enum value (1 = 256 ... 5 = 4096) as one digit
 * and a NUL. */
void rt_pt_mtu_encode(char out[RT_PT_MTU_LEN], enum ibv_mtu mtu);
int rt_pt_mtu_decode(const char in[RT_PT_MTU_LEN], enum ibv_mtu *mtu,
		     const char *who, struct rt_error *err);

/* One message each way, len bytes: the client writes and then reads, the
 * server reads and then writes. */
int rt_pt_xchg(struct rt_pt_chan *o, bool client, const void *mine, void *theirs,
	       size_t len, struct rt_error *err);

/* What the version, system and MTU handshake settles: each side adopts
 * the larger cycle buffer and cache line and the smaller MTU. */
struct rt_pt_sys {
	unsigned peer_version; /* hundredths */
	uint32_t cycle_buffer, cache_line;
	enum ibv_mtu mtu;
};

/* The handshake (version; cycle buffer; cache line; MTU), starting from
 * this side's values in *s, which it updates. */
int rt_pt_handshake(struct rt_pt_chan *o, bool client, struct rt_pt_sys *s,
		    struct rt_error *err);

/* One key exchange: this side's record for theirs. */
int rt_pt_keys(struct rt_pt_chan *o, bool client, bool gid,
	       const struct rt_pt_key *mine, struct rt_pt_key *theirs,
	       struct rt_error *err);
/* The key exchanges of q QPs, one each way per QP, in QP order. */
int rt_pt_keys_q(struct rt_pt_chan *o, bool client, bool gid,
		 const struct rt_pt_key *mine, struct rt_pt_key *theirs,
		 unsigned q, struct rt_error *err);
/* A barrier: perftest sends QP 0's record again. A record that is not
 * the peer's QP 0 (which the exchange of all q records gave) means the
 * peer walks a different sequence: a different -q or a different test;
 * `step` names where the run was. */
int rt_pt_barrier(struct rt_pt_chan *o, bool client, bool gid,
		  const struct rt_pt_key *mine, const struct rt_pt_key *peer0,
		  const char *step, struct rt_error *err);

/* The bandwidth report that follows a BW run, exchanged field by field:
 * size (8 bytes), iterations (8 bytes for a peer >= 5.33, else 4), peak,
 * average and message rate as big-endian IEEE-754 doubles. */
struct rt_pt_bw_report {
	uint64_t size, iters;
	double bw_peak, bw_avg, msg_rate;
	/* --report-per-port (perftest_dual.h): each port's average and
	 * message rate, exchanged only when both sides give it */
	double bw_port[2], rate_port[2];
};

int rt_pt_bw_report_xchg(struct rt_pt_chan *o, bool client, unsigned peer_version,
			 const struct rt_pt_bw_report *mine,
			 struct rt_pt_bw_report *theirs, struct rt_error *err);
/* The report is taken as it comes: a perftest 4.5 server of a
 * unidirectional test sends whatever its stack held. The side that uses
 * the peer's report checks it: finite figures >= 0, the size of this
 * side's run (a different -s is named). */
int rt_pt_bw_report_check(const struct rt_pt_bw_report *r, uint64_t size,
			  const char *who, struct rt_error *err);

/* The close: a last barrier, then on TCP "done\0", then (kind to
 * perftest 4.5, which writes its own "done" and may find a closed socket)
 * read until the peer closes, within the channel's bound; anything but
 * the peer's "done" and EOF is named. Over the CM the barrier is all. */
int rt_pt_close(struct rt_pt_chan *o, bool client, bool gid,
		const struct rt_pt_key *mine, const struct rt_pt_key *peer0,
		struct rt_error *err);

#endif
