/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime: how long each step of setting up and tearing down RDMA CM
 * connections takes, with -c connections in flight at once.
 *
 * Two upstream protocols, chosen with --proto (they cannot talk to each
 * other, and neither announces itself): v56, the default, upstream
 * cmtime of rdma-core 52-58 (Debian 13), a TCP sync and three runs
 * (cmtime_v56.h); v44, that of rdma-core 51 and older (Debian 12), the
 * CM only (cmtime_v44.h). What both share, the timed connections and the
 * client's steps, is cmtime_conn.h; the tables and JSON cmtime_report.h.
 *
 * Unlike upstream, the server ends once its runs are over (v44: once -c
 * connections came and went, or on --accept-timeout), every wait is
 * bounded by --timeout, and a rejected or failed connection fails the
 * run instead of passing silently. Steps run through the reactor
 * pipelined, not with upstream's barrier between steps: a step's total
 * is its span, from the first connection starting it to the last one
 * finishing it. "create id" includes issuing the address resolution; a
 * -b address is bound as part of it. The reactor creates and moves a QP
 * with the CM, so the init/rtr/rts rows of the v56 table stay 0: their
 * time is in "create qp" and "cm connect". */
#include <stdlib.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmacm/cmtime_conn.h"
#include "rdmacm/cmtime_report.h"
#include "rdmacm/cmtime_v44.h"
#include "rdmacm/cmtime_v56.h"
#include "rdmacm/cmtsync.h"
#include "rdmatest/util.h"

#define RT_CFG struct rt_cmt_cfg

static const struct rt_enum proto_choices[] = {
	{ "v56", RT_CMT_V56, "rdma-core 52-58's cmtime (Debian 13): TCP sync, three runs" },
	{ "v44", RT_CMT_V44, "rdma-core 51's and older (Debian 12): the CM only" },
	{ NULL, 0, NULL },
};

static const struct rt_opt cmtime_opts[] = {
	RT_OPT_ROW_SERVER_ADDR(RT_S(dst)),
	{ 'b', "bind", RT_OPT_ADDR, RT_S(src), 0, 0, NULL, "ADDR",
	  "local address to listen on (server) or to connect from (client)", NULL },
	RT_OPT_ROW_CONNECTIONS(RT_L(conns), "100",
			       "connections, all in flight at once; v56: both sides "
			       "need the same; v44: the server ends after N"),
	{ 'm', "mimic-qp-delay", RT_OPT_INT, RT_L(mimic_us), 0, 10000000, NULL, "US",
	  "v56: the main run has no QPs; each QP operation is a sleep of US "
	  "microseconds instead", NULL },
	{ 'n', "threads", RT_OPT_INT, RT_L(threads), 1, 1024, "1", "N",
	  "v56: upstream's work-queue threads; only 1 (one event loop drives "
	  "every connection)", NULL },
	RT_OPT_ROW_PORT(RT_L(port), "7471"),
	{ 'q', "base-qpn", RT_OPT_INT, RT_L(base_qpn), 1, 0xffffff, "1000", "QPN",
	  "v56: first fake QP number of the runs without QPs", NULL },
	{ 'r', "retries", RT_OPT_INT, RT_L(retries), 0, 7, "2", "N",
	  "v44 client: the QP's transport retry count (as upstream's -r); "
	  "v56: accepted, as upstream's address resolution retries, unused", NULL },
	{ 'S', "socket", RT_OPT_FLAG, RT_I(socket), 0, 0, NULL, NULL,
	  "v56: time plain TCP connections to the port instead (upstream's "
	  "socket baseline)", NULL },
	{ 't', "resolve-timeout", RT_OPT_INT, RT_L(resolve_ms), 1, 600000, "2000", "MS",
	  "client: address and route resolution timeout, each, in ms", NULL },
	/* not in upstream, so after its options (-s -b -c -m -n -p -q -r -S -t) */
	RT_OPT_ROW_ADDR_FORMAT(RT_I(format), "how to read addresses"),
	{ 0, "proto", RT_OPT_ENUM, RT_I(proto), 0, 0, "v56", "GEN",
	  "the peer's cmtime: v56 for rdma-core 52-58 (Debian 13), v44 for "
	  "rdma-core 51 and older (Debian 12); the two cannot talk to each other",
	  proto_choices },
	/* upstream's -t is the resolution timeout: the long name alone */
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP_CLIENT("its connections'")),
	{ 0 },
};

RT_APPLET(cmtime, "RDMA CM connection setup timing: N connections at once, step by step",
	  "[-s server_addr] [-b bind_addr] [-c connections] [-m mimic_us] "
	  "[-n 1] [-p port] [-q base_qpn] [-r retries] [-S] [-t timeout_ms] "
	  "[-f name|ip|ipv6|gid] [--proto v56|v44] [--tos TOS]",
	  "Without -s it is the server, with -s the client: it opens -c "
	  "connections at once, disconnects them and prints how long each step "
	  "took (total, per connection, slowest, fastest). By default it speaks "
	  "to upstream cmtime of rdma-core 52-58 (Debian 13): a TCP connection "
	  "on the same port keeps the two sides in step through a warm-up, the "
	  "main run and a run without QPs, each printing its table; both sides "
	  "need the same -c. --proto v44 speaks to rdma-core 51 and older "
	  "(Debian 12) instead: no TCP, one run, v44's table. A v56 client "
	  "finds no TCP listener at a v44 server; a v56 server rejects a v44 "
	  "client's connection request that comes before any TCP connection; "
	  "both say to use the other --proto. Unlike upstream, the server ends "
	  "after its runs, every wait is bounded by --timeout, and a failed "
	  "connection fails the run. --json adds per-step percentiles and "
	  "connections per second.");

static int run_test(struct rt_cmt_ctx *x, bool mimic)
{
	struct rt_cmt_cfg *cfg = x->cfg;
	struct rt_cm_params p = {
		.ps = RDMA_PS_TCP, .tos = rt_cm_tos_opt(&x->run->tabs[0], cfg->tos),
		.ack_timeout = -1,
		/* v56 connects and accepts with no retries at all */
		.accept_rnr_retry = x->v56 ? 0 : 7,
		.conn = { .responder_resources = 1, .initiator_depth = 1,
			  .retry_count = x->v56 ? 0 : (uint8_t)cfg->retries,
			  .rnr_retry_count = 0 },
		.timeout_ms = x->run->common.timeout_ms,
		.wait_server_ms = x->run->common.wait_server_ms,
		.resolve_ms = (int)cfg->resolve_ms,
	};
	struct rt_addr_query q = {
		.node = x->server ? cfg->src : cfg->dst, .port = cfg->port,
		.src = x->server ? NULL : cfg->src, .ps = RDMA_PS_TCP,
		.format = cfg->format, .passive = x->server,
		.what = x->server ? "-b" : "-s",
	};
	struct rdma_addrinfo *ai;
	int rc;

	if (cfg->socket)
		return rt_cmt_socket_run(x);
	x->cm = rt_cm_create(&p, &rt_cmt_hooks, x, &x->run->log, &x->run->err);
	if (!x->cm)
		return -1;
	rt_error_phase(&x->run->err, x->server ? "listen" : "resolve-addr");
	if (rt_addr_resolve(&q, &ai, &x->run->err))
		return -1;
	if (x->server)
		rc = rt_cm_listen(x->cm, ai->ai_src_addr) ? -1
		     : x->v56 ? rt_cmt_v56_run(x, ai, mimic) : rt_cmt_v44_serve(x);
	else if (x->v56)
		rc = rt_cmt_v56_run(x, ai, mimic);
	else
		rc = rt_cmt_v44_connect(x, ai);
	rdma_freeaddrinfo(ai);
	if (rc)
		return -1;
	if (!x->v56)
		rt_cmt_print_v44(x, x->server ? x->served : x->conns);
	rt_cmt_report_json(x, x->v56 || !x->server ? x->conns : x->served);
	return 0;
}

static int cmtime_main(struct rt_run *run, void *cfgp)
{
	struct rt_cmt_cfg *cfg = cfgp;
	const struct rt_opt_table *t = &run->tabs[0];
	struct rt_cmt_opts o = {
		.proto = (enum rt_cmt_proto)cfg->proto, .client = cfg->dst != NULL,
		.threads = cfg->threads,
		.threads_given = rt_opt_was_given(t, "threads"),
		.mimic_given = rt_opt_was_given(t, "mimic-qp-delay"),
		.qpn_given = rt_opt_was_given(t, "base-qpn"),
		.socket_given = cfg->socket != 0,
	};
	/* the histograms are large: on the heap, not the stack */
	struct rt_cmt_ctx *x;
	int rc;

	if (rt_cmt_opts_check(&o, &run->err))
		return -1;
	x = rt_xcalloc(1, sizeof(*x));
	x->cfg = cfg;
	x->run = run;
	x->server = !cfg->dst;
	x->v56 = cfg->proto == RT_CMT_V56;
	x->conns = (unsigned)cfg->conns;
	x->oob.fd = x->oob.lfd = -1;
	rc = run_test(x, o.mimic_given);
	rt_oob_close(&x->oob);
	rt_cm_destroy(x->cm);
	free(x);
	return rc;
}
