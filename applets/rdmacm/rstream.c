/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rstream: latency and bandwidth of a byte stream over rsockets (or kernel
 * TCP sockets with -T s), wire-compatible with rdma-core's rstream (v44).
 *
 * Each row: 16 bytes client to server, 16 back (the sync), then per
 * iteration `count` transfers of `size` bytes client to server and as many
 * back. The default series runs the latency rows on one connection and the
 * bandwidth rows on a second one; any of -I/-C/-S makes one custom row on
 * one connection. There is no other framing, so both sides must agree on
 * the parameters. Unlike upstream, every wait is bounded: a peer that
 * closes or stalls ends the run with the row, the byte count and what
 * probably differs. Two rdmatest peers also compare their parameters in
 * the sync bytes, which upstream never reads (see stream.h). */
#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmacm/stream_run.h"

/* Upstream's -T words; their first letters are upstream's -T letters. */
static const struct rt_enum test_modes[] = {
	{ "socket", RT_SMODE_SOCKET, "kernel TCP sockets instead of rsockets" },
	{ "async", RT_SMODE_ASYNC, "poll before every call" },
	{ "block", RT_SMODE_BLOCK, "blocking calls" },
	{ "nonblock", RT_SMODE_NONBLOCK, "non-blocking calls (the default)" },
	{ "fork", RT_SMODE_FORK, "the server runs each client in a process of its own (implies socket)" },
	{ "resolve", RT_SMODE_RESOLVE, "resolve addresses with the RDMA CM" },
	{ "verify", RT_SMODE_VERIFY, "check every byte" },
	{ NULL, 0, NULL },
};

#define RT_CFG struct rt_stream_cfg

static const struct rt_opt rstream_opts[] = {
	RT_OPT_ROW_SERVER_ADDR(RT_S(dst)),
	{ 'b', "bind", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "server: address to listen on; client: source address", NULL },
	RT_OPT_ROW_ADDR_FORMAT(RT_I(format), "how to read addresses (gid implies -T r)"),
	RT_STREAM_OPT_ROWS_ROW,
	{ 'k', "keepalive", RT_OPT_INT, RT_L(keepalive), 0, 32767, "0", "SEC",
	  "TCP keepalive idle time (0: off)", NULL },
	{ 'T', "test", RT_OPT_FLAGS, RT_I(modes), 0, 0, NULL, "MODES",
	  "test modes: s kernel TCP sockets; a poll before every call; b blocking; "
	  "n non-blocking (the default); f a server process per client (implies s); "
	  "r resolve with the RDMA CM; v check every byte. -T s -T v, -T sv and "
	  "-T socket,verify all mean kernel sockets with verification", test_modes },
	RT_STREAM_OPT_ROW_SCALE,
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP_CLIENT("its connections'")),
	{ 0 },
};

RT_APPLET(rstream, "stream latency and bandwidth over rsockets (or kernel TCP sockets)",
	  "[-s server_addr] [-b bind_addr] [-f name|ip|ipv6|gid] [-B buffer_size] "
	  "[-i inline_size] [-I iterations] [-C transfer_count] "
	  "[-S transfer_size|all] [-p port] [-k keepalive_time] [-T sabnfrv] "
	  "[--scale N] [--tos TOS]",
	  "Without -s it is the server. By default it runs the latency rows (64, "
	  "4k, 64k, 1m) on one connection and the bandwidth rows on a second one; "
	  "-S all runs every size from 64 to 6m; any of -I, -C or -S SIZE makes "
	  "one custom row. The table is upstream's, byte for byte. Wire-compatible "
	  "with rdma-core's rstream, including -T v's running counter; unlike it, "
	  "a peer that closes or stalls ends the run within --timeout (exit 1 or "
	  "124) naming the row and what probably differs, and two rdmatest peers "
	  "compare -S/-C/-I before each row. --json gives one record per row, with "
	  "latency percentiles (per transfer: the iteration's round trip / 2 / "
	  "transfers) when a row has more than one iteration.");

static int rstream_main(struct rt_run *run, void *cfgp)
{
	return rt_stream_run_main(run, cfgp, false);
}
