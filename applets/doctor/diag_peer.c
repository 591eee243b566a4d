/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdio.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/cm.h"
#include "doctor/diag_peer.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

void rt_diag_facts_format(const struct rt_diag_port *p, char *buf, size_t len)
{
	if (!p)
		snprintf(buf, len, "rdmatest-doctor 1 - 0 0 - 0\n");
	else
		snprintf(buf, len, "rdmatest-doctor 1 %.40s %u %d %.31s %d\n",
			 p->dev[0] ? p->dev : "-", p->port, p->active_mtu,
			 p->ndev[0] ? p->ndev : "-", p->ndev_mtu);
}

int rt_diag_facts_parse(const char *line, struct rt_diag_port *p)
{
	char dev[41], ndev[32];
	int n;

	memset(p, 0, sizeof(*p));
	n = sscanf(line, "rdmatest-doctor 1 %40s %u %d %31s %d", dev, &p->port,
		   &p->active_mtu, ndev, &p->ndev_mtu);
	if (n != 5 || p->active_mtu < 0 || p->active_mtu > 4096 || p->ndev_mtu < 0)
		return -1;
	rt_strlcpy(p->dev, strcmp(dev, "-") ? dev : "", sizeof(p->dev));
	rt_strlcpy(p->ndev, strcmp(ndev, "-") ? ndev : "", sizeof(p->ndev));
	return 0;
}

void rt_diag_mtu_compare(struct rt_diag *d, const struct rt_diag_port *local,
			 const struct rt_diag_port *peer)
{
	char fix[192];

	if (!peer->dev[0]) {
		rt_diag_add(d, RT_DIAG_FAIL, "peer-mtu", "on the peer, use an address its RDMA "
			    "port carries", "the peer's address is carried by none of its RDMA "
			    "ports");
		return;
	}
	snprintf(fix, sizeof(fix), "set the same MTU on both netdevs (ip link set %s mtu "
		 "%d here, or %d on the peer's %s)", local->ndev, peer->ndev_mtu,
		 local->ndev_mtu, peer->ndev);
	if (local->active_mtu != peer->active_mtu)
		rt_diag_add(d, RT_DIAG_FAIL, "peer-mtu", fix, "MTU mismatch: here %s active "
			    "MTU %d (%s MTU %d), peer %s active MTU %d (%s MTU %d): the larger "
			    "side's packets are dropped", local->dev, local->active_mtu,
			    local->ndev, local->ndev_mtu, peer->dev, peer->active_mtu, peer->ndev,
			    peer->ndev_mtu);
	else if (local->ndev_mtu != peer->ndev_mtu)
		rt_diag_add(d, RT_DIAG_WARN, "peer-mtu", fix, "active MTU %d on both, but netdev "
			    "MTUs differ: here %d, peer %d", local->active_mtu, local->ndev_mtu,
			    peer->ndev_mtu);
	else
		rt_diag_add(d, RT_DIAG_PASS, "peer-mtu", NULL, "here %s active MTU %d (%s %d), "
			    "peer %s active MTU %d (%s %d)", local->dev, local->active_mtu,
			    local->ndev, local->ndev_mtu, peer->dev, peer->active_mtu, peer->ndev,
			    peer->ndev_mtu);
}

static void facts(struct rt_diag *d, const struct rt_diag_port *local,
		  const struct rt_diag_peer_params *p)
{
	char line[RT_DIAG_FACTS_MAX + 1];
	struct rt_error err = { 0 };
	struct rt_diag_port peer;
	struct rt_oob o;
	size_t got = 0;

	rt_oob_init(&o, p->timeout_ms);
	if (rt_oob_connect(&o, p->addr, p->port, 0, &err) ||
	    rt_oob_read_upto(&o, line, RT_DIAG_FACTS_MAX, &got, &err)) {
		rt_diag_add(d, RT_DIAG_WARN, "peer-mtu", "run rdmatest doctor --listen on the "
			    "peer to compare MTUs", "no doctor --listen peer on TCP %s:%u, MTUs "
			    "not compared (%s)", p->addr, p->port, err.reason);
		rt_oob_close(&o);
		return;
	}
	rt_oob_close(&o);
	line[got] = '\0';
	if (rt_diag_facts_parse(line, &peer))
		rt_diag_add(d, RT_DIAG_WARN, "peer-mtu", "run rdmatest doctor --listen on the "
			    "peer (the same version)", "TCP %s:%u answered, but not with "
			    "doctor's facts", p->addr, p->port);
	else if (local)
		rt_diag_mtu_compare(d, local, &peer);
}

static int setup(struct rt_conn *c)
{
	const struct rt_res_spec spec = { .qp_type = IBV_QPT_RC, .send_depth = 1,
					  .recv_depth = 1 };

	return rt_conn_setup_res(c, &spec);
}

static void established(struct rt_conn *c)
{
	if (!rt_conn_passive(c))
		rt_conn_disconnect(c);
}

static const struct rt_cm_hooks hooks = { .setup = setup, .established = established };

static struct rt_cm *make_cm(const struct rt_diag_peer_params *p, struct rt_log *log,
			     struct rt_error *err)
{
	const struct rt_cm_params cp = {
		.ps = RDMA_PS_TCP, .tos = -1, .ack_timeout = -1, .accept_rnr_retry = 7,
		.conn = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 5,
			  .rnr_retry_count = 7 },
		.timeout_ms = p->timeout_ms,
	};

	return rt_cm_create(&cp, &hooks, NULL, log, err);
}

static const char *cm_fix(const struct rt_error *err)
{
	if (strstr(err->event, "REJECTED"))
		return "start a CM server on the peer's port: rdmatest doctor --listen (or "
		       "rping -s), and check -p matches";
	if (strstr(err->event, "ADDR") || strstr(err->event, "ROUTE") ||
	    !strcmp(err->phase, "resolve-addr"))
		return "see the route line: the peer must be reached over an RDMA port";
	if (err->exit_code == RT_EXIT_TIMEOUT || strstr(err->event, "UNREACHABLE"))
		return "the peer does not answer: check its RDMA port is ACTIVE, that UDP "
		       "4791 (RoCE v2) passes firewalls, and that a server listens";
	return "run rdmatest doctor on the peer too, and compare";
}

void rt_diag_peer(struct rt_diag *d, const struct rt_diag_env *e,
		  const struct rt_diag_port *local,
		  const struct rt_diag_peer_params *p, struct rt_log *log)
{
	const struct rt_cm_endpoint ep = { .dst = p->addr, .ps = RDMA_PS_TCP };
	struct rt_addr_query q = rt_addr_query_cm(&ep, p->port);
	struct rt_wait w = { .done = rt_cm_all_closed, .what = "the connection to close" };
	struct rt_error err = { 0 };
	uint64_t t0 = rt_now_ns();
	struct rt_cm *cm;
	int rc;

	(void)e;
	facts(d, local, p);
	q.what = "ADDR";
	cm = make_cm(p, log, &err);
	rc = !cm || rt_cm_start(cm, &q, 1, &err) || rt_cm_run(cm, &w);
	rt_cm_destroy(cm);
	if (!rc && !err.set) {
		rt_diag_add(d, RT_DIAG_PASS, "cm-connect", NULL, "RDMA CM connection to %s "
			    "port %u established and closed in %.1f ms", p->addr, p->port,
			    (double)(rt_now_ns() - t0) / 1e6);
		return;
	}
	if (!err.set)
		rt_fail(&err, RT_EXIT_FAIL, "interrupted");
	rt_diag_add(d, RT_DIAG_FAIL, "cm-connect", cm_fix(&err), "RDMA CM connection to "
		    "%s port %u failed: %s", p->addr, p->port, err.reason);
}

void rt_diag_peer_skipped(struct rt_diag *d, const char *addr)
{
	rt_diag_add(d, RT_DIAG_WARN, "peer", "fix the local FAILs above, then run doctor "
		    "with the peer's address again", "peer checks for %s (route, MTU, RDMA CM "
		    "connection) skipped: the local checks failed, no RDMA device here", addr);
}

static int serve_facts(const struct rt_diag *d, const struct rt_diag_env *e,
		       struct rt_oob *o, struct rt_error *err)
{
	char line[RT_DIAG_FACTS_MAX];
	int idx;

	if (rt_oob_accept(o, err))
		return -1;
	rt_diag_facts_format(rt_diag_port_of(e, d, (struct sockaddr *)&o->local, &idx),
			     line, sizeof(line));
	return rt_oob_write(o, line, strlen(line), err);
}

int rt_diag_listen(const struct rt_diag *d, const struct rt_diag_env *e,
		   const struct rt_diag_peer_params *p, struct rt_log *log,
		   struct rt_error *err)
{
	const struct rt_cm_endpoint ep = { .src = p->addr, .ps = RDMA_PS_TCP };
	struct rt_addr_query q = rt_addr_query_cm(&ep, p->port);
	struct rt_wait first = { .done = rt_cm_any_conn, .timeout_ms = p->timeout_ms,
				 .what = "the client's RDMA CM connection" };
	struct rt_wait closed = { .done = rt_cm_all_closed, .what = "the client to disconnect" };
	struct rt_cm *cm = NULL;
	struct rt_oob o;
	int rc;

	q.what = "--listen";
	/* TCP first: a client that sees the CM port listening finds it up */
	rt_oob_init(&o, p->accept_ms);
	rc = rt_oob_listen(&o, p->addr, p->port, err);
	if (!rc) {
		cm = make_cm(p, log, err);
		rc = !cm || rt_cm_start(cm, &q, 1, err);
	}
	if (!rc) {
		rt_say(log, "doctor: listening on port %u (TCP facts and RDMA CM)", p->port);
		rt_log_flush(log);
		o.timeout_ms = p->accept_ms;
		rc = serve_facts(d, e, &o, err);
		o.timeout_ms = p->timeout_ms;
	}
	rt_oob_close(&o);
	if (!rc)
		rc = rt_cm_run(cm, &first) || rt_cm_run(cm, &closed);
	rt_cm_destroy(cm);
	return rc ? -1 : 0;
}
