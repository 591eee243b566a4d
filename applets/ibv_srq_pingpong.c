/* ibv_srq_pingpong: -q RC QPs sharing one receive queue, SEND ping-pong
 * without the RDMA CM, wire-compatible with rdma-core v44's: 256 address
 * records each way on TCP port 18515, -n messages in total each way
 * (core/pingpong_srq.c). */
#include "rdmatest/applet.h"
#include "rdmatest/pingpong_srq.h"

struct srq_cfg {
	const char *server, *dev;
	long long port, ib_port, size, num_qp, rx_depth, iters, sl, gid_index;
	int mtu, events, odp, chk;
};

#define RT_CFG struct srq_cfg

static const struct rt_enum mtus[] = {
	{ "256", IBV_MTU_256, NULL }, { "512", IBV_MTU_512, NULL },
	{ "1024", IBV_MTU_1024, NULL }, { "2048", IBV_MTU_2048, NULL },
	{ "4096", IBV_MTU_4096, NULL }, { NULL, 0, NULL },
};

static const struct rt_opt ibv_srq_pingpong_opts[] = {
	{ 0, "server", RT_OPT_OPERAND, RT_S(server), 0, 0, NULL, "HOST",
	  "the server to connect to (the operand); without it, serve one client", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "18515", "PORT", "TCP port of the address exchange", NULL },
	{ 'd', "ib-dev", RT_OPT_STRING, RT_S(dev), 0, 0, NULL, "DEV", "RDMA device (default: the first)", NULL },
	{ 'i', "ib-port", RT_OPT_INT, RT_L(ib_port), 1, 255, "1", "PORT", "port of the device", NULL },
	{ 's', "size", RT_OPT_SIZE, RT_L(size), 1, 1 << 30, "4096", "SIZE", "message size; both sides must agree", NULL },
	{ 'm', "mtu", RT_OPT_ENUM, RT_I(mtu), 0, 0, "1024", "MTU", "path MTU", mtus },
	{ 'q', "num-qp", RT_OPT_INT, RT_L(num_qp), 1, 1 << 20, "16", "N",
	  "QPs sharing the receive queue, less than 256 and at most -r; both sides must agree", NULL },
	{ 'r', "rx-depth", RT_OPT_INT, RT_L(rx_depth), 1, 16384, "500", "N", "receives kept posted on the SRQ", NULL },
	{ 'n', "iters", RT_OPT_INT, RT_L(iters), 1, 1LL << 40, "1000", "N",
	  "messages each way in total over all QPs (not per QP); both sides must agree", NULL },
	{ 'l', "sl", RT_OPT_INT, RT_L(sl), 0, 15, "0", "SL", "service level", NULL },
	{ 'e', "events", RT_OPT_COUNTER, RT_I(events), 0, 0, NULL, NULL,
	  "sleep on a completion channel instead of polling", NULL },
	{ 'o', "odp", RT_OPT_FLAG, RT_I(odp), 0, 0, NULL, NULL,
	  "on-demand paging for the buffer (exit 3 when the device lacks it)", NULL },
	{ 'g', "gid-idx", RT_OPT_INT, RT_L(gid_index), -1, 255, "-1", "IDX",
	  "local GID index (-1: none on IB; on RoCE the RoCE v2 GID of the address the peer is reached on)", NULL },
	{ 'c', "chk", RT_OPT_FLAG, RT_I(chk), 0, 0, NULL, NULL,
	  "check every received byte (an upstream peer is checked to echo this side's messages)", NULL },
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
	  "is not given, -c checks every byte, and --json adds RTT percentiles.");

static int ibv_srq_pingpong_main(struct rt_run *run, void *cfgp)
{
	struct srq_cfg *c = cfgp;
	struct rt_pp_srq_params p = {
		.pp = { .type = IBV_QPT_RC, .server = c->server, .dev = c->dev,
			.tcp_port = c->port, .ib_port = c->ib_port, .size = c->size,
			.mtu = c->mtu, .rx_depth = c->rx_depth, .iters = c->iters,
			.sl = c->sl, .gid_index = c->gid_index, .events = c->events,
			.check = c->chk },
		.num_qp = c->num_qp, .odp = c->odp,
	};

	/* upstream's two checks, its exit status 1 */
	if (c->num_qp > c->rx_depth)
		return rt_fail(&run->err, RT_EXIT_FAIL, "-r %lld is too small for -q %lld: "
			       "each QP needs at least one receive", c->rx_depth, c->num_qp);
	if (c->num_qp >= RT_PP_SRQ_MAX_QP)
		return rt_fail(&run->err, RT_EXIT_FAIL, "-q %lld: at most %d QPs",
			       c->num_qp, RT_PP_SRQ_MAX_QP - 1);
	return rt_pp_srq_session(run, &p);
}
