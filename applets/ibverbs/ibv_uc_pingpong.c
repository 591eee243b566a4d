/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_uc_pingpong: UC SEND ping-pong without the RDMA CM, wire-compatible
 * with rdma-core v44's (applets/ibverbs/pingpong.c). UC has no acknowledgements: a
 * lost message used to hang both sides; here the wait ends at --timeout
 * and names how far the run got. */
#include "rdmatest/applet.h"
#include "ibverbs/pingpong.h"

#define RT_CFG struct rt_pp_cfg

static const struct rt_opt ibv_uc_pingpong_opts[] = {
	RT_PP_OPTS_CONN, RT_PP_OPT_SIZE("4096", "message size; both sides must agree"),
	RT_PP_OPT_MTU, RT_PP_OPT_RX_DEPTH, RT_PP_OPT_ITERS, RT_PP_OPT_SL,
	RT_PP_OPT_EVENTS, RT_PP_OPT_GID, RT_PP_OPT_CHK,
	{ 0 },
};

RT_PP_APPLET(ibv_uc_pingpong, IBV_QPT_UC,
	     "UC SEND ping-pong over verbs, without the RDMA CM",
	     "[-p port] [-d dev] [-i ib-port] [-s size] [-m mtu] [-r rx-depth] "
	     "[-n iters] [-l sl] [-e] [-g gid-idx] [-c] [HOST]",
	     "ibv_rc_pingpong's protocol on an unreliable connection (UC), "
	     "wire-compatible with rdma-core's ibv_uc_pingpong. A lost message "
	     "ends the run at --timeout (exit 124) naming how many arrived, "
	     "instead of hanging both sides.")
