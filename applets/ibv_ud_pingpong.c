/* ibv_ud_pingpong: UD SEND ping-pong without the RDMA CM, wire-compatible
 * with rdma-core v44's (core/pingpong.c): qkey 0x11111111, receives with
 * 40 bytes of GRH room, -s at most the active MTU. */
#include "rdmatest/applet.h"
#include "rdmatest/pingpong.h"

struct ud_cfg {
	const char *server, *dev;
	long long port, ib_port, size, rx_depth, iters, sl, gid_index;
	int events, chk;
};

#define RT_CFG struct ud_cfg

static const struct rt_opt ibv_ud_pingpong_opts[] = {
	{ 0, "server", RT_OPT_OPERAND, RT_S(server), 0, 0, NULL, "HOST",
	  "the server to connect to (the operand); without it, serve one client", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "18515", "PORT", "TCP port of the address exchange", NULL },
	{ 'd', "ib-dev", RT_OPT_STRING, RT_S(dev), 0, 0, NULL, "DEV", "RDMA device (default: the first)", NULL },
	{ 'i', "ib-port", RT_OPT_INT, RT_L(ib_port), 1, 255, "1", "PORT", "port of the device", NULL },
	{ 's', "size", RT_OPT_SIZE, RT_L(size), 1, 1 << 30, "1024", "SIZE",
	  "message size, at most the active MTU; both sides must agree", NULL },
	{ 'r', "rx-depth", RT_OPT_INT, RT_L(rx_depth), 2, 16384, "500", "N", "receives kept posted", NULL },
	{ 'n', "iters", RT_OPT_INT, RT_L(iters), 1, 1LL << 40, "1000", "N", "messages each way; both sides must agree", NULL },
	{ 'l', "sl", RT_OPT_INT, RT_L(sl), 0, 15, "0", "SL", "service level", NULL },
	{ 'e', "events", RT_OPT_COUNTER, RT_I(events), 0, 0, NULL, NULL,
	  "sleep on a completion channel instead of polling", NULL },
	{ 'g', "gid-idx", RT_OPT_INT, RT_L(gid_index), -1, 255, "-1", "IDX",
	  "local GID index (-1: none on IB; on RoCE the RoCE v2 GID of the address the peer is reached on)", NULL },
	{ 'c', "chk", RT_OPT_FLAG, RT_I(chk), 0, 0, NULL, NULL,
	  "check every received byte (an upstream peer is checked to echo this side's messages)", NULL },
	{ 0 },
};

RT_APPLET(ibv_ud_pingpong, "UD SEND ping-pong over verbs, without the RDMA CM",
	  "[-p port] [-d dev] [-i ib-port] [-s size] [-r rx-depth] [-n iters] "
	  "[-l sl] [-e] [-g gid-idx] [-c] [HOST]",
	  "ibv_rc_pingpong's protocol with datagrams (UD), wire-compatible with "
	  "rdma-core's ibv_ud_pingpong (default size 1024, as its code has it). "
	  "A lost datagram ends the run at --timeout (exit 124) naming how many "
	  "arrived, instead of hanging both sides. The local address line keeps "
	  "upstream's \"PSN 0x..: GID\" so that scripts parsing it still work.");

static int ibv_ud_pingpong_main(struct rt_run *run, void *cfgp)
{
	struct ud_cfg *c = cfgp;
	struct rt_pp_params p = {
		.type = IBV_QPT_UD, .server = c->server, .dev = c->dev,
		.tcp_port = c->port, .ib_port = c->ib_port, .size = c->size,
		.rx_depth = c->rx_depth, .iters = c->iters, .sl = c->sl,
		.gid_index = c->gid_index, .events = c->events, .check = c->chk,
		.ud_typo = true,
	};

	return rt_pp_session(run, &p);
}
