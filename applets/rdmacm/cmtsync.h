/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The device-free parts of cmtime's second generation (rdma-core 52-58,
 * Debian 13; docs/dev/architecture.md): the one-byte step syncs on its
 * TCP connection, the rules its options follow, and the rows of its
 * step table. Unit tests drive them without a device or a socket. */
#ifndef RDMATEST_CMTSYNC_H
#define RDMATEST_CMTSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"

/* Which upstream cmtime the peer is: the value of --proto. */
enum rt_cmt_proto {
	RT_CMT_V56, /* rdma-core 52-58 (Debian 13): TCP sync, three runs */
	RT_CMT_V44, /* rdma-core up to 51 (Debian 12): CM only */
};

/* The sync points of one run; the byte on the wire is the value. The
 * client sends it and waits for the same byte back; the server reads it,
 * checks it and echoes it. */
enum rt_cmt_sync {
	RT_CMT_SYNC_RESET = 0,        /* before a run's first connection */
	RT_CMT_SYNC_CONNECTED = 12,   /* every connection established */
	RT_CMT_SYNC_DISCONNECTED = 14, /* every connection closed */
};

/* "reset", "connected", "disconnected"; NULL for any other byte. */
const char *rt_cmt_sync_name(unsigned value);
/* 0 when `got` is the sync that was due; otherwise records a one-line
 * failure (exit 1) naming both and returns -1. */
int rt_cmt_sync_check(enum rt_cmt_sync want, unsigned char got, struct rt_error *err);

/* What the command line asked for, as far as the rules need it. */
struct rt_cmt_opts {
	enum rt_cmt_proto proto;
	bool client;
	long long threads;   /* -n */
	bool threads_given, mimic_given, qpn_given, socket_given;
};
/* 0, or a usage failure (exit 2) naming the option: -m, -n, -q and -S
 * exist only in the v56 protocol, and -n takes 1 only (one reactor
 * thread drives every connection). */
int rt_cmt_opts_check(const struct rt_cmt_opts *o, struct rt_error *err);

/* One step over the connections of a run, in microseconds. */
struct rt_cmt_step {
	uint64_t span;  /* first start to last end over all connections */
	uint64_t sum, max, min; /* per-connection durations */
	uint64_t count; /* connections with a duration */
};
/* The row as upstream prints it: name in 13 columns, then avg/iter
 * (span / iter), total (span), us/conn (sum / iter), sum, max and min, 10
 * columns each; a step no connection timed has 0 in its last four.
 * Writes at most len bytes (with the newline and NUL). */
int rt_cmt_row_format(char *buf, size_t len, const char *name,
		      const struct rt_cmt_step *s, unsigned iter);

#endif
