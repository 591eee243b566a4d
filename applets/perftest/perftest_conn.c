/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The connection of an ib_* applet as perftest 4.5 makes it (perftest's
 * perftest_communication.c, establish_connection and ctx_hand_shake). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/fdwait.h"
#include "perftest/perftest_cm.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_name.h"
#include "perftest/perftest_conn.h"
#include "perftest/perftest_rate.h"
#include "perftest/perftest_ud.h"
#include "rdmatest/util.h"

/* ---- out-of-band channel ---------------------------------------------- */

static void banner(const struct rt_pt_conn *c)
{
	if (c->p->opt.output != RT_PT_OUT_ALL)
		return;
	rt_say(&c->run->log, "\n************************************\n"
	       "* Waiting for client to connect... *\n"
	       "************************************");
	rt_log_flush(&c->run->log);
}

/* -R, -z: perftest's exchange over an RDMA CM connection on -p. A client
 * retries a refused connect as over TCP. */
static int open_cm_chan(struct rt_pt_conn *c)
{
	struct rt_cmchan_spec s = {
		.server = c->chan_client ? c->p->opt.server : NULL, .port = c->p->opt.port,
		.source = c->p->opt.res.source,
		.msg_max = RT_PT_KEY_BIN_LEN, .retry_count = c->p->opt.retry_count,
		.ack_timeout = (int)c->p->opt.qp_timeout,
	};

	if (!c->chan_client)
		banner(c);
	c->ch.cm = rt_cmchan_open(c->run, &s);
	return c->ch.cm ? 0 : -1;
}

/* The client retries a refused connect (the server is not up yet) for
 * --wait-server, or --timeout when that is 0: perftest gives up at once. */
static int open_chan(struct rt_pt_conn *c)
{
	const struct rt_common *k = &c->run->common;
	struct rt_error *err = &c->run->err;
	struct rt_oob *o = &c->ch.tcp;

	rt_oob_init(o, k->timeout_ms);
	rt_error_phase(err, "connect");
	if (c->p->opt.res.source && rt_pt_res_source(c->p, err))
		return -1;
	if (c->p->comm_cm)
		return open_cm_chan(c);
	if (c->p->opt.res.source)
		o->source = (const struct sockaddr *)&c->p->res.source_addr;
	if (c->chan_client)
		return rt_oob_connect(o, c->p->opt.server, c->p->opt.port,
				      k->wait_server_ms ? k->wait_server_ms : k->timeout_ms,
				      err);
	if (rt_oob_listen(o, c->p->opt.res.source, c->p->opt.port, err))
		return -1;
	banner(c);
	o->timeout_ms = rt_run_accept_bound(c->run);
	if (rt_oob_accept(o, err))
		return -1;
	o->timeout_ms = k->timeout_ms;
	return 0;
}

/* The two ends of the channel: the local one is the address the peer
 * reached (where the GID is chosen and -R's test QPs listen). */
static const struct sockaddr *chan_local(const struct rt_pt_conn *c)
{
	return c->ch.cm ? rt_cmchan_local(c->ch.cm) :
	       (const struct sockaddr *)&c->ch.tcp.local;
}

static const struct sockaddr *chan_remote(const struct rt_pt_conn *c)
{
	return c->ch.cm ? rt_cmchan_remote(c->ch.cm) :
	       (const struct sockaddr *)&c->ch.tcp.peer;
}

/* ---- device and path ---------------------------------------------------- */

static unsigned access_of(enum rt_pt_verb v)
{
	switch (v) {
	case RT_PT_SEND:
		return IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	case RT_PT_WRITE:
		return IBV_ACCESS_REMOTE_WRITE;
	case RT_PT_READ:
		return IBV_ACCESS_REMOTE_READ;
	default:
		return IBV_ACCESS_REMOTE_ATOMIC;
	}
}

/* -m above the active MTU is clamped, as perftest does (with its words). */
static enum ibv_mtu start_mtu(struct rt_pt_conn *c)
{
	enum ibv_mtu active = c->d.attr.active_mtu;

	if (!c->p->opt.mtu)
		return active;
	if ((enum ibv_mtu)c->p->opt.mtu > active) {
		rt_say(&c->run->log, "Requested mtu is higher than active mtu \n"
		       "Changing to active mtu - %d", rt_mtu_bytes(active));
		return active;
	}
	return c->p->opt.mtu;
}

static int out_reads(struct rt_pt_conn *c)
{
	struct ibv_device_attr a;

	c->out_reads = 1;
	if (c->p->t.verb != RT_PT_READ && c->p->t.verb != RT_PT_ATOMIC)
		return 0;
	if (ibv_query_device(c->d.ctx, &a))
		return rt_fail_errno(&c->run->err, RT_EXIT_ENV, errno,
				     "ibv_query_device on %s", c->d.name);
	/* both roles need it: the server's device executes the atomics */
	if (c->p->t.verb == RT_PT_ATOMIC && a.atomic_cap == IBV_ATOMIC_NONE)
		return rt_fail(&c->run->err, RT_EXIT_ENV, "%s has no atomic operations "
			       "(atomic_cap IBV_ATOMIC_NONE)", c->d.name);
	c->out_reads = (unsigned)RT_MAX(a.max_qp_rd_atom, 1);
	if (c->p->opt.outs && c->p->opt.outs < c->out_reads)
		c->out_reads = c->p->opt.outs;
	return 0;
}

static int path(struct rt_pt_conn *c)
{
	const struct rt_pt_params *p = c->p;
	struct rt_vqp_spec *s = &c->spec;

	rt_vqp_spec_defaults(s);
	s->type = rt_pt_qp_type(p->opt.ud.conn);
	s->qkey = RT_PT_QKEY;
	s->access = access_of(p->t.verb);
	s->hop_limit = 255; /* perftest's GRH */
	s->timeout = (uint8_t)p->opt.qp_timeout;
	s->sl = (uint8_t)p->opt.sl;
	s->traffic_class = p->opt.tclass;
	if (rt_vdev_local(&c->d, "/sys", (int)p->opt.gid_index, chan_local(c),
			  &s->local, &c->run->err))
		return -1;
	c->gid = s->local.grh;
	/* perftest sets it "if GRH is in use": here the class would go nowhere */
	if (!c->gid && p->res.n_flow_labels)
		return rt_fail(&c->run->err, RT_EXIT_USAGE, "--flow_label: %s port %lld "
			       "uses no GRH (IB without -x)", c->d.name, p->opt.ib_port);
	if (!c->gid && p->opt.tclass)
		return rt_fail(&c->run->err, RT_EXIT_USAGE, "--tclass %lld: %s port %lld "
			       "uses no GRH (IB without -x)", p->opt.tclass, c->d.name,
			       p->opt.ib_port);
	c->gid_auto = c->gid && p->opt.gid_index < 0;
	return out_reads(c);
}

static int handshake(struct rt_pt_conn *c)
{
	long page = sysconf(_SC_PAGESIZE);

	c->sys = (struct rt_pt_sys){
		.cycle_buffer = page > 0 ? (uint32_t)page : RT_PT_CYCLE_BUFFER,
		.cache_line = RT_PT_CACHE_LINE, .mtu = start_mtu(c),
	};
	/* --dont_xchg_versions: no message at all, each side its own values */
	if (!c->p->opt.dont_xchg &&
	    rt_pt_handshake(&c->ch, c->chan_client, &c->sys, &c->run->err))
		return -1;
	c->spec.mtu = c->sys.mtu;
	return 0;
}

/* ---- verbs resources ---------------------------------------------------- */

/* Bytes of memory the host has (sysconf), or all of the range when it
 * does not say. */
static uint64_t host_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

/* --payload_file_path: the pattern over what each QP sends (read: what
 * the peer reads), as perftest fills its buffer with it. */
/* --use-null-mr: the sending side's null MR. */
static int null_mr(struct rt_pt_conn *c)
{
	if (!c->p->opt.res.null_mr || !c->client)
		return 0;
	c->null_mr = ibv_alloc_null_mr(c->d.pd);
	if (c->null_mr)
		return 0;
	return rt_fail_errno(&c->run->err, errno == EOPNOTSUPP || errno == ENOSYS ?
			     RT_EXIT_ENV : RT_EXIT_FAIL, errno, "--use-null-mr: "
			     "ibv_alloc_null_mr on %s", c->d.name);
}

static int payload(struct rt_pt_conn *c)
{
	const struct rt_pt_params *p = c->p;

	if (!p->opt.payload.file)
		return 0;
	if (rt_pt_payload_load(p->opt.payload.file, (size_t)p->opt.size, &c->payload,
			       &c->payload_len, &c->run->err))
		return -1;
	for (unsigned i = 0; i < p->opt.qps; i++) {
		uint8_t *at = p->t.verb == RT_PT_READ ? rt_pt_conn_target(c, i) :
			      rt_pt_conn_local(c, i);
		uint8_t *host = rt_pt_mem_view(c, at, (size_t)c->slot, false);

		rt_pt_payload_fill(host, (size_t)c->slot, c->payload, c->payload_len);
		if (rt_pt_mem_push(c, at, (size_t)c->slot))
			return -1;
	}
	return 0;
}

static int buffer(struct rt_pt_conn *c)
{
	struct rt_error *err = &c->run->err;
	/* relaxed ordering as perftest asks for it unless
	 * --disable_pcie_relaxed (an optional flag: a device without it
	 * ignores it) */
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	if (!c->p->opt.no_relaxed)
		access |= IBV_ACCESS_RELAXED_ORDERING;
	if (c->p->t.verb == RT_PT_ATOMIC)
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	c->slot = rt_pt_slot(c->p->opt.size, c->sys.cycle_buffer, c->sys.cache_line);
	/* UD: a cache line more per slot for the GRH in front of a receive */
	if (rt_pt_ud_grh(c))
		c->slot += c->sys.cache_line;
	c->buf_size = c->slot * 2 * c->p->opt.qps;
	if (c->buf_size > RT_PT_MAX_BUF)
		return rt_fail(err, RT_EXIT_FAIL, "%s: page %u and cache line %u make a "
			       "%llu-byte buffer, above rdmatest's bound of %llu",
			       rt_pt_peer(&c->ch), c->sys.cycle_buffer, c->sys.cache_line,
			       (unsigned long long)c->buf_size, RT_PT_MAX_BUF);
	if (c->buf_size > host_memory() / 2)
		return rt_fail(err, RT_EXIT_ENV, "a buffer of %llu bytes (-q %lld, messages "
			       "of %llu bytes) is above half of this host's %llu bytes of "
			       "memory", (unsigned long long)c->buf_size, c->p->opt.qps,
			       (unsigned long long)c->p->opt.size,
			       (unsigned long long)host_memory());
	if (rt_pt_mem_alloc(c, access))
		return -1;
	c->buf = c->mem.addr;
	c->mr = c->mem.mrs[0];
	return null_mr(c) || payload(c) ? -1 : 0;
}

/* perftest's CQs (-e: each on a channel of its own) and Q RC QPs. */
static int queues(struct rt_pt_conn *c)
{
	const struct rt_pt_params *p = c->p;
	struct rt_error *err = &c->run->err;
	uint32_t rdepth = rt_pt_receives(p) ? p->opt.rx_depth : 1;
	int vector = rt_pt_comp_vector(p, c->d.ctx, err);
	struct rt_res_spec rs = {
		.qp_type = rt_pt_qp_type(p->opt.ud.conn), .send_depth = p->opt.tx_depth,
		.recv_depth = rdepth,
		.cq_depth = p->opt.tx_depth * p->opt.qps, .qps = p->opt.qps,
		.recv_cq_depth = rt_pt_receives(p) ? rdepth * p->opt.qps : 1,
		.max_inline = p->opt.inline_size, .busy_poll = !p->opt.events,
		.srq_depth = rt_pt_res_srq(p) ? RT_MAX(p->opt.rx_depth, p->opt.qps) : 0,
		.refusal_exit = RT_EXIT_ENV,
		.own_channels = p->opt.events ? RT_RES_CHANNEL | RT_RES_RECV_CHANNEL : 0u,
		.comp_vector = vector,
	};

	if (vector < 0 || (p->opt.res.no_lock &&
			   rt_pt_no_lock_domains(c->d.ctx, c->d.pd, c->d.name, &c->td,
						 &c->pad, err)) ||
	    rt_res_create_verbs(&c->res, c->d.ctx, c->pad ? c->pad : c->d.pd, NULL,
				NULL, &rs, err))
		return -1;
	c->scq = c->res.cq;
	c->rcq = c->res.rcq;
	c->qp = c->res.qps;
	c->max_inline = c->res.cap.max_inline_data;
	return rt_cqwait_init(&c->sw, c->scq, c->res.ch, c->run->common.timeout_ms, err) ||
	       rt_cqwait_init(&c->rw, c->rcq, c->res.rch, c->run->common.timeout_ms, err)
	       ? -1 : 0;
}

/* -O: QP i's port and its LID and GID (perftest_dual.h). */
static int qp_init(struct rt_pt_conn *c, unsigned i)
{
	const struct rt_vaddr *local = rt_pt_dual_local(c, i);

	c->mine[i] = (struct rt_pt_key){
		.lid = local->lid, .out_reads = (uint16_t)c->out_reads,
		.qpn = c->qp[i]->qp_num, .psn = (uint32_t)lrand48() & 0xffffff,
		.rkey = rt_pt_conn_mr(c, i)->rkey,
		.vaddr = (uintptr_t)rt_pt_conn_target(c, i),
	};
	if (c->gid)
		c->mine[i].gid = local->gid;
	return rt_vqp_init(c->qp[i], rt_pt_dual_dev(c, i), &c->spec, &c->run->err);
}

static int resources(struct rt_pt_conn *c)
{
	unsigned q = c->p->opt.qps;

	c->mine = rt_xcalloc(q, sizeof(*c->mine));
	c->theirs = rt_xcalloc(q, sizeof(*c->theirs));
	if (queues(c) || buffer(c))
		return -1;
	srand48((long)getpid() ^ (long)time(NULL));
	for (unsigned i = 0; i < q; i++)
		if (qp_init(c, i))
			return -1;
	return 0;
}

/* -R: the test QPs' CM port is -p on the address the channel runs over,
 * so the CM takes the same path (and the server listens only on the
 * address its client reached). */
static int cm_connect(struct rt_pt_conn *c)
{
	struct rt_pt_cm_spec s = {
		.client = c->client, .dev = c->d.name, .ib_port = c->p->opt.ib_port,
		.qp = c->qp, .n = c->p->opt.qps, .out_reads = c->out_reads,
		.ack_timeout = (uint8_t)c->p->opt.qp_timeout, .mtu = c->sys.mtu,
		.tos = (int)c->p->opt.tos, .retry_count = c->p->opt.retry_count,
		.timeout_ms = c->run->common.timeout_ms, .peer = rt_pt_peer(&c->ch),
	};
	const struct sockaddr *at = c->client ? chan_remote(c) : chan_local(c);
	uint32_t *psn;
	int rc;

	memcpy(&s.addr, at, rt_addr_len(at));
	rt_addr_set_port((struct sockaddr *)&s.addr, c->p->opt.port);
	/* --bind_source_ip: the test QPs leave from the channel's address
	 * (any port: the channel holds its own) */
	if (c->client && c->p->opt.res.source) {
		memcpy(&s.src, chan_local(c), rt_addr_len(chan_local(c)));
		rt_addr_set_port((struct sockaddr *)&s.src, 0);
	}
	if (!c->client && !(c->cm = rt_pt_cm_create(&s, &c->run->err)))
		return -1;
	if (rt_pt_conn_barrier(c, "rdma_cm"))
		return -1;
	if (c->client && !(c->cm = rt_pt_cm_create(&s, &c->run->err)))
		return -1;
	rt_error_phase(&c->run->err, "connect");
	psn = rt_xcalloc(c->p->opt.qps, sizeof(*psn));
	rc = rt_pt_cm_connect(c->cm, psn, &c->run->err);
	for (unsigned i = 0; !rc && i < c->p->opt.qps; i++)
		c->mine[i].psn = psn[i];
	free(psn);
	return rc ? rc : rt_pt_conn_barrier(c, "rdma_cm");
}

int rt_pt_conn_open(struct rt_pt_conn *c, struct rt_run *run,
		    struct rt_pt_params *p)
{
	memset(c, 0, sizeof(*c));
	c->run = run;
	c->p = p;
	c->client = p->client;
	c->chan_client = p->chan_client;
	c->ch.tcp.fd = c->ch.tcp.lfd = -1;
	rt_pt_test_name(c->name, sizeof(c->name), p);
	rt_error_phase(&run->err, "device");
	if (rt_vdev_open(&c->d, p->opt.dev, (int)p->opt.ib_port, &run->err) ||
	    rt_pt_res_device(c) || rt_pt_dual_device(c) || rt_pt_gpu_open(c) ||
	    open_chan(c) || path(c) ||
	    rt_pt_res_path(c) || rt_pt_dual_path(c) || handshake(c))
		return -1;
	rt_pt_ud_clip(c, p);
	rt_error_phase(&run->err, "setup");
	if (resources(c))
		return -1;
	return p->opt.rdma_cm ? cm_connect(c) : 0;
}

/* ---- the sequence's steps ------------------------------------------------- */

static bool same_key(const struct rt_pt_key *a, const struct rt_pt_key *b)
{
	return a->qpn == b->qpn && a->psn == b->psn && a->rkey == b->rkey &&
	       a->vaddr == b->vaddr;
}

static int take_first(struct rt_pt_conn *c)
{
	for (unsigned i = 0; i < c->p->opt.qps; i++) {
		const struct rt_pt_key *k = &c->theirs[i];

		if (!c->gid && !k->lid)
			return rt_fail(&c->run->err, RT_EXIT_FAIL, "%s sent LID 0 and this "
				       "side uses no GID: give both sides -x",
				       rt_pt_peer(&c->ch));
		if (c->p->t.verb != RT_PT_SEND && !k->rkey)
			return rt_fail(&c->run->err, RT_EXIT_FAIL, "%s sent QP 0x%06x's "
				       "record without an rkey", rt_pt_peer(&c->ch), k->qpn);
	}
	return 0;
}

int rt_pt_conn_keys(struct rt_pt_conn *c, const char *step)
{
	bool first = c->theirs[0].qpn == 0;
	struct rt_pt_key k;

	rt_error_phase(&c->run->err, "exchange");
	for (unsigned i = 0; i < c->p->opt.qps; i++) {
		if (rt_pt_keys(&c->ch, c->chan_client, c->gid, &c->mine[i], &k, &c->run->err))
			return -1;
		if (!first && !same_key(&k, &c->theirs[i]))
			return rt_fail(&c->run->err, RT_EXIT_FAIL, "%s: at the %s step the "
				       "peer's record %u is QP 0x%06x, not 0x%06x as before: "
				       "it runs a different test or -q", rt_pt_peer(&c->ch),
				       step, i, k.qpn, c->theirs[i].qpn);
		c->theirs[i] = k;
	}
	return first ? take_first(c) : 0;
}

int rt_pt_conn_barrier(struct rt_pt_conn *c, const char *step)
{
	rt_error_phase(&c->run->err, "exchange");
	if (c->theirs[0].qpn)
		return rt_pt_barrier(&c->ch, c->chan_client, c->gid, &c->mine[0],
				     &c->theirs[0], step, &c->run->err);
	return rt_pt_keys(&c->ch, c->chan_client, c->gid, &c->mine[0],
			  &(struct rt_pt_key){ 0 }, &c->run->err);
}

int rt_pt_conn_up(struct rt_pt_conn *c, bool rts)
{
	struct rt_vqp_spec s = c->spec;

	if (c->cm)
		return rt_pt_rate_up(c, rts) || rt_pt_ud_up(c, rts) ? -1 : 0;
	rt_error_phase(&c->run->err, "connect");
	for (unsigned i = 0; i < c->p->opt.qps; i++) {
		const struct rt_pt_key *k = &c->theirs[i];

		s.remote.lid = c->p->opt.res.dlid ? c->p->opt.res.dlid : k->lid;
		s.remote.gid = k->gid;
		s.remote_qpn = k->qpn;
		s.remote_psn = k->psn;
		s.local_psn = c->mine[i].psn;
		s.max_dest_rd_atomic = (uint8_t)c->out_reads;
		s.max_rd_atomic = (uint8_t)RT_MAX(k->out_reads, 1);
		s.flow_label = rt_pt_flow_label(c->p, i);
		s.local = *rt_pt_dual_local(c, i);
		if (rt_vqp_modify(c->qp[i], rt_pt_dual_dev(c, i), &s, IBV_QPS_RTR,
				  &c->run->err) ||
		    (rts && rt_vqp_modify(c->qp[i], rt_pt_dual_dev(c, i), &s, IBV_QPS_RTS,
					  &c->run->err)))
			return -1;
	}
	return rt_pt_rate_up(c, rts) || rt_pt_ud_up(c, rts) ? -1 : 0;
}

static void keepalive(int fd, long long timeout_ms)
{
	int on = 1, idle = (int)RT_MAX(timeout_ms / 2000, 1), intvl = 1;
	int cnt = (int)RT_MAX(timeout_ms / 2000, 1);

	/* best effort: without it the wait still ends at the peer's close */
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

int rt_pt_conn_await_peer(struct rt_pt_conn *c, long long max_ms,
			  const char *what)
{
	int n;

	if (c->ch.cm)
		return rt_cmchan_await(c->ch.cm, max_ms, what);
	keepalive(c->ch.tcp.fd, c->run->common.timeout_ms);
	rt_log_flush(&c->run->log);
	n = rt_fdwait(c->ch.tcp.fd, POLLIN, rt_deadline_after_ms(max_ms));
	/* SIGINT/SIGTERM: the run's verdict says "interrupted" (run.c) */
	if (n == RT_FDWAIT_INTERRUPTED)
		return -1;
	if (n < 0)
		return rt_fail_errno(&c->run->err, RT_EXIT_FAIL, errno, "poll");
	if (n == RT_FDWAIT_TIMEOUT)
		return rt_fail(&c->run->err, RT_EXIT_TIMEOUT, "%s: no %s within %lld s",
			       rt_pt_peer(&c->ch), what, max_ms / 1000);
	return 0;
}

int rt_pt_conn_close(struct rt_pt_conn *c)
{
	return rt_pt_close(&c->ch, c->chan_client, c->gid, &c->mine[0], &c->theirs[0],
			   &c->run->err);
}

void rt_pt_conn_destroy(struct rt_pt_conn *c)
{
	rt_pt_cm_destroy(c->cm);
	c->cm = NULL;
	rt_pt_ud_destroy(c);
	if (c->scq)
		rt_cqwait_done(&c->sw);
	if (c->rcq)
		rt_cqwait_done(&c->rw);
	rt_res_destroy(&c->res);
	if (c->pad)
		ibv_dealloc_pd(c->pad);
	if (c->td)
		ibv_dealloc_td(c->td);
	c->pad = NULL;
	c->td = NULL;
	if (c->null_mr)
		ibv_dereg_mr(c->null_mr);
	c->null_mr = NULL;
	rt_pt_mem_free(c);
	free(c->mine);
	free(c->theirs);
	rt_cmchan_close(c->ch.cm);
	c->ch.cm = NULL;
	rt_oob_close(&c->ch.tcp);
	rt_vdev_close(&c->d);
	c->qp = NULL;
	c->scq = c->rcq = NULL;
	c->mine = c->theirs = NULL;
	c->mr = NULL;
	c->buf = NULL;
	free(c->payload);
	c->payload = NULL;
}
