/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* riostream: rstream's rows over rsockets, with the data written straight
 * into the peer's memory (riomap/riowrite), wire-compatible with
 * rdma-core's riostream (v44).
 *
 * Per row each side maps its buffer at offset 0 of the connection's iomap
 * before the 16-byte sync (rsend/rrecv, as rstream); each transfer is one
 * riowrite to the peer's offset 0, and a receiver sees only the last of
 * an iteration, by its final byte: a marker counting 0, 1, ... through the
 * row, one per direction and iteration. The rows, series and table are
 * rstream's (applets/rdmacm/stream_run.c, applets/rdmacm/stream_test.c). Unlike upstream, the
 * wait for the marker is bounded by --timeout and notices a peer that
 * closed; an rsocket without iomap is exit 3 naming it. */
#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmacm/stream_run.h"

/* Upstream's -T words: no kernel sockets, fork or RDMA CM resolution. */
static const struct rt_enum test_modes[] = {
	{ "async", RT_SMODE_ASYNC, "poll before every call" },
	{ "block", RT_SMODE_BLOCK, "blocking calls" },
	{ "nonblock", RT_SMODE_NONBLOCK, "non-blocking calls (the default)" },
	{ "verify", RT_SMODE_VERIFY, "check the last transfer of every iteration" },
	{ NULL, 0, NULL },
};

#define RT_CFG struct rt_stream_cfg

static const struct rt_opt riostream_opts[] = {
	RT_OPT_ROW_SERVER_ADDR(RT_S(dst)),
	{ 'b', "bind", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "server: address to listen on; client: source address (upstream ignores it)", NULL },
	RT_OPT_ROW_ADDR_FORMAT(RT_I(format), "how to read addresses (gid resolves with the RDMA CM)"),
	RT_STREAM_OPT_ROWS_ROW,
	{ 'T', "test", RT_OPT_FLAGS, RT_I(modes), 0, 0, NULL, "MODES",
	  "test modes: a poll before every call; b blocking; n non-blocking (the "
	  "default); v check the last transfer of every iteration", test_modes },
	RT_STREAM_OPT_ROW_SCALE,
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP_CLIENT("its connections'")),
	{ 0 },
};

RT_APPLET(riostream, "stream latency and bandwidth with rsocket iomap writes (riowrite)",
	  "[-s server_addr] [-b bind_addr] [-f name|ip|ipv6|gid] [-B buffer_size] "
	  "[-i inline_size] [-I iterations] [-C transfer_count] "
	  "[-S transfer_size|all] [-p port] [-T abnv] [--scale N] [--tos TOS]",
	  "Without -s it is the server. The rows, series and table are rstream's; "
	  "the data moves by riowrite into the buffer the peer mapped with riomap, "
	  "and the receiver waits for a marker in the last byte of each "
	  "iteration's last transfer. Wire-compatible with rdma-core's riostream; "
	  "unlike it, a peer that closes or stalls ends the run within --timeout "
	  "(exit 1 or 124) naming the row, two rdmatest peers compare -S/-C/-I "
	  "before each row, and an rsocket without iomap support is exit 3.");

static int riostream_main(struct rt_run *run, void *cfgp)
{
	return rt_stream_run_main(run, cfgp, true);
}
