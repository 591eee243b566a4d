/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What cmtime's two protocols share (cmtime.c has the options and the
 * overview): the step table, the run's context, the reactor hooks that
 * time each connection, the client's steps, and the report. The protocols
 * are cmtime_v56.c (rdma-core 52-58, TCP sync) and cmtime_v44.c (rdma-core
 * 51 and older, the CM only). Memory: one histogram per step (58 KiB each)
 * and -c connections at most. */
#ifndef RDMATEST_CMTIME_CONN_H
#define RDMATEST_CMTIME_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmatest/cm.h"
#include "rdmatest/oob.h"
#include "rdmatest/run.h"
#include "rdmatest/stats.h"

/* the command line */
struct rt_cmt_cfg {
	long long conns;
	long long port;
	long long retries;
	long long resolve_ms; /* -t */
	long long mimic_us;   /* -m */
	long long threads;    /* -n */
	long long base_qpn;   /* -q */
	long long tos;        /* --tos */
	int socket;           /* -S */
	int proto;            /* enum rt_cmt_proto */
	const char *dst;
	const char *src;
	int format;
};

/* upstream v56's rows, in its order; v44 prints a subset (v44_rows) */
enum rt_cmt_step_id {
	RT_CMT_ST_FULL_CONNECT,
	RT_CMT_ST_CREATE_ID,
	RT_CMT_ST_BIND,
	RT_CMT_ST_RESOLVE_ADDR,
	RT_CMT_ST_RESOLVE_ROUTE,
	RT_CMT_ST_CREATE_QP,
	RT_CMT_ST_INIT_QP_ATTR,
	RT_CMT_ST_INIT_QP,
	RT_CMT_ST_RTR_QP_ATTR,
	RT_CMT_ST_RTR_QP,
	RT_CMT_ST_RTS_QP_ATTR,
	RT_CMT_ST_RTS_QP,
	RT_CMT_ST_CONNECT,
	RT_CMT_ST_ESTABLISH,
	RT_CMT_ST_DISCONNECT,
	RT_CMT_ST_DESTROY_ID,
	RT_CMT_ST_DESTROY_QP,
	RT_CMT_ST_COUNT,
};

/* One step over all connections: the per-connection times, and the span
 * from the first start to the last end. */
struct rt_cmt_stat {
	struct rt_hist h;
	uint64_t first, last;
};

struct rt_cmt_ctx {
	struct rt_cmt_cfg *cfg;
	struct rt_run *run;
	struct rt_cm *cm;
	struct rt_oob oob;   /* v56: the sync connection */
	bool server;
	bool v56;
	unsigned conns;
	unsigned served;     /* v44 server: connections that came and went */
	/* the current v56 run */
	unsigned run_n;      /* its connections */
	unsigned accepted, est, closed; /* server: requests taken, established, closed */
	bool qpless;         /* connections without QPs (fake QP numbers) */
	long long delay_us;  /* -m: sleep in place of each QP operation */
	uint32_t next_qpn;
	uint64_t t_start, t_connected;
	struct rt_cmt_stat st[RT_CMT_ST_COUNT];
};

struct rt_cmt_conn {
	uint64_t created;     /* ns, client: when its id was created */
	uint64_t established; /* ns, when the reactor called the hook */
};

/* The hooks that time each connection (setup creates the QP, or with
 * qpless none and a fake QP number). */
extern const struct rt_cm_hooks rt_cmt_hooks;

/* One timed interval of one connection; a step's span grows to hold it. */
void rt_cmt_stat_add(struct rt_cmt_stat *s, uint64_t start, uint64_t end);
/* A step with a span but no per-connection times (a server's disconnect). */
void rt_cmt_span_add(struct rt_cmt_stat *s, uint64_t start, uint64_t end);
/* Adds a connection's setup steps, counted back from its establishment. */
void rt_cmt_collect_setup(struct rt_cmt_ctx *x, const struct rt_conn *c);

/* The client's steps: n connections to ai, all in flight, until every one
 * is established; then disconnect them all and wait; then destroy the ids.
 * -1 with the run's error set. */
int rt_cmt_connect_all(struct rt_cmt_ctx *x, struct rdma_addrinfo *ai, unsigned n);
int rt_cmt_disconnect_all(struct rt_cmt_ctx *x);
void rt_cmt_destroy_all(struct rt_cmt_ctx *x);

#endif
