/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma_xclient: one message from client to server over the RDMA CM, with
 * a choice of transport (-c). RC (upstream's default): one connection in
 * the TCP port space, one 16-byte send, disconnect (applets/rdmacm/hello.c; wire as
 * upstream v44's rdma_xclient). XRC (-c x) is refused: rdmatest does not
 * implement XRC over the RDMA CM (rxe and siw have no XRC either). */
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmacm/hello.h"

struct rdma_xclient_cfg {
	const char *server;
	long long port;
	long long tos;
	int transport;
};

#define RT_CFG struct rdma_xclient_cfg

static const struct rt_opt rdma_xclient_opts[] = {
	{ 's', "server", RT_OPT_ADDR, RT_S(server), 0, 0, "127.0.0.1", "ADDR",
	  "server address", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7471", "PORT", "server port", NULL },
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP_CLIENT("the connection's")),
	RT_OPT_ROW_XRC_CHOICE(RT_I(transport)),
	{ 0 },
};

RT_APPLET(rdma_xclient, "RDMA CM one-way message, client: one 16-byte send",
	  "[-s server_address] [-p port] [--tos TOS] [-c r|x]",
	  "Connects to rdma_xserver, sends one 16-byte message and "
	  "disconnects. Wire-compatible with rdma-core's rdma_xclient over RC; "
	  "-c x (XRC) is refused with exit 2. Every wait is bounded by --timeout.");

static int rdma_xclient_main(struct rt_run *run, void *cfgp)
{
	const struct rdma_xclient_cfg *cfg = cfgp;
	struct rt_hello_spec s = { .prog = "rdma_xclient", .node = cfg->server,
				   .port = cfg->port,
				   .tos = rt_cm_tos_opt(&run->tabs[0], cfg->tos) };

	if (rt_hello_refuse_xrc(run, cfg->transport))
		return -1;
	return rt_hello_run(run, &s);
}
