/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <sched.h>

#include "rdmatest/cqwait.h"
#include "rdmatest/fdwait.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"
#include "rdmatest/watchdog.h"

/* Empty polls between two looks at the clock in poll mode: a clock read
 * costs about as much as a poll, so this keeps the busy loop a poll loop.
 * At each look the loop also yields the CPU: on Soft-RoCE the "adapter"
 * is a kernel thread that may need this CPU to deliver the completion
 * awaited (seen in the lab under load: a 1000-exchange run both sides
 * busy-polling did not finish in 40 s); with nothing else runnable the
 * yield returns at once. */
#define POLLS_PER_CHECK 256
/* Events are acked in batches: acking takes a lock in libibverbs. */
#define ACK_BATCH 1024

int rt_cqwait_init(struct rt_cqwait *w, struct ibv_cq *cq,
		   struct ibv_comp_channel *ch, long long timeout_ms,
		   struct rt_error *err)
{
	w->cq = cq;
	w->ch = ch;
	w->timeout_ms = timeout_ms;
	w->unacked = 0;
	w->armed = false;
	if (ch && rt_set_nonblock(ch->fd))
		return rt_fail_errno(err, RT_EXIT_FAIL, errno,
				     "completion channel: O_NONBLOCK");
	return 0;
}

void rt_cqwait_done(struct rt_cqwait *w)
{
	if (w->cq && w->unacked)
		ibv_ack_cq_events(w->cq, w->unacked);
	w->unacked = 0;
}

/* Sleeps on the channel until an event, the deadline or an interrupt:
 * 0 event taken (or a spurious wake-up), 1 deadline, RT_INTERRUPTED, or -1. */
static int sleep_on_channel(struct rt_cqwait *w, uint64_t deadline,
			    struct rt_error *err)
{
	struct ibv_cq *cq;
	void *ctx;
	int rc = rt_fdwait(w->ch->fd, POLLIN, deadline);

	if (rc == RT_FDWAIT_INTERRUPTED)
		return RT_INTERRUPTED;
	if (rc < 0)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "poll on the completion channel");
	if (rc == RT_FDWAIT_TIMEOUT)
		return 1;
	if (ibv_get_cq_event(w->ch, &cq, &ctx))
		return errno == EAGAIN ? 0 :
		       rt_fail_errno(err, RT_EXIT_FAIL, errno, "ibv_get_cq_event");
	w->armed = false;
	if (++w->unacked >= ACK_BATCH)
		rt_cqwait_done(w);
	return 0;
}

int rt_cqwait_poll(struct rt_cqwait *w, struct ibv_wc *wc, int n,
		   struct rt_error *err)
{
	uint64_t deadline = rt_deadline_after_ms(w->timeout_ms);
	struct rt_watchdog dog;

	rt_watchdog_start(&dog, w->timeout_ms, POLLS_PER_CHECK, rt_now_ns());
	for (;;) {
		int got = ibv_poll_cq(w->cq, n, wc);
		int rc;

		if (got)
			return got > 0 ? got :
			       rt_fail(err, RT_EXIT_FAIL, "ibv_poll_cq failed");
		if (!w->ch) {
			if (!rt_watchdog_due(&dog))
				continue;
			rc = rt_watchdog_check(&dog, rt_now_ns());
			if (rc)
				return rc == RT_WATCHDOG_TIMEOUT ? 0 : rc;
			sched_yield();
			continue;
		}
		if (!w->armed) { /* armed, then polled again: nothing slips by */
			if (ibv_req_notify_cq(w->cq, 0))
				return rt_fail(err, RT_EXIT_FAIL, "ibv_req_notify_cq failed");
			w->armed = true;
			continue;
		}
		rc = sleep_on_channel(w, deadline, err);
		if (rc)
			return rc == 1 ? 0 : rc;
	}
}
