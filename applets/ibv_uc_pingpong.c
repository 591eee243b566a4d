/* ibv_uc_pingpong: UC SEND ping-pong without the RDMA CM, wire-compatible
 * with rdma-core v44's (core/pingpong.c). UC has no acknowledgements: a
 * lost message used to hang both sides; here the wait ends at --timeout
 * and names how far the run got. */
#include "rdmatest/applet.h"
#include "rdmatest/pingpong.h"

struct uc_cfg {
	const char *server, *dev;
	long long port, ib_port, size, rx_depth, iters, sl, gid_index;
	int mtu, events, chk;
};

#define RT_CFG struct uc_cfg

static const struct rt_enum mtus[] = {
	{ "256", IBV_MTU_256, NULL }, { "512", IBV_MTU_512, NULL },
	{ "1024", IBV_MTU_1024, NULL }, { "2048", IBV_MTU_2048, NULL },
	{ "4096", IBV_MTU_4096, NULL }, { NULL, 0, NULL },
};

static const struct rt_opt ibv_uc_pingpong_opts[] = {
	{ 0, "server", RT_OPT_OPERAND, RT_S(server), 0, 0, NULL, "HOST",
	  "the server to connect to (the operand); without it, serve one client", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "18515", "PORT", "TCP port of the address exchange", NULL },
	{ 'd', "ib-dev", RT_OPT_STRING, RT_S(dev), 0, 0, NULL, "DEV", "RDMA device (default: the first)", NULL },
	{ 'i', "ib-port", RT_OPT_INT, RT_L(ib_port), 1, 255, "1", "PORT", "port of the device", NULL },
	{ 's', "size", RT_OPT_SIZE, RT_L(size), 1, 1 << 30, "4096", "SIZE", "message size; both sides must agree", NULL },
	{ 'm', "mtu", RT_OPT_ENUM, RT_I(mtu), 0, 0, "1024", "MTU", "path MTU", mtus },
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

RT_APPLET(ibv_uc_pingpong, "UC SEND ping-pong over verbs, without the RDMA CM",
	  "[-p port] [-d dev] [-i ib-port] [-s size] [-m mtu] [-r rx-depth] "
	  "[-n iters] [-l sl] [-e] [-g gid-idx] [-c] [HOST]",
	  "ibv_rc_pingpong's protocol on an unreliable connection (UC), "
	  "wire-compatible with rdma-core's ibv_uc_pingpong. A lost message "
	  "ends the run at --timeout (exit 124) naming how many arrived, "
	  "instead of hanging both sides.");

static int ibv_uc_pingpong_main(struct rt_run *run, void *cfgp)
{
	struct uc_cfg *c = cfgp;
	struct rt_pp_params p = {
		.type = IBV_QPT_UC, .server = c->server, .dev = c->dev,
		.tcp_port = c->port, .ib_port = c->ib_port, .size = c->size,
		.mtu = c->mtu, .rx_depth = c->rx_depth, .iters = c->iters,
		.sl = c->sl, .gid_index = c->gid_index, .events = c->events,
		.check = c->chk,
	};

	return rt_pp_session(run, &p);
}
