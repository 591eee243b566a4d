/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A misbehaving rping client for the lab: connects like rping and then
 * breaks the protocol in one chosen way, to show that the server survives
 * and names the peer. Test-only; not an applet.
 *
 * usage: rping-evil -a ADDR [-p PORT] -m short|zero|oversize|badkey|burst
 * Exits 0 when the server dropped the connection within 10 s. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include "rdmatest/addr.h"
#include "rdmatest/cm.h"
#include "rdmatest/xfer.h"

struct evil {
	struct rt_buf *recv, *send, *data;
};

static int setup(struct rt_conn *c)
{
	struct evil *e = rt_conn_applet(c);
	struct rt_res_spec spec = { .qp_type = IBV_QPT_RC, .send_depth = 8,
				    .recv_depth = 4 };
	int remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_WRITE;

	if (rt_conn_setup_res(c, &spec))
		return -1;
	e->recv = rt_res_buf(rt_conn_res(c), 16, IBV_ACCESS_LOCAL_WRITE, rt_conn_err(c));
	e->send = rt_res_buf(rt_conn_res(c), 64, 0, rt_conn_err(c));
	e->data = rt_res_buf(rt_conn_res(c), 64, remote, rt_conn_err(c));
	if (!e->data)
		return -1;
	for (int i = 0; i < 4; i++)
		if (rt_post_recv(rt_conn_res(c), e->recv, 0, 16, 0, rt_conn_err(c)))
			return -1;
	return 0;
}

static int advert(struct rt_conn *c, uint64_t addr, uint32_t rkey, uint32_t len,
		  size_t bytes)
{
	struct evil *e = rt_conn_applet(c);
	uint64_t a = htobe64(addr);
	uint32_t k = htobe32(rkey), l = htobe32(len);

	memcpy(e->send->addr, &a, 8);
	memcpy(e->send->addr + 8, &k, 4);
	memcpy(e->send->addr + 12, &l, 4);
	return rt_post_send(rt_conn_res(c), e->send, 0, bytes, 0, true, rt_conn_err(c));
}

static int misbehave(struct rt_conn *c, const char *mode)
{
	struct evil *e = rt_conn_applet(c);
	uint64_t addr = (uintptr_t)e->data->addr;
	uint32_t rkey = e->data->mr->rkey;

	if (!strcmp(mode, "short"))
		return advert(c, addr, rkey, 64, 8);
	if (!strcmp(mode, "zero"))
		return advert(c, addr, rkey, 0, 16);
	if (!strcmp(mode, "oversize"))
		return advert(c, addr, rkey, 1 << 20, 16);
	if (!strcmp(mode, "badkey"))
		return advert(c, addr, rkey ^ 0x5a5a5a5a, 64, 16);
	if (!strcmp(mode, "burst"))
		return advert(c, addr, rkey, 64, 16) || advert(c, addr, rkey, 64, 16);
	fprintf(stderr, "rping-evil: unknown mode %s\n", mode);
	return -1;
}

static bool dropped(const struct rt_cm *cm, const void *arg)
{
	const struct rt_conn *c = arg;

	(void)cm;
	return rt_conn_state(c) == RT_CONN_DISCONNECTED || rt_conn_state(c) == RT_CONN_FAILED;
}

/* being dropped is the expected outcome, not an error */
static bool expected(struct rt_conn *c)
{
	(void)c;
	return true;
}

static const struct rt_cm_hooks hooks = { .setup = setup, .failed = expected };

int main(int argc, char **argv)
{
	const char *addr = NULL, *mode = "short";
	long long port = 7174;
	struct rt_log log;
	struct rt_error err = { 0 };
	struct rt_cm *cm;
	struct evil e = { 0 };
	struct rt_cm_params p = { .ps = RDMA_PS_TCP, .tos = -1, .ack_timeout = -1,
				  .conn = { .responder_resources = 1, .initiator_depth = 1,
					    .retry_count = 7, .rnr_retry_count = 6 },
				  .timeout_ms = 10000 };
	struct rdma_addrinfo *ai = NULL;
	struct rt_conn *c = NULL;
	unsigned one = 1;
	int opt, rc;

	while ((opt = getopt(argc, argv, "a:p:m:")) != -1)
		if (opt == 'a')
			addr = optarg;
		else if (opt == 'p')
			port = atoll(optarg);
		else if (opt == 'm')
			mode = optarg;
	rt_log_init(&log, "rping-evil", false, false, false);
	struct rt_addr_query q = { .node = addr, .port = port, .ps = RDMA_PS_TCP, .what = "-a" };
	struct rt_wait up = { .done = rt_cm_all_established, .arg = &one,
			      .timeout_ms = 10000, .what = "the connection" };
	struct rt_wait gone = { .done = dropped, .timeout_ms = 10000,
				.what = "the server to drop us" };

	cm = rt_cm_create(&p, &hooks, &e, &log, &err);
	rc = !cm || rt_addr_resolve(&q, &ai, &err);
	if (!rc)
		c = rt_cm_connect(cm, ai->ai_src_addr, ai->ai_dst_addr);
	rc = rc || !c || rt_cm_run(cm, &up) || misbehave(c, mode);
	gone.arg = c;
	rc = rc || rt_cm_run(cm, &gone);
	if (rc)
		fprintf(stderr, "rping-evil: %s\n", err.set ? err.reason : "failed");
	else
		printf("rping-evil: mode %s: the server dropped the connection\n", mode);
	if (ai)
		rdma_freeaddrinfo(ai);
	rt_cm_destroy(cm);
	return rc ? 1 : 0;
}
