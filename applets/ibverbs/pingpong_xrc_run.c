/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One run of ibv_xsrq_pingpong: an XRC domain of its own (on an anonymous
 * file, not upstream's /tmp/xrc_domain), one XRC SRQ, per client a receive (TGT) and
 * a send (INI) QP, the 66-byte record exchange and the END handshake
 * (pingpong_xrc.h). Every wait is bounded: TCP by --timeout, completions
 * by rt_cqwait. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rdmatest/cqwait.h"
#include "ibverbs/pingpong_xrc.h"
#include "rdmatest/res.h"
#include "rdmatest/run.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

struct xclient {
	struct rt_oob oob;
	struct rt_pp_xrc_dest me, peer;
	struct ibv_qp *recv_qp, *send_qp; /* x->res's */
	struct rt_vqp_spec spec;
	long long sent; /* upstream's pp_cnt */
};

struct xrc {
	struct rt_run *run;
	const struct rt_pp_xrc_params *p;
	unsigned n;               /* clients: 1 on a client */
	struct rt_vdev d;
	struct rt_vaddr local;
	int fd;
	struct ibv_xrcd *xrcd;
	struct rt_res res;        /* CQs (-e: the receive CQ on a channel),
				   * SRQ, QPs and buffer on xrcd */
	uint32_t srqn;
	struct ibv_mr *mr;        /* res's, of buf */
	uint8_t *buf;
	struct rt_cqwait rw, sw;
	struct xclient *c;        /* n of them */
	unsigned cur;             /* the client being connected */
};

int rt_pp_xrc_domain_fd(void)
{
	return memfd_create("rdmatest-xrc-domain", MFD_CLOEXEC);
}

static int make_domain(struct xrc *x, struct rt_error *err)
{
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
						      IBV_XRCD_INIT_ATTR_OFLAGS,
					 .oflags = O_CREAT };

	x->fd = rt_pp_xrc_domain_fd();
	/* fd -1 with O_CREAT: the kernel makes a domain tied to no file,
	 * which is all a run needs */
	if (x->fd < 0)
		rt_warn(&x->run->log, "cannot create the XRC domain's file (%s): "
			"the domain is tied to none", strerror(errno));
	xa.fd = x->fd;
	x->xrcd = ibv_open_xrcd(x->d.ctx, &xa);
	if (!x->xrcd)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "ibv_open_xrcd on %s",
				     x->d.name);
	return 0;
}

static int odp_ok(struct xrc *x, struct rt_error *err)
{
	struct ibv_device_attr_ex a;
	const uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV;

	if (ibv_query_device_ex(x->d.ctx, NULL, &a) ||
	    !(a.odp_caps.general_caps & IBV_ODP_SUPPORT) || (a.xrc_odp_caps & need) != need)
		return rt_fail(err, RT_EXIT_ENV, "-o: %s has no on-demand paging (ODP) "
			       "for XRC sends and SRQ receives", x->d.name);
	return 0;
}

static int make_buf(struct xrc *x, struct rt_error *err)
{
	struct rt_buf *b = rt_res_buf(&x->res, (size_t)x->p->size, IBV_ACCESS_LOCAL_WRITE |
				      (x->p->odp ? IBV_ACCESS_ON_DEMAND : 0), err);

	if (!b)
		return -1;
	x->buf = b->addr;
	x->mr = b->mr;
	return 0;
}

/* Upstream's queues: a receive and a send CQ of one entry per client,
 * the XRC SRQ of as many receives on the receive CQ. */
static int make_queues(struct xrc *x, struct rt_error *err)
{
	struct rt_res_spec rs = {
		.cq_depth = x->n, .recv_cq_depth = x->n, .srq_depth = x->n,
		.own_channels = x->p->events ? RT_RES_RECV_CHANNEL : 0u,
	};

	x->res.xrcd = x->xrcd;
	if (rt_res_create_queues(&x->res, x->d.ctx, x->d.pd, NULL, NULL, &rs, err))
		return -1;
	if (ibv_get_srq_num(x->res.srq, &x->srqn))
		return rt_fail(err, RT_EXIT_FAIL, "ibv_get_srq_num failed");
	return rt_cqwait_init(&x->rw, x->res.rcq, x->res.rch, x->run->common.timeout_ms,
			      err) ||
	       rt_cqwait_init(&x->sw, x->res.cq, NULL, x->run->common.timeout_ms, err);
}

/* A transition with the RC attributes of vconn.c, less what the XRC half
 * does not take: `drop` is removed from the mask. */
static int xmodify(struct xrc *x, struct ibv_qp *qp, const struct rt_vqp_spec *s,
		   enum ibv_qp_state st, int drop, const char *what, struct rt_error *err)
{
	struct ibv_qp_attr a;
	int mask, e;

	rt_vqp_attr(&x->d, s, st, &a, &mask);
	e = ibv_modify_qp(qp, &a, mask & ~drop);
	if (e)
		return rt_fail(err, RT_EXIT_FAIL, "modify %s QP 0x%06x to %s: %s", what,
			       qp->qp_num, st == IBV_QPS_INIT ? "INIT" :
			       st == IBV_QPS_RTR ? "RTR" : "RTS", strerror(e > 0 ? e : errno));
	return 0;
}

/* The QP spec's newest QP in x->res, or NULL. */
static struct ibv_qp *add_qp(struct xrc *x, const struct rt_res_spec *s,
			     struct rt_error *err)
{
	if (rt_res_add_qps(&x->res, x->d.ctx, s, err))
		return NULL;
	return x->res.qps[x->res.nqps - 1];
}

static int make_qps(struct xrc *x, struct xclient *c, struct rt_error *err)
{
	const struct rt_res_spec r = { .qp_type = IBV_QPT_XRC_RECV };
	const struct rt_res_spec s = { .qp_type = IBV_QPT_XRC_SEND,
				       .send_depth = (uint32_t)(x->n * x->p->tests) };

	rt_vqp_spec_defaults(&c->spec);
	c->spec.type = IBV_QPT_RC;
	c->spec.mtu = (enum ibv_mtu)x->p->mtu;
	c->spec.sl = (uint8_t)x->p->sl;
	c->spec.local_psn = (uint32_t)lrand48() & 0xffffff;
	if (!(c->recv_qp = add_qp(x, &r, err)) || !(c->send_qp = add_qp(x, &s, err)))
		return -1;
	c->spec.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (xmodify(x, c->recv_qp, &c->spec, IBV_QPS_INIT, 0, "receive", err))
		return -1;
	c->spec.access = 0;
	if (xmodify(x, c->send_qp, &c->spec, IBV_QPS_INIT, 0, "send", err))
		return -1;
	c->me = (struct rt_pp_xrc_dest){ .recv_qpn = c->recv_qp->qp_num,
					 .send_qpn = c->send_qp->qp_num,
					 .psn = c->spec.local_psn, .srqn = x->srqn };
	return 0;
}

static void line(struct xrc *x, const char *who, const struct rt_pp_xrc_dest *d)
{
	char b[192];

	rt_pp_xrc_addr_line(b, sizeof(b), who, d);
	rt_say(&x->run->log, "%s", b);
}

/* The peer's record: receive QP to its send QP, send QP to its receive
 * QP, as upstream's connect_qps. */
static int connect_one(void *arg, const struct rt_pp_xrc_dest *theirs, struct rt_error *err)
{
	struct xrc *x = arg;
	struct xclient *c = &x->c[x->cur];
	struct rt_vqp_spec *s = &c->spec;
	static const union ibv_gid zero;

	c->peer = *theirs;
	if (x->p->server) {
		line(x, "local", &c->me);
		line(x, "remote", theirs);
	} else {
		line(x, "remote", theirs);
		line(x, "local", &c->me);
	}
	if (s->local.grh && !memcmp(&theirs->gid, &zero, sizeof(zero)))
		return rt_fail(err, RT_EXIT_FAIL, "%s sent no GID, and this %s port needs "
			       "one: give the peer -g", c->oob.peer_name,
			       rt_link_layer_name(x->d.attr.link_layer));
	s->remote.lid = theirs->lid;
	s->remote.gid = theirs->gid;
	s->remote_psn = theirs->psn;
	s->remote_qpn = theirs->send_qpn;
	if (xmodify(x, c->recv_qp, s, IBV_QPS_RTR, 0, "receive", err) ||
	    xmodify(x, c->recv_qp, s, IBV_QPS_RTS, IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		    IBV_QP_MAX_QP_RD_ATOMIC, "receive", err))
		return -1;
	s->remote_qpn = theirs->recv_qpn;
	return xmodify(x, c->send_qp, s, IBV_QPS_RTR, IBV_QP_MAX_DEST_RD_ATOMIC |
		       IBV_QP_MIN_RNR_TIMER, "send", err) ||
	       xmodify(x, c->send_qp, s, IBV_QPS_RTS, 0, "send", err) ? -1 : 0;
}

static int post_recvs(struct xrc *x, unsigned n, struct rt_error *err)
{
	struct ibv_sge sge = { .addr = (uintptr_t)x->buf, .length = (uint32_t)x->p->size,
			       .lkey = x->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	for (unsigned i = 0; i < n; i++) {
		int e = ibv_post_srq_recv(x->res.srq, &wr, &bad);

		if (e)
			return rt_fail_errno(err, RT_EXIT_FAIL, e, "ibv_post_srq_recv");
	}
	return 0;
}

/* Upstream's send to client i: over the send QPs in turn, to i's SRQ;
 * only the last one signalled. */
static int post_send(struct xrc *x, unsigned i, struct rt_error *err)
{
	struct xclient *c = &x->c[i];
	struct ibv_sge sge = { .addr = (uintptr_t)x->buf, .length = (uint32_t)x->p->size,
			       .lkey = x->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bad;
	unsigned q = (unsigned)((i + (unsigned long long)c->sent) % x->n);
	int e;

	wr.qp_type.xrc.remote_srqn = c->peer.srqn;
	wr.send_flags = ++c->sent >= x->p->tests ? IBV_SEND_SIGNALED : 0;
	e = ibv_post_send(x->c[q].send_qp, &wr, &bad);
	if (e)
		return rt_fail_errno(err, RT_EXIT_FAIL, e, "ibv_post_send (message %lld to "
				     "client %u)", c->sent, i);
	return 0;
}

static int find(const struct xrc *x, uint32_t qpn)
{
	for (unsigned i = 0; i < x->n; i++)
		if (x->c[i].recv_qp->qp_num == qpn)
			return (int)i;
	return x->n == 1 ? 0 : -1;
}

static int on_recv(struct xrc *x, const struct ibv_wc *wc, struct rt_error *err)
{
	int i;

	if (wc->status != IBV_WC_SUCCESS) {
		rt_error_event(err, ibv_wc_status_str(wc->status), wc->status);
		return rt_fail(err, RT_EXIT_FAIL, "receive completion: %s",
			       ibv_wc_status_str(wc->status));
	}
	if (wc->byte_len != (uint32_t)x->p->size)
		return rt_fail(err, RT_EXIT_FAIL, "a message of %u bytes, want %lld: do "
			       "both sides use the same -s?", wc->byte_len, x->p->size);
	i = find(x, wc->qp_num);
	if (i < 0)
		return rt_fail(err, RT_EXIT_FAIL, "receive on unknown QPN 0x%06x", wc->qp_num);
	if (post_recvs(x, 1, err))
		return -1;
	return x->c[i].sent < x->p->tests ? post_send(x, (unsigned)i, err) : 0;
}

static int traffic(struct xrc *x, struct rt_error *err)
{
	unsigned long long total = (unsigned long long)x->n * (unsigned long long)x->p->tests;
	unsigned long long got = 0, done = 0;
	struct ibv_wc wc;

	rt_error_phase(err, "transfer");
	for (unsigned i = 0; !x->p->server && i < x->n; i++)
		if (post_send(x, i, err))
			return -1;
	while (got < total) {
		int n = rt_cqwait_poll(&x->rw, &wc, 1, err);

		if (n == 0)
			return rt_fail(err, RT_EXIT_TIMEOUT, "no message within %lld ms after "
				       "%llu of %llu (does the peer use the same -n? is it "
				       "still running?)", x->rw.timeout_ms, got, total);
		if (n < 0 || on_recv(x, &wc, err))
			return -1;
		got++;
	}
	while (done < x->n) {
		int n = rt_cqwait_poll(&x->sw, &wc, 1, err);

		if (n == 0)
			return rt_fail(err, RT_EXIT_TIMEOUT, "last sends not completed within "
				       "%lld ms", x->sw.timeout_ms);
		if (n < 0)
			return -1;
		if (wc.status != IBV_WC_SUCCESS)
			return rt_fail(err, RT_EXIT_FAIL, "send completion: %s",
				       ibv_wc_status_str(wc.status));
		done++;
	}
	return 0;
}

/* The client's END goes first; the server answers once every client's
 * has come, so that no client tears down while a message to its SRQ may
 * still travel through another client's receive QP. */
static int finish(struct xrc *x, struct rt_error *err)
{
	rt_error_phase(err, "termination");
	if (!x->p->server)
		return rt_pp_xrc_end_send(&x->c[0].oob, err) ||
		       rt_pp_xrc_end_recv(&x->c[0].oob, err) ? -1 : 0;
	for (unsigned i = 0; i < x->n; i++)
		if (rt_pp_xrc_end_recv(&x->c[i].oob, err))
			return -1;
	for (unsigned i = 0; i < x->n; i++)
		if (rt_pp_xrc_end_send(&x->c[i].oob, err))
			return -1;
	return 0;
}

/* This side's address (the GID of the address the peer is reached on,
 * chosen on RoCE when -g is not given) into every client's spec and
 * record: known once the first TCP connection stands. */
static int local_end(struct xrc *x, const struct rt_oob *o, struct rt_error *err)
{
	if (rt_vdev_local(&x->d, "/sys", (int)x->p->gid_index,
			  (const struct sockaddr *)&o->local, &x->local, err))
		return -1;
	for (unsigned i = 0; i < x->n; i++) {
		x->c[i].spec.local = x->local;
		x->c[i].me.lid = x->local.lid;
		if (x->local.grh)
			x->c[i].me.gid = x->local.gid;
	}
	return 0;
}

static int serve_one(struct xrc *x, const struct rt_oob *l, struct rt_error *err)
{
	struct rt_oob *o = &x->c[x->cur].oob;

	*o = *l;
	o->lfd = dup(l->lfd); /* accept closes it: the listener stays */
	if (o->lfd < 0)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "dup");
	if (rt_oob_accept(o, err) || (x->cur == 0 && local_end(x, o, err)))
		return -1;
	o->timeout_ms = x->run->common.timeout_ms;
	return rt_pp_xrc_exchange(o, false, &x->c[x->cur].me, connect_one, x, err);
}

static int serve(struct xrc *x, struct rt_error *err)
{
	struct rt_oob l;
	int rc = 0;

	rt_oob_init(&l, rt_run_accept_bound(x->run));
	if (rt_oob_listen(&l, NULL, (unsigned)x->p->port, err))
		return -1;
	for (x->cur = 0; x->cur < x->n && !rc; x->cur++)
		rc = serve_one(x, &l, err);
	rt_oob_close(&l);
	return rc;
}

static int setup(struct xrc *x)
{
	struct rt_error *err = &x->run->err;
	struct rt_oob *o = &x->c[0].oob;

	if (rt_vdev_open(&x->d, x->p->dev, (int)x->p->ib_port, err) ||
	    rt_pp_xrc_capable(x->d.ctx, x->d.name, err) ||
	    (x->p->odp && odp_ok(x, err)) || make_domain(x, err) ||
	    make_queues(x, err) || make_buf(x, err))
		return -1;
	srand48((long)getpid() * time(NULL));
	for (unsigned i = 0; i < x->n; i++)
		if (make_qps(x, &x->c[i], err))
			return -1;
	if (post_recvs(x, x->n, err))
		return -1;
	rt_error_phase(err, "connect");
	if (!x->p->server)
		return serve(x, err);
	rt_oob_init(o, x->run->common.timeout_ms);
	return rt_oob_connect(o, x->p->server, (unsigned)x->p->port,
			      x->run->common.wait_server_ms, err) ||
	       local_end(x, o, err) ||
	       rt_pp_xrc_exchange(o, true, &x->c[0].me, connect_one, x, err) ? -1 : 0;
}

static void teardown(struct xrc *x)
{
	rt_cqwait_done(&x->rw);
	for (unsigned i = 0; i < x->n; i++)
		rt_oob_close(&x->c[i].oob);
	rt_res_destroy(&x->res);
	if (x->xrcd)
		ibv_close_xrcd(x->xrcd);
	if (x->fd >= 0)
		close(x->fd);
	rt_vdev_close(&x->d);
}

int rt_pp_xrc_session(struct rt_run *run, const struct rt_pp_xrc_params *p)
{
	struct xrc *x = rt_xcalloc(1, sizeof(*x));
	int rc;

	x->run = run;
	x->p = p;
	x->n = p->server ? 1 : (unsigned)p->clients;
	x->fd = -1;
	x->c = rt_xcalloc(x->n, sizeof(*x->c));
	for (unsigned i = 0; i < x->n; i++)
		x->c[i].oob.fd = x->c[i].oob.lfd = -1;
	rc = setup(x) || traffic(x, &run->err) || finish(x, &run->err) ? -1 : 0;
	if (!rc) {
		rt_say(&run->log, "success");
		rt_json_kv_string(&run->results, "role", p->server ? "client" : "server");
		rt_json_kv_uint(&run->results, "clients", x->n);
		rt_json_kv_uint(&run->results, "tests", (uint64_t)p->tests);
	}
	teardown(x);
	free(x->c);
	free(x);
	return rc;
}
