/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma_client: the smallest RDMA CM exchange, the client half. Connects
 * one RC QP (TCP port space), sends 16 bytes, waits for the server's 16
 * bytes and disconnects (applets/rdmacm/hello.c; wire as upstream v44's
 * rdma_client: port 7471, default server 127.0.0.1). */
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmacm/hello.h"

struct rdma_client_cfg {
	const char *server;
	long long port;
	long long tos;
};

#define RT_CFG struct rdma_client_cfg

static const struct rt_opt rdma_client_opts[] = {
	{ 's', "server", RT_OPT_ADDR, RT_S(server), 0, 0, "127.0.0.1", "ADDR",
	  "server address", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7471", "PORT", "server port", NULL },
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP_CLIENT("the connection's")),
	{ 0 },
};

RT_APPLET(rdma_client, "RDMA CM hello, client: one 16-byte message each way",
	  "[-s server_address] [-p port] [--tos TOS]",
	  "Connects to rdma_server, sends one 16-byte message, receives the "
	  "16-byte answer and disconnects. Wire-compatible with rdma-core's "
	  "rdma_client; unlike it, every wait is bounded by --timeout and a "
	  "peer that leaves early is named.");

static int rdma_client_main(struct rt_run *run, void *cfgp)
{
	const struct rdma_client_cfg *cfg = cfgp;
	struct rt_hello_spec s = { .prog = "rdma_client", .node = cfg->server,
				   .port = cfg->port,
				   .tos = rt_cm_tos_opt(&run->tabs[0], cfg->tos), .reply = true };

	return rt_hello_run(run, &s);
}
