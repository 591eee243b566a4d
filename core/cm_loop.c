/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The reactor loop: poll() over the CM channel and the completion
 * channels, bounded by the wait's idle timeout. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "cm_priv.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

#define PRIV_MAX 256

/* Copies the event (and its private data) and acknowledges it at once. */
static int next_event(struct rt_cm *cm, struct rdma_cm_event *copy,
		      uint8_t *priv)
{
	struct rdma_cm_event *ev;
	const void *pd;
	uint8_t len;

	if (rdma_get_cm_event(cm->ch, &ev))
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 :
		       rt_fail_errno(cm->err, RT_EXIT_FAIL, errno,
				     "rdma_get_cm_event");
	*copy = *ev;
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
	    ev->event == RDMA_CM_EVENT_MULTICAST_ERROR) {
		/* here the field carries the join's context pointer, not data */
		rdma_ack_cm_event(ev);
		return 1;
	}
	pd = ev->param.conn.private_data;
	/* the length is a uint8_t, so any private data fits in PRIV_MAX */
	_Static_assert(sizeof(ev->param.conn.private_data_len) == 1 &&
		       PRIV_MAX > UINT8_MAX, "PRIV_MAX holds any private data");
	len = ev->param.conn.private_data_len;
	if (pd && len)
		memcpy(priv, pd, len);
	copy->param.conn.private_data = pd ? priv : NULL;
	copy->param.conn.private_data_len = pd ? len : 0;
	rdma_ack_cm_event(ev);
	return 1;
}

static void on_wc(struct rt_conn *c, const struct ibv_wc *wc)
{
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		/* the QP went to error: a disconnect or an earlier failed
		 * completion, each reported on its own */
		rt_dbg(c->cm->log, "%s: flushed %s", c->peer,
		       rt_wr_kind_str(RT_WR_KIND(wc->wr_id)));
		return;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		if (c->state == RT_CONN_FAILED)
			return;
		rt_wc_fail(wc, c->peer, &c->err);
		rt_conn_fail_recorded(c);
		return;
	}
	switch (RT_WR_KIND(wc->wr_id)) {
	case RT_WR_RECV:
		c->recvs_done++;
		break;
	case RT_WR_SEND:
	case RT_WR_UD_SEND:
		c->sends_done++;
		break;
	default:
		c->rdma_done++;
	}
	if (c->cm->hooks->completion)
		rt_conn_hook_result(c, c->cm->hooks->completion(c, wc),
				    "completion handling failed");
}

static void list_cq(struct rt_cm *cm, struct rt_conn *c)
{
	if (c->cq_listed)
		return;
	c->cq_listed = true;
	cm->cq_active[cm->ncq_active++] = c; /* at most one entry a connection */
}

void rt_conn_cq_hot(struct rt_conn *c)
{
	c->cq_hot = true;
	list_cq(c->cm, c);
}

/* Takes at most *budget completions. A CQ left non-empty is marked: no
 * new notification comes for entries already queued, so the next rounds
 * poll it without waiting for one. */
static int poll_cq(struct rt_cm *cm, struct rt_conn *c, int *budget)
{
	struct ibv_wc wc[16];
	int n, want, total = 0;

	c->cq_backlog = false;
	while (c->res.cq) {
		if ((want = RT_MIN(*budget, (int)ARRAY_SIZE(wc))) <= 0) {
			c->cq_backlog = true;
			list_cq(cm, c);
			break;
		}
		if ((n = ibv_poll_cq(c->res.cq, want, wc)) < 0)
			return rt_fail(cm->err, RT_EXIT_FAIL, "ibv_poll_cq %s failed",
				       c->peer);
		if (n) /* one clock read a batch, not one a completion */
			c->last_progress = rt_now_ns();
		for (int i = 0; i < n; i++)
			on_wc(c, &wc[i]);
		total += n;
		*budget -= n;
		if (n < want)
			break;
	}
	cm->completions += (uint64_t)total;
	return total;
}

/* Completions queued before a disconnect belong to the run: the applet
 * counts them before it hears of the disconnect, whatever is left of the
 * round's budget (the CM channel is read before the CQs). Bounded: after
 * DISCONNECTED nothing new arrives, and a CQ holds at most its depth. */
static int settle_cq(struct rt_cm *cm, struct rt_conn *c)
{
	int all = INT_MAX;

	return poll_cq(cm, c, &all) < 0 ? -1 : 0;
}

static int drain_events(struct rt_cm *cm)
{
	struct rdma_cm_event ev;
	uint8_t priv[PRIV_MAX];
	int n = 0, r = 0;

	/* what is left stays queued and keeps the fd readable */
	while (n < RT_CM_EVENTS_PER_ROUND && (r = next_event(cm, &ev, priv)) > 0) {
		cm->events++;
		n++;
		if (ev.event == RDMA_CM_EVENT_DISCONNECTED && ev.id->context &&
		    settle_cq(cm, ev.id->context) < 0)
			return -1;
		rt_cm_handle_event(cm, &ev);
	}
	return r < 0 ? -1 : n;
}

/* Each notification costs one unit of the budget, so a flood of them on
 * empty CQs ends the round too; unread ones keep the fd readable. The CQ
 * is not re-armed here but left hot: polled every round, and re-armed
 * only when the loop is about to sleep (rearm_idle). */
static int drain_channel(struct rt_cm *cm, struct ibv_comp_channel *ch, int *budget)
{
	struct ibv_cq *cq;
	void *ctx;
	int n = 0, r;

	for (;;) {
		struct rt_conn *c;

		if (*budget <= 0)
			return n;
		if (ibv_get_cq_event(ch, &cq, &ctx))
			break;
		c = ctx;
		ibv_ack_cq_events(cq, 1);
		(*budget)--;
		rt_conn_cq_hot(c);
		if ((r = poll_cq(cm, c, budget)) < 0)
			return -1;
		n += r + 1;
	}
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		return rt_fail_errno(cm->err, RT_EXIT_FAIL, errno, "ibv_get_cq_event");
	return n;
}

/* Polls every CQ (busy polling), or those that need no notification to
 * be looked at: hot ones and those left non-empty by an earlier round
 * (the listed ones). It starts one further each round so that, under a
 * budget, no connection waits behind the others for good. Completion
 * hooks must not release connections (releases happen in a wait's step,
 * between rounds): the set is walked by index. */
static int poll_cqs(struct rt_cm *cm, bool all, int *budget)
{
	struct rt_conn **set = all ? cm->conns : cm->cq_active;
	size_t n_set = all ? cm->nconns : cm->ncq_active;
	size_t start = n_set ? cm->poll_next++ % n_set : 0;
	int n = 0, r;

	for (size_t k = 0; k < n_set; k++) {
		struct rt_conn *c = set[(start + k) % n_set];

		if (!all && !c->cq_backlog && !c->cq_hot)
			continue;
		if ((r = poll_cq(cm, c, budget)) < 0)
			return -1;
		n += r;
	}
	return n;
}

/* Drops the listed CQs that are neither hot nor backlogged any more. */
static void unlist_cold(struct rt_cm *cm)
{
	size_t kept = 0;

	for (size_t i = 0; i < cm->ncq_active; i++) {
		struct rt_conn *c = cm->cq_active[i];

		if (c->cq_hot || c->cq_backlog)
			cm->cq_active[kept++] = c;
		else
			c->cq_listed = false;
	}
	cm->ncq_active = kept;
}

/* Before the loop sleeps, every hot CQ is re-armed and then polled once
 * more: a completion that landed after its last poll but before the
 * re-arm brings no notification. Re-arming here rather than after each
 * notification spares the re-arm (a system call on rxe), the wake-up
 * and the read of the next notification whenever completions arrive
 * while the loop is busy anyway. */
static int rearm_idle(struct rt_cm *cm, int *budget)
{
	size_t listed = cm->ncq_active;
	int n = 0, r;

	for (size_t i = 0; i < listed; i++) {
		struct rt_conn *c = cm->cq_active[i];

		if (!c->cq_hot || c->cq_backlog)
			continue;
		c->cq_hot = false;
		if (!c->res.cq)
			continue;
		if (ibv_req_notify_cq(c->res.cq, 0))
			return rt_fail_errno(cm->err, RT_EXIT_FAIL, errno,
					     "ibv_req_notify_cq %s", c->peer);
		if ((r = poll_cq(cm, c, budget)) < 0)
			return -1;
		n += r;
	}
	unlist_cold(cm);
	return n;
}

static bool cq_backlog(const struct rt_cm *cm)
{
	for (size_t i = 0; i < cm->ncq_active; i++)
		if (cm->cq_active[i]->cq_backlog)
			return true;
	return false;
}

/* Hands each new per-connection failure to the applet, or to the run. */
static void report_failures(struct rt_cm *cm)
{
	for (size_t i = 0; cm->failures_pending && i < cm->nconns; i++) {
		struct rt_conn *c = cm->conns[i];
		struct rt_error *e = cm->err;

		if (c->state != RT_CONN_FAILED || c->failure_reported)
			continue;
		c->failure_reported = true;
		cm->failures_pending--;
		if (cm->hooks->failed && cm->hooks->failed(c)) {
			rt_warn(cm->log, "%s", c->err.reason);
			continue;
		}
		if (!e->set) {
			*e = c->err;
			e->set = true;
		}
	}
}

/* The CM channel first, the interrupt's self-pipe (or -1, which poll
 * skips) second, then the completion channels. */
static int gather_fds(struct rt_cm *cm, struct pollfd *fds)
{
	int n = 0;

	fds[n++] = (struct pollfd){ .fd = cm->ch->fd, .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = rt_interrupt_fd(), .events = POLLIN };
	for (size_t i = 0; i < cm->ndevs; i++)
		if (cm->devs[i].channel)
			fds[n++] = (struct pollfd){ .fd = cm->devs[i].channel->fd,
						    .events = POLLIN };
	return n;
}

/* Whether poll found fd readable. A completion channel that is not is
 * left alone: reading it anyway costs a system call that fails with
 * EAGAIN, in every round that CM events alone woke (one host, ucmatose
 * -c 50: 108 of the server's 471 reads). */
static bool readable(const struct pollfd *fds, int nfds, int fd)
{
	for (int i = 0; i < nfds; i++)
		if (fds[i].fd == fd)
			return fds[i].revents != 0;
	return false;
}

/* Takes what poll() found ready: CM events first, then the
 * notifications of each readable completion channel. */
static int take_ready(struct rt_cm *cm, const struct pollfd *fds, int nfds,
		      int *budget)
{
	int progress = 0, r;

	if (fds[0].revents) {
		if ((r = drain_events(cm)) < 0)
			return -1;
		progress += r;
	}
	for (size_t i = 0; i < cm->ndevs; i++)
		if (cm->devs[i].channel &&
		    readable(fds, nfds, cm->devs[i].channel->fd) &&
		    (r = drain_channel(cm, cm->devs[i].channel, budget)) != 0) {
			if (r < 0)
				return -1;
			progress += r;
		}
	return progress;
}

/* Waits in poll() at most timeout ms (0: only looks) and takes what is
 * ready. */
static int look(struct rt_cm *cm, int timeout, int *budget)
{
	struct pollfd fds[2 + RT_CM_MAX_DEVICES];
	int nfds = gather_fds(cm, fds), n, r;

	n = poll(fds, (nfds_t)nfds, timeout);
	if (n < 0)
		return errno == EINTR ? 0 :
		       rt_fail_errno(cm->err, RT_EXIT_FAIL, errno, "poll");
	r = n > 0 ? take_ready(cm, fds, nfds, budget) : 0;
	report_failures(cm);
	return r;
}

/* Takes what needs no waiting (hot and backlogged CQs), and only when
 * that found nothing re-arms and sleeps in poll(). */
static int one_round(struct rt_cm *cm, int timeout)
{
	int budget = RT_CM_WCS_PER_ROUND, progress, r, next_retry = -1;

	progress = rt_cm_retry_due(cm, &next_retry);
	if (next_retry >= 0 && (timeout < 0 || next_retry < timeout))
		timeout = next_retry;
	if ((r = poll_cqs(cm, cm->params.busy_poll, &budget)) < 0)
		return -1;
	progress += r;
	if (!progress && timeout && !cm->params.busy_poll) {
		if ((r = rearm_idle(cm, &budget)) < 0)
			return -1;
		progress += r;
	}
	if (progress || cm->params.busy_poll || cq_backlog(cm))
		timeout = 0;
	if ((r = look(cm, timeout, &budget)) < 0)
		return -1;
	return progress + r;
}

/* A spinning wait's round: every CQ swept, no re-arm, no sleep; the fds
 * (CM events, notifications, the interrupt pipe) looked at in one round
 * of RT_SPIN_LOOK_ROUNDS, so that a peer's disconnect is still seen. */
static int spin_round(struct rt_cm *cm, unsigned *rounds)
{
	int budget = RT_CM_WCS_PER_ROUND, r, n;

	if ((r = poll_cqs(cm, true, &budget)) < 0)
		return -1;
	if (++*rounds % RT_SPIN_LOOK_ROUNDS)
		return r;
	if ((n = look(cm, 0, &budget)) < 0)
		return -1;
	return r + n;
}

static int timed_out(struct rt_cm *cm, const struct rt_wait *w, long long bound_ms)
{
	char how[160] = "", census[160];

	if (w->progress)
		w->progress(cm, w->arg, how, sizeof(how));
	else
		rt_cm_census(cm, how, sizeof(how));
	rt_fail(cm->err, RT_EXIT_TIMEOUT,
		"timed out after %.3g s without progress waiting for %s (%s)",
		bound_ms / 1000.0, w->what, how);
	rt_cm_census(cm, census, sizeof(census));
	rt_dbg(cm->log, "at timeout: %s", census);
	return -1;
}

static int poll_ms(uint64_t deadline, long long tick_ms)
{
	int left = rt_ms_until(deadline);

	if (tick_ms > 0 && (left < 0 || left > tick_ms))
		return (int)tick_ms;
	return left;
}

/* A wait's idle bound in ms, or -1 for none. */
static long long wait_bound(const struct rt_cm *cm, const struct rt_wait *w)
{
	if (w->timeout_ms == RT_WAIT_STEP_BOUND)
		return cm->params.timeout_ms > 0 ? cm->params.timeout_ms : -1;
	return w->timeout_ms < 0 ? -1 : w->timeout_ms;
}

/* Whether this round spins: the wait asks for it and the loop has not
 * been quiet (no progress since quiet_since) for RT_SPIN_IDLE_US. Past
 * that, the peer is not answering at once (or needs this CPU to answer
 * at all) and the loop sleeps as usual until something happens, then
 * spins again. */
static bool spinning(const struct rt_wait *w, uint64_t now, uint64_t quiet_since)
{
	return w->spin && now - quiet_since < RT_SPIN_IDLE_US * 1000ull;
}

int rt_cm_run(struct rt_cm *cm, const struct rt_wait *w)
{
	long long bound = wait_bound(cm, w);
	uint64_t deadline = bound < 0 ? 0 : rt_deadline_after_ms(bound);
	uint64_t quiet_since = 0; /* 0: progress in the last round */
	unsigned rounds = 0;
	int r;

	rt_log_flush(cm->log);
	for (;;) {
		bool finished;
		uint64_t now;

		if (rt_interrupt_pending())
			return RT_INTERRUPTED; /* the applet winds down */
		if (w->step)
			w->step(cm, w->arg);
		finished = w->done(cm, w->arg);

		report_failures(cm);
		if (cm->err->set)
			return -1;
		if (finished)
			return 0;
		/* one clock read a round serves the bound and the spin */
		now = deadline || w->spin ? rt_now_ns() : 0;
		if (deadline && now >= deadline)
			return timed_out(cm, w, bound);
		if (!quiet_since)
			quiet_since = now;
		if (spinning(w, now, quiet_since))
			r = spin_round(cm, &rounds);
		else
			r = one_round(cm, poll_ms(deadline, w->tick_ms));
		if (r < 0)
			return -1;
		if (r > 0)
			quiet_since = 0;
		if (r > 0 && bound >= 0)
			deadline = rt_deadline_after_ms(bound);
	}
}

/* A failed migration moves the ids already moved back to the old
 * channel, so that the new one can be destroyed and none leaks. If even
 * that fails, the new channel is kept: ids still point at it. */
static int migrate_undo(struct rt_cm *cm, struct rdma_event_channel *ch,
			size_t moved, int e, const char *call, const char *peer)
{
	bool back = true;

	for (size_t i = 0; i < moved; i++)
		back = back && !rdma_migrate_id(cm->conns[i]->id, cm->ch);
	if (back)
		rdma_destroy_event_channel(ch);
	return rt_fail_errno(cm->err, RT_EXIT_FAIL, e, "%s%s%s", call,
			     peer ? " " : "", peer ? peer : "");
}

int rt_cm_migrate(struct rt_cm *cm)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();

	if (!ch)
		return rt_fail_errno(cm->err, RT_EXIT_FAIL, errno,
				     "rdma_create_event_channel (migrate)");
	if (rt_set_nonblock(ch->fd))
		return migrate_undo(cm, ch, 0, errno, "fcntl", NULL);
	for (size_t i = 0; i < cm->nconns; i++)
		if (rdma_migrate_id(cm->conns[i]->id, ch))
			return migrate_undo(cm, ch, i, errno, "rdma_migrate_id",
					    cm->conns[i]->peer);
	rdma_destroy_event_channel(cm->ch);
	cm->ch = ch;
	return 0;
}
