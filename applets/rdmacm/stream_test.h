/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The stream test's rows over one connected stream, as rdma-core's
 * stream tools run them (rstream; riostream has the same rows, sync and
 * table): per row a 16-byte sync each way, then per iteration `count`
 * transfers client to server and as many back; the table line and a JSON
 * record per row. riostream's rows (t->iomap) write each transfer into the
 * peer's mapped buffer at offset 0; the last of an iteration ends with a
 * marker byte (0, 1, ... per row, one per direction and iteration) that the
 * receiver waits for, the others with the marker before it; -T v fills and
 * checks only the first size - 1 bytes of that last transfer, and the
 * sync bytes are never counter data. Every failure names the row, iteration, transfer and
 * direction, then the applet's hint about what probably differs. */
#ifndef RDMATEST_STREAM_TEST_H
#define RDMATEST_STREAM_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmacm/child.h"
#include "rdmatest/error.h"
#include "rdmatest/json.h"
#include "rdmatest/log.h"
#include "rdmacm/rsock.h"
#include "rdmatest/stats.h"
#include "rdmacm/stream.h"

enum rt_stream_step { RT_STEP_SYNC, RT_STEP_FORWARD, RT_STEP_BACK };

struct rt_stream_test {
	/* set by the applet */
	struct rt_stream *s;          /* connected (timeout_ms bounds every wait) */
	uint8_t *sbuf, *rbuf;         /* each as large as the largest row and the sync */
	uint8_t *iomap;               /* riostream: as large as the largest row, mapped
				       * per row for the peer's riowrites; NULL: rows
				       * move with send/recv (rstream) */
	bool server, verify;          /* verify: -T v, upstream's running counter */
	struct rt_stream_verify v;    /* runs on across rows and connections */
	const char *hint;             /* after a reason: what probably differs */
	const char *name;             /* applet name, for the progress line */
	FILE *progress_out;           /* NULL: no progress line */
	const struct rt_log *log;
	struct rt_error *err;
	struct rt_json *results;      /* the open array row records go into */
	struct rt_child_share *child; /* in a child process: beats; records go there */
	unsigned conn;                /* connection number, for messages and records */
	/* where the test is */
	const struct rt_stream_row *row; /* NULL between rows */
	uint64_t iter, xfer, row_start_bytes;
	enum rt_stream_step step;
	struct rt_progress progress;
	struct rt_hist lat;           /* the current row's latencies, fixed size */
};

/* Runs the rows; a server then waits for the client to close first
 * (bytes after the last row are a failure). After an interrupt the
 * iterations of the row it cut short are recorded as a row of their own. */
int rt_stream_test_rows(struct rt_stream_test *t, const struct rt_stream_row *rows,
			size_t n);
/* rt_stream_describe_fn for t->s: "row 4k_lat (iteration 3 of 10, transfer
 * 1 of 1, client to server)" or "connection 2" between rows. */
void rt_stream_test_describe(void *t, char *where, size_t wlen, char *hint, size_t hlen);
/* Records a pending interrupt as the failure, naming where it struck;
 * nothing when no signal came or a failure is recorded already. */
void rt_stream_test_interrupted(struct rt_stream_test *t);

#endif
