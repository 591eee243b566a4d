/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Option rows the ping-pong applets share with upstream's letters, long
 * names and defaults, for option tables whose config struct (RT_CFG) has
 * the fields named here: server, dev, port, ib_port, size, mtu, sl,
 * events, gid_index, chk. One row each, so that an applet's table lists
 * only what it has. */
#ifndef RDMATEST_PINGPONG_OPTS_H
#define RDMATEST_PINGPONG_OPTS_H

#include "rdmatest/opt.h"

/* 256 .. 4096, upstream's accepted -m values */
extern const struct rt_enum rt_pp_mtus[];

#define RT_PP_OPT_HOST(help) \
	{ 0, "server", RT_OPT_OPERAND, RT_S(server), 0, 0, NULL, "HOST", help, NULL }
#define RT_PP_OPT_TCP_PORT \
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "18515", "PORT", \
	  "TCP port of the address exchange", NULL }
#define RT_PP_OPT_DEV \
	{ 'd', "ib-dev", RT_OPT_STRING, RT_S(dev), 0, 0, NULL, "DEV", \
	  "RDMA device (default: the first)", NULL }
#define RT_PP_OPT_IB_PORT \
	{ 'i', "ib-port", RT_OPT_INT, RT_L(ib_port), 1, 255, "1", "PORT", "port of the device", NULL }
#define RT_PP_OPT_SIZE(def, help) \
	{ 's', "size", RT_OPT_SIZE, RT_L(size), 1, 1 << 30, (def), "SIZE", (help), NULL }
#define RT_PP_OPT_RX_DEPTH \
	{ 'r', "rx-depth", RT_OPT_INT, RT_L(rx_depth), 2, 16384, "500", "N", \
	  "receives kept posted", NULL }
#define RT_PP_OPT_ITERS \
	{ 'n', "iters", RT_OPT_INT, RT_L(iters), 1, 1LL << 40, "1000", "N", \
	  "messages each way; both sides must agree", NULL }
#define RT_PP_OPT_MTU \
	{ 'm', "mtu", RT_OPT_ENUM, RT_I(mtu), 0, 0, "1024", "MTU", "path MTU", rt_pp_mtus }
#define RT_PP_OPT_SL \
	{ 'l', "sl", RT_OPT_INT, RT_L(sl), 0, 15, "0", "SL", "service level", NULL }
#define RT_PP_OPT_EVENTS \
	{ 'e', "events", RT_OPT_COUNTER, RT_I(events), 0, 0, NULL, NULL, \
	  "sleep on a completion channel instead of polling", NULL }
#define RT_PP_OPT_ODP \
	{ 'o', "odp", RT_OPT_FLAG, RT_I(odp), 0, 0, NULL, NULL, \
	  "on-demand paging for the buffer (exit 3 when the device lacks it)", NULL }
#define RT_PP_OPT_GID \
	{ 'g', "gid-idx", RT_OPT_INT, RT_L(gid_index), -1, 255, "-1", "IDX", \
	  "local GID index (-1: none on IB; on RoCE the RoCE v2 GID of the " \
	  "address the peer is reached on)", NULL }
#define RT_PP_OPT_CHK \
	{ 'c', "chk", RT_OPT_FLAG, RT_I(chk), 0, 0, NULL, NULL, \
	  "check every received byte (an upstream peer is checked to echo " \
	  "this side's messages)", NULL }

/* An rc option for a capability rdmatest does not implement: exit 3. */
#define RT_PP_UNSUPPORTED(l, n, f, what) \
	{ (l), (n), RT_OPT_FLAG, RT_I(f), 0, 0, NULL, NULL, what " (not supported: exit 3)", NULL }

/* The rows every ping-pong starts with: the peer and the device. */
#define RT_PP_OPTS_CONN \
	RT_PP_OPT_HOST("the server to connect to (the operand); without it, serve one client"), \
	RT_PP_OPT_TCP_PORT, RT_PP_OPT_DEV, RT_PP_OPT_IB_PORT

#endif
