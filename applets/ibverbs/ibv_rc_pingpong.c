/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_rc_pingpong: RC SEND ping-pong without the RDMA CM, wire-compatible
 * with rdma-core v44's: the 52-byte address record on TCP port 18515,
 * then -n messages of -s bytes each way (applets/ibverbs/pingpong.c). */
#include "rdmatest/applet.h"
#include "ibverbs/pingpong.h"

#define RT_CFG struct rt_pp_cfg

static const struct rt_opt ibv_rc_pingpong_opts[] = {
	RT_PP_OPTS_CONN, RT_PP_OPT_SIZE("4096", "message size; both sides must agree"),
	RT_PP_OPT_MTU, RT_PP_OPT_RX_DEPTH, RT_PP_OPT_ITERS, RT_PP_OPT_SL,
	RT_PP_OPT_EVENTS, RT_PP_OPT_GID,
	RT_PP_UNSUPPORTED('o', "odp", odp, "on-demand paging"),
	RT_PP_UNSUPPORTED('O', "iodp", iodp, "implicit on-demand paging"),
	RT_PP_UNSUPPORTED('P', "prefetch", prefetch, "prefetch the ODP region"),
	RT_PP_UNSUPPORTED('t', "ts", ts, "completion timestamps"),
	RT_PP_OPT_CHK,
	RT_PP_UNSUPPORTED('j', "dm", dm, "buffer in device memory"),
	{ 'N', "new_send", RT_OPT_FLAG, RT_I(new_send), 0, 0, NULL, NULL,
	     "upstream's ibv_wr_* posting; accepted, the classic post gives the same wire", NULL },
	{ 0 },
};

RT_PP_APPLET(ibv_rc_pingpong, IBV_QPT_RC,
	     "RC SEND ping-pong over verbs, without the RDMA CM",
	     "[-p port] [-d dev] [-i ib-port] [-s size] [-m mtu] [-r rx-depth] "
	     "[-n iters] [-l sl] [-e] [-g gid-idx] [-c] [HOST]",
	     "Without HOST it waits for one client; with HOST it connects to that "
	     "server. The sides trade rdma-core's 52-byte LID:QPN:PSN:GID record "
	     "over TCP, then bounce -n messages of -s bytes each way and print "
	     "upstream's two result lines. Wire-compatible with rdma-core's "
	     "ibv_rc_pingpong. Unlike it, every wait is bounded by --timeout, the "
	     "client can wait for the server (--wait-server), mismatched -s or -n "
	     "is named, the GRH hop limit is 64, on RoCE the GID is chosen when -g "
	     "is not given, -c checks every byte, and --json adds RTT percentiles.")
