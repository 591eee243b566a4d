/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* perftest 4.5's out-of-band protocol (perftest_wire.h) against a real
 * ib_write_bw, for the lab. As a client, the client's side of the whole
 * ib_write_bw sequence without RDMA traffic (the server stays idle in a
 * write_bw run anyway): version, page size, cache line, MTU, Q key
 * records twice, the barriers, a BW report with figures of its own, the
 * close. The server prints that report's row, which proves every message
 * before it was read as perftest reads it. Without SERVER, the server's
 * side for one QP: a real RC QP in RTR and a buffer the client writes
 * into; it prints the client's report as perftest's row.
 * Test-only; not an applet.
 *
 * usage: pt-oob [-d DEV] [-q QPS] [-s SIZE] [-t SECS] [SERVER]
 * Exit codes as docs/exit-codes.md. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_report.h"
#include "rdmatest/providers.h"
#include "rdmatest/res.h"
#include "rdmatest/vconn.h"

#define MAX_QPS 16

struct ptc {
	const char *dev, *server;
	unsigned q;
	unsigned long long size;
	long long timeout_ms;
	struct rt_vdev d;
	struct rt_pt_chan oob; /* TCP */
	struct rt_res res;
	struct rt_error err;
};

static int sequence(struct ptc *c)
{
	struct rt_pt_sys s = { .cycle_buffer = RT_PT_CYCLE_BUFFER,
			       .cache_line = RT_PT_CACHE_LINE };
	struct rt_pt_key mine[MAX_QPS], theirs[MAX_QPS];
	struct rt_pt_bw_report r = { .size = c->size, .iters = 5000ull * c->q,
				     .bw_avg = 1234.5, .msg_rate = 0.25 }, peer;
	struct rt_vaddr local;

	if (rt_vdev_local(&c->d, "/sys", -1, (struct sockaddr *)&c->oob.tcp.local, &local,
			  &c->err))
		return -1;
	s.mtu = c->d.attr.active_mtu;
	memset(mine, 0, sizeof(mine));
	for (unsigned i = 0; i < c->q; i++) {
		mine[i].lid = local.lid;
		mine[i].out_reads = 1;
		mine[i].qpn = 0x100 + i; /* no QP: the server only moves its own */
		mine[i].psn = 0x1000 + i;
		mine[i].gid = local.gid;
	}
	printf("pt-oob: GID index %u\n", local.gid_index);
	if (rt_pt_handshake(&c->oob, true, &s, &c->err))
		return -1;
	printf("pt-oob: peer version %u.%02u, page %u, cache line %u, MTU %d\n",
	       s.peer_version / 100, s.peer_version % 100, s.cycle_buffer,
	       s.cache_line, 128 << s.mtu);
	if (rt_pt_keys_q(&c->oob, true, true, mine, theirs, c->q, &c->err) ||
	    rt_pt_keys_q(&c->oob, true, true, mine, theirs, c->q, &c->err) ||
	    rt_pt_barrier(&c->oob, true, true, &mine[0], &theirs[0], "start", &c->err) ||
	    rt_pt_barrier(&c->oob, true, true, &mine[0], &theirs[0], "end", &c->err) ||
	    rt_pt_bw_report_xchg(&c->oob, true, s.peer_version, &r, &peer, &c->err) ||
	    rt_pt_close(&c->oob, true, true, &mine[0], &theirs[0], &c->err))
		return -1;
	printf("pt-oob: server QP 0x%06x rkey 0x%08x vaddr 0x%016llx\n", theirs[0].qpn,
	       theirs[0].rkey, (unsigned long long)theirs[0].vaddr);
	return 0;
}

/* The server of a 1-QP ib_write_bw run: the client writes into the
 * second half of a 2 × max(size, page) buffer, as perftest lays it out. */
static int serve(struct ptc *c)
{
	struct rt_pt_sys s = { .cycle_buffer = RT_PT_CYCLE_BUFFER,
			       .cache_line = RT_PT_CACHE_LINE };
	struct rt_res_spec rs = { .qp_type = IBV_QPT_RC, .send_depth = 1,
				  .recv_depth = 1, .busy_poll = true };
	struct rt_vqp_spec q;
	struct rt_pt_key mine = { 0 }, theirs, again;
	struct rt_pt_bw_report r = { 0 }, peer;
	size_t half = c->size > RT_PT_CYCLE_BUFFER ? c->size : RT_PT_CYCLE_BUFFER;
	struct rt_buf *b;
	char row[160];

	rt_vqp_spec_defaults(&q);
	q.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
	if (rt_vdev_local(&c->d, "/sys", -1, (struct sockaddr *)&c->oob.tcp.local, &q.local,
			  &c->err) ||
	    rt_res_create_verbs(&c->res, c->d.ctx, c->d.pd, NULL, NULL, &rs, &c->err))
		return -1;
	b = rt_res_buf(&c->res, 2 * half, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		       &c->err);
	if (!b || rt_vqp_init(c->res.qp, &c->d, &q, &c->err))
		return -1;
	q.local_psn = 0x4242;
	mine = (struct rt_pt_key){ .lid = q.local.lid, .out_reads = 1,
				   .qpn = c->res.qp->qp_num, .psn = q.local_psn,
				   .rkey = b->mr->rkey, .vaddr = (uintptr_t)(b->addr + half),
				   .gid = q.local.gid };
	s.mtu = c->d.attr.active_mtu;
	if (rt_pt_handshake(&c->oob, false, &s, &c->err) ||
	    rt_pt_keys(&c->oob, false, true, &mine, &theirs, &c->err))
		return -1;
	q.remote.lid = theirs.lid;
	q.remote.grh = true;
	q.remote.gid = theirs.gid;
	q.remote_qpn = theirs.qpn;
	q.remote_psn = theirs.psn;
	q.mtu = s.mtu;
	if (rt_vqp_connect(c->res.qp, &c->d, &q, &c->err) ||
	    rt_pt_keys(&c->oob, false, true, &mine, &again, &c->err) ||
	    rt_pt_barrier(&c->oob, false, true, &mine, &theirs, "start", &c->err) ||
	    rt_pt_barrier(&c->oob, false, true, &mine, &theirs, "end", &c->err) ||
	    rt_pt_bw_report_xchg(&c->oob, false, s.peer_version, &r, &peer, &c->err) ||
	    rt_pt_bw_report_check(&peer, c->size, c->oob.tcp.peer_name, &c->err))
		return -1;
	rt_pt_bw_row(row, sizeof(row), &peer, false);
	printf("%s\n%s\n", rt_pt_bw_header(false), row);
	return rt_pt_close(&c->oob, false, true, &mine, &theirs, &c->err);
}

int main(int argc, char **argv)
{
	struct ptc c = { .q = 1, .size = 65536, .timeout_ms = 10000 };
	int o, rc;

	while ((o = getopt(argc, argv, "d:q:s:t:")) != -1) {
		if (o == 'd')
			c.dev = optarg;
		else if (o == 'q')
			c.q = (unsigned)atoi(optarg);
		else if (o == 's')
			c.size = strtoull(optarg, NULL, 0);
		else if (o == 't')
			c.timeout_ms = atoll(optarg) * 1000;
		else
			return RT_EXIT_USAGE;
	}
	if (argc - optind > 1 || c.q < 1 || c.q > MAX_QPS || c.timeout_ms <= 0 ||
	    (optind == argc && c.q != 1))
		return fprintf(stderr, "usage: pt-oob [-d DEV] [-q QPS] [-s SIZE] "
			       "[-t SECS] [SERVER]\n"), RT_EXIT_USAGE;
	c.server = optind < argc ? argv[optind] : NULL;
	rt_static_providers();
	rt_oob_init(&c.oob.tcp, c.timeout_ms);
	if (c.server)
		rc = rt_vdev_open(&c.d, c.dev, 1, &c.err) ||
		     rt_oob_connect(&c.oob.tcp, c.server, RT_PT_PORT, 0, &c.err) || sequence(&c);
	else
		rc = rt_vdev_open(&c.d, c.dev, 1, &c.err) ||
		     rt_oob_listen(&c.oob.tcp, NULL, RT_PT_PORT, &c.err) ||
		     rt_oob_accept(&c.oob.tcp, &c.err) || serve(&c);
	if (!rc)
		printf("pt-oob: pass\n");
	else
		fprintf(stderr, "pt-oob: %s\n", c.err.reason);
	rt_res_destroy(&c.res);
	rt_oob_close(&c.oob.tcp);
	rt_vdev_close(&c.d);
	return rc ? c.err.exit_code : 0;
}
