/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_srq_pingpong: -q RC QPs sharing one receive queue, SEND ping-pong
 * without the RDMA CM, wire-compatible with rdma-core v44's: 256 address
 * records each way on TCP port 18515, -n messages in total each way
 * (applets/ibverbs/pingpong_srq.c). */
#include "rdmatest/applet.h"
#include "ibverbs/pingpong_opts.h"
#include "ibverbs/pingpong_srq.h"

#define RT_CFG struct rt_pp_srq_params

static const struct rt_opt ibv_srq_pingpong_opts[] = {
	RT_PP_OPT_HOST("the server to connect to (the operand); without it, serve one client"),
	RT_PP_OPT_TCP_PORT, RT_PP_OPT_DEV, RT_PP_OPT_IB_PORT, RT_PP_OPT_SIZE("4096", "message size; both sides must agree"),
	RT_PP_OPT_MTU,
	{ 'q', "num-qp", RT_OPT_INT, RT_L(num_qp), 1, 1 << 20, "16", "N",
	  "QPs sharing the receive queue, less than 256 and at most -r; both sides must agree", NULL },
	{ 'r', "rx-depth", RT_OPT_INT, RT_L(rx_depth), 1, 16384, "500", "N", "receives kept posted on the SRQ", NULL },
	{ 'n', "iters", RT_OPT_INT, RT_L(iters), 1, 1LL << 40, "1000", "N",
	  "messages each way in total over all QPs (not per QP); both sides must agree", NULL },
	RT_PP_OPT_SL, RT_PP_OPT_EVENTS, RT_PP_OPT_ODP, RT_PP_OPT_GID, RT_PP_OPT_CHK,
	{ 0 },
};

RT_APPLET(ibv_srq_pingpong, "RC SEND ping-pong over -q QPs sharing one receive queue",
	  "[-p port] [-d dev] [-i ib-port] [-s size] [-m mtu] [-q num-qp] "
	  "[-r rx-depth] [-n iters] [-l sl] [-e] [-o] [-g gid-idx] [-c] [HOST]",
	  "Without HOST it waits for one client; with HOST it connects to that "
	  "server. Each side creates -q RC QPs whose receives come from one "
	  "shared receive queue (SRQ), sends rdma-core's block of 256 "
	  "LID:QPN:PSN:GID records over TCP, and the QPs bounce -n messages in "
	  "total each way. Wire-compatible with rdma-core's ibv_srq_pingpong. "
	  "Unlike it, every wait is bounded by --timeout, the client can wait "
	  "for the server (--wait-server), a different -q, -s or -n on the peer "
	  "is named, the GRH hop limit is 64, on RoCE the GID is chosen when -g "
	  "is not given, -c checks every byte, and --json adds RTT percentiles.",
	  .long_prefixes = true);

static int ibv_srq_pingpong_main(struct rt_run *run, void *cfgp)
{
	const struct rt_pp_srq_params *c = cfgp;

	/* upstream's two checks, its exit status 1 */
	if (c->num_qp > c->rx_depth)
		return rt_fail(&run->err, RT_EXIT_FAIL, "-r %lld is too small for -q %lld: "
			       "each QP needs at least one receive", c->rx_depth, c->num_qp);
	if (c->num_qp >= RT_PP_SRQ_MAX_QP)
		return rt_fail(&run->err, RT_EXIT_FAIL, "-q %lld: at most %d QPs",
			       c->num_qp, RT_PP_SRQ_MAX_QP - 1);
	return rt_pp_srq_session(run, c);
}
