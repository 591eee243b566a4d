/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The verbs-only connection path, for applets that do not use the RDMA
 * CM (the ibv_*_pingpong family, perftest): open a device port by name,
 * choose the local GID, and move a QP through INIT, RTR and RTS from a
 * small spec. The QP attributes travel between the peers in each applet's
 * own messages (over rt_oob, see oob.h); this module knows no format.
 * Resources come from res.c (rt_res_create_verbs). */
#ifndef RDMATEST_VCONN_H
#define RDMATEST_VCONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"

struct rt_vdev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t port;
	struct ibv_port_attr attr;
	char name[64];
};

/* Opens device `name` (NULL: the first one) and port (0: port 1), which
 * must be ACTIVE, and allocates a PD. No device at all, an unknown name
 * (the message lists the devices there are), a missing or inactive port:
 * exit 3. */
int rt_vdev_open(struct rt_vdev *d, const char *name, int port,
		 struct rt_error *err);
void rt_vdev_close(struct rt_vdev *d);

/* One end of a path, as the peer needs to know it. */
struct rt_vaddr {
	uint16_t lid;
	bool grh;          /* a GID is used: always on RoCE, on IB only if asked */
	uint8_t gid_index; /* local end only */
	union ibv_gid gid;
};

/* The local end. gid_index >= 0 takes that entry; -1 chooses: on an IB
 * port the LID alone (no GRH), on a RoCE port the RoCE v2 GID whose value
 * is the local address `via` (the address the peer is reached on: the
 * local end of the out-of-band connection). GID types and values are read
 * under `sysfs` ("/sys", or a fake tree in tests). */
int rt_vdev_local(const struct rt_vdev *d, const char *sysfs, int gid_index,
		  const struct sockaddr *via, struct rt_vaddr *out,
		  struct rt_error *err);

/* The GID form of an IP address: IPv4 as ::ffff:a.b.c.d, as RoCE v2
 * has it; -1 for other families. */
int rt_addr_gid(const struct sockaddr *sa, union ibv_gid *gid);
/* The automatic choice itself, for doctor to recommend the very index
 * the applets take: the kernel derives each RoCE v2 GID from an address
 * of the port's netdev, so the entry equal to `want` (the local address
 * the peer is reached on) is on the netdev carrying it. Returns that
 * index or -1; `seen` (may be NULL) lists the other RoCE v2 entries as
 * "N GID on NETDEV" for an error. `want` NULL takes the first non-zero
 * RoCE v2 entry: for a port that carries no IP address, its link-local
 * GID (mesh's test of such a rail). */
int rt_roce_v2_gid_of(const char *sysfs, const char *dev, unsigned port,
		      int gid_tbl_len, const union ibv_gid *want, char *seen,
		      size_t len);

struct rt_vqp_spec {
	enum ibv_qp_type type;     /* IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD */
	uint16_t pkey_index;
	unsigned access;           /* INIT access flags (RC, UC) */
	uint32_t qkey;             /* UD */
	enum ibv_mtu mtu;          /* path MTU (RC, UC); 0: the port's active MTU */
	uint32_t local_psn, remote_psn, remote_qpn;
	struct rt_vaddr local, remote;
	uint8_t sl, hop_limit;
	uint8_t traffic_class;     /* the GRH's (0 unless asked: perftest --tclass) */
	uint32_t flow_label;       /* the GRH's, 20 bits (0 unless asked: perftest
				    * --flow_label) */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
};

/* The usual values: hop limit 64 (RoCE v2 crosses routers), timeout 14,
 * retry and RNR retry 7, min RNR timer 12, one read/atomic in flight. */
void rt_vqp_spec_defaults(struct rt_vqp_spec *s);

/* The attributes and mask of one transition (INIT, RTR or RTS) for the
 * spec's QP type; exposed so that an applet can adjust before modifying. */
void rt_vqp_attr(const struct rt_vdev *d, const struct rt_vqp_spec *s,
		 enum ibv_qp_state state, struct ibv_qp_attr *a, int *mask);
/* RESET -> INIT; then, once the peer's values are in the spec, RTR and
 * RTS. A failure names the transition and, where it can tell, the
 * attribute: "modify QP to RTR: Invalid argument (path MTU 4096 above the
 * port's active 1024?)". Exit 1. */
int rt_vqp_init(struct ibv_qp *qp, const struct rt_vdev *d,
		const struct rt_vqp_spec *s, struct rt_error *err);
int rt_vqp_connect(struct ibv_qp *qp, const struct rt_vdev *d,
		   const struct rt_vqp_spec *s, struct rt_error *err);
/* One transition, for a peer that leaves a QP in RTR (perftest's BW
 * server); failures as above. */
int rt_vqp_modify(struct ibv_qp *qp, const struct rt_vdev *d,
		  const struct rt_vqp_spec *s, enum ibv_qp_state state,
		  struct rt_error *err);
/* UD: the address handle of the spec's remote end. */
struct ibv_ah *rt_vqp_ah(const struct rt_vdev *d, const struct rt_vqp_spec *s,
			 struct rt_error *err);

/* "IB" or "Ethernet", and the byte value of an MTU enum (0 if unknown). */
const char *rt_link_layer_name(uint8_t link_layer);
int rt_mtu_bytes(enum ibv_mtu mtu);

#endif
