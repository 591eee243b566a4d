/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_xsrq_pingpong: SEND ping-pong over XRC (an XRC SRQ, per client a
 * receive and a send QP in an XRC domain of its own),
 * without the RDMA CM, wire-compatible with rdma-core v44's: 66-byte
 * records on TCP port 18515, "END" at the end (applets/ibverbs/pingpong_xrc.c). */
#include "rdmatest/applet.h"
#include "ibverbs/pingpong_opts.h"
#include "ibverbs/pingpong_xrc.h"

#define RT_CFG struct rt_pp_xrc_params

static const struct rt_opt ibv_xsrq_pingpong_opts[] = {
	RT_PP_OPT_HOST("the server to connect to (the operand); without it, serve -c clients"),
	RT_PP_OPT_TCP_PORT, RT_PP_OPT_DEV, RT_PP_OPT_IB_PORT, RT_PP_OPT_SIZE("4096", "message size; both sides must agree"),
	RT_PP_OPT_MTU,
	{ 'c', "clients", RT_OPT_INT, RT_L(clients), 1, RT_PP_XRC_MAX_CLIENTS, "1", "N",
	  "clients the server serves (a client is always 1); they share the XRC "
	  "domain, so they run on one host", NULL },
	{ 'n', "num_tests", RT_OPT_INT, RT_L(tests), 1, 1 << 20, "5", "N",
	  "messages to each client and back; both sides must agree", NULL },
	RT_PP_OPT_SL, RT_PP_OPT_EVENTS, RT_PP_OPT_ODP, RT_PP_OPT_GID,
	{ 0 },
};

RT_APPLET(ibv_xsrq_pingpong, "SEND ping-pong over XRC shared receive queues",
	  "[-p port] [-d dev] [-i ib-port] [-s size] [-m mtu] [-c clients] "
	  "[-n num_tests] [-l sl] [-e] [-o] [-g gid-idx] [HOST]",
	  "Without HOST it serves -c clients; with HOST it connects to that "
	  "server. Each side opens an XRC domain, one XRC "
	  "SRQ and per client a receive and a send QP, trades rdma-core's "
	  "66-byte address record over TCP, bounces -n messages with every "
	  "client, ends with \"END\" and prints \"success\". Wire-compatible with "
	  "rdma-core's ibv_xsrq_pingpong. A device without XRC (Soft-RoCE has "
	  "none) is exit 3 naming it, before any connection. Unlike upstream, "
	  "every wait is bounded by --timeout, the client can wait for the "
	  "server (--wait-server), on RoCE the GID is chosen when -g is not "
	  "given, the GRH hop limit is 64, and the XRC domain is the process's "
	  "own, tied to an anonymous file, not to /tmp/xrc_domain (which a "
	  "link planted there could redirect).",
	  .long_prefixes = true);

static int ibv_xsrq_pingpong_main(struct rt_run *run, void *cfg)
{
	return rt_pp_xrc_session(run, cfg);
}
