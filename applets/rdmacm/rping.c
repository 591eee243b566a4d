/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rping: RDMA READ/WRITE ping-pong, wire-compatible with rdma-core's rping.
 *
 * Per ping the client fills its source buffer and SENDs a 16-byte
 * big-endian advert {address, rkey, length}; the server RDMA-READs that
 * buffer and SENDs a go-ahead; the client SENDs a second advert for its
 * sink buffer; the server RDMA-WRITEs the data back (strlen + 1 bytes, as
 * upstream) and SENDs a second go-ahead. Each side keeps exactly one
 * receive posted, so the two strictly alternate.
 *
 * The peer is untrusted: every advert is checked against the local
 * buffers before any RDMA is posted, and an echo never reads past what
 * was read. The server runs the protocol from completions, so one reactor
 * serves any number of clients at once (-P). */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/stats.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

#define ADVERT_LEN 16

struct rping_cfg {
	int server, client;
	const char *addr, *src;
	long long port;
	int persistent;
	long long count;
	long long size;
	int verbose, validate, debug, self_qp;
	long long tos;
};

/* the 16-byte control message, host order */
struct rping_advert {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

enum srv_state { SRV_WAIT_SOURCE, SRV_READING, SRV_WAIT_SINK, SRV_WRITING };

struct rping_conn {
	struct rt_buf *recv, *send, *data, *start;
	enum srv_state state;
	uint32_t read_len;     /* bytes the server read in this ping */
	uint64_t pings;        /* completed pings */
	uint64_t t_ping;       /* client: when the current ping started */
};

struct rping_ctx {
	struct rping_cfg *cfg;
	struct rt_run *run;
	struct rt_cm *cm;
	struct rt_hist rtt;     /* client round trips, ns (58 KiB, fixed) */
	uint64_t served, clients, failed_clients;
	bool client_left;       /* single-client server: its client is gone */
};

#define RT_CFG struct rping_cfg

static const struct rt_opt rping_opts[] = {
	{ 's', "server", RT_OPT_FLAG, RT_I(server), 0, 0, NULL, NULL, "run as the server", NULL },
	{ 'c', "client", RT_OPT_FLAG, RT_I(client), 0, 0, NULL, NULL, "run as the client", NULL },
	{ 'a', "addr", RT_OPT_ADDR, RT_S(addr), 0, 0, NULL, "ADDR",
	  "server: address to listen on (default any); client: the server's address", NULL },
	{ 'I', "source", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "client: source address to connect from", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7174", "PORT", "port", NULL },
	{ 'P', "persistent", RT_OPT_FLAG, RT_I(persistent), 0, 0, NULL, NULL,
	  "server: serve clients, many at once, until killed", NULL },
	{ 'C', "count", RT_OPT_INT, RT_L(count), 0, 0, "0", "N",
	  "client: number of pings (0: until interrupted); server: pings each "
	  "client must complete, fewer is a failure (0: a client that quits "
	  "early cannot be told from one that finished)", NULL },
	{ 'S', "size", RT_OPT_SIZE, RT_L(size), 1, 1 << 24, "64", "SIZE",
	  "ping buffer size; the upstream server reads at most its own -S", NULL },
	{ 'v', "verbose", RT_OPT_COUNTER, RT_I(verbose), 0, 0, NULL, NULL,
	  "print the ping data (and a latency summary)", NULL },
	{ 'V', "validate", RT_OPT_COUNTER, RT_I(validate), 0, 0, NULL, NULL,
	  "client: check the echoed data", NULL },
	{ 'd', "trace", RT_OPT_COUNTER, RT_I(debug), 0, 0, NULL, NULL,
	  "trace CM events and completions on stderr (like --debug)", NULL },
	{ 'q', "self-qp", RT_OPT_FLAG, RT_I(self_qp), 0, 0, NULL, NULL,
	  "create the QP and move it through INIT/RTR/RTS here, not in the CM", NULL },
	/* upstream's getopt string keeps a "t:" with no case behind it, so
	 * upstream rping refuses -t: the long name alone, not a letter */
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP_CLIENT("its connection's")),
	{ 0 },
};

RT_APPLET(rping, "RDMA READ/WRITE ping-pong between a client and a server",
	  "-s [-vVdqP] [-a address] [-p port] [-C count] [-S size]\n"
	  "       rping -c [-vVdq] [-a address] [-I address] [-p port] "
	  "[-C count] [-S size] [--tos TOS]",
	  "The client sends its buffer's address; the server RDMA-READs it "
	  "and RDMA-WRITEs it back into the client's second buffer. "
	  "Wire-compatible with rdma-core's rping. Unlike it, every wait is "
	  "bounded by --timeout, adverts from the peer are validated before "
	  "any RDMA is posted, -P serves many clients concurrently from one "
	  "thread, and -v adds round-trip percentiles.",
	  .examples = "On host A (192.0.2.1), serve until stopped:\n"
		      "rping -s -a 192.0.2.1\n"
		      "\n"
		      "On host B: ten pings of 64 bytes, the data shown:\n"
		      "rping -c -a 192.0.2.1 -C 10 -S 64 -v\n"
		      "\n"
		      "The same with the verdict as JSON, waiting up to 30 s for the "
		      "server to come up:\n"
		      "rping -c -a 192.0.2.1 -C 10 --wait-server 30 --json");

/* ---- the advert: untrusted bytes in, checked values out ---------------- */

void rping_advert_encode(uint8_t out[ADVERT_LEN], const struct rping_advert *a)
{
	uint64_t addr = htobe64(a->addr);
	uint32_t rkey = htobe32(a->rkey), len = htobe32(a->len);

	memcpy(out, &addr, 8);
	memcpy(out + 8, &rkey, 4);
	memcpy(out + 12, &len, 4);
}

/* Returns 0, or -1 with a reason when the message cannot be an advert
 * for a buffer of at most `max` bytes. */
int rping_advert_decode(const uint8_t *buf, size_t len, uint64_t max,
			struct rping_advert *a, const char **why)
{
	uint64_t addr;
	uint32_t rkey, alen;

	if (len != ADVERT_LEN) {
		*why = "control message is not 16 bytes";
		return -1;
	}
	memcpy(&addr, buf, 8);
	memcpy(&rkey, buf + 8, 4);
	memcpy(&alen, buf + 12, 4);
	a->addr = be64toh(addr);
	a->rkey = be32toh(rkey);
	a->len = be32toh(alen);
	*why = a->len == 0 ? "advertised length is 0" :
	       a->len > max ? "advertised length exceeds this side's buffer (-S)" :
	       a->addr + a->len < a->addr ? "advertised buffer wraps the address space" :
	       NULL;
	return *why ? -1 : 0;
}

/* The upstream ping text: "rdma-ping-N: " then characters counting up
 * from 'A' + N through 'A'..'z' (wrapping), NUL in the last byte. */
void rping_fill(uint8_t *buf, size_t size, uint64_t n)
{
	int start = 'A' + (int)(n % 58), c;
	int pre;

	if (!size)
		return;
	pre = snprintf((char *)buf, size, "rdma-ping-%llu: ", (unsigned long long)n);
	c = start;
	for (size_t i = pre < 0 ? 0 : (size_t)pre; i + 1 < size; i++) {
		buf[i] = (uint8_t)c;
		c = c == 'z' ? 'A' : c + 1;
	}
	buf[size - 1] = '\0';
}

static int fail_peer(struct rt_conn *c, const char *what, const char *why)
{
	return rt_conn_fail(c, RT_EXIT_FAIL, "%s: %s: %s", rt_conn_peer(c), what, why);
}

/* ---- resources -------------------------------------------------------- */

static int post_recv(struct rt_conn *c)
{
	struct rping_conn *r = rt_conn_data(c);

	return rt_post_recv(rt_conn_res(c), r->recv, 0, ADVERT_LEN, 0, rt_conn_err(c)) ?
	       rt_conn_fail_recorded(c) : 0;
}

static int make_buffers(struct rt_conn *c, size_t size)
{
	struct rping_conn *r = rt_conn_data(c);
	struct rt_res *res = rt_conn_res(c);
	struct rt_error *err = rt_conn_err(c);
	bool client = !rt_conn_passive(c);
	int remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_WRITE;

	r->recv = rt_res_buf(res, ADVERT_LEN, IBV_ACCESS_LOCAL_WRITE, err);
	r->send = r->recv ? rt_res_buf(res, ADVERT_LEN, 0, err) : NULL;
	r->data = r->send ? rt_res_buf(res, size, remote, err) : NULL;
	if (r->data && client)
		r->start = rt_res_buf(res, size, remote, err);
	if (!r->data || (client && !r->start))
		return rt_conn_fail_recorded(c);
	return 0;
}

/* -q: the QP must leave RESET before a receive may be posted. */
static int self_qp_ready(struct rt_conn *c)
{
	if (rt_conn_qp_state(c, IBV_QPS_INIT))
		return -1;
	if (rt_conn_passive(c) && (rt_conn_qp_state(c, IBV_QPS_RTR) ||
			   rt_conn_qp_state(c, IBV_QPS_RTS)))
		return -1;
	return 0;
}

static int setup(struct rt_conn *c)
{
	struct rping_ctx *x = rt_conn_applet(c);
	struct rt_res_spec spec = {
		.qp_type = IBV_QPT_RC, .send_depth = 16, .recv_depth = 2,
		.cq_depth = 32, .self_managed_qp = x->cfg->self_qp,
	};

	rt_conn_priv(c, sizeof(struct rping_conn));
	if (rt_conn_passive(c))
		x->clients++;
	if (rt_conn_setup_res(c, &spec) || make_buffers(c, (size_t)x->cfg->size))
		return -1;
	if (x->cfg->self_qp && self_qp_ready(c))
		return -1;
	return post_recv(c);
}

/* -q client: the CM hands the response to us; finish the QP, send RTU.
 * INIT is applied again: before the connect, the CM's INIT attributes
 * grant no remote access, and the server's RDMA READ would be refused. */
static int connect_response(struct rt_conn *c)
{
	if (rt_conn_qp_state(c, IBV_QPS_INIT) || rt_conn_qp_state(c, IBV_QPS_RTR) ||
	    rt_conn_qp_state(c, IBV_QPS_RTS))
		return -1;
	if (rdma_establish(rt_conn_id(c)))
		return rt_conn_fail(c, RT_EXIT_FAIL, "rdma_establish %s: %m", rt_conn_peer(c));
	return 0;
}

static int send_advert(struct rt_conn *c, const struct rping_advert *a)
{
	struct rping_conn *r = rt_conn_data(c);

	if (a)
		rping_advert_encode(r->send->addr, a);
	else
		memset(r->send->addr, 0, ADVERT_LEN); /* go-ahead: zeros, as upstream */
	return rt_post_send(rt_conn_res(c), r->send, 0, ADVERT_LEN, 0, true, rt_conn_err(c)) ?
	       rt_conn_fail_recorded(c) : 0;
}

/* ---- server: the protocol runs from completions ------------------------ */

static void print_data(struct rt_run *run, const char *label, const uint8_t *buf,
		       size_t len)
{
	rt_say(&run->log, "%s%.*s", label, (int)strnlen((const char *)buf, len), buf);
}

static int server_advert(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct rping_ctx *x = rt_conn_applet(c);
	struct rping_conn *r = rt_conn_data(c);
	struct rt_res *res = rt_conn_res(c);
	struct rping_advert a;
	const char *why;
	size_t n, echo;

	if (rping_advert_decode(r->recv->addr, wc->byte_len, (uint64_t)x->cfg->size, &a, &why))
		return fail_peer(c, "malformed advert", why);
	if (post_recv(c))
		return -1;
	if (r->state == SRV_WAIT_SOURCE) {
		r->read_len = a.len;
		r->state = SRV_READING;
		return rt_post_rdma(res, IBV_WR_RDMA_READ, r->data, 0, a.len,
				    a.addr, a.rkey, 0, rt_conn_err(c)) ? -1 : 0;
	}
	if (r->state != SRV_WAIT_SINK)
		return fail_peer(c, "protocol", "advert while an RDMA operation is "
				 "in flight (the peer does not alternate)");
	/* upstream echoes strlen + 1; never more than was read or advertised */
	n = strnlen((const char *)r->data->addr, r->read_len);
	echo = RT_MIN(n < r->read_len ? n + 1 : r->read_len, (size_t)a.len);
	r->state = SRV_WRITING;
	return rt_post_rdma(res, IBV_WR_RDMA_WRITE, r->data, 0, echo, a.addr,
			    a.rkey, 0, rt_conn_err(c)) ? -1 : 0;
}

static int server_completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	struct rping_ctx *x = rt_conn_applet(c);
	struct rping_conn *r = rt_conn_data(c);

	switch (RT_WR_KIND(wc->wr_id)) {
	case RT_WR_RECV:
		return server_advert(c, wc);
	case RT_WR_READ:
		if (x->cfg->verbose)
			print_data(x->run, "server ping data: ", r->data->addr, r->read_len);
		r->state = SRV_WAIT_SINK;
		return send_advert(c, NULL);
	case RT_WR_WRITE:
		r->state = SRV_WAIT_SOURCE;
		r->pings++;
		x->served++;
		return send_advert(c, NULL);
	default:
		return 0;
	}
}

/* ---- client: straight-line pings, each wait bounded ------------------- */

static int client_completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	if (RT_WR_KIND(wc->wr_id) != RT_WR_RECV)
		return 0;
	if (wc->byte_len != ADVERT_LEN)
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: received a %u-byte control "
				    "message, expected 16", rt_conn_peer(c), wc->byte_len);
	return post_recv(c);
}

static int completion(struct rt_conn *c, const struct ibv_wc *wc)
{
	return rt_conn_passive(c) ? server_completion(c, wc) : client_completion(c, wc);
}

struct recv_goal {
	struct rt_conn *c;
	uint64_t want, ping;
};

static bool got_recvs(const struct rt_cm *cm, const void *arg)
{
	const struct recv_goal *g = arg;

	(void)cm;
	return rt_conn_count(g->c, RT_COUNT_RECVS) >= g->want;
}

/* A server that disconnects mid-ping ends the wait at once. */
static void fail_if_server_left(struct rt_cm *cm, void *arg)
{
	const struct recv_goal *g = arg;

	(void)cm;
	if (rt_conn_state(g->c) == RT_CONN_DISCONNECTED && !got_recvs(cm, g))
		rt_conn_fail(g->c, RT_EXIT_FAIL, "%s disconnected during ping %llu",
			     rt_conn_peer(g->c), (unsigned long long)g->ping);
}

static int advert_and_wait(struct rping_ctx *x, struct rt_conn *c,
			   struct rt_buf *b, uint64_t n, uint64_t want)
{
	struct rping_advert a = { (uintptr_t)b->addr, b->mr->rkey, (uint32_t)x->cfg->size };
	struct recv_goal g = { c, want, n };
	struct rt_wait w = { .done = got_recvs, .step = fail_if_server_left, .arg = &g,
			     .what = "the server's go-ahead" };

	if (send_advert(c, &a))
		return -1;
	return rt_cm_run(x->cm, &w);
}

static int check_echo(struct rping_ctx *x, struct rt_conn *c, uint64_t n)
{
	struct rping_conn *r = rt_conn_data(c);
	size_t size = (size_t)x->cfg->size;

	for (size_t i = 0; x->cfg->validate && i < size; i++)
		if (r->start->addr[i] != r->data->addr[i])
			return rt_fail(&x->run->err, RT_EXIT_FAIL, "data mismatch in "
				       "ping %llu at byte %zu of %zu: sent 0x%02x, got "
				       "0x%02x", (unsigned long long)n, i, size,
				       r->start->addr[i], r->data->addr[i]);
	if (x->cfg->verbose)
		print_data(x->run, "ping data: ", r->data->addr, size);
	return 0;
}

static int ping(struct rping_ctx *x, struct rt_conn *c, uint64_t n)
{
	struct rping_conn *r = rt_conn_data(c);
	uint64_t t0 = rt_now_ns();
	int rc;

	rping_fill(r->start->addr, (size_t)x->cfg->size, n);
	if (x->cfg->validate)
		memset(r->data->addr, 0, r->data->len); /* a missing echo must show */
	if ((rc = advert_and_wait(x, c, r->start, n, 2 * n + 1)) ||
	    (rc = advert_and_wait(x, c, r->data, n, 2 * n + 2)))
		return rc; /* an interrupted ping is not counted */
	rt_hist_add(&x->rtt, rt_now_ns() - t0);
	r->pings++;
	return check_echo(x, c, n);
}

/* ---- connection handling ----------------------------------------------- */

/* A single-client server's client is connection 1 (0 is the listener);
 * later requests are turned away. */
static bool extra_client(struct rping_ctx *x, struct rt_conn *c)
{
	return rt_conn_passive(c) && !x->cfg->persistent && rt_conn_index(c) > 1;
}

static int server_setup(struct rt_conn *c)
{
	if (extra_client(rt_conn_applet(c), c))
		return rt_conn_fail(c, RT_EXIT_FAIL, "%s: rejected: already serving "
				    "a client (use -P to serve many)", rt_conn_peer(c));
	return setup(c);
}

/* Persistent servers outlive their clients' failures; a single-client
 * server only shrugs off the extra clients it rejected. Its own client's
 * failure ends the run, whatever state the connection was in. */
static bool keep_serving(struct rt_conn *c)
{
	struct rping_ctx *x = rt_conn_applet(c);

	if (!rt_conn_passive(c))
		return false;
	if (x->cfg->persistent || extra_client(x, c)) {
		x->failed_clients++;
		return true;
	}
	x->client_left = true;
	return false;
}

/* The server's -C (upstream ignores it; the wire is the same): the client
 * disconnecting before that many pings is a failure, not a pass. */
static void peer_left(struct rt_conn *c)
{
	struct rping_ctx *x = rt_conn_applet(c);
	const struct rping_conn *r = rt_conn_data(c);
	unsigned long long k = r ? r->pings : 0;

	if (!rt_conn_passive(c) || extra_client(x, c))
		return;
	if (!x->cfg->persistent)
		x->client_left = true;
	if (x->cfg->count && k < (unsigned long long)x->cfg->count)
		rt_conn_fail(c, RT_EXIT_FAIL, "%s: client left after %llu of %lld pings",
			     rt_conn_peer(c), k, x->cfg->count);
}

static const struct rt_cm_hooks hooks = {
	.setup = server_setup,
	.completion = completion,
	.disconnected = peer_left,
	.failed = keep_serving,
	.connect_response = connect_response,
};

static bool first_client(const struct rt_cm *cm, const void *arg)
{
	(void)arg;
	return ((const struct rping_ctx *)rt_cm_applet(cm))->clients > 0;
}

/* Each round: a client silent past --timeout fails, and finished
 * connections (served, failed, turned away) are released at once. */
static void serving_step(struct rt_cm *cm, void *arg)
{
	(void)arg;
	rt_cm_fail_idle(cm);
	rt_cm_release_finished(cm);
}

/* Single-client server: done once its client left, disconnected or
 * failed (the hooks note it). Persistent: never done. */
static bool serving_done(const struct rt_cm *cm, const void *arg)
{
	const struct rping_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return !x->cfg->persistent && x->client_left;
}

static int resolve(struct rping_ctx *x, bool passive, struct rdma_addrinfo **ai)
{
	struct rt_addr_query q = {
		.node = x->cfg->addr ? x->cfg->addr : (passive ? NULL : "0.0.0.0"),
		.port = x->cfg->port, .src = passive ? NULL : x->cfg->src,
		.ps = RDMA_PS_TCP, .passive = passive, .what = "-a",
	};

	return rt_addr_resolve(&q, ai, &x->run->err);
}

/* Still connected: established, or our DREQ not yet answered. */
static bool wound_down(const struct rt_cm *cm, const void *arg)
{
	const struct rt_conn *c;

	(void)arg;
	rt_cm_each(cm, c)
		if (rt_conn_state(c) == RT_CONN_ESTABLISHED ||
		    rt_conn_state(c) == RT_CONN_DISCONNECTING)
			return false;
	return true;
}

/* After SIGINT/SIGTERM: disconnect every client, each wait bounded by
 * --timeout; a persistent server fails if any client failed before. */
static int server_wind_down(struct rping_ctx *x)
{
	struct rt_wait w = { .done = wound_down, .what = "the clients' disconnects" };
	struct rt_conn *c;

	rt_interrupt_wind_down(&x->run->err);
	rt_error_phase(&x->run->err, "disconnect");
	rt_cm_each(x->cm, c)
		if (rt_conn_state(c) == RT_CONN_ESTABLISHED)
			rt_conn_disconnect(c);
	if (rt_cm_run(x->cm, &w))
		return -1;
	if (x->cfg->persistent && x->failed_clients)
		return rt_fail(&x->run->err, RT_EXIT_FAIL, "%llu of %llu clients "
			       "failed", (unsigned long long)x->failed_clients,
			       (unsigned long long)x->clients);
	return RT_INTERRUPTED;
}

static int run_server(struct rping_ctx *x)
{
	struct rt_wait first = { .done = first_client, .what = "a first client",
				 .timeout_ms = rt_run_accept_bound(x->run) };
	struct rt_wait serve = { .done = serving_done, .step = serving_step,
				 .timeout_ms = RT_WAIT_UNBOUNDED, .tick_ms = 250, .what = "clients" };
	struct rdma_addrinfo *ai;
	int rc;

	if (resolve(x, true, &ai))
		return -1;
	rc = rt_cm_listen(x->cm, ai->ai_src_addr);
	rdma_freeaddrinfo(ai);
	rt_error_phase(&x->run->err, "accept");
	if (!rc)
		rc = rt_cm_run(x->cm, &first);
	if (!rc) {
		rt_error_phase(&x->run->err, "transfer");
		rc = rt_cm_run(x->cm, &serve);
	}
	return rc == RT_INTERRUPTED ? server_wind_down(x) : rc;
}

static int client_disconnect(struct rping_ctx *x, struct rt_conn *c)
{
	struct rt_wait w = { .done = rt_cm_all_closed, .what = "the disconnect" };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };

	rt_error_phase(&x->run->err, "disconnect");
	if (x->cfg->self_qp)
		ibv_modify_qp(rt_conn_res(c)->qp, &err, IBV_QP_STATE); /* as upstream -q */
	if (rt_conn_disconnect(c))
		return -1;
	return rt_cm_run(x->cm, &w);
}

static int run_client(struct rping_ctx *x)
{
	unsigned one = 1;
	struct rt_wait up = { .done = rt_cm_all_established, .arg = &one,
			      .what = "the connection" };
	struct rdma_addrinfo *ai;
	struct rt_conn *c;
	int rc = 0;

	if (resolve(x, false, &ai))
		return -1;
	c = rt_cm_connect(x->cm, ai->ai_src_addr, ai->ai_dst_addr);
	rdma_freeaddrinfo(ai);
	rt_error_phase(&x->run->err, "connect");
	if (!c || rt_cm_run(x->cm, &up))
		return -1;
	rt_error_phase(&x->run->err, "transfer");
	for (uint64_t n = 0; !rc && (!x->cfg->count || n < (uint64_t)x->cfg->count); n++)
		rc = ping(x, c, n);
	if (rc && rc != RT_INTERRUPTED)
		return -1;
	if (rc) /* stop pinging, disconnect as after the last ping */
		rt_interrupt_wind_down(&x->run->err);
	return client_disconnect(x, c) ? -1 : rc;
}

static void report(struct rping_ctx *x, bool server)
{
	struct rt_json *j = &x->run->results;
	struct rt_summary s;

	rt_json_kv_string(j, "role", server ? "server" : "client");
	if (server) {
		rt_json_kv_uint(j, "clients", x->clients);
		rt_json_kv_uint(j, "failed_clients", x->failed_clients);
		rt_json_kv_uint(j, "pings_served", x->served);
		if (x->cfg->verbose || rt_interrupt_signal())
			rt_say(&x->run->log, "rping: served %llu pings to %llu clients",
			       (unsigned long long)x->served,
			       (unsigned long long)x->clients);
		return;
	}
	rt_hist_summarize(&x->rtt, &s);
	rt_json_kv_uint(j, "pings", s.count);
	rt_json_kv_uint(j, "size", (uint64_t)x->cfg->size);
	rt_json_kv_bool(j, "validated", x->cfg->validate > 0);
	rt_json_key(j, "rtt_us");
	rt_summary_json(j, &s, 1000.0);
	if (x->cfg->verbose || rt_interrupt_signal()) /* ping(8)'s summary */
		rt_say(&x->run->log, "rping: %zu pings, rtt min/median/p99/p99.9/max "
		       "%.1f/%.1f/%.1f/%.1f/%.1f us", s.count, s.min / 1e3,
		       s.median / 1e3, s.p99 / 1e3, s.p999 / 1e3, s.max / 1e3);
}

static int rping_main(struct rt_run *run, void *cfgp)
{
	struct rping_cfg *cfg = cfgp;
	struct rping_ctx x = { .cfg = cfg, .run = run };
	struct rt_cm_params p = {
		.ps = RDMA_PS_TCP, .tos = rt_cm_tos_opt(&run->tabs[0], cfg->tos),
		.ack_timeout = -1, .backlog = 128,
		/* upstream asks for RNR retry 7, which means forever */
		.accept_rnr_retry = 6,
		.conn = { .responder_resources = 1, .initiator_depth = 1,
			  .retry_count = 7, .rnr_retry_count = 6 },
		.timeout_ms = run->common.timeout_ms,
		.wait_server_ms = run->common.wait_server_ms,
	};
	bool server = cfg->server;
	int rc;

	if (cfg->server == cfg->client)
		return rt_fail(&run->err, RT_EXIT_USAGE, "exactly one of -s (server) "
			       "or -c (client) is required");
	if (cfg->debug)
		run->log.debug = true;
	x.cm = rt_cm_create(&p, &hooks, &x, &run->log, &run->err);
	rc = x.cm ? 0 : -1;
	if (!rc)
		rc = server ? run_server(&x) : run_client(&x);
	if (!rc || rc == RT_INTERRUPTED || x.rtt.count || x.served)
		report(&x, server);
	/* -C 0 and -P end by interrupt; a client only once it pinged */
	run->interrupt_is_end = server ? cfg->persistent : !cfg->count && x.rtt.count;
	rt_cm_destroy(x.cm);
	return rc;
}
