/* ibv_rc_pingpong: RC SEND ping-pong without the RDMA CM, wire-compatible
 * with rdma-core v44's: the 52-byte address record on TCP port 18515,
 * then -n messages of -s bytes each way (core/pingpong.c). */
#include "rdmatest/applet.h"
#include "rdmatest/pingpong.h"

struct rc_cfg {
	const char *server, *dev;
	long long port, ib_port, size, rx_depth, iters, sl, gid_index;
	int mtu, events, odp, iodp, prefetch, ts, chk, dm, new_send;
};

#define RT_CFG struct rc_cfg

static const struct rt_enum mtus[] = {
	{ "256", IBV_MTU_256, NULL }, { "512", IBV_MTU_512, NULL },
	{ "1024", IBV_MTU_1024, NULL }, { "2048", IBV_MTU_2048, NULL },
	{ "4096", IBV_MTU_4096, NULL }, { NULL, 0, NULL },
};

static const struct rt_opt ibv_rc_pingpong_opts[] = {
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
	{ 'o', "odp", RT_OPT_FLAG, RT_I(odp), 0, 0, NULL, NULL, "on-demand paging (not supported: exit 3)", NULL },
	{ 'O', "iodp", RT_OPT_FLAG, RT_I(iodp), 0, 0, NULL, NULL, "implicit on-demand paging (not supported: exit 3)", NULL },
	{ 'P', "prefetch", RT_OPT_FLAG, RT_I(prefetch), 0, 0, NULL, NULL, "prefetch the ODP region (not supported: exit 3)", NULL },
	{ 't', "ts", RT_OPT_FLAG, RT_I(ts), 0, 0, NULL, NULL, "completion timestamps (not supported: exit 3)", NULL },
	{ 'c', "chk", RT_OPT_FLAG, RT_I(chk), 0, 0, NULL, NULL,
	  "check every received byte (an upstream peer is checked to echo this side's messages)", NULL },
	{ 'j', "dm", RT_OPT_FLAG, RT_I(dm), 0, 0, NULL, NULL, "buffer in device memory (not supported: exit 3)", NULL },
	{ 'N', "new_send", RT_OPT_FLAG, RT_I(new_send), 0, 0, NULL, NULL,
	  "upstream's ibv_wr_* posting; accepted, the classic post gives the same wire", NULL },
	{ 0 },
};

RT_APPLET(ibv_rc_pingpong, "RC SEND ping-pong over verbs, without the RDMA CM",
	  "[-p port] [-d dev] [-i ib-port] [-s size] [-m mtu] [-r rx-depth] "
	  "[-n iters] [-l sl] [-e] [-g gid-idx] [-c] [HOST]",
	  "Without HOST it waits for one client; with HOST it connects to that "
	  "server. The sides trade rdma-core's 52-byte LID:QPN:PSN:GID record "
	  "over TCP, then bounce -n messages of -s bytes each way and print "
	  "upstream's two result lines. Wire-compatible with rdma-core's "
	  "ibv_rc_pingpong. Unlike it, every wait is bounded by --timeout, the "
	  "client can wait for the server (--wait-server), mismatched -s or -n "
	  "is named, the GRH hop limit is 64, on RoCE the GID is chosen when -g "
	  "is not given, -c checks every byte, and --json adds RTT percentiles.");

static const struct { size_t off; const char *what; } unsupported[] = {
	{ offsetof(struct rc_cfg, odp), "-o: on-demand paging (ODP)" },
	{ offsetof(struct rc_cfg, iodp), "-O: implicit on-demand paging (ODP)" },
	{ offsetof(struct rc_cfg, prefetch), "-P: ODP prefetch" },
	{ offsetof(struct rc_cfg, ts), "-t: completion timestamps" },
	{ offsetof(struct rc_cfg, dm), "-j: device memory" },
};

static int ibv_rc_pingpong_main(struct rt_run *run, void *cfgp)
{
	struct rc_cfg *c = cfgp;
	struct rt_pp_params p = {
		.type = IBV_QPT_RC, .server = c->server, .dev = c->dev,
		.tcp_port = c->port, .ib_port = c->ib_port, .size = c->size,
		.mtu = c->mtu, .rx_depth = c->rx_depth, .iters = c->iters,
		.sl = c->sl, .gid_index = c->gid_index, .events = c->events,
		.check = c->chk,
	};

	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (*(const int *)((const char *)c + unsupported[i].off))
			return rt_fail(&run->err, RT_EXIT_ENV, "%s is not supported "
				       "(rdmatest does not implement it)", unsupported[i].what);
	return rt_pp_session(run, &p);
}
