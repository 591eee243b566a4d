/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_ud_pingpong: UD SEND ping-pong without the RDMA CM, wire-compatible
 * with rdma-core v44's (applets/ibverbs/pingpong.c): qkey 0x11111111, receives with
 * 40 bytes of GRH room, -s at most the active MTU. */
#include "rdmatest/applet.h"
#include "ibverbs/pingpong.h"

#define RT_CFG struct rt_pp_cfg

static const struct rt_opt ibv_ud_pingpong_opts[] = {
	RT_PP_OPTS_CONN, RT_PP_OPT_SIZE("1024", "message size, at most the active MTU; both sides must agree"),
	RT_PP_OPT_RX_DEPTH, RT_PP_OPT_ITERS, RT_PP_OPT_SL, RT_PP_OPT_EVENTS,
	RT_PP_OPT_GID, RT_PP_OPT_CHK,
	{ 0 },
};

RT_PP_APPLET(ibv_ud_pingpong, IBV_QPT_UD,
	     "UD SEND ping-pong over verbs, without the RDMA CM",
	     "[-p port] [-d dev] [-i ib-port] [-s size] [-r rx-depth] [-n iters] "
	     "[-l sl] [-e] [-g gid-idx] [-c] [HOST]",
	     "ibv_rc_pingpong's protocol with datagrams (UD), wire-compatible with "
	     "rdma-core's ibv_ud_pingpong (default size 1024, as its code has it). "
	     "A lost datagram ends the run at --timeout (exit 124) naming how many "
	     "arrived, instead of hanging both sides. The local address line keeps "
	     "upstream's \"PSN 0x..: GID\" so that scripts parsing it still work.")
