/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rdma_xserver: one message from client to server over the RDMA CM, the
 * server half. RC (upstream's default): one connection, one 16-byte
 * receive, disconnect, exit (applets/rdmacm/hello.c). Upstream's accept carries 4
 * bytes of private data (its SRQ number, 0 for RC) that its RC client
 * never reads; ours carries none. XRC (-c x) is refused, as in
 * rdma_xclient. */
#include "rdmatest/applet.h"
#include "rdmacm/hello.h"

struct rdma_xserver_cfg {
	const char *bind;
	long long port;
	int transport;
};

#define RT_CFG struct rdma_xserver_cfg

static const struct rt_opt rdma_xserver_opts[] = {
	{ 's', "bind", RT_OPT_ADDR, RT_S(bind), 0, 0, NULL, "ADDR",
	  "address to listen on (default: any)", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7471", "PORT", "port to listen on", NULL },
	RT_OPT_ROW_XRC_CHOICE(RT_I(transport)),
	{ 0 },
};

RT_APPLET(rdma_xserver, "RDMA CM one-way message, server: one 16-byte receive",
	  "[-s server_address] [-p port] [-c r|x]",
	  "Waits for one rdma_xclient, receives its 16-byte message, "
	  "disconnects and exits. Wire-compatible with rdma-core's "
	  "rdma_xserver over RC; -c x (XRC) is refused with exit 2. The wait "
	  "for a client ends after --accept-timeout when given, every other "
	  "wait after --timeout.");

static int rdma_xserver_main(struct rt_run *run, void *cfgp)
{
	const struct rdma_xserver_cfg *cfg = cfgp;
	struct rt_hello_spec s = { .prog = "rdma_xserver", .node = cfg->bind,
				   .port = cfg->port, .tos = -1, .server = true };

	if (rt_hello_refuse_xrc(run, cfg->transport))
		return -1;
	return rt_hello_run(run, &s);
}
