/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The reactor's own structures, for core/cm*.c and for unit tests that
 * build a reactor's state by hand (test_cm; the rdmacm family's test_udtally
 * and test_udrecv). Applets and their engines, multicast joins
 * (applets/rdmacm/mcast.c) among them, see struct rt_cm and struct rt_conn
 * only through cm.h. */
#ifndef RDMATEST_CM_PRIV_H
#define RDMATEST_CM_PRIV_H

#include "rdmatest/cm.h"

struct rt_conn {
	struct rt_cm *cm;
	struct rdma_cm_id *id;
	enum rt_conn_state state;
	bool passive;          /* accepted from a listener */
	bool disconnect_sent;  /* rdma_disconnect already called */
	unsigned index;        /* creation order, from 0 */
	size_t slot;           /* where it is in cm->conns */
	struct rt_res res;
	struct rt_error err;   /* this connection's own failure */
	uint64_t step_start;   /* when the current step began */
	uint64_t last_progress; /* last event or completion of this connection */
	uint64_t step_ns[RT_STEP_COUNT];
	uint64_t sends_done, recvs_done, rdma_done; /* successful completions */
	struct rdma_conn_param req; /* what the peer asked for (passive side) */
	struct rdma_ud_param ud;     /* join or SIDR result (UD) */
	bool failure_reported;
	bool was_established;
	bool cq_backlog;       /* the last poll stopped at the round's budget */
	bool cq_hot;           /* its notification taken, not yet re-armed */
	bool cq_listed;        /* in cm->cq_active */
	char peer[64];         /* peer address, for messages */
	/* active side: where to (re)connect, for --wait-server retries */
	struct sockaddr_storage src, dst;
	bool has_src;
	uint64_t first_try, retry_at; /* ns; retry_at 0: none pending */
	unsigned retries;
	void *priv;            /* the applet's per-connection state */
	uint32_t qp_num;       /* announced when it has no QP (rt_conn_set_qp_num) */
};

/* Devices a reactor can drive at once (one completion channel each). */
#define RT_CM_MAX_DEVICES 8

struct rt_cm {
	struct rt_log *log;
	struct rt_error *err;   /* the run's: failures that end it */
	struct rdma_event_channel *ch;
	struct rt_cm_params params;
	const struct rt_cm_hooks *hooks;
	void *applet;          /* the applet's context, for hooks */
	struct rt_conn **conns;
	size_t nconns, conns_cap;
	struct rt_cm_device devs[RT_CM_MAX_DEVICES];
	size_t ndevs;
	struct rt_conn *listener;
	unsigned next_index;
	uint64_t events, completions; /* progress counters */
	unsigned failures_pending;
	size_t poll_next;      /* where the next CQ sweep starts (fairness) */
	/* The connections whose CQ is hot or backlogged, each once (in any
	 * order; capacity conns_cap): what a round looks at without a
	 * notification, so that a round costs what is active, not what is
	 * open (ucmatose -c 500: 640-820 rounds a side, each of which
	 * scanned all 500 several times). Entries that have gone cold stay
	 * until the next re-arm pass drops them. */
	struct rt_conn **cq_active;
	size_t ncq_active;
	unsigned retries_pending; /* connections with retry_at set */
};

/* Marks c's CQ hot (its notification taken) and lists it in cq_active. */
void rt_conn_cq_hot(struct rt_conn *c);

/* Starts resolving towards c->dst (again, for a --wait-server retry). */
void rt_conn_resolve(struct rt_conn *c);
/* Starts the --wait-server retries that are due; returns how many. */
int rt_cm_retry_due(struct rt_cm *cm, int *next_ms);

/* Handles one (copied, already acknowledged) CM event; the loop calls it,
 * and unit tests drive it with scripted events. */
void rt_cm_handle_event(struct rt_cm *cm, const struct rdma_cm_event *ev);

#endif
