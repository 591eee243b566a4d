/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* UD traffic on the CM reactor (see udflow.h). */
#include "rdmacm/udflow.h"
#include "rdmatest/util.h"

void rt_ud_refill_step(struct rt_cm *cm, void *flow)
{
	struct rt_ud_flow *f = flow;

	(void)cm;
	rt_ud_rx_refill(f->rx, f->n);
}

void rt_ud_send_step(struct rt_cm *cm, void *flow)
{
	struct rt_ud_flow *f = flow;
	struct rt_ud_lane *failed;

	rt_ud_refill_step(cm, flow);
	/* a connection that failed or left meanwhile sends no more */
	for (size_t i = 0; i < f->tx->nlanes; i++) {
		const struct rt_conn *c = f->tx->lanes[i].owner;

		if (c && rt_conn_state(c) != RT_CONN_ESTABLISHED)
			f->tx->lanes[i].ready = false;
	}
	failed = rt_ud_tx_post_due(f->tx, rt_now_ns());
	if (failed && failed->owner)
		rt_conn_hook_result(failed->owner, -1, "posting a send");
}

bool rt_ud_sent(const struct rt_cm *cm, const void *flow)
{
	const struct rt_ud_flow *f = flow;

	(void)cm;
	return rt_ud_tx_done(f->tx);
}

bool rt_ud_received(const struct rt_cm *cm, const void *flow)
{
	const struct rt_ud_flow *f = flow;

	(void)cm;
	return rt_ud_rx_over(f->rx, f->n, rt_now_ns(), f->t_ready, f->first_ms,
			     f->quiet_ms);
}

void rt_ud_send_progress(const struct rt_cm *cm, const void *flow, char *buf,
			 size_t len)
{
	const struct rt_ud_flow *f = flow;

	(void)cm;
	rt_ud_tx_progress(f->tx, buf, len);
}
