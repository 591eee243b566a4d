/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast groups, ports, joins and leaves (see mcast.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "rdmatest/cm.h"
#include "rdmatest/addr.h"
#include "rdmacm/mcast.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

/* ---- group addresses ---- */

int rt_mc_parse_gid(const char *text, struct sockaddr_ib *sib)
{
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	/* upstream reads "0" (not a GID) as zeros: keep that spelling valid */
	if (!strcmp(text, "0"))
		return 0;
	if (inet_pton(AF_INET6, text, &sib->sib_addr) != 1)
		return -1;
	if (ib_addr_any(&sib->sib_addr))
		return 0;
	return sib->sib_addr.sib_raw[0] == 0xff ? 0 : -1;
}

static int lookup(const char *text, const char *opt, struct sockaddr_storage *ss,
		  struct rt_error *err)
{
	struct rt_addr_query q = { .node = text, .what = opt };
	struct rt_sockaddr a;

	if (rt_addr_lookup(&q, false, &a, err))
		return -1;
	*ss = a.addr;
	rt_sockaddr_free(&a);
	return 0;
}

int rt_mc_parse_group(const char *text, const char *opt,
		      struct sockaddr_storage *ss, struct rt_error *err)
{
	const struct sockaddr *sa = (const struct sockaddr *)ss;

	if (lookup(text, opt, ss, err))
		return -1;
	if (!rt_mc_addr_is_multicast(sa) && !rt_mc_addr_is_zero(sa))
		return rt_fail(err, RT_EXIT_USAGE, "%s %s: not a multicast address "
			       "(IPv4 224.0.0.0/4 or IPv6 ff00::/8; 0.0.0.0 asks the "
			       "InfiniBand SA to assign a group)", opt, text);
	return 0;
}

int rt_mc_parse_local(const char *text, const char *opt,
		      struct sockaddr_storage *ss, struct rt_error *err)
{
	const struct sockaddr *sa = (const struct sockaddr *)ss;

	if (lookup(text, opt, ss, err))
		return -1;
	if (rt_mc_addr_is_multicast(sa))
		return rt_fail(err, RT_EXIT_USAGE, "%s %s: a multicast address "
			       "cannot be a local address", opt, text);
	return 0;
}

bool rt_mc_addr_is_zero(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == INADDR_ANY;
	case AF_INET6:
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	case AF_IB:
		return ib_addr_any(&((const struct sockaddr_ib *)sa)->sib_addr);
	}
	return false;
}

bool rt_mc_addr_is_multicast(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return IN_MULTICAST(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
	case AF_INET6:
		return IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	case AF_IB:
		return ((const struct sockaddr_ib *)sa)->sib_addr.sib_raw[0] == 0xff;
	}
	return false;
}

/* ---- the port ---- */

int rt_mc_port_query(struct rdma_cm_id *id, struct rt_mc_port *p,
		     struct rt_error *err)
{
	struct ibv_port_attr attr;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!id->verbs)
		return rt_fail(err, RT_EXIT_USAGE, "the id is on no RDMA device: "
			       "bind (-b) to an address of an RDMA device");
	rt_strlcpy(p->dev, ibv_get_device_name(id->verbs->device), sizeof(p->dev));
	p->port = id->port_num;
	ret = ibv_query_port(id->verbs, id->port_num, &attr);
	if (ret)
		return rt_fail_errno(err, RT_EXIT_FAIL, ret, "ibv_query_port %s port %u",
				     p->dev, p->port);
	p->mtu = rt_mtu_bytes(attr.active_mtu);
	p->ethernet = attr.link_layer == IBV_LINK_LAYER_ETHERNET;
	return 0;
}

int rt_mc_check_size(long long size, long long count,
		     const struct rt_mc_port *p, struct rt_error *err)
{
	if (count == 0 || size <= p->mtu)
		return 0;
	return rt_fail(err, RT_EXIT_USAGE, "--size %lld is larger than the active "
		       "MTU %d of %s port %u: a datagram must fit one packet",
		       size, p->mtu, p->dev, p->port);
}

int rt_mc_check_group(const struct sockaddr *group, const struct rt_mc_port *p,
		      struct rt_error *err)
{
	if (!p->ethernet)
		return 0;
	if (rt_mc_addr_is_zero(group))
		return rt_fail(err, RT_EXIT_ENV, "a zero group address asks the "
			       "subnet administrator to assign a multicast group, "
			       "which needs InfiniBand: %s is RoCE (Ethernet) and has "
			       "none; give a group address", p->dev);
	/* the kernel joins RoCE groups by IP address only (ENOTSUPP) */
	if (group->sa_family == AF_IB)
		return rt_fail(err, RT_EXIT_ENV, "an unmapped (AF_IB) group needs "
			       "InfiniBand: %s is RoCE (Ethernet), join an IP group "
			       "with -m instead", p->dev);
	return 0;
}

int rt_mc_check_qps(unsigned qps, bool send_only, int max_attach,
		    const struct rt_mc_port *p, struct rt_error *err)
{
	if (send_only || max_attach <= 0 || qps <= (unsigned)max_attach)
		return 0;
	return rt_fail(err, RT_EXIT_ENV, "-c %u: %s attaches at most %d QPs to "
		       "one multicast group (device limit max_mcast_qp_attach)",
		       qps, p->dev, max_attach);
}

void rt_mc_port_json(struct rt_json *j, const struct rt_mc_port *p)
{
	bool known = p->dev[0];

	rt_json_kv_string(j, "device", known ? p->dev : NULL);
	rt_json_kv_uint(j, "port", p->port);
	rt_json_kv_int(j, "active_mtu", p->mtu);
	rt_json_kv_string(j, "link_layer", !known ? NULL
			  : p->ethernet ? "ethernet" : "infiniband");
}

/* ---- joining and leaving ---- */

/* The kernel's internal ENOTSUPP (524) reaches user space from some
 * verbs and CM paths; libc has no text for it. */
#define KERNEL_ENOTSUPP 524

static bool refusal(int e)
{
	return e == EINVAL || e == EOPNOTSUPP || e == ENOSYS ||
	       e == EPROTONOSUPPORT || e == KERNEL_ENOTSUPP;
}

static const char *errno_str(int e)
{
	return e == KERNEL_ENOTSUPP ? "Operation not supported (ENOTSUPP)" : strerror(e);
}

int rt_mc_join(struct rt_conn *c, struct rt_mc_member *m)
{
	struct rdma_cm_join_mc_attr_ex attr = {
		.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
		.join_flags = m->send_only ? RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER
					   : RDMA_MC_JOIN_FLAG_FULLMEMBER,
		.addr = (struct sockaddr *)&m->group,
	};
	char g[64];
	int e;

	rt_strlcpy(rt_conn_err(c)->phase, "join", sizeof(rt_conn_err(c)->phase));
	if (!rdma_join_multicast_ex(rt_conn_id(c), &attr, c)) {
		m->requested = true;
		return 0;
	}
	e = errno;
	rt_addr_host_str((struct sockaddr *)&m->group, g, sizeof(g));
	if (m->send_only && refusal(e))
		return rt_conn_fail(c, RT_EXIT_ENV, "rdma_join_multicast_ex %s as a "
				    "send-only full member: %s (the kernel or provider "
				    "refuses send-only joins)", g, errno_str(e));
	return rt_conn_fail(c, e == ENODEV || e == KERNEL_ENOTSUPP ? RT_EXIT_ENV
								 : RT_EXIT_FAIL,
			    "rdma_join_multicast_ex %s: %s", g, errno_str(e));
}

int rt_mc_on_join(struct rt_conn *c, struct rt_mc_member *m)
{
	const struct ibv_ah_attr *ah = &rt_conn_ud(c)->ah_attr;

	m->joined = true;
	m->qpn = rt_conn_ud(c)->qp_num;
	m->qkey = rt_conn_ud(c)->qkey;
	m->mlid = ah->dlid;
	m->sl = ah->sl;
	if (!inet_ntop(AF_INET6, ah->grh.dgid.raw, m->dgid, sizeof(m->dgid)))
		rt_strlcpy(m->dgid, "?", sizeof(m->dgid));
	m->ah = ibv_create_ah(rt_conn_res(c)->pd, (struct ibv_ah_attr *)ah);
	if (!m->ah)
		return rt_conn_fail(c, RT_EXIT_FAIL, "ibv_create_ah for group %s: %s",
				    m->dgid, strerror(errno));
	return 0;
}

int rt_mc_leave(struct rt_conn *c, struct rt_mc_member *m,
		struct rt_error *err)
{
	char g[64];
	int rc = 0;

	if (m->requested && !m->left) {
		m->left = true;
		if (rdma_leave_multicast(rt_conn_id(c), (struct sockaddr *)&m->group) && err) {
			int e = errno;

			rt_addr_host_str((struct sockaddr *)&m->group, g, sizeof(g));
			rc = rt_fail_errno(err, RT_EXIT_FAIL, e, "rdma_leave_multicast %s", g);
		}
	}
	/* the AH holds the PD: it goes before the core frees the PD */
	if (m->ah)
		ibv_destroy_ah(m->ah);
	m->ah = NULL;
	return rc;
}

void rt_mc_explain_resolve(struct rt_conn *c, enum rdma_port_space ps, bool bound)
{
	const char *hint = NULL;
	size_t n = strlen(rt_conn_err(c)->reason);

	if (strcmp(rt_conn_err(c)->phase, "resolve-addr"))
		return;
	if (ps == RDMA_PS_IPOIB && strstr(rt_conn_err(c)->reason, strerror(EINVAL))) {
		hint = " (port space ipoib needs InfiniBand; on RoCE use -p udp)";
		rt_conn_err(c)->exit_code = RT_EXIT_ENV;
	} else if (!bound) {
		hint = " (no route to the group: give -b with a local address "
		       "of the RDMA device)";
	}
	if (hint && n < sizeof(rt_conn_err(c)->reason))
		snprintf(rt_conn_err(c)->reason + n, sizeof(rt_conn_err(c)->reason) - n, "%s", hint);
}

void rt_mc_member_json(struct rt_json *j, const struct rt_mc_member *m)
{
	rt_json_key(j, "join");
	rt_json_object_begin(j);
	rt_json_kv_string(j, "dgid", m->dgid);
	rt_json_kv_uint(j, "mlid", m->mlid);
	rt_json_kv_uint(j, "sl", m->sl);
	rt_json_kv_uint(j, "qkey", m->qkey);
	rt_json_kv_uint(j, "remote_qpn", m->qpn);
	rt_json_object_end(j);
}

void rt_mc_explain_failure(struct rt_conn *c, const struct rt_mc_member *m)
{
	int st = rt_conn_err(c)->status;
	char g[64];

	if (strcmp(rt_conn_err(c)->event, "RDMA_CM_EVENT_MULTICAST_ERROR"))
		return;
	rt_addr_host_str((const struct sockaddr *)&m->group, g, sizeof(g));
	if (m->joined) {
		snprintf(rt_conn_err(c)->reason, sizeof(rt_conn_err(c)->reason), "group %s: membership "
			 "lost after joining (MULTICAST_ERROR, status %d: %s; port "
			 "down or subnet manager reset?)", g, st, errno_str(-st));
		return;
	}
	/* librdmacm turns a failed ibv_attach_mcast of the joined QP into a
	 * MULTICAST_ERROR with status -1, the errno lost */
	if (st == -1) {
		snprintf(rt_conn_err(c)->reason, sizeof(rt_conn_err(c)->reason), "joined %s, but "
			 "attaching the QP to it failed (ibv_attach_mcast in "
			 "librdmacm: too many QPs on the group for the device?)", g);
		return;
	}
	if (m->send_only && refusal(-st)) {
		rt_conn_err(c)->exit_code = RT_EXIT_ENV;
		snprintf(rt_conn_err(c)->reason, sizeof(rt_conn_err(c)->reason), "joining %s as a "
			 "send-only full member was refused (status %d: %s): the "
			 "subnet manager, kernel or provider does not support it",
			 g, st, errno_str(-st));
		return;
	}
	snprintf(rt_conn_err(c)->reason, sizeof(rt_conn_err(c)->reason), "joining %s failed "
		 "(MULTICAST_ERROR, status %d: %s)", g, st, errno_str(-st));
}
