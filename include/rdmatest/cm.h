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

#include "rdmatest/res.h"
#include "rdmatest/run.h"

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

struct rt_conn {
	struct rt_cm *cm;
	struct rdma_cm_id *id;
	enum rt_conn_state state;
	bool passive;          /* accepted from a listener */
	bool disconnect_sent;  /* rdma_disconnect already called */
	unsigned index;        /* creation order, from 0 */
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
	char peer[64];         /* peer address, for messages */
	/* active side: where to (re)connect, for --wait-server retries */
	struct sockaddr_storage src, dst;
	bool has_src;
	uint64_t first_try, retry_at; /* ns; retry_at 0: none pending */
	unsigned retries;
	void *priv;            /* the applet's per-connection state */
};

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
};

#define RT_CM_MAX_DEVICES 8

/* Work per reactor round, after which the loop goes back to the wait's
 * deadline and predicate: at most RT_CM_EVENTS_PER_ROUND CM events, and
 * at most RT_CM_WCS_PER_ROUND completions and completion notifications
 * together over all CQs. Under sustained arrival (a busy multicast group)
 * an unbounded drain would never return; what is left is taken first in
 * the next round, which then does not sleep in poll(). */
#define RT_CM_EVENTS_PER_ROUND 64
#define RT_CM_WCS_PER_ROUND 256

struct rt_cm_device {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_device_attr attr;
};

struct rt_cm {
	struct rt_run *run;
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
};

/* Creates the event channel; no device means exit 3 with the reason. */
int rt_cm_init(struct rt_cm *cm, struct rt_run *run,
	       const struct rt_cm_params *params,
	       const struct rt_cm_hooks *hooks, void *applet);
/* Destroys every connection (QPs, CQs, buffers, ids) and the channel. */
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
/* Creates and binds an id without connecting (multicast joins). */
struct rt_conn *rt_cm_bind(struct rt_cm *cm, struct sockaddr *addr);

/* Sends a DREQ (once) and marks the connection disconnecting. */
int rt_conn_disconnect(struct rt_conn *c);
/* The applet's per-connection state, allocated zeroed on first use and
 * zeroed again on later calls (a --wait-server retry runs setup anew);
 * freed with the connection. */
void *rt_conn_priv(struct rt_conn *c, size_t size);
/* Creates the connection's QP and resources from a spec on its device. */
int rt_conn_setup_res(struct rt_conn *c, const struct rt_res_spec *spec);
/* Moves a self-managed QP (rping -q) to INIT, RTR or RTS with the
 * attributes the CM computed for this connection. */
int rt_conn_qp_state(struct rt_conn *c, enum ibv_qp_state state);
/* Fails every connection that has been waiting for its peer longer than
 * timeout_ms (a peer that vanished without a disconnect). */
void rt_cm_fail_idle(struct rt_cm *cm, long long timeout_ms);
/* Destroys a finished (disconnected or failed, and reported) connection
 * and drops it from the list, so long-running servers do not grow. */
void rt_cm_release(struct rt_cm *cm, struct rt_conn *c);
/* Releases every such connection but the listener: what a server calls
 * each round so that neither served nor turned-away clients stay
 * allocated until exit. Their hooks (disconnected, failed) have run. */
void rt_cm_release_finished(struct rt_cm *cm);
/* Records a per-connection failure; the reactor reports it. */
int rt_conn_fail(struct rt_conn *c, int exit_code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One bounded wait of the reactor. */
struct rt_wait {
	/* true when the wait is over; may fail the run to end it early */
	bool (*done)(struct rt_cm *cm, void *arg);
	void *arg;
	/* optional, called before each done(): the wait's own work (failing
	 * idle connections, releasing finished ones), so done() can stay a
	 * plain question */
	void (*step)(struct rt_cm *cm, void *arg);
	long long timeout_ms; /* ends the wait when nothing happens this long; -1: no bound */
	long long tick_ms;    /* if > 0, done() is also called at least this often */
	const char *what;     /* "the server's messages", for the timeout message */
	/* optional: how far it got, e.g. "4 of 10 messages on connection 2" */
	void (*progress)(struct rt_cm *cm, void *arg, char *buf, size_t len);
};

/* Runs the reactor until the wait is done (0), or the run fails or the
 * wait times out (-1, run->err set), or SIGINT/SIGTERM arrived and the
 * applet has not begun winding down (RT_INTERRUPTED, interrupt.h). */
int rt_cm_run(struct rt_cm *cm, const struct rt_wait *w);

/* Reactor internals shared by cm.c and cm_loop.c. */
void rt_conn_resolve(struct rt_conn *c);
/* Starts the --wait-server retries that are due; returns how many. */
int rt_cm_retry_due(struct rt_cm *cm, int *next_ms);

/* After a hook returned rc: a failure the hook did not record itself
 * becomes a connection failure naming `what`. Returns rc. */
int rt_conn_hook_result(struct rt_conn *c, int rc, const char *what);

/* Handles one (copied, already acknowledged) CM event; the loop calls it,
 * and unit tests drive it with scripted events. */
void rt_cm_handle_event(struct rt_cm *cm, const struct rdma_cm_event *ev);

/* Moves every id to a fresh event channel (ucmatose -m). */
int rt_cm_migrate(struct rt_cm *cm);

/* Ready-made predicates: arg points to an unsigned count of connections. */
bool rt_cm_all_established(struct rt_cm *cm, void *want_count);
bool rt_cm_all_closed(struct rt_cm *cm, void *unused);
/* "8 connections: 3 established, 5 resolving route" */
void rt_cm_census(struct rt_cm *cm, char *buf, size_t len);

const char *rt_conn_state_str(enum rt_conn_state s);

/* The likely cause of a CM error event, for the one-line message. */
const char *rt_cm_explain(enum rdma_cm_event_type ev, int status);

#endif
