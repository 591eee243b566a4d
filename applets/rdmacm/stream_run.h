/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A whole stream-test run as rdma-core's rstream and riostream make it:
 * the address, the listener, one connection for a custom row or two for
 * the default series (latency rows, then bandwidth rows on a fresh
 * connection with its own inline size), the table and the JSON record.
 * rstream moves its rows with send/recv (and may fork a server process
 * per client, -T f); riostream writes them into the peer's riomap'd
 * buffer (stream_test.h). The applets keep their option tables. */
#ifndef RDMATEST_STREAM_RUN_H
#define RDMATEST_STREAM_RUN_H

#include <stdbool.h>

#include "rdmatest/addr.h"
#include "rdmatest/opt.h"
#include "rdmatest/run.h"

/* The option destinations both applets share (riostream has no -k). */
struct rt_stream_cfg {
	const char *dst;
	const char *src;
	int format;
	long long bufsize;
	long long inline_size;
	long long iters;
	long long count;
	const char *size;
	long long port;
	long long keepalive;
	long long tos;
	int modes; /* RT_SMODE_* */
	long long scale;
};

/* -T bits; an applet's -T table lists those it offers. */
enum {
	RT_SMODE_SOCKET = 1 << 0, RT_SMODE_ASYNC = 1 << 1, RT_SMODE_BLOCK = 1 << 2,
	RT_SMODE_NONBLOCK = 1 << 3, RT_SMODE_FORK = 1 << 4, RT_SMODE_RESOLVE = 1 << 5,
	RT_SMODE_VERIFY = 1 << 6,
};

/* The rows rstream and riostream share, upstream's letters and defaults:
 * -B -i -I -C -S -p, and --scale. Their table's RT_CFG is struct
 * rt_stream_cfg. */
#define RT_STREAM_OPT_ROWS_ROW                                                   \
	{ 'B', "buffer-size", RT_OPT_SIZE, RT_L(bufsize), 0, 1LL << 30, "512k", "SIZE", \
	  "SO_SNDBUF and SO_RCVBUF (0: 512k)", NULL },                           \
	{ 'i', "inline", RT_OPT_INT, RT_L(inline_size), 0, 65535, "64", "BYTES", \
	  "rsocket inline size of the latency connection", NULL },               \
	{ 'I', "iterations", RT_OPT_INT, RT_L(iters), 1, 0x7fffffff, "1", "N",   \
	  "iterations of a custom row (makes a custom run)", NULL },             \
	{ 'C', "count", RT_OPT_INT, RT_L(count), 1, 0x7fffffff, "1000", "N",     \
	  "transfers each way per iteration of a custom row (makes a custom run)", \
	  NULL },                                                                \
	{ 'S', "size", RT_OPT_STRING, RT_S(size), 0, 0, "1000", "SIZE|all",      \
	  "transfer size of a custom row (makes a custom run), or 'all': the full " \
	  "size ladder", NULL },                                                 \
	RT_OPT_ROW_PORT(RT_L(port), "7471")
#define RT_STREAM_OPT_ROW_SCALE                                                  \
	{ 0, "scale", RT_OPT_INT, RT_L(scale), 1, 1000000, "1", "N",             \
	  "divide the default series' counts by N (both sides rdmatest with the " \
	  "same N: upstream always runs the full counts)", NULL }

/* Runs the test; iomap: riostream's transfers (rsockets only). */
int rt_stream_run_main(struct rt_run *run, struct rt_stream_cfg *cfg, bool iomap);

#endif
