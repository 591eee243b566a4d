/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The RDMA CM reactor: one thread, one poll() over the CM event channel
 * and the devices' completion channels, a bound on every wait. It drives
 * any number of connections at once through address and route
 * resolution, connect/accept, and disconnect, checks every completion and
 * hands the applet only what is its own: resource setup, completions and
 * protocol steps, through hooks. */
#ifndef RDMATEST_CM_H
#define RDMATEST_CM_H

#include <stdbool.h>
#include <stdint.h>
#include <rdma/rdma_cma.h>

#include "rdmatest/error.h"
#include "rdmatest/log.h"
#include "rdmatest/opt.h"
#include "rdmatest/res.h"

struct rt_cm;
struct rt_conn;

enum rt_conn_state {
	RT_CONN_IDLE,
	RT_CONN_LISTENING,
	RT_CONN_RESOLVING_ADDR,
	RT_CONN_RESOLVING_ROUTE,
	RT_CONN_CONNECTING,
	RT_CONN_ACCEPTING,
	RT_CONN_ESTABLISHED,
	RT_CONN_DISCONNECTING, /* we sent the DREQ, waiting for the peer */
	RT_CONN_DISCONNECTED,
	RT_CONN_FAILED,
};

/* Per-connection timestamps (ns), for the setup timing table. */
enum rt_step {
	RT_STEP_RESOLVE_ADDR,
	RT_STEP_RESOLVE_ROUTE,
	RT_STEP_CREATE_QP,
	RT_STEP_CONNECT,
	RT_STEP_DISCONNECT,
	RT_STEP_COUNT,
};
extern const char *const rt_step_names[RT_STEP_COUNT];

struct rt_cm_hooks {
	/* Address resolved (active side). Without this hook the reactor goes
	 * on to resolve the route and connect; with it, the applet takes over
	 * (multicast joins). */
	int (*addr_resolved)(struct rt_conn *c);
	/* Route resolved (active) or request arrived (passive): create the
	 * QP and buffers, post receives. Returning -1 fails the connection. */
	int (*setup)(struct rt_conn *c);
	void (*established)(struct rt_conn *c);
	void (*disconnected)(struct rt_conn *c);
	/* A successful completion, after the counters were updated. */
	int (*completion)(struct rt_conn *c, const struct ibv_wc *wc);
	/* A connection failed. Returning true keeps the run going (persistent
	 * servers); without the hook every failure ends the run. */
	bool (*failed)(struct rt_conn *c);
	/* Multicast join completed (UD). */
	int (*joined)(struct rt_conn *c);
	/* Self-managed QP (rping -q): CONNECT_RESPONSE arrived; move the QP
	 * to RTR/RTS and call rdma_establish. */
	int (*connect_response)(struct rt_conn *c);
};

struct rt_cm_params {
	enum rdma_port_space ps;
	int tos;               /* -1: leave alone */
	int ack_timeout;       /* -1: leave alone */
	struct rdma_conn_param conn; /* active side's connect parameters */
	uint8_t accept_rnr_retry;    /* passive side's RNR retry for the peer */
	int backlog;
	bool busy_poll;        /* poll CQs instead of waiting on channels */
	/* Bounds, from the command line (--timeout, --wait-server): the
	 * reactor never reads the run's options itself. */
	long long timeout_ms;      /* a CM step, a wait's idle time, an idle peer */
	long long wait_server_ms;  /* active side: retry a refused connect this long */
	/* address and route resolution, each (cmtime -t); 0: 3/4 of
	 * timeout_ms, so that an unanswered ARP is named before the wait
	 * covering it expires */
	int resolve_ms;
};

/* --tos of a CM tool: the type of service its client's ids ask for
 * (RDMA_OPTION_ID_TOS, set once the address is resolved, before the
 * route is). On RoCE v2 it is the IP header's TOS byte (DSCP << 2 | ECN),
 * which picks the priority the NICs and switches give the traffic; on IB
 * it is the path's traffic class. A server takes the client's: the kernel
 * builds the passive side's path from the connect request. `letter` is
 * upstream's where the tool has one (ucmatose and udaddy: -t), else 0;
 * the help says whose: RT_TOS_HELP_CLIENT("its connections'"). */
#define RT_OPT_ROW_TOS(letter, offset, help)                                   \
	{ (letter), "tos", RT_OPT_INT, (offset), 0, 255, NULL, "TOS", (help), NULL }
#define RT_TOS_HELP(whose)                                                     \
	whose " type of service (RoCE v2: the IP TOS byte, DSCP << 2 | ECN; "  \
	"106 is DSCP 26)"
#define RT_TOS_HELP_CLIENT(whose)                                              \
	RT_TOS_HELP("client: " whose) "; the server takes the client's"
/* struct rt_cm_params.tos from that row of table t: the value the command
 * line gave, else -1 (the CM's default). */
static inline int rt_cm_tos_opt(const struct rt_opt_table *t, long long tos)
{
	return rt_opt_was_given(t, "tos") ? (int)tos : -1;
}

/* Work per reactor round, after which the loop goes back to the wait's
 * deadline and predicate: at most RT_CM_EVENTS_PER_ROUND CM events, and
 * at most RT_CM_WCS_PER_ROUND completions and completion notifications
 * together over all CQs. Under sustained arrival (a busy multicast group)
 * an unbounded drain would never return; what is left is taken first in
 * the next round, which then does not sleep in poll(). */
#define RT_CM_EVENTS_PER_ROUND 64
#define RT_CM_WCS_PER_ROUND 256
/* A spinning wait (rt_wait.spin) looks at its fds once in
 * RT_SPIN_LOOK_ROUNDS rounds, and sleeps as any other wait once nothing
 * has happened for RT_SPIN_IDLE_US. */
#define RT_SPIN_LOOK_ROUNDS 64
#define RT_SPIN_IDLE_US 1000

/* A device's resources shared by its connections. */
struct rt_cm_device {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_device_attr attr;
};

/* Creates the reactor and its event channel. Failures are recorded in
 * `err` (no device: exit 3 with the reason) and return NULL. The reactor
 * logs to `log` and records run-ending failures in `err`; `applet` is
 * handed back by rt_cm_applet and rt_conn_applet. */
struct rt_cm *rt_cm_create(const struct rt_cm_params *params,
			   const struct rt_cm_hooks *hooks, void *applet,
			   struct rt_log *log, struct rt_error *err);
/* Destroys every connection (QPs, CQs, buffers, ids), the channel and
 * the reactor; NULL is a no-op. */
void rt_cm_destroy(struct rt_cm *cm);

/* The device's shared PD and completion channel (created on first use). */
struct rt_cm_device *rt_cm_device(struct rt_cm *cm, struct ibv_context *verbs);

/* Active side: create an id and start resolving towards dst (src may be
 * NULL). The reactor then resolves the route, calls hooks->setup and
 * connects. */
struct rt_conn *rt_cm_connect(struct rt_cm *cm, struct sockaddr *src,
			      struct sockaddr *dst);
/* Passive side: bind and listen; requests are accepted by the reactor
 * (after hooks->setup). */
int rt_cm_listen(struct rt_cm *cm, struct sockaddr *addr);
/* A server's or client's start in one call: resolves q (its what names
 * the option in errors), then listens (q->passive) or starts n
 * connections to the resolved address. */
struct rt_addr_query;
int rt_cm_start(struct rt_cm *cm, const struct rt_addr_query *q, unsigned n,
		struct rt_error *err);
/* Creates and binds an id without connecting (multicast joins); the
 * params' tos is set on it, as on an id whose address resolved. */
struct rt_conn *rt_cm_bind(struct rt_cm *cm, struct sockaddr *addr);

/* ---- what an applet may ask of a connection --------------------------- */

/* Connections in creation order, the listener left out:
 *   struct rt_conn *c;
 *   rt_cm_each(cm, c) ...
 * Releasing connections inside the loop is not allowed (step hooks
 * release after their loops). */
struct rt_conn *rt_cm_next(const struct rt_cm *cm, const struct rt_conn *prev);
#define rt_cm_each(cm, c) for ((c) = rt_cm_next((cm), NULL); (c); (c) = rt_cm_next((cm), (c)))
/* How many connections there are (the listener not counted). */
size_t rt_cm_count(const struct rt_cm *cm);
/* The applet context given to rt_cm_create. */
void *rt_cm_applet(const struct rt_cm *cm);
void *rt_conn_applet(const struct rt_conn *c);

enum rt_conn_state rt_conn_state(const struct rt_conn *c);
bool rt_conn_passive(const struct rt_conn *c);  /* accepted from a listener */
unsigned rt_conn_index(const struct rt_conn *c); /* creation order; 0 is the listener on a server */
const char *rt_conn_peer(const struct rt_conn *c); /* "192.0.2.1:7174", for messages */
struct rdma_cm_id *rt_conn_id(const struct rt_conn *c);
struct rt_res *rt_conn_res(struct rt_conn *c);
/* The per-step setup times (ns), for the timing table. */
const uint64_t *rt_conn_step_ns(const struct rt_conn *c);
/* The device resources of the connection's device (NULL before its
 * address is resolved, or when the device cannot be opened). */
struct rt_cm_device *rt_conn_device(struct rt_conn *c);
/* The join or SIDR result of a UD connection. */
const struct rdma_ud_param *rt_conn_ud(const struct rt_conn *c);
/* The last poll of c's CQ stopped at the round's completion budget: the
 * CQ still holds completions the reactor has not handed out yet. */
bool rt_conn_cq_backlogged(const struct rt_conn *c);

/* A server's request beyond the first n it serves (-c; index 0 is the
 * listener): the ones to turn away. Never true on the active side. */
bool rt_conn_beyond(const struct rt_conn *c, unsigned n);

/* Successful completions the reactor counted on a connection. */
enum rt_counter { RT_COUNT_SENDS, RT_COUNT_RECVS, RT_COUNT_RDMA };
uint64_t rt_conn_count(const struct rt_conn *c, enum rt_counter which);
/* Every connection has counted at least n, or failed (a failed one
 * never will; its failure is reported on its own). */
bool rt_cm_all_reached(const struct rt_cm *cm, enum rt_counter which, uint64_t n);

/* ---- what an applet may do to a connection ---------------------------- */

/* Sends a DREQ (once) and marks the connection disconnecting. */
int rt_conn_disconnect(struct rt_conn *c);
/* The applet's per-connection state, allocated zeroed on first use and
 * zeroed again on later calls (a --wait-server retry runs setup anew);
 * freed with the connection. rt_conn_data gives it back (NULL before). */
void *rt_conn_priv(struct rt_conn *c, size_t size);
void *rt_conn_data(const struct rt_conn *c);
/* Names the connection in messages ("group ff0e::1 id 3"), instead of
 * its peer address. */
void rt_conn_set_peer(struct rt_conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Creates the connection's QP and resources from a spec on its device. */
int rt_conn_setup_res(struct rt_conn *c, const struct rt_res_spec *spec);
/* A connection its setup hook gave no QP (cmtime's QP-less runs): the
 * QP number its connect or accept announces, 24 bits; the CM wants a
 * different one per connection between two hosts. Without a QP the
 * active side gets CONNECT_RESPONSE: hooks->connect_response must call
 * rdma_establish. */
void rt_conn_set_qp_num(struct rt_conn *c, uint32_t qp_num);
/* Moves a self-managed QP (rping -q) to INIT, RTR or RTS with the
 * attributes the CM computed for this connection. */
int rt_conn_qp_state(struct rt_conn *c, enum ibv_qp_state state);
/* Fails every connection that has been waiting for its peer longer than
 * the reactor's timeout_ms (a peer that vanished without a disconnect). */
void rt_cm_fail_idle(struct rt_cm *cm);
/* Destroys a finished (disconnected or failed, and reported) connection
 * and drops it from the list, so long-running servers do not grow. */
void rt_cm_release(struct rt_cm *cm, struct rt_conn *c);
/* Releases every such connection but the listener: what a server calls
 * each round so that neither served nor turned-away clients stay
 * allocated until exit. Their hooks (disconnected, failed) have run. */
void rt_cm_release_finished(struct rt_cm *cm);
/* Stops listening (destroys the listener), so the port is free for
 * another listener; the accepted connections stay. No-op without one. */
void rt_cm_unlisten(struct rt_cm *cm);
/* In a setup hook: fails, and so rejects, a request beyond the first n,
 * naming -c (returns -1); 0 for the others. */
int rt_conn_refuse_beyond(struct rt_conn *c, unsigned n);
/* Records a per-connection failure; the reactor reports it. */
int rt_conn_fail(struct rt_conn *c, int exit_code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The connection's error record, for core calls that take one
 * (rt_res_buf, rt_post_*). When such a call fails, rt_conn_fail_recorded
 * makes what it recorded the connection's failure; returns -1. */
struct rt_error *rt_conn_err(struct rt_conn *c);
int rt_conn_fail_recorded(struct rt_conn *c);
/* After a hook (or a call made like one) returned rc: a failure it did
 * not record itself becomes a connection failure naming `what`. */
int rt_conn_hook_result(struct rt_conn *c, int rc, const char *what);

/* ---- waiting ------------------------------------------------------------ */

/* The reactor's own bound (params.timeout_ms), as a wait's timeout. */
#define RT_WAIT_STEP_BOUND 0
#define RT_WAIT_UNBOUNDED (-1)

/* One bounded wait of the reactor. */
struct rt_wait {
	/* true when the wait is over; only asks (work goes in step) */
	bool (*done)(const struct rt_cm *cm, const void *arg);
	void *arg;
	/* optional, called before each done(): the wait's own work (posting
	 * the next sends, failing idle connections, releasing finished ones) */
	void (*step)(struct rt_cm *cm, void *arg);
	/* ends the wait when nothing happens this long: RT_WAIT_STEP_BOUND
	 * (0, the default) is the reactor's timeout_ms, RT_WAIT_UNBOUNDED none */
	long long timeout_ms;
	long long tick_ms;    /* if > 0, done() is also called at least this often */
	/* busy-polls every CQ instead of sleeping while completions come
	 * back to back (ucmatose's exchange, which upstream busy-polls):
	 * no wake-up, re-arm or notification read per completion */
	bool spin;
	const char *what;     /* "the server's messages", for the timeout message */
	/* optional: how far it got, e.g. "4 of 10 messages on connection 2" */
	void (*progress)(const struct rt_cm *cm, const void *arg, char *buf, size_t len);
};

/* Runs the reactor until the wait is done (0), or the run fails or the
 * wait times out (-1, the error recorded), or SIGINT/SIGTERM arrived and
 * the applet has not begun winding down (RT_INTERRUPTED, interrupt.h). */
int rt_cm_run(struct rt_cm *cm, const struct rt_wait *w);

/* Moves every id to a fresh event channel (ucmatose -m). */
int rt_cm_migrate(struct rt_cm *cm);

/* Ready-made predicates: arg points to an unsigned count of connections. */
bool rt_cm_all_established(const struct rt_cm *cm, const void *want_count);
bool rt_cm_all_closed(const struct rt_cm *cm, const void *unused);
/* A first connection arrived (a server's wait for its first client). */
bool rt_cm_any_conn(const struct rt_cm *cm, const void *unused);
/* Progress of a wait for want_count (unsigned *) connections: the
 * census and "expected 8: does the peer's -c match?" */
void rt_cm_expected_progress(const struct rt_cm *cm, const void *want_count,
			     char *buf, size_t len);
/* "8 connections: 3 established, 5 resolving route" */
void rt_cm_census(const struct rt_cm *cm, char *buf, size_t len);
/* The census and what a wait expects, for its progress hook:
 * "3 connections: 3 connecting; expected 8: does the peer's -c match?" */
void rt_cm_census_want(const struct rt_cm *cm, unsigned want, const char *hint,
		       char *buf, size_t len);

const char *rt_conn_state_str(enum rt_conn_state s);

/* The likely cause of a CM error event, for the one-line message. */
const char *rt_cm_explain(enum rdma_cm_event_type ev, int status);

#endif
