/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "rdmatest/devquery.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

/* ---- device and port ---------------------------------------------------- */

static int open_port(struct rt_vdev *d, int port, struct rt_error *err)
{
	int e;

	d->port = (uint8_t)(port ? port : 1);
	if (port < 0 || port > 255)
		return rt_fail(err, RT_EXIT_USAGE, "-i %d: a port number is 1 to 255", port);
	e = ibv_query_port(d->ctx, d->port, &d->attr);
	if (e)
		return rt_fail_errno(err, RT_EXIT_ENV, e == -1 ? errno : e,
				     "-i %u: %s has no such port (ibv_query_port)",
				     d->port, d->name);
	if (d->attr.state != IBV_PORT_ACTIVE)
		return rt_fail(err, RT_EXIT_ENV, "%s port %u is %s, not ACTIVE", d->name,
			       d->port, ibv_port_state_str(d->attr.state));
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "ibv_alloc_pd on %s", d->name);
	return 0;
}

int rt_vdev_open(struct rt_vdev *d, const char *name, int port,
		 struct rt_error *err)
{
	struct rt_error listing = { 0 };
	struct rt_devlist l;
	struct ibv_device *dev;

	memset(d, 0, sizeof(*d));
	/* without any RDMA sysfs class the list fails (ENOSYS): for an applet
	 * that wants a device that is "no device", which pick says */
	if (rt_devlist_open(&l, &listing))
		l.n = 0;
	dev = rt_devlist_pick(&l, name, err);
	if (dev) {
		rt_strlcpy(d->name, ibv_get_device_name(dev), sizeof(d->name));
		d->ctx = ibv_open_device(dev);
		if (!d->ctx)
			rt_fail_errno(err, RT_EXIT_ENV, errno, "ibv_open_device %s", d->name);
	}
	rt_devlist_close(&l);
	if (!d->ctx)
		return -1;
	return open_port(d, port, err);
}

void rt_vdev_close(struct rt_vdev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->pd = NULL;
	d->ctx = NULL;
}

const char *rt_link_layer_name(uint8_t link_layer)
{
	return link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "IB";
}

int rt_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

/* ---- the local end: LID and GID ---------------------------------------- */

/* One line of a sysfs attribute file, newline cut; false if unreadable
 * (the kernel refuses to read the type of an unused GID entry). */
static bool read_attr(const char *sysfs, const char *dev, unsigned port,
		      const char *what, unsigned idx, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/%s/%u", sysfs,
		 dev, port, what, idx);
	return rt_read_line(path, buf, len);
}

/* The GID form of an address: IPv4 as ::ffff:a.b.c.d, as RoCE v2 has it. */
int rt_addr_gid(const struct sockaddr *sa, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (sa && sa->sa_family == AF_INET) {
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
		return 0;
	}
	return -1;
}

/* Appends " N ADDR on NDEV" for the error listing RoCE v2 GIDs. */
static void add_candidate(char *list, size_t len, unsigned idx, const char *text,
			  const char *ndev)
{
	size_t used = strlen(list);

	if (used < len)
		snprintf(list + used, len - used, "%s%u %s on %s", used ? ", " : "", idx,
			 text, ndev[0] ? ndev : "?");
}

int rt_roce_v2_gid_of(const char *sysfs, const char *dev, unsigned port,
		      int gid_tbl_len, const union ibv_gid *want, char *seen,
		      size_t len)
{
	static const union ibv_gid zero_gid;
	char type[32], text[64], ndev[64];
	union ibv_gid gid;

	for (unsigned i = 0; i < (unsigned)gid_tbl_len && i < 256; i++) {
		if (!read_attr(sysfs, dev, port, "gid_attrs/types", i, type, sizeof(type)) ||
		    strcmp(type, "RoCE v2") ||
		    !read_attr(sysfs, dev, port, "gids", i, text, sizeof(text)) ||
		    inet_pton(AF_INET6, text, gid.raw) != 1)
			continue;
		if (want ? !memcmp(gid.raw, want->raw, sizeof(gid.raw))
			 : memcmp(gid.raw, zero_gid.raw, sizeof(gid.raw)) != 0)
			return (int)i;
		if (!seen)
			continue;
		if (!read_attr(sysfs, dev, port, "gid_attrs/ndevs", i, ndev, sizeof(ndev)))
			ndev[0] = '\0';
		inet_ntop(AF_INET6, gid.raw, text, sizeof(text));
		add_candidate(seen, len, i, text, ndev);
	}
	return -1;
}

static int auto_gid(const struct rt_vdev *d, const char *sysfs,
		    const struct sockaddr *via, struct rt_vaddr *out, struct rt_error *err)
{
	char seen[256] = "", addr[64];
	int idx;

	if (rt_addr_gid(via, &out->gid))
		return rt_fail(err, RT_EXIT_USAGE, "%s port %u is RoCE: choosing its GID "
			       "needs the IP address the peer is reached on (or -g)",
			       d->name, d->port);
	idx = rt_roce_v2_gid_of(sysfs, d->name, d->port, d->attr.gid_tbl_len, &out->gid,
				seen, sizeof(seen));
	inet_ntop(AF_INET6, out->gid.raw, addr, sizeof(addr));
	if (idx < 0)
		return rt_fail(err, RT_EXIT_ENV, "no RoCE v2 GID of %s port %u is %s, the "
			       "address the peer is reached on (RoCE v2 GIDs: %s; is the "
			       "peer reached over another netdev? choose one with -g)",
			       d->name, d->port, addr, seen[0] ? seen : "none");
	out->gid_index = (uint8_t)idx;
	return 0;
}

static int given_gid(const struct rt_vdev *d, int idx, struct rt_vaddr *out,
		     struct rt_error *err)
{
	static const union ibv_gid zero;

	if (idx >= d->attr.gid_tbl_len || idx > 255)
		return rt_fail(err, RT_EXIT_ENV, "-g %d: %s port %u has %d GID entries",
			       idx, d->name, d->port, d->attr.gid_tbl_len);
	if (ibv_query_gid(d->ctx, d->port, idx, &out->gid))
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "-g %d: ibv_query_gid on %s "
				     "port %u", idx, d->name, d->port);
	if (!memcmp(&out->gid, &zero, sizeof(zero)))
		return rt_fail(err, RT_EXIT_ENV, "-g %d: GID entry %d of %s port %u is "
			       "empty", idx, idx, d->name, d->port);
	out->gid_index = (uint8_t)idx;
	return 0;
}

int rt_vdev_local(const struct rt_vdev *d, const char *sysfs, int gid_index,
		  const struct sockaddr *via, struct rt_vaddr *out,
		  struct rt_error *err)
{
	bool roce = d->attr.link_layer == IBV_LINK_LAYER_ETHERNET;

	memset(out, 0, sizeof(*out));
	out->lid = d->attr.lid;
	if (!roce && gid_index < 0) {
		if (!out->lid)
			return rt_fail(err, RT_EXIT_ENV, "%s port %u has LID 0 (is a subnet "
				       "manager running?)", d->name, d->port);
		return 0;
	}
	out->grh = true;
	if (gid_index >= 0)
		return given_gid(d, gid_index, out, err);
	return auto_gid(d, sysfs, via, out, err);
}

/* ---- the state ladder --------------------------------------------------- */

void rt_vqp_spec_defaults(struct rt_vqp_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->type = IBV_QPT_RC;
	s->qkey = 0x11111111;
	s->hop_limit = 64;
	s->timeout = 14;
	s->retry_cnt = 7;
	s->rnr_retry = 7;
	s->min_rnr_timer = 12;
	s->max_rd_atomic = 1;
	s->max_dest_rd_atomic = 1;
}

static void fill_path(const struct rt_vdev *d, const struct rt_vqp_spec *s,
		 struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = s->remote.lid;
	ah->sl = s->sl;
	ah->port_num = d->port;
	if (!s->local.grh)
		return;
	ah->is_global = 1;
	ah->grh.dgid = s->remote.gid;
	ah->grh.sgid_index = s->local.gid_index;
	ah->grh.hop_limit = s->hop_limit;
	ah->grh.traffic_class = s->traffic_class;
	ah->grh.flow_label = s->flow_label;
}

static enum ibv_mtu path_mtu(const struct rt_vdev *d, const struct rt_vqp_spec *s)
{
	return s->mtu ? s->mtu : d->attr.active_mtu;
}

static void init_attr(const struct rt_vdev *d, const struct rt_vqp_spec *s,
		      struct ibv_qp_attr *a, int *mask)
{
	a->pkey_index = s->pkey_index;
	a->port_num = d->port;
	*mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (s->type == IBV_QPT_UD) {
		a->qkey = s->qkey;
		*mask |= IBV_QP_QKEY;
	} else {
		a->qp_access_flags = s->access;
		*mask |= IBV_QP_ACCESS_FLAGS;
	}
}

static void rtr_attr(const struct rt_vdev *d, const struct rt_vqp_spec *s,
		     struct ibv_qp_attr *a, int *mask)
{
	if (s->type == IBV_QPT_UD)
		return;
	a->path_mtu = path_mtu(d, s);
	a->dest_qp_num = s->remote_qpn;
	a->rq_psn = s->remote_psn;
	fill_path(d, s, &a->ah_attr);
	*mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (s->type == IBV_QPT_RC) {
		a->max_dest_rd_atomic = s->max_dest_rd_atomic;
		a->min_rnr_timer = s->min_rnr_timer;
		*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
}

static void rts_attr(const struct rt_vqp_spec *s, struct ibv_qp_attr *a, int *mask)
{
	a->sq_psn = s->local_psn;
	*mask |= IBV_QP_SQ_PSN;
	if (s->type == IBV_QPT_RC) {
		a->timeout = s->timeout;
		a->retry_cnt = s->retry_cnt;
		a->rnr_retry = s->rnr_retry;
		a->max_rd_atomic = s->max_rd_atomic;
		*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC;
	}
}

void rt_vqp_attr(const struct rt_vdev *d, const struct rt_vqp_spec *s,
		 enum ibv_qp_state state, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = state;
	*mask = IBV_QP_STATE;
	if (state == IBV_QPS_INIT)
		init_attr(d, s, a, mask);
	else if (state == IBV_QPS_RTR)
		rtr_attr(d, s, a, mask);
	else if (state == IBV_QPS_RTS)
		rts_attr(s, a, mask);
}

static const char *state_name(enum ibv_qp_state state)
{
	return state == IBV_QPS_INIT ? "INIT" : state == IBV_QPS_RTR ? "RTR" : "RTS";
}

/* The likely culprit of a refused transition, "" when none stands out. */
static void hint(const struct rt_vdev *d, const struct rt_vqp_spec *s,
		 enum ibv_qp_state state, char *buf, size_t len)
{
	buf[0] = '\0';
	if (state == IBV_QPS_INIT && s->pkey_index >= d->attr.pkey_tbl_len)
		snprintf(buf, len, " (P_Key index %u beyond the port's %u entries?)",
			 s->pkey_index, d->attr.pkey_tbl_len);
	else if (state == IBV_QPS_RTR && s->type != IBV_QPT_UD &&
		 path_mtu(d, s) > d->attr.active_mtu)
		snprintf(buf, len, " (path MTU %d above the port's active %d?)",
			 rt_mtu_bytes(path_mtu(d, s)), rt_mtu_bytes(d->attr.active_mtu));
	else if (state == IBV_QPS_RTR && s->local.grh &&
		 s->local.gid_index >= d->attr.gid_tbl_len)
		snprintf(buf, len, " (GID index %u beyond the port's %d entries?)",
			 s->local.gid_index, d->attr.gid_tbl_len);
	else if (state == IBV_QPS_RTR && !s->local.grh &&
		 d->attr.link_layer == IBV_LINK_LAYER_ETHERNET)
		snprintf(buf, len, " (RoCE needs a GRH: no GID chosen)");
	else if (state == IBV_QPS_RTR && !s->local.grh && !s->remote.lid)
		snprintf(buf, len, " (the peer's LID is 0 and no GRH: no path)");
	else if (state == IBV_QPS_RTS && (s->timeout > 31 || s->retry_cnt > 7 ||
					  s->rnr_retry > 7))
		snprintf(buf, len, " (timeout %u, retry %u, RNR retry %u: at most 31, 7, 7)",
			 s->timeout, s->retry_cnt, s->rnr_retry);
}

static int modify(struct ibv_qp *qp, const struct rt_vdev *d,
		  const struct rt_vqp_spec *s, enum ibv_qp_state state,
		  struct rt_error *err)
{
	struct ibv_qp_attr a;
	char why[96];
	int mask, rc;

	rt_vqp_attr(d, s, state, &a, &mask);
	rc = ibv_modify_qp(qp, &a, mask);
	if (!rc)
		return 0;
	hint(d, s, state, why, sizeof(why));
	rt_error_phase(err, "modify-qp");
	return rt_fail(err, RT_EXIT_FAIL, "modify QP 0x%06x to %s: %s%s", qp->qp_num,
		       state_name(state), strerror(rc > 0 ? rc : errno), why);
}

int rt_vqp_modify(struct ibv_qp *qp, const struct rt_vdev *d,
		  const struct rt_vqp_spec *s, enum ibv_qp_state state,
		  struct rt_error *err)
{
	return modify(qp, d, s, state, err);
}

int rt_vqp_init(struct ibv_qp *qp, const struct rt_vdev *d,
		const struct rt_vqp_spec *s, struct rt_error *err)
{
	return modify(qp, d, s, IBV_QPS_INIT, err);
}

int rt_vqp_connect(struct ibv_qp *qp, const struct rt_vdev *d,
		   const struct rt_vqp_spec *s, struct rt_error *err)
{
	if (modify(qp, d, s, IBV_QPS_RTR, err))
		return -1;
	return modify(qp, d, s, IBV_QPS_RTS, err);
}

struct ibv_ah *rt_vqp_ah(const struct rt_vdev *d, const struct rt_vqp_spec *s,
			 struct rt_error *err)
{
	struct ibv_ah_attr ah;
	struct ibv_ah *h;

	fill_path(d, s, &ah);
	h = ibv_create_ah(d->pd, &ah);
	if (!h)
		rt_fail_errno(err, RT_EXIT_FAIL, errno, "ibv_create_ah to the peer's %s",
			      s->local.grh ? "GID" : "LID");
	return h;
}
