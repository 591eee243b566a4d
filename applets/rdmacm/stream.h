/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The stream test's plan and table, as pure computation: which rows a run
 * has, how each row is printed, the 16-byte sync block, and upstream's
 * running-counter data verification. No I/O here (see rsock.h), so all of
 * it is unit-tested byte for byte against upstream rstream's output. */
#ifndef RDMATEST_STREAM_H
#define RDMATEST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/json.h"
#include "rdmatest/stats.h"

/* ---- the size ladder ------------------------------------------------------ */

/* Upstream's sizes: 64, then 2^k and 1.5 * 2^k for k = 7..22 (33 in all).
 * A default series runs only 64, 4k, 64k and 1m; "-S all" runs them all. */
#define RT_STREAM_LADDER_LEN 33
uint32_t rt_stream_ladder_size(size_t i);
bool rt_stream_ladder_default(size_t i);
/* Largest ladder size: the buffer a series needs. */
#define RT_STREAM_LADDER_MAX (6u << 20)

/* ---- rows ------------------------------------------------------------------ */

enum rt_row_kind {
	RT_ROW_LAT,    /* one transfer each way, size_to_count(size) iterations */
	RT_ROW_BW,     /* size_to_count(size) transfers each way, one iteration */
	RT_ROW_CUSTOM, /* -S/-C/-I as given */
};

struct rt_stream_row {
	char name[24]; /* "4k_lat", "1.5k_bw", "custom" */
	uint64_t size, count, iters;
};

/* For LAT and BW, count and iters are ignored and follow upstream's rule. */
void rt_stream_row_init(struct rt_stream_row *r, enum rt_row_kind kind,
			uint64_t size, uint64_t count, uint64_t iters);
/* Bytes both ways: iterations x count x size x 2. */
uint64_t rt_stream_row_bytes(const struct rt_stream_row *r);
double rt_stream_gbps(const struct rt_stream_row *r, double usec);
double rt_stream_usec_per_xfer(const struct rt_stream_row *r, double usec);

/* The rows of a series of one kind: the default sizes, or every ladder
 * size when `all`, with counts and iterations divided by `scale` (at
 * least 1 each). rows holds RT_STREAM_LADDER_LEN; returns how many. */
size_t rt_stream_series(enum rt_row_kind k, bool all, uint64_t scale,
			struct rt_stream_row *rows);

/* A row's JSON record: parameters, time, rates, and latency percentiles
 * (lat in ns) when lat has samples. */
void rt_stream_row_json(struct rt_json *j, const struct rt_stream_row *r,
			unsigned conn, double usec, const struct rt_hist *lat);

/* The table, byte for byte as upstream prints it (no newline):
 * "name      bytes   xfers   iters   total       time     Gb/sec    usec/xfer"
 * "4k_lat    4k      1       10k     78m         0.09s      6.94       4.72" */
void rt_stream_header(char *buf, size_t len);
void rt_stream_row_format(char *buf, size_t len, const struct rt_stream_row *r,
			  double usec);

/* ---- the sync block ----------------------------------------------------------- */

/* Each row starts with 16 bytes each way whose contents upstream never
 * reads (without -T v). rdmatest puts its row parameters there, so two
 * rdmatest peers find a -S/-C/-I mismatch at once instead of stalling:
 *   0 'r' 't'   2 role 'c' or 's'   3 version 1
 *   4 size      8 count     12 iterations   (big-endian 32-bit)
 * An upstream peer sends whatever its buffer holds, often our own block
 * echoed back: a block is the peer's only when its role is not ours. */
#define RT_STREAM_SYNC_LEN 16

struct rt_stream_sync {
	char role; /* 'c' or 's' */
	uint32_t size, count, iters;
};

void rt_stream_sync_encode(uint8_t *buf, char role, const struct rt_stream_row *r);
/* true when buf holds a block (of either role). */
bool rt_stream_sync_decode(const uint8_t *buf, struct rt_stream_sync *out);

/* What a peer's sync block says to a side that does not verify (role
 * ours). Upstream's stale bytes and our own block echoed say nothing. */
enum rt_sync_verdict {
	RT_SYNC_OK,
	RT_SYNC_VERIFIES, /* 16 counter bytes: the peer uses -T v */
	RT_SYNC_DIFFERS,  /* an rdmatest peer runs other parameters: see *peer */
};
enum rt_sync_verdict rt_stream_sync_check(const uint8_t *buf, char role,
					  const struct rt_stream_row *r,
					  struct rt_stream_sync *peer);

/* ---- verification (-T v) -------------------------------------------------------- */

/* Upstream's semantics, without its globals: every byte sent is the next
 * value of an 8-bit counter (0, 1, ..., 255, 0, ...) and every byte received
 * is checked against a second counter. Both run over the whole process:
 * across rows, syncs included, and across connections. */
struct rt_stream_verify {
	uint8_t fill_next;  /* next byte to send */
	uint8_t check_next; /* next byte expected */
	uint64_t checked;   /* bytes checked so far, the numbering of failures */
};

void rt_stream_verify_fill(struct rt_stream_verify *v, uint8_t *buf, size_t n);
/* -1 when all n bytes match; else the stream position of the first bad
 * byte (as upstream's "data verification failed byte N"). As upstream, a
 * failure leaves the expected counter past the bad byte. */
int64_t rt_stream_verify_check(struct rt_stream_verify *v, const uint8_t *buf,
			       size_t n);
/* Advances both counters past whole rows (each with its sync) moved
 * elsewhere: a -T f server process that exited 0 moved every byte. */
void rt_stream_verify_skip(struct rt_stream_verify *v, const struct rt_stream_row *rows,
			   size_t n);

#endif
