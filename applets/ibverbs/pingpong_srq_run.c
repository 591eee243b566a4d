/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One run of ibv_srq_pingpong: the verbs-only path (vconn.h, oob.h), one
 * SRQ shared by num_qp RC QPs, the 256-record exchange (pingpong_srq.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ibverbs/pingpong_srq.h"
#include "rdmatest/res.h"
#include "rdmatest/run.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

struct srq {
	struct rt_run *run;
	const struct rt_pp_srq_params *p;
	unsigned nq;
	struct rt_vdev d;
	struct rt_oob oob;
	struct rt_res res;   /* the CQ (-e: on a channel), SRQ, QPs, buffer */
	struct rt_vqp_spec spec[RT_PP_SRQ_MAX_QP];
	struct rt_cqwait cqw;
	struct rt_pp_srq_loop loop;
	char block[RT_PP_SRQ_BLOCK];
};

static void say_addr(struct srq *x, const char *who, const struct rt_pp_dest *d)
{
	char gid[64];

	rt_pp_gid_str(&d->gid, gid, sizeof(gid));
	rt_say(&x->run->log, "  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s",
	       who, d->lid, d->qpn, d->psn, gid);
}

/* The peer's block into the specs; RoCE needs the peer's GID, which an
 * upstream peer sends only when given -g. */
static int take_peer(struct srq *x, struct rt_error *err)
{
	static const union ibv_gid zero;
	struct rt_pp_dest d[RT_PP_SRQ_MAX_QP];

	if (rt_pp_srq_block_decode(x->block, x->nq, d, x->oob.peer_name, err))
		return -1;
	for (unsigned i = 0; i < x->nq; i++)
		say_addr(x, "remote address:", &d[i]);
	if (x->spec[0].local.grh && !memcmp(&d[0].gid, &zero, sizeof(zero)))
		return rt_fail(err, RT_EXIT_FAIL, "%s sent no GID, and this %s port needs "
			       "one: give the peer -g (the RoCE v2 GID index)",
			       x->oob.peer_name, rt_link_layer_name(x->d.attr.link_layer));
	if (!x->spec[0].local.grh && !d[0].lid)
		return rt_fail(err, RT_EXIT_FAIL, "%s sent LID 0 and this side uses no "
			       "GID: give both sides -g", x->oob.peer_name);
	for (unsigned i = 0; i < x->nq; i++) {
		struct rt_vqp_spec *s = &x->spec[i];

		s->remote.lid = d[i].lid;
		s->remote.gid = d[0].gid; /* upstream takes the path from record 0 */
		s->remote_qpn = d[i].qpn;
		s->remote_psn = d[i].psn;
	}
	return 0;
}

static int connect_all(struct srq *x, struct rt_error *err)
{
	if (take_peer(x, err))
		return -1;
	for (unsigned i = 0; i < x->nq; i++)
		if (rt_vqp_connect(x->res.qps[i], &x->d, &x->spec[i], err))
			return -1;
	return 0;
}

static int server_ready(void *arg, const char *theirs, size_t len, struct rt_error *err)
{
	struct srq *x = arg;

	(void)theirs;
	(void)len;
	return connect_all(x, err);
}

static int open_oob(struct srq *x)
{
	return rt_oob_open(&x->oob, x->run, x->p->server, (unsigned)x->p->port,
			   &x->run->err);
}

/* -o needs on-demand paging of RC sends and SRQ receives. */
static int odp_ok(struct srq *x, struct rt_error *err)
{
	struct ibv_device_attr_ex a;
	const uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV;

	if (ibv_query_device_ex(x->d.ctx, NULL, &a) ||
	    !(a.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
	    (a.odp_caps.per_transport_caps.rc_odp_caps & need) != need)
		return rt_fail(err, RT_EXIT_ENV, "-o: %s has no on-demand paging (ODP) "
			       "for RC sends and SRQ receives", x->d.name);
	return 0;
}

/* Upstream's queues: one CQ of rx_depth + num_qp entries, one SRQ of
 * rx_depth receives, num_qp RC QPs of one send each on both. */
static int make_queues(struct srq *x, struct rt_error *err)
{
	const struct rt_pp_srq_params *p = x->p;
	struct rt_res_spec rs = {
		.qp_type = IBV_QPT_RC, .send_depth = 1, .qps = x->nq,
		.cq_depth = (uint32_t)p->rx_depth + x->nq,
		.srq_depth = (uint32_t)p->rx_depth,
		.busy_poll = !p->events, 
		.own_channels = p->events ? RT_RES_CHANNEL : 0u,
	};

	return rt_res_create_verbs(&x->res, x->d.ctx, x->d.pd, NULL, NULL, &rs, err);
}

static int init_qp(struct srq *x, unsigned i, struct rt_error *err)
{
	struct ibv_qp *qp = x->res.qps[i];
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	/* inline only if every QP takes it, as each send may use any QP */
	if (!ibv_query_qp(qp, &qa, IBV_QP_CAP, &ia) &&
	    ia.cap.max_inline_data < (uint32_t)x->p->size)
		x->loop.send_flags = 0;
	return rt_vqp_init(qp, &x->d, &x->spec[i], err);
}

static int make_all(struct srq *x)
{
	const struct rt_pp_srq_params *p = x->p;
	struct rt_error *err = &x->run->err;
	int access = IBV_ACCESS_LOCAL_WRITE | (p->odp ? IBV_ACCESS_ON_DEMAND : 0);
	struct rt_buf *b;

	if (make_queues(x, err))
		return -1;
	b = rt_res_buf(&x->res, RT_PP_SRQ_BUF_LEN(p->size), access, err);
	if (!b || rt_cqwait_init(&x->cqw, x->res.cq, x->res.ch,
				 x->run->common.timeout_ms, err))
		return -1;
	x->loop.send_flags = IBV_SEND_INLINE;
	for (unsigned i = 0; i < x->nq; i++)
		if (init_qp(x, i, err))
			return -1;
	x->loop.qp = x->res.qps;
	x->loop.num_qp = x->nq;
	x->loop.srq = x->res.srq;
	x->loop.cqw = &x->cqw;
	x->loop.mr = b->mr;
	x->loop.buf = b->addr;
	x->loop.size = (size_t)p->size;
	x->loop.rx_depth = (unsigned)p->rx_depth;
	x->loop.iters = (uint64_t)p->iters;
	x->loop.client = p->server != NULL;
	x->loop.check = p->chk;
	x->loop.page = (size_t)sysconf(_SC_PAGESIZE);
	x->loop.peer = x->oob.peer_name;
	return rt_pp_srq_post_receives(&x->loop, err);
}

static int exchange(struct srq *x)
{
	struct rt_error *err = &x->run->err;
	struct rt_pp_dest me[RT_PP_SRQ_MAX_QP] = { 0 };
	char *mine = rt_xcalloc(1, RT_PP_SRQ_BLOCK);
	bool client = x->p->server != NULL;
	int rc;

	for (unsigned i = 0; i < x->nq; i++) {
		me[i].lid = x->spec[i].local.lid;
		me[i].qpn = x->res.qps[i]->qp_num;
		me[i].psn = x->spec[i].local_psn;
		if (x->spec[i].local.grh)
			me[i].gid = x->spec[i].local.gid;
		say_addr(x, "local address: ", &me[i]);
	}
	rt_pp_srq_block_encode(mine, me, x->nq);
	rc = rt_pp_exchange(&x->oob, client, mine, x->block, RT_PP_SRQ_BLOCK,
			    server_ready, x, err);
	free(mine);
	if (rc)
		return -1;
	rt_oob_close(&x->oob);
	return client ? connect_all(x, err) : 0;
}

static void report(struct srq *x)
{
	const struct rt_pp_srq_loop *l = &x->loop;
	struct rt_json *j = &x->run->results;
	struct rt_summary s;
	char text[256];

	rt_pp_srq_print_result(l, text, sizeof(text));
	rt_say(&x->run->log, "%s", text);
	rt_json_kv_string(j, "role", l->client ? "client" : "server");
	rt_json_kv_uint(j, "num_qp", l->num_qp);
	rt_json_kv_uint(j, "iters", l->iters);
	rt_json_kv_uint(j, "sent", l->sent);
	rt_json_kv_uint(j, "received", l->received);
	rt_json_kv_uint(j, "size", l->size);
	rt_json_kv_uint(j, "bytes", (uint64_t)l->size * l->iters * 2);
	rt_json_kv_uint(j, "elapsed_us", l->elapsed_us);
	rt_json_kv_double(j, "usec_per_iter", (double)l->elapsed_us /
			  (double)(l->iters ? l->iters : 1));
	rt_json_kv_bool(j, "checked", l->check);
	if (l->check)
		rt_json_kv_string(j, "peer_content", l->content == RT_PP_PEER_RDMATEST ?
				  "rdmatest" : "echo");
	if (!l->client)
		return;
	rt_hist_summarize(&l->rtt, &s);
	rt_json_key(j, "rtt_us");
	rt_summary_json(j, &s, 1000.0);
}

static int setup(struct srq *x)
{
	const struct rt_pp_srq_params *p = x->p;
	struct rt_error *err = &x->run->err;
	struct rt_vqp_spec s;

	/* a missing capability is named before any connection */
	if (rt_vdev_open(&x->d, p->dev, (int)p->ib_port, err) ||
	    (x->p->odp && odp_ok(x, err)))
		return -1;
	rt_vqp_spec_defaults(&s);
	s.type = IBV_QPT_RC;
	s.mtu = (enum ibv_mtu)p->mtu;
	s.sl = (uint8_t)p->sl;
	if (open_oob(x) ||
	    rt_vdev_local(&x->d, "/sys", (int)p->gid_index,
			  (const struct sockaddr *)&x->oob.local, &s.local, err))
		return -1;
	srand48((long)getpid() * time(NULL));
	for (unsigned i = 0; i < x->nq; i++) {
		x->spec[i] = s;
		x->spec[i].local_psn = (uint32_t)lrand48() & 0xffffff;
	}
	return make_all(x);
}

static void teardown(struct srq *x)
{
	rt_cqwait_done(&x->cqw);
	rt_res_destroy(&x->res);
	rt_oob_close(&x->oob);
	rt_vdev_close(&x->d);
}

int rt_pp_srq_session(struct rt_run *run, const struct rt_pp_srq_params *p)
{
	struct srq *x = rt_xcalloc(1, sizeof(*x));
	int rc;

	x->run = run;
	x->p = p;
	x->nq = (unsigned)p->num_qp;
	x->oob.fd = x->oob.lfd = -1;
	rc = setup(x) || exchange(x) ? -1 : rt_pp_srq_run(&x->loop, &run->err);
	if (!rc)
		report(x);
	teardown(x);
	free(x);
	return rc;
}
