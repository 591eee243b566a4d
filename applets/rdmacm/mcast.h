/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast through the RDMA CM, for any applet that joins groups: group
 * addresses (-m names, -M GIDs), joining with flags and leaving, the
 * address handle from the join event, and the port's MTU and link layer.
 * Receiving and counting datagrams, unicast as well, is udtally.h's. */
#ifndef RDMATEST_MCAST_H
#define RDMATEST_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

#include "rdmatest/cm.h"
#include "rdmatest/error.h"
#include "rdmatest/json.h"

/* Every multicast datagram goes to this QPN (the join event says so too). */
#define RT_MC_QPN 0xFFFFFFu
/* The largest MTU of any RDMA port: no datagram can be larger. */
#define RT_MC_MAX_MTU 4096

/* ---- group addresses (no device needed) ---- */

/* Parses the text of -M: an IPv6-style GID (ff0e::1), or "0" / "::" for
 * the zero MGID (ask the SA to assign one). Fills an AF_IB address with
 * P_Key, flow label and service ID 0, as upstream does. Returns 0, or -1
 * when the text is not a GID or not a multicast one (first byte 0xff). */
int rt_mc_parse_gid(const char *text, struct sockaddr_ib *sib);

/* Resolves the text of -m (getaddrinfo, as upstream: names work too) and
 * requires an IPv4 or IPv6 multicast address, or the zero address. Usage
 * errors name `opt`. */
int rt_mc_parse_group(const char *text, const char *opt,
		      struct sockaddr_storage *ss, struct rt_error *err);
/* Resolves a local address (-b); any unicast address is accepted here. */
int rt_mc_parse_local(const char *text, const char *opt,
		      struct sockaddr_storage *ss, struct rt_error *err);

bool rt_mc_addr_is_zero(const struct sockaddr *sa);
bool rt_mc_addr_is_multicast(const struct sockaddr *sa);

/* ---- the port an id is on ---- */

struct rt_mc_port {
	char dev[64];
	uint8_t port;
	int mtu;       /* active MTU in bytes */
	bool ethernet; /* RoCE: no subnet administrator, no SA-assigned MGIDs */
};

/* Queries the id's device and port (after address resolution or bind). */
int rt_mc_port_query(struct rdma_cm_id *id, struct rt_mc_port *p,
		     struct rt_error *err);
/* A datagram is one packet: size must fit the active MTU (usage error
 * naming --size and the MTU). A count of 0 sends nothing, so anything goes,
 * as upstream. */
int rt_mc_check_size(long long size, long long count,
		     const struct rt_mc_port *p, struct rt_error *err);
/* A zero group asks the InfiniBand SA for an MGID; RoCE has no SA, so that
 * is an environment error there. */
int rt_mc_check_group(const struct sockaddr *group, const struct rt_mc_port *p,
		      struct rt_error *err);

/* Every full-member QP is attached to the group; devices limit how many
 * one group takes (max_mcast_qp_attach, 56 on rxe). Environment error. */
int rt_mc_check_qps(unsigned qps, bool send_only, int max_attach,
		    const struct rt_mc_port *p, struct rt_error *err);
/* device, port, active_mtu, link_layer (null before a port was queried). */
void rt_mc_port_json(struct rt_json *j, const struct rt_mc_port *p);

/* ---- joining and leaving ---- */

/* One id's membership. The owner keeps it next to the id. */
struct rt_mc_member {
	struct sockaddr_storage group;
	bool send_only;    /* RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER */
	bool requested;    /* rdma_join_multicast_ex was called: a leave is due */
	bool joined;       /* the join event arrived */
	bool left;
	struct ibv_ah *ah; /* from the join event */
	uint32_t qpn;      /* remote QPN from the join event (0xFFFFFF) */
	uint32_t qkey;     /* the group's qkey from the join event */
	uint32_t mlid;
	uint8_t sl;
	char dgid[64];     /* the MGID, as upstream prints it */
};

/* rdma_join_multicast_ex with the ADDRESS and JOIN_FLAGS attributes. The
 * QP must exist already: librdmacm attaches it when the join completes
 * (never for a send-only join). Failures fail the connection; a send-only
 * join refused by the kernel or provider is an environment error (3). */
int rt_mc_join(struct rt_conn *c, struct rt_mc_member *m);
/* After the MULTICAST_JOIN event (c->ud filled): remote QPN, qkey, MGID,
 * MLID and SL, and the address handle for sending to the group. */
int rt_mc_on_join(struct rt_conn *c, struct rt_mc_member *m);
/* Leaves (librdmacm detaches the QP) and destroys the AH. Idempotent and
 * safe on ids that never joined. Must run before the QP and PD are
 * destroyed: an attached QP cannot be destroyed. err may be NULL on
 * failure paths, where a failed leave changes nothing. */
int rt_mc_leave(struct rt_conn *c, struct rt_mc_member *m,
		struct rt_error *err);
/* Rewrites a MULTICAST_ERROR failure of c into a message that says what
 * the join was and, for refused send-only joins, exit 3. */
void rt_mc_explain_failure(struct rt_conn *c, const struct rt_mc_member *m);
/* Adds the likely cause to a failed address resolution of a group: port
 * space ipoib on RoCE (exit 3), or no route when the id was not bound to
 * a local address (-b). Other failures are left alone. */
void rt_mc_explain_resolve(struct rt_conn *c, enum rdma_port_space ps, bool bound);
/* "join": {dgid, mlid, sl, qkey, remote_qpn} of a joined member. */
void rt_mc_member_json(struct rt_json *j, const struct rt_mc_member *m);

#endif
