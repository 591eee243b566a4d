/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One test's state (meshtest.h), shared by the test (meshtest.c: its
 * connections, messages and waits) and its outcome (meshtestsum.c: the
 * ports' readings and each rail's result from its connections'). */
#ifndef RDMATEST_MESHTEST_PRIV_H
#define RDMATEST_MESHTEST_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmatest/cm.h"
#include "rdmatest/portctr.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"
#include "mesh/meshctr.h"
#include "mesh/meshgpu.h"
#include "mesh/meshtest.h"

/* One connection's test on the connecting side (a rail has --qps of
 * them): its figures. */
struct rail_run {
	uint64_t seq;       /* the ping in flight */
	uint64_t sent_at;
	unsigned got;       /* echoes timed */
	struct rt_hist h;
	/* bandwidth: the partner's window, what is posted and done; writes
	 * first (to the partner), then reads (from it) */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t posted, written, bw_t0, bw_t1;
	uint64_t rposted, read, rd_t0, rd_t1;
	unsigned inflight, rinflight; /* writes, reads */
	bool verifying;     /* both ways on a GPU: the read that checks */
	bool ctr_got;       /* the listener's answer to the final ping came */
};

/* One connection's port: the reading before its traffic, its rises. */
struct port_snap {
	struct rt_portctrs before, after;
	bool read;          /* before was read: the rises can be */
	bool taken;         /* after was read: own holds this end's rises */
	struct rt_mesh_ctrs own, peer; /* this end's; the listener's (connecting side) */
};

struct pair_test {
	const struct rt_mesh_cm_test *t;
	bool active;
	uint64_t deadline;  /* ns */
	/* the test's connections: qps a rail (or the host) on the connecting
	 * side; on the listener its assignment's, every partner's */
	unsigned nconn;
	unsigned qps;
	unsigned nrails;    /* results: the assignment's rails, or 1 (the host) */
	struct rail_run *runs; /* active side: one a connection */
	unsigned created;   /* connections started (active side) */
	uint8_t conn_rail[RT_MESH_TEST_CONNS]; /* a connection's rail, by creation order */
	struct port_snap *snaps; /* one a connection, nconn (16 KiB each) */
	unsigned nsnaps;
	uint32_t round;     /* the assignment's: the GPU chunk's pattern */
	bool both;          /* RT_MESH_ASSIGN_BOTH_WAYS: writes and reads at once */
};

struct pair_conn {
	struct rt_buf *buf; /* slot 0 receives, 1..SLOTS send */
	struct rt_buf *bw;  /* the chunk to write from and read into, or the
			     * window written into and read from */
	struct rail_run *run; /* active side: its own */
	struct port_snap *snap; /* its port's counters, or NULL */
	/* --gpu: bw is gpu.bw, and the reads land in gpu.land */
	struct rt_mesh_gpu_conn gpu;
	bool on_gpu;
};

/* A connection's place in this side's creation order (its rail's in
 * conn_rail); 0 for one this side did not create (the listener's). */
static inline unsigned created_as(const struct pair_test *p, const struct rt_conn *c)
{
	return rt_conn_index(c) < p->created ? rt_conn_index(c) : 0;
}

/* The test's bound has passed. */
static inline bool past(const struct pair_test *p)
{
	return rt_now_ns() >= p->deadline;
}

/* The device and port under a connection's id: its counters' place. */
bool rt_mesh_conn_port(const struct rt_conn *c, const char **dev, unsigned *port);
/* The connection's port read before its traffic (into the test's next
 * snapshot; a port without counters reports no rises). */
void rt_mesh_snap_before(struct rt_conn *c, struct pair_conn *u);
/* The second reading once the traffic is done: this end's rises. */
void rt_mesh_snap_after(struct rt_conn *c, struct pair_conn *u, enum rt_mesh_end end);
/* Each rail's result into r[] (one a rail, nrails): its connections'
 * figures as one when every one has them, else failed or timed out with
 * the first failure's reason in why[rail] (and a --debug line). */
void rt_mesh_test_conclude(struct rt_cm *cm, struct pair_test *p, struct rt_mesh_result *r,
			   char (*why)[160]);

#endif
