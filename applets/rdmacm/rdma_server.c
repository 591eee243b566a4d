/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma_server: the smallest RDMA CM exchange, the server half. Takes one
 * connection (TCP port space), waits for the client's 16 bytes, answers
 * with 16 and disconnects (applets/rdmacm/hello.c; wire as upstream v44's
 * rdma_server: port 7471, default bind address any). */
#include "rdmatest/applet.h"
#include "rdmacm/hello.h"

struct rdma_server_cfg {
	const char *bind;
	long long port;
};

#define RT_CFG struct rdma_server_cfg

static const struct rt_opt rdma_server_opts[] = {
	{ 's', "bind", RT_OPT_ADDR, RT_S(bind), 0, 0, NULL, "ADDR",
	  "address to listen on (default: any)", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7471", "PORT", "port to listen on", NULL },
	{ 0 },
};

RT_APPLET(rdma_server, "RDMA CM hello, server: one 16-byte message each way",
	  "[-s server_address] [-p port]",
	  "Waits for one rdma_client, receives its 16-byte message, answers "
	  "with 16 bytes, disconnects and exits. Wire-compatible with "
	  "rdma-core's rdma_server; unlike it, the wait for a client ends "
	  "after --accept-timeout when given, every other wait after "
	  "--timeout.");

static int rdma_server_main(struct rt_run *run, void *cfgp)
{
	const struct rdma_server_cfg *cfg = cfgp;
	struct rt_hello_spec s = { .prog = "rdma_server", .node = cfg->bind,
				   .port = cfg->port, .tos = -1, .server = true, .reply = true };

	return rt_hello_run(run, &s);
}
