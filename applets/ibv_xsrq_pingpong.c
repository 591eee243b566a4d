/* ibv_xsrq_pingpong: SEND ping-pong over XRC (an XRC SRQ, per client a
 * receive and a send QP in a domain shared through /tmp/xrc_domain),
 * without the RDMA CM, wire-compatible with rdma-core v44's: 66-byte
 * records on TCP port 18515, "END" at the end (core/pingpong_xrc.c). */
#include "rdmatest/applet.h"
#include "rdmatest/pingpong_xrc.h"

struct xsrq_cfg {
	const char *server, *dev;
	long long port, ib_port, size, clients, tests, sl, gid_index;
	int mtu, events, odp;
};

#define RT_CFG struct xsrq_cfg

static const struct rt_enum mtus[] = {
	{ "256", IBV_MTU_256, NULL }, { "512", IBV_MTU_512, NULL },
	{ "1024", IBV_MTU_1024, NULL }, { "2048", IBV_MTU_2048, NULL },
	{ "4096", IBV_MTU_4096, NULL }, { NULL, 0, NULL },
};

static const struct rt_opt ibv_xsrq_pingpong_opts[] = {
	{ 0, "server", RT_OPT_OPERAND, RT_S(server), 0, 0, NULL, "HOST",
	  "the server to connect to (the operand); without it, serve -c clients", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "18515", "PORT", "TCP port of the address exchange", NULL },
	{ 'd', "ib-dev", RT_OPT_STRING, RT_S(dev), 0, 0, NULL, "DEV", "RDMA device (default: the first)", NULL },
	{ 'i', "ib-port", RT_OPT_INT, RT_L(ib_port), 1, 255, "1", "PORT", "port of the device", NULL },
	{ 's', "size", RT_OPT_SIZE, RT_L(size), 1, 1 << 30, "4096", "SIZE", "message size; both sides must agree", NULL },
	{ 'm', "mtu", RT_OPT_ENUM, RT_I(mtu), 0, 0, "1024", "MTU", "path MTU", mtus },
	{ 'c', "clients", RT_OPT_INT, RT_L(clients), 1, RT_PP_XRC_MAX_CLIENTS, "1", "N",
	  "clients the server serves (a client is always 1); they share the XRC "
	  "domain, so they run on one host", NULL },
	{ 'n', "num_tests", RT_OPT_INT, RT_L(tests), 1, 1 << 20, "5", "N",
	  "messages to each client and back; both sides must agree", NULL },
	{ 'l', "sl", RT_OPT_INT, RT_L(sl), 0, 15, "0", "SL", "service level", NULL },
	{ 'e', "events", RT_OPT_COUNTER, RT_I(events), 0, 0, NULL, NULL,
	  "sleep on a completion channel instead of polling", NULL },
	{ 'o', "odp", RT_OPT_FLAG, RT_I(odp), 0, 0, NULL, NULL,
	  "on-demand paging for the buffer (exit 3 when the device lacks it)", NULL },
	{ 'g', "gid-idx", RT_OPT_INT, RT_L(gid_index), -1, 255, "-1", "IDX",
	  "local GID index (-1: none on IB; on RoCE the RoCE v2 GID of the address the peer is reached on)", NULL },
	{ 0 },
};

RT_APPLET(ibv_xsrq_pingpong, "SEND ping-pong over XRC shared receive queues",
	  "[-p port] [-d dev] [-i ib-port] [-s size] [-m mtu] [-c clients] "
	  "[-n num_tests] [-l sl] [-e] [-o] [-g gid-idx] [HOST]",
	  "Without HOST it serves -c clients; with HOST it connects to that "
	  "server. Each side opens the XRC domain of /tmp/xrc_domain, one XRC "
	  "SRQ and per client a receive and a send QP, trades rdma-core's "
	  "66-byte address record over TCP, bounces -n messages with every "
	  "client, ends with \"END\" and prints \"success\". Wire-compatible with "
	  "rdma-core's ibv_xsrq_pingpong. A device without XRC (Soft-RoCE has "
	  "none) is exit 3 naming it, before any connection. Unlike upstream, "
	  "every wait is bounded by --timeout, the client can wait for the "
	  "server (--wait-server), on RoCE the GID is chosen when -g is not "
	  "given, and the GRH hop limit is 64.");

static int ibv_xsrq_pingpong_main(struct rt_run *run, void *cfgp)
{
	struct xsrq_cfg *c = cfgp;
	struct rt_pp_xrc_params p = {
		.server = c->server, .dev = c->dev, .tcp_port = c->port,
		.ib_port = c->ib_port, .size = c->size, .mtu = c->mtu,
		.clients = c->clients, .tests = c->tests, .sl = c->sl,
		.gid_index = c->gid_index, .events = c->events, .odp = c->odp,
		.domain_file = "/tmp/xrc_domain",
	};

	return rt_pp_xrc_session(run, &p);
}
