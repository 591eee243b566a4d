/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One run of ibv_rc/uc/ud_pingpong: the verbs-only path (vconn.h, oob.h)
 * with upstream's record exchange and loop (pingpong.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ibverbs/pingpong.h"
#include "rdmatest/res.h"
#include "rdmatest/run.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

/* The options as the session uses them. */
struct rt_pp_params {
	enum ibv_qp_type type;
	const char *server;   /* NULL: serve one client */
	const char *dev;      /* -d, NULL: the first device */
	long long tcp_port, ib_port, size, mtu, rx_depth, iters, sl, gid_index;
	int events, check;
	bool ud_typo;         /* ud's "PSN 0x..: GID" local line, kept */
};

struct pp {
	struct rt_run *run;
	const struct rt_pp_params *p;
	struct rt_vdev d;
	struct rt_oob oob;
	struct rt_res res;   /* CQ (-e: on a channel), QP, buffer */
	struct ibv_ah *ah;
	struct rt_cqwait cqw;
	struct rt_vqp_spec spec;
	struct rt_pp_loop loop;
};

static void addr_line(struct pp *x, const char *who, const struct rt_pp_dest *d,
		      bool typo)
{
	char gid[64];

	rt_pp_gid_str(&d->gid, gid, sizeof(gid));
	rt_say(&x->run->log, "  %s address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%s GID %s",
	       who, d->lid, d->qpn, d->psn, typo ? ":" : ",", gid);
}

/* The peer's record into the spec; a RoCE path needs the peer's GID,
 * which an upstream peer sends only when given -g. */
static int take_peer(struct pp *x, const char *rec, struct rt_error *err)
{
	static const union ibv_gid zero;
	struct rt_pp_dest d;
	char gid[64];

	if (rt_pp_rec_decode(rec, RT_PP_REC_LEN, &d, x->oob.peer_name, err))
		return -1;
	rt_pp_gid_str(&d.gid, gid, sizeof(gid));
	rt_say(&x->run->log, "  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s",
	       d.lid, d.qpn, d.psn, gid);
	if (x->spec.local.grh && !memcmp(&d.gid, &zero, sizeof(zero)))
		return rt_fail(err, RT_EXIT_FAIL, "%s sent no GID, and this %s port needs "
			       "one: give the peer -g (the RoCE v2 GID index)",
			       x->oob.peer_name, rt_link_layer_name(x->d.attr.link_layer));
	if (!x->spec.local.grh && !d.lid)
		return rt_fail(err, RT_EXIT_FAIL, "%s sent LID 0 and this side uses no "
			       "GID: give both sides -g", x->oob.peer_name);
	x->spec.remote.lid = d.lid;
	x->spec.remote.gid = d.gid;
	x->spec.remote_qpn = d.qpn;
	x->spec.remote_psn = d.psn;
	x->loop.remote_qpn = d.qpn;
	return 0;
}

static int connect_qp(struct pp *x, struct rt_error *err)
{
	if (rt_vqp_connect(x->res.qp, &x->d, &x->spec, err))
		return -1;
	if (x->spec.type != IBV_QPT_UD)
		return 0;
	x->ah = rt_vqp_ah(&x->d, &x->spec, err);
	x->loop.ah = x->ah;
	return x->ah ? 0 : -1;
}

static int server_ready(void *arg, const char *theirs, size_t len, struct rt_error *err)
{
	struct pp *x = arg;

	(void)len;
	return take_peer(x, theirs, err) || connect_qp(x, err) ? -1 : 0;
}

static int open_oob(struct pp *x)
{
	return rt_oob_open(&x->oob, x->run, x->p->server, (unsigned)x->p->tcp_port,
			   &x->run->err);
}

static int make_qp(struct pp *x)
{
	const struct rt_pp_params *p = x->p;
	struct rt_error *err = &x->run->err;
	struct rt_res_spec rs = { .qp_type = p->type, .send_depth = 1,
				  .recv_depth = (uint32_t)p->rx_depth,
				  .cq_depth = (uint32_t)p->rx_depth + 1,
				  .busy_poll = !p->events, 
				  .own_channels = p->events ? RT_RES_CHANNEL : 0u };
	struct rt_buf *b;

	if (rt_res_create_verbs(&x->res, x->d.ctx, x->d.pd, NULL, NULL, &rs, err))
		return -1;
	b = rt_res_buf(&x->res, RT_PP_BUF_LEN(p->size), IBV_ACCESS_LOCAL_WRITE, err);
	if (!b || rt_cqwait_init(&x->cqw, x->res.cq, x->res.ch, x->run->common.timeout_ms, err))
		return -1;
	x->loop = (struct rt_pp_loop){
		.qp = x->res.qp, .cqw = &x->cqw, .mr = b->mr, .buf = b->addr,
		.size = (size_t)p->size, .grh = p->type == IBV_QPT_UD ? RT_PP_GRH : 0,
		.rx_depth = (unsigned)p->rx_depth, .iters = (uint64_t)p->iters,
		.client = p->server != NULL, .qkey = x->spec.qkey, .check = p->check,
		.page = (size_t)sysconf(_SC_PAGESIZE), .peer = x->oob.peer_name,
	};
	return rt_vqp_init(x->res.qp, &x->d, &x->spec, err) ||
	       rt_pp_post_receives(&x->loop, err) ? -1 : 0;
}

static int exchange(struct pp *x)
{
	struct rt_error *err = &x->run->err;
	struct rt_pp_dest me = { .lid = x->spec.local.lid, .qpn = x->res.qp->qp_num,
				 .psn = x->spec.local_psn };
	char mine[RT_PP_REC_LEN], theirs[RT_PP_REC_LEN];
	bool client = x->p->server != NULL;

	if (x->spec.local.grh)
		me.gid = x->spec.local.gid;
	addr_line(x, "local", &me, x->p->ud_typo);
	rt_pp_rec_encode(mine, &me);
	if (rt_pp_exchange(&x->oob, client, mine, theirs, sizeof(theirs),
			   server_ready, x, err))
		return -1;
	rt_oob_close(&x->oob);
	return client && (take_peer(x, theirs, err) || connect_qp(x, err)) ? -1 : 0;
}

static void report(struct pp *x)
{
	struct rt_json *j = &x->run->results;
	struct rt_summary s;
	char text[256];

	rt_pp_print_result(&x->loop, text, sizeof(text));
	rt_say(&x->run->log, "%s", text);
	rt_hist_summarize(&x->loop.rtt, &s);
	rt_json_kv_string(j, "role", x->p->server ? "client" : "server");
	rt_json_kv_uint(j, "iters", x->loop.iters);
	rt_json_kv_uint(j, "size", x->loop.size);
	rt_json_kv_uint(j, "bytes", (uint64_t)x->loop.size * x->loop.iters * 2);
	rt_json_kv_uint(j, "elapsed_us", x->loop.elapsed_us);
	rt_json_kv_double(j, "usec_per_iter", (double)x->loop.elapsed_us /
			  (double)(x->loop.iters ? x->loop.iters : 1));
	rt_json_kv_bool(j, "checked", x->loop.check);
	if (x->loop.check)
		rt_json_kv_string(j, "peer_content", x->loop.content == RT_PP_PEER_RDMATEST ?
				  "rdmatest" : "echo");
	if (!x->loop.client)
		return;
	rt_json_key(j, "rtt_us");
	rt_summary_json(j, &s, 1000.0);
	if (!x->run->common.quiet && x->run->common.debug)
		rt_say(&x->run->log, "rtt min/median/p99/max %.2f/%.2f/%.2f/%.2f usec",
		       s.min / 1e3, s.median / 1e3, s.p99 / 1e3, s.max / 1e3);
}

static int setup(struct pp *x)
{
	const struct rt_pp_params *p = x->p;
	struct rt_error *err = &x->run->err;

	if (rt_vdev_open(&x->d, p->dev, (int)p->ib_port, err))
		return -1;
	/* upstream does not check: the device takes the QP, and drops every
	 * packet above the link's MTU, so both sides hang */
	if (p->mtu > x->d.attr.active_mtu)
		return rt_fail(err, RT_EXIT_ENV, "-m %d: above the active MTU %d of %s "
			       "port %u (a path MTU cannot exceed it)",
			       rt_mtu_bytes((enum ibv_mtu)p->mtu),
			       rt_mtu_bytes(x->d.attr.active_mtu), x->d.name, x->d.port);
	if (p->type == IBV_QPT_UD && p->size > rt_mtu_bytes(x->d.attr.active_mtu))
		return rt_fail(err, RT_EXIT_FAIL, "Requested size larger than port MTU (%d)",
			       rt_mtu_bytes(x->d.attr.active_mtu));
	rt_vqp_spec_defaults(&x->spec);
	x->spec.type = p->type;
	x->spec.mtu = p->type == IBV_QPT_UD ? 0 : (enum ibv_mtu)p->mtu;
	x->spec.sl = (uint8_t)p->sl;
	srand48((long)getpid() * time(NULL));
	x->spec.local_psn = (uint32_t)lrand48() & 0xffffff;
	if (open_oob(x) ||
	    rt_vdev_local(&x->d, "/sys", (int)p->gid_index,
			  (const struct sockaddr *)&x->oob.local, &x->spec.local, err))
		return -1;
	return make_qp(x);
}

static int session(struct rt_run *run, const struct rt_pp_params *p)
{
	struct pp *x = rt_xcalloc(1, sizeof(*x));
	int rc;

	x->run = run;
	x->p = p;
	x->oob.fd = x->oob.lfd = -1;
	rc = setup(x) || exchange(x) ? -1 : rt_pp_run(&x->loop, &run->err);
	if (!rc)
		report(x);
	rt_cqwait_done(&x->cqw);
	if (x->ah)
		ibv_destroy_ah(x->ah);
	rt_res_destroy(&x->res);
	rt_oob_close(&x->oob);
	rt_vdev_close(&x->d);
	free(x);
	return rc;
}

static const struct { size_t off; const char *what; } unsupported[] = {
	{ offsetof(struct rt_pp_cfg, odp), "-o: on-demand paging (ODP)" },
	{ offsetof(struct rt_pp_cfg, iodp), "-O: implicit on-demand paging (ODP)" },
	{ offsetof(struct rt_pp_cfg, prefetch), "-P: ODP prefetch" },
	{ offsetof(struct rt_pp_cfg, ts), "-t: completion timestamps" },
	{ offsetof(struct rt_pp_cfg, dm), "-j: device memory" },
};

int rt_pp_main(struct rt_run *run, const struct rt_pp_cfg *c, enum ibv_qp_type type)
{
	struct rt_pp_params p = {
		.type = type, .server = c->server, .dev = c->dev, .tcp_port = c->port,
		.ib_port = c->ib_port, .size = c->size,
		.mtu = type == IBV_QPT_UD ? 0 : c->mtu, .rx_depth = c->rx_depth,
		.iters = c->iters, .sl = c->sl, .gid_index = c->gid_index,
		.events = c->events, .check = c->chk, .ud_typo = type == IBV_QPT_UD,
	};

	for (size_t i = 0; i < ARRAY_SIZE(unsupported); i++)
		if (*(const int *)((const char *)c + unsupported[i].off))
			return rt_fail(&run->err, RT_EXIT_ENV, "%s is not supported "
				       "(rdmatest does not implement it)", unsupported[i].what);
	return session(run, &p);
}
