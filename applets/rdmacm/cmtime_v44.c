/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's first protocol (cmtime_v44.h): rdma-core 51 and older. */
#include <stdio.h>

#include "rdmacm/cmtime_v44.h"
#include "rdmatest/util.h"

static bool all_served(const struct rt_cm *cm, const void *arg)
{
	const struct rt_cmt_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return x->served >= x->conns;
}

/* Counts the connections that have closed, then frees them and the
 * extra ones turned away, so that memory stays bounded by -c. */
static void harvest(struct rt_cm *cm, void *arg)
{
	struct rt_cmt_ctx *x = rt_cm_applet(cm);
	struct rt_conn *c;

	(void)arg;
	rt_cm_each(cm, c)
		if (rt_conn_state(c) == RT_CONN_DISCONNECTED) {
			rt_cmt_collect_setup(x, c);
			x->served++;
		}
	rt_cm_release_finished(cm);
}

static void served_progress(const struct rt_cm *cm, const void *arg, char *buf, size_t len)
{
	const struct rt_cmt_ctx *x = rt_cm_applet(cm);
	char census[120];

	(void)arg;
	rt_cm_census(cm, census, sizeof(census));
	snprintf(buf, len, "%u of %u connections came and went; now %s: does the "
		 "client's -c match?", x->served, x->conns, census);
}

static bool children_arrived(const struct rt_cm *cm, const void *arg)
{
	const struct rt_cmt_ctx *x = rt_cm_applet(cm);

	(void)arg;
	return rt_cm_count(cm) > 0 || x->served > 0;
}

int rt_cmt_v44_serve(struct rt_cmt_ctx *x)
{
	struct rt_wait first = { .done = children_arrived, .step = harvest,
				 .timeout_ms = rt_run_accept_bound(x->run),
				 .what = "a first client" };
	struct rt_wait all = { .done = all_served, .step = harvest,
			       .what = "the clients to connect and disconnect",
			       .progress = served_progress };

	rt_error_phase(&x->run->err, "connect");
	if (rt_cm_run(x->cm, &first))
		return -1;
	x->t_start = rt_now_ns();
	if (rt_cm_run(x->cm, &all))
		return -1;
	x->t_connected = rt_now_ns();
	return 0;
}


int rt_cmt_v44_connect(struct rt_cmt_ctx *x, struct rdma_addrinfo *ai)
{
	if (rt_cmt_connect_all(x, ai, x->conns) || rt_cmt_disconnect_all(x))
		return -1;
	rt_cmt_destroy_all(x);
	return 0;
}
