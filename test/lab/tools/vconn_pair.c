/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Two RC QPs connected through the verbs-only path (vconn.h, oob.h),
 * without the RDMA CM, for the lab: one verified message each way.
 * Test-only; not an applet. Its record (28 bytes, big-endian: LID 2,
 * GRH flag 1, pad 1, QPN 4, PSN 4, GID 16) is its own, as every applet's
 * will be.
 *
 * usage: vconn-pair [-d DEV] [-i PORT] [-g GIDX] [-p TCPPORT] [-t SECS]
 *                   [-w SECS] [SERVER]
 * Without SERVER it serves one client. Exit codes as docs/exit-codes.md. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "rdmatest/oob.h"
#include "rdmatest/providers.h"
#include "rdmatest/res.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"
#include "rdmatest/xfer.h"

#define REC_LEN 28
#define MSG_LEN 64

struct pair {
	const char *dev, *server;
	int port, gid_index;
	unsigned tcp_port;
	long long timeout_ms, wait_ms;
	struct rt_vdev d;
	struct rt_oob oob;
	struct rt_res res;
	struct rt_buf *sbuf, *rbuf;
	struct rt_vqp_spec spec;
	struct rt_error err;
	unsigned seen; /* 1 << kind of every good completion so far */
};

static void put_rec(uint8_t *p, const struct rt_vaddr *a, uint32_t qpn, uint32_t psn)
{
	uint16_t lid = htons(a->lid);
	uint32_t q = htonl(qpn), s = htonl(psn);

	memcpy(p, &lid, 2);
	p[2] = a->grh;
	p[3] = 0;
	memcpy(p + 4, &q, 4);
	memcpy(p + 8, &s, 4);
	memcpy(p + 12, a->gid.raw, 16);
}

static int get_rec(const uint8_t *p, struct rt_vqp_spec *s, struct rt_error *err)
{
	uint16_t lid;
	uint32_t q, psn;

	memcpy(&lid, p, 2);
	memcpy(&q, p + 4, 4);
	memcpy(&psn, p + 8, 4);
	if (p[2] > 1 || (bool)p[2] != s->local.grh)
		return rt_fail(err, RT_EXIT_FAIL, "peer record: GRH flag %u, ours %d "
			       "(both sides must use a GID, or neither)", p[2], s->local.grh);
	s->remote.lid = ntohs(lid);
	s->remote_qpn = ntohl(q) & 0xffffff;
	s->remote_psn = ntohl(psn) & 0xffffff;
	memcpy(s->remote.gid.raw, p + 12, 16);
	return 0;
}

/* Waits for the completion of the given kind within the timeout; one of
 * another kind that comes first is remembered, not lost. */
static int await(struct pair *p, enum rt_wr_kind kind)
{
	uint64_t deadline = rt_deadline_after_ms(p->timeout_ms);
	struct timespec ms = { 0, 1000000 };
	struct ibv_wc wc;

	while (!(p->seen & (1u << kind))) {
		int n = ibv_poll_cq(p->res.cq, 1, &wc);

		if (n < 0)
			return rt_fail(&p->err, RT_EXIT_FAIL, "ibv_poll_cq failed");
		if (n && wc.status != IBV_WC_SUCCESS)
			return rt_wc_fail(&wc, p->oob.peer_name, &p->err);
		if (n && RT_WR_KIND(wc.wr_id) == RT_WR_RECV && wc.byte_len != MSG_LEN)
			return rt_fail(&p->err, RT_EXIT_FAIL, "received %u bytes, want %d",
				       wc.byte_len, MSG_LEN);
		if (n)
			p->seen |= 1u << RT_WR_KIND(wc.wr_id);
		if (!n && rt_ms_until(deadline) == 0)
			return rt_fail(&p->err, RT_EXIT_TIMEOUT, "no %s completion within %lld ms",
				       rt_wr_kind_str(kind), p->timeout_ms);
		if (!n)
			nanosleep(&ms, NULL);
	}
	return 0;
}

static void fill(uint8_t *buf, bool from_client, uint32_t psn)
{
	snprintf((char *)buf, MSG_LEN, "vconn-pair %s psn %06x",
		 from_client ? "client->server" : "server->client", psn);
	for (size_t i = strlen((char *)buf) + 1; i < MSG_LEN; i++)
		buf[i] = (uint8_t)(i * 7 + psn);
}

static int check(struct pair *p, bool from_client)
{
	uint8_t want[MSG_LEN];

	fill(want, from_client, p->spec.remote_psn);
	if (memcmp(want, p->rbuf->addr, MSG_LEN))
		return rt_fail(&p->err, RT_EXIT_FAIL, "message from the %s differs",
			       from_client ? "client" : "server");
	printf("vconn-pair: verified \"%s\"\n", (char *)p->rbuf->addr);
	return 0;
}

static int setup(struct pair *p)
{
	struct rt_res_spec rs = { .qp_type = IBV_QPT_RC, .send_depth = 1,
				  .recv_depth = 1, .busy_poll = true };

	if (rt_res_create_verbs(&p->res, p->d.ctx, p->d.pd, NULL, NULL, &rs, &p->err))
		return -1;
	p->sbuf = rt_res_buf(&p->res, MSG_LEN, 0, &p->err);
	p->rbuf = p->sbuf ? rt_res_buf(&p->res, MSG_LEN, IBV_ACCESS_LOCAL_WRITE, &p->err) : NULL;
	if (!p->rbuf || rt_vqp_init(p->res.qp, &p->d, &p->spec, &p->err))
		return -1;
	return rt_post_recv(&p->res, p->rbuf, 0, MSG_LEN, 1, &p->err);
}

static int exchange(struct pair *p)
{
	uint8_t mine[REC_LEN], theirs[REC_LEN];
	char gid[64];
	bool client = p->server != NULL;

	if (rt_vdev_local(&p->d, "/sys", p->gid_index, (struct sockaddr *)&p->oob.local,
			  &p->spec.local, &p->err) || setup(p))
		return -1;
	srand48(time(NULL) ^ getpid());
	p->spec.local_psn = (uint32_t)lrand48() & 0xffffff;
	put_rec(mine, &p->spec.local, p->res.qp->qp_num, p->spec.local_psn);
	inet_ntop(AF_INET6, p->spec.local.gid.raw, gid, sizeof(gid));
	printf("vconn-pair: %s on %s port %u (%s): LID 0x%04x QPN 0x%06x GID %s index %u\n",
	       client ? "client" : "server", p->d.name, p->d.port,
	       rt_link_layer_name(p->d.attr.link_layer), p->spec.local.lid,
	       p->res.qp->qp_num, p->spec.local.grh ? gid : "none", p->spec.local.gid_index);
	if (client)
		return rt_oob_write(&p->oob, mine, REC_LEN, &p->err) ||
		       rt_oob_read(&p->oob, theirs, REC_LEN, &p->err) ||
		       get_rec(theirs, &p->spec, &p->err) ||
		       rt_vqp_connect(p->res.qp, &p->d, &p->spec, &p->err) ? -1 : 0;
	/* the server is ready to receive before it answers */
	return rt_oob_read(&p->oob, theirs, REC_LEN, &p->err) ||
	       get_rec(theirs, &p->spec, &p->err) ||
	       rt_vqp_connect(p->res.qp, &p->d, &p->spec, &p->err) ||
	       rt_oob_write(&p->oob, mine, REC_LEN, &p->err) ? -1 : 0;
}

static int talk(struct pair *p)
{
	bool client = p->server != NULL;

	if (client) {
		fill(p->sbuf->addr, true, p->spec.local_psn);
		return rt_post_send(&p->res, p->sbuf, 0, MSG_LEN, 2, true, &p->err) ||
		       await(p, RT_WR_SEND) || await(p, RT_WR_RECV) || check(p, false) ? -1 : 0;
	}
	if (await(p, RT_WR_RECV) || check(p, true))
		return -1;
	fill(p->sbuf->addr, false, p->spec.local_psn);
	return rt_post_send(&p->res, p->sbuf, 0, MSG_LEN, 2, true, &p->err) ||
	       await(p, RT_WR_SEND) ? -1 : 0;
}

static int run(struct pair *p)
{
	rt_oob_init(&p->oob, p->timeout_ms);
	rt_vqp_spec_defaults(&p->spec);
	if (rt_vdev_open(&p->d, p->dev, p->port, &p->err))
		return -1;
	if (p->server ? rt_oob_connect(&p->oob, p->server, p->tcp_port, p->wait_ms, &p->err)
		      : rt_oob_listen(&p->oob, NULL, p->tcp_port, &p->err) ||
			rt_oob_accept(&p->oob, &p->err))
		return -1;
	return exchange(p) || talk(p) ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: vconn-pair [-d DEV] [-i PORT] [-g GIDX] [-p TCPPORT] "
		"[-t SECS] [-w SECS] [SERVER]\n");
	exit(RT_EXIT_USAGE);
}

int main(int argc, char **argv)
{
	struct pair p = { .gid_index = -1, .tcp_port = 18515, .timeout_ms = 10000 };
	int o, rc;

	while ((o = getopt(argc, argv, "d:i:g:p:t:w:")) != -1) {
		if (o == 'd')
			p.dev = optarg;
		else if (o == 'i')
			p.port = atoi(optarg);
		else if (o == 'g')
			p.gid_index = atoi(optarg);
		else if (o == 'p')
			p.tcp_port = (unsigned)atoi(optarg);
		else if (o == 't')
			p.timeout_ms = atoll(optarg) * 1000;
		else if (o == 'w')
			p.wait_ms = atoll(optarg) * 1000;
		else
			usage();
	}
	if (argc - optind > 1 || p.timeout_ms <= 0)
		usage();
	p.server = optind < argc ? argv[optind] : NULL;
	rt_static_providers();
	rc = run(&p);
	if (!rc)
		printf("vconn-pair: pass\n");
	else
		fprintf(stderr, "vconn-pair: %s\n", p.err.reason);
	rt_res_destroy(&p.res);
	rt_oob_close(&p.oob);
	rt_vdev_close(&p.d);
	return rc ? p.err.exit_code : 0;
}
