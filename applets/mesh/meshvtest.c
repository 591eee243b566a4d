/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A pair's rails without an IP address, tested over verbs alone
 * (meshvtest.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/meshctr.h"
#include "mesh/meshvtest.h"
#include "rdmatest/cqwait.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/oob.h"
#include "rdmatest/portctr.h"
#include "rdmatest/random.h"
#include "rdmatest/res.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"
#include "rdmatest/xfer.h"

#define PING_LEN 8u
#define SEND_OFF 64u /* the send slot, apart from the receive slot at 0 */

struct vrail {
	uint8_t rail, rail_b;        /* this end's, the partner's */
	struct rt_vdev dev;
	struct rt_res res;
	struct rt_buf *buf;
	struct rt_cqwait w;
	struct rt_vqp_spec spec;
	bool opened, made, waiting;
	bool read;                   /* the first counter reading came */
	bool taken;                  /* the second one too: own holds the rises */
	struct rt_portctrs before, after;
	struct rt_mesh_ctrs own, peer;
};

struct vtest {
	const struct rt_mesh_cm_test *t;
	bool active;
	unsigned n;
	struct vrail *v;
	struct rt_oob o;
	uint64_t start, deadline;
	struct rt_hist h;            /* the connecting side's, rail by rail */
};

void rt_mesh_vrec_put(const struct rt_mesh_vrec *v, uint8_t *buf)
{
	memset(buf, 0, RT_MESH_VREC_LEN);
	buf[0] = v->rail;
	buf[1] = v->grh;
	buf[12] = v->peer_rail;
	buf[2] = (uint8_t)(v->lid >> 8);
	buf[3] = (uint8_t)v->lid;
	rt_put_be32(buf + 4, v->qpn);
	rt_put_be32(buf + 8, v->psn);
	memcpy(buf + 16, v->gid, 16);
}

int rt_mesh_vrec_take(const uint8_t *buf, struct rt_mesh_vrec *v, char *why, size_t why_len)
{
	v->rail = buf[0];
	v->grh = buf[1];
	v->peer_rail = buf[12];
	v->lid = (uint16_t)(buf[2] << 8 | buf[3]);
	v->qpn = rt_get_be32(buf + 4);
	v->psn = rt_get_be32(buf + 8);
	memcpy(v->gid, buf + 16, 16);
	for (unsigned i = 13; i < 16; i++)
		if (buf[i]) {
			snprintf(why, why_len, "rail %u's record: a pad byte is not zero", v->rail);
			return -1;
		}
	if (v->rail >= RT_MESH_RAILS_MAX || v->peer_rail >= RT_MESH_RAILS_MAX || v->grh > 1 ||
	    v->qpn > 0xffffffu || v->psn > 0xffffffu) {
		snprintf(why, why_len, "a rail record for rail %u to %u (GRH %u, QPN %u, PSN %u) "
			 "out of range", v->rail, v->peer_rail, v->grh, v->qpn, v->psn);
		return -1;
	}
	return 0;
}

static long long left_ms(const struct vtest *vt)
{
	uint64_t now = rt_now_ns();

	return now >= vt->deadline ? 1 : (long long)((vt->deadline - now) / 1000000u) + 1;
}

static const struct rt_mesh_rail *own_rail(const struct rt_mesh_cm_test *t, uint8_t rail)
{
	for (unsigned i = 0; i < t->nrails; i++)
		if (t->rails[i].rail == rail)
			return &t->rails[i];
	return NULL;
}

/* The local end of a rail: InfiniBand by its LID, RoCE by its first
 * RoCE v2 GID (the port has no address to derive one from). */
static int local_end(const struct vtest *vt, struct vrail *vr, struct rt_error *err)
{
	int idx = -1;

	if (vr->dev.attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		idx = rt_roce_v2_gid_of(vt->t->sysfs, vr->dev.name, vr->dev.port,
					vr->dev.attr.gid_tbl_len, NULL, NULL, 0);
		if (idx < 0)
			return rt_fail(err, RT_EXIT_ENV, "%s port %u has no RoCE v2 GID",
				       vr->dev.name, vr->dev.port);
	}
	return rt_vdev_local(&vr->dev, vt->t->sysfs, idx, NULL, &vr->spec.local, err);
}

static int open_rail(struct vtest *vt, struct vrail *vr, struct rt_error *err)
{
	const struct rt_mesh_rail *r = own_rail(vt->t, vr->rail);
	struct rt_res_spec spec = { .qp_type = IBV_QPT_RC, .send_depth = 2, .recv_depth = 2,
				    .sig_all = true, .self_managed_qp = true,
				    .own_channels = RT_RES_CHANNEL };
	uint8_t psn[4];

	if (!r)
		return rt_fail(err, RT_EXIT_FAIL, "rail %u is not one of this host's", vr->rail);
	if (rt_vdev_open(&vr->dev, r->dev, r->port, err))
		return -1;
	vr->opened = true;
	rt_vqp_spec_defaults(&vr->spec);
	/* 4.096 us x 2^18, about 1 s, as NCCL's default: a RoCE port that
	 * sends its first packet to a GID whose neighbour it has yet to
	 * resolve (rxe does so at send time) would otherwise send it again
	 * after 67 ms, and the count of that resend would be judged */
	vr->spec.timeout = 18;
	vr->spec.traffic_class = vt->t->tos >= 0 ? (uint8_t)vt->t->tos : 0;
	if (local_end(vt, vr, err) || rt_random_bytes(psn, sizeof(psn), err) ||
	    rt_res_create_verbs(&vr->res, vr->dev.ctx, vr->dev.pd, NULL, NULL, &spec, err))
		return -1;
	vr->made = true;
	vr->spec.local_psn = rt_get_be32(psn) & 0xffffffu;
	vr->buf = rt_res_buf(&vr->res, SEND_OFF + PING_LEN, IBV_ACCESS_LOCAL_WRITE, err);
	if (!vr->buf || rt_cqwait_init(&vr->w, vr->res.cq, vr->res.ch, left_ms(vt), err) ||
	    rt_vqp_init(vr->res.qp, &vr->dev, &vr->spec, err) ||
	    rt_post_recv(&vr->res, vr->buf, 0, PING_LEN, RT_WR_ID(RT_WR_RECV, 0), err))
		return -1;
	vr->waiting = true;
	return 0;
}

static void close_rail(struct vrail *vr)
{
	if (vr->waiting)
		rt_cqwait_done(&vr->w);
	if (vr->made)
		rt_res_destroy(&vr->res);
	if (vr->opened)
		rt_vdev_close(&vr->dev);
}

/* The partner's record of vr's connection among its n: the one from
 * vr's partner rail to vr's rail (the two sides list their rails in
 * their own orders when rails are crossed). */
static int take_match(const uint8_t *theirs, unsigned n, const struct vrail *vr,
		      struct rt_mesh_vrec *rec, char *why, size_t why_len)
{
	for (unsigned j = 0; j < n; j++) {
		if (rt_mesh_vrec_take(theirs + (size_t)j * RT_MESH_VREC_LEN, rec, why, why_len))
			return -1;
		if (rec->rail == vr->rail_b && rec->peer_rail == vr->rail)
			return 0;
	}
	snprintf(why, why_len, "no record of its rail %u to rail %u", vr->rail_b, vr->rail);
	return -1;
}

/* Both sides' records over the channel: the connecting side's first. */
static int exchange(struct vtest *vt, struct rt_error *err)
{
	uint8_t mine[RT_MESH_RAILS_MAX * RT_MESH_VREC_LEN], theirs[sizeof(mine)];
	size_t len = (size_t)vt->n * RT_MESH_VREC_LEN;
	char why[128];

	for (unsigned i = 0; i < vt->n; i++) {
		const struct vrail *vr = &vt->v[i];
		struct rt_mesh_vrec rec = { .rail = vr->rail, .peer_rail = vr->rail_b,
					    .grh = vr->spec.local.grh,
					    .lid = vr->spec.local.lid, .qpn = vr->res.qp->qp_num,
					    .psn = vr->spec.local_psn };

		memcpy(rec.gid, vr->spec.local.gid.raw, 16);
		rt_mesh_vrec_put(&rec, mine + (size_t)i * RT_MESH_VREC_LEN);
	}
	vt->o.timeout_ms = left_ms(vt);
	if ((vt->active && rt_oob_write(&vt->o, mine, len, err)) ||
	    rt_oob_read(&vt->o, theirs, len, err) ||
	    (!vt->active && rt_oob_write(&vt->o, mine, len, err)))
		return -1;
	for (unsigned i = 0; i < vt->n; i++) {
		struct vrail *vr = &vt->v[i];
		struct rt_mesh_vrec rec;

		if (take_match(theirs, vt->n, vr, &rec, why, sizeof(why)))
			return rt_fail(err, RT_EXIT_FAIL, "%s: %s", vt->o.peer_name, why);
		vr->spec.remote = (struct rt_vaddr){ .lid = rec.lid, .grh = rec.grh };
		memcpy(vr->spec.remote.gid.raw, rec.gid, 16);
		vr->spec.remote_qpn = rec.qpn;
		vr->spec.remote_psn = rec.psn;
		if (rt_vqp_connect(vr->res.qp, &vr->dev, &vr->spec, err))
			return -1;
	}
	return 0;
}

/* One completion of `kind` within the deadline; 0, or -1 with err set. */
static int await(struct vtest *vt, struct vrail *vr, enum rt_wr_kind kind, struct rt_error *err)
{
	struct ibv_wc wc;
	int got;

	vr->w.timeout_ms = left_ms(vt);
	got = rt_cqwait_poll(&vr->w, &wc, 1, err);
	if (got == 0)
		return rt_fail(err, RT_EXIT_TIMEOUT, "rail %u: no %s completion within the test's "
			       "bound", vr->rail, rt_wr_kind_str(kind));
	if (got < 0)
		return got == RT_INTERRUPTED ? rt_fail(err, RT_EXIT_FAIL, "interrupted") : -1;
	if (wc.status != IBV_WC_SUCCESS)
		return rt_wc_fail(&wc, vt->o.peer_name, err);
	if (RT_WR_KIND(wc.wr_id) != kind)
		return rt_fail(err, RT_EXIT_FAIL, "rail %u: a %s completion where a %s was due",
			       vr->rail, rt_wr_kind_str(RT_WR_KIND(wc.wr_id)), rt_wr_kind_str(kind));
	return 0;
}

/* The connecting side's ping i on a rail: sent, echoed, timed. */
static int ping(struct vtest *vt, struct vrail *vr, uint64_t seq, struct rt_error *err)
{
	uint64_t t0 = rt_now_ns();

	rt_put_be64(vr->buf->addr + SEND_OFF, seq);
	if (rt_post_send(&vr->res, vr->buf, SEND_OFF, PING_LEN, RT_WR_ID(RT_WR_SEND, seq), true,
			 err) ||
	    await(vt, vr, RT_WR_SEND, err) || await(vt, vr, RT_WR_RECV, err))
		return -1;
	rt_hist_add(&vt->h, rt_now_ns() - t0);
	if (rt_get_be64(vr->buf->addr) != seq)
		return rt_fail(err, RT_EXIT_FAIL, "rail %u: ping %llu came back as %llu", vr->rail,
			       (unsigned long long)seq,
			       (unsigned long long)rt_get_be64(vr->buf->addr));
	return rt_post_recv(&vr->res, vr->buf, 0, PING_LEN, RT_WR_ID(RT_WR_RECV, seq + 1), err);
}

/* The listener's echo of one ping. */
static int echo(struct vtest *vt, struct vrail *vr, uint64_t i, struct rt_error *err)
{
	if (await(vt, vr, RT_WR_RECV, err))
		return -1;
	memcpy(vr->buf->addr + SEND_OFF, vr->buf->addr, PING_LEN);
	if (rt_post_recv(&vr->res, vr->buf, 0, PING_LEN, RT_WR_ID(RT_WR_RECV, i + 1), err) ||
	    rt_post_send(&vr->res, vr->buf, SEND_OFF, PING_LEN, RT_WR_ID(RT_WR_SEND, i), true, err))
		return -1;
	return await(vt, vr, RT_WR_SEND, err);
}

/* The first reading of a rail's port, after its first exchange: that one
 * may wait on the neighbour's resolution (a RoCE v2 GID's first packet
 * to it is sent again), which the RDMA CM's path does before
 * connecting, so it is not the link's fault. */
static void snap_before(struct vtest *vt, struct vrail *vr)
{
	vr->read = rt_mesh_ctr_read(vt->t->sysfs, vr->dev.name, vr->dev.port, &vr->before);
}

/* This end's rises on a rail since its first reading. */
static void rises(struct vtest *vt, struct vrail *vr, enum rt_mesh_end end)
{
	if (!vr->read || vr->taken ||
	    !rt_mesh_ctr_read(vt->t->sysfs, vr->dev.name, vr->dev.port, &vr->after))
		return;
	vr->taken = true;
	rt_mesh_ctr_rises(&vr->before, &vr->after, end, &vr->own);
}

static int listen_side(struct vtest *vt, struct rt_error *err)
{
	uint8_t ready = 1, msg[RT_MESH_CTR_MSG_LEN];

	if (exchange(vt, err) || rt_oob_write(&vt->o, &ready, 1, err))
		return -1;
	for (unsigned i = 0; i < vt->n; i++) {
		if (echo(vt, &vt->v[i], 0, err)) /* the first, untimed */
			return -1;
		snap_before(vt, &vt->v[i]);
		for (uint64_t k = 1; k <= vt->t->pings; k++)
			if (echo(vt, &vt->v[i], k, err))
				return -1;
	}
	for (unsigned i = 0; i < vt->n; i++) {
		rises(vt, &vt->v[i], RT_MESH_END_A);
		rt_put_be64(msg, RT_MESH_SEQ_FINAL);
		rt_mesh_ctrs_encode(&vt->v[i].own, msg + 8);
		vt->o.timeout_ms = left_ms(vt);
		if (rt_oob_write(&vt->o, msg, sizeof(msg), err))
			return -1;
	}
	return 0;
}

/* The connecting side: one rail after the other; a rail that fails ends
 * the test (the QPs share the one channel to the partner). */
static int connect_side(struct vtest *vt, struct rt_mesh_result *r, struct rt_error *err)
{
	uint8_t ready, msg[RT_MESH_CTR_MSG_LEN];
	uint64_t conn_ns;
	char why[128];

	if (exchange(vt, err) || rt_oob_read(&vt->o, &ready, 1, err))
		return -1;
	conn_ns = rt_now_ns() - vt->start;
	for (unsigned i = 0; i < vt->n; i++) {
		if (ping(vt, &vt->v[i], 0, err)) /* the first, untimed: snap_before */
			return -1;
		snap_before(vt, &vt->v[i]);
		memset(&vt->h, 0, sizeof(vt->h));
		for (uint64_t k = 1; k <= vt->t->pings; k++)
			if (ping(vt, &vt->v[i], k, err))
				return -1;
		rt_mesh_result_rtt(&r[i], &vt->h, conn_ns);
	}
	for (unsigned i = 0; i < vt->n; i++) {
		rises(vt, &vt->v[i], RT_MESH_END_B);
		vt->o.timeout_ms = left_ms(vt);
		if (rt_oob_read(&vt->o, msg, sizeof(msg), err))
			return -1;
		if (rt_mesh_ctr_msg_take(msg, sizeof(msg), &vt->v[i].peer, why, sizeof(why)))
			return rt_fail(err, RT_EXIT_FAIL, "%s: %s", vt->o.peer_name, why);
	}
	return 0;
}

static int run(struct vtest *vt, const struct rt_mesh_assign *a, struct rt_mesh_result *r,
	       struct rt_error *err)
{
	for (unsigned i = 0; i < vt->n; i++)
		if (open_rail(vt, &vt->v[i], err))
			return -1;
	vt->o.timeout_ms = left_ms(vt);
	if (vt->active)
		return rt_oob_connect(&vt->o, a->host, a->port, left_ms(vt), err) ||
		       connect_side(vt, r, err) ? -1 : 0;
	return rt_oob_listen(&vt->o, NULL, vt->t->port, err) || rt_oob_accept(&vt->o, err) ||
	       listen_side(vt, err) ? -1 : 0;
}

/* Every rail's result gets both ends' rises, a failed one too. */
static void attach_counters(struct vtest *vt, struct rt_mesh_result *r)
{
	for (unsigned i = 0; i < vt->n; i++) {
		rises(vt, &vt->v[i], RT_MESH_END_B); /* a rail that ended early: now */
		rt_mesh_ctr_join(&vt->v[i].peer, &vt->v[i].own, &r[i].ctr);
		if (r[i].ctr.n)
			r[i].flags |= RT_MESH_HAS_CTR;
	}
}

void rt_mesh_verbs_test_run(const struct rt_mesh_cm_test *t, const struct rt_mesh_assign *a,
			    struct rt_mesh_result *r)
{
	struct vtest vt = { .t = t, .active = a->role == RT_MESH_CONNECT, .n = a->nrails };
	struct rt_error err = { 0 };

	if (a->role == RT_MESH_REST || !a->nrails)
		return;
	vt.start = rt_now_ns();
	vt.deadline = vt.start + (uint64_t)t->timeout_ms * 1000000u;
	rt_oob_init(&vt.o, t->timeout_ms);
	vt.v = rt_xcalloc(vt.n, sizeof(*vt.v)); /* 16 KiB of counters a rail */
	for (unsigned i = 0; i < vt.n; i++) {
		vt.v[i].rail = a->rails[i].rail;
		vt.v[i].rail_b = a->rails[i].rail_b;
		r[i].status = RT_MESH_FAILED;
	}
	if (run(&vt, a, r, &err)) {
		/* a rail whose pings were done keeps its figures */
		for (unsigned i = 0; i < vt.n; i++)
			if (r[i].status != RT_MESH_OK)
				r[i].status = err.exit_code == RT_EXIT_TIMEOUT ? RT_MESH_TIMEOUT
									: RT_MESH_FAILED;
		rt_dbg(t->log, "verbs test of %u rails: %s", vt.n, err.reason);
	}
	if (vt.active)
		attach_counters(&vt, r);
	rt_oob_close(&vt.o);
	for (unsigned i = 0; i < vt.n; i++)
		close_rail(&vt.v[i]);
	free(vt.v);
}

/* The rails of a whose address is (with_addr) or is not there, into out
 * with their places in a; returns their count. */
static unsigned rails_with(const struct rt_mesh_assign *a, bool with_addr,
			   struct rt_mesh_assign *out, unsigned *place)
{
	*out = *a;
	out->nrails = 0;
	for (unsigned i = 0; i < a->nrails; i++)
		if ((a->rails[i].addr[0] != '\0') == with_addr) {
			place[out->nrails] = i;
			out->rails[out->nrails++] = a->rails[i];
		}
	/* one partner, one connection a rail: a mesh with several of either
	 * has every rail's address (rt_mesh_conns_fit) */
	out->conns = (uint16_t)(RT_MAX(out->nrails, 1u) * RT_MAX(out->qps, 1u));
	return out->nrails;
}

void rt_mesh_pair_test_run(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
			   struct rt_mesh_result *r)
{
	struct rt_mesh_assign *part = rt_xcalloc(1, sizeof(*part));
	struct rt_mesh_result *got = rt_xcalloc(RT_MESH_RAILS_MAX, sizeof(*got));
	unsigned place[RT_MESH_RAILS_MAX] = { 0 };

	if (!a->nrails || rails_with(a, true, part, place) == a->nrails) {
		rt_mesh_cm_test_run(ctx, a, self, r);
	} else {
		if (part->nrails) {
			rt_mesh_cm_test_run(ctx, part, self, got);
			for (unsigned i = 0; i < part->nrails; i++)
				r[place[i]] = got[i];
		}
		rails_with(a, false, part, place);
		memset(got, 0, RT_MESH_RAILS_MAX * sizeof(*got));
		rt_mesh_verbs_test_run(ctx, part, got);
		for (unsigned i = 0; i < part->nrails; i++)
			r[place[i]] = got[i];
	}
	free(part);
	free(got);
}
