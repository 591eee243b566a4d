/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A connected stream's transfers and its close (rsock.h), each bounded:
 * by the stall timeout, the whole-transfer deadline, an interrupt, and
 * for the close a watchdog thread, whatever the peer or librdmacm does. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/rsocket.h>

#include "rdmatest/interrupt.h"
#include "rdmacm/rsock.h"
#include "rdmacm/rsock_wait.h"
#include "rdmatest/util.h"

/* ---- send_all / recv_all -------------------------------------------------------------- */

struct xfer {
	struct rt_stream *s;
	bool sending;
	bool io;           /* sending with riowrite to the peer's offset 0 */
	size_t done, len;
	uint64_t deadline; /* of the current wait; 0 until something would block */
	bool hup;          /* poll saw the peer hang up or an error */
};

static int xfer_fail(struct xfer *x, int code, int err_no, struct rt_error *err,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int xfer_fail(struct xfer *x, int code, int err_no, struct rt_error *err,
		     const char *fmt, ...)
{
	char what[160], where[128] = "transfer", hint[160] = "";
	bool was_set = err->set;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (x->s->describe)
		x->s->describe(x->s->describe_arg, where, sizeof(where), hint,
			       sizeof(hint));
	rt_fail(err, code, "%s: %s%s%s", where, what, hint[0] ? ": " : "", hint);
	if (!was_set)
		err->err_no = err_no;
	return -1;
}

static bool past_deadline(const struct rt_stream *s)
{
	return s->deadline_ns && rt_now_ns() >= s->deadline_ns;
}

static int overran(struct xfer *x, struct rt_error *err)
{
	return xfer_fail(x, RT_EXIT_TIMEOUT, 0, err, "the whole-transfer deadline "
			 "passed after %zu of %zu bytes", x->done, x->len);
}

/* The current wait's end: the stall bound, or the whole-transfer
 * deadline when that comes first. */
static uint64_t wait_deadline(const struct rt_stream *s)
{
	uint64_t d = rt_deadline_after_ms(s->timeout_ms);

	return s->deadline_ns && (!d || s->deadline_ns < d) ? s->deadline_ns : d;
}

static int stalled(struct xfer *x, struct rt_error *err)
{
	double sec = (double)x->s->timeout_ms / 1000;

	if (past_deadline(x->s))
		return overran(x, err);

	if (x->sending)
		return xfer_fail(x, RT_EXIT_TIMEOUT, 0, err, "the peer took no data for "
				 "%g s after %zu of %zu bytes sent", sec, x->done, x->len);
	return xfer_fail(x, RT_EXIT_TIMEOUT, 0, err, "no data for %g s after %zu "
			 "of %zu bytes", sec, x->done, x->len);
}

static int io_failed(struct xfer *x, int e, struct rt_error *err)
{
	char c[16];

	if (e == ECONNRESET || e == EPIPE || e == ENOTCONN)
		return xfer_fail(x, RT_EXIT_FAIL, e, err, "connection reset by the peer "
				 "after %zu of %zu bytes", x->done, x->len);
	if (x->io)
		return xfer_fail(x, RT_EXIT_FAIL, e, err, "riowrite: %s (has the peer "
				 "mapped its buffer: is it riostream?)", strerror(e));
	return xfer_fail(x, RT_EXIT_FAIL, e, err, "%s: %s",
			 rt_sock_call(x->s->ops, x->sending ? "send" : "recv", c, sizeof(c)),
			 strerror(e));
}

static bool expired(struct xfer *x)
{
	if (!x->deadline) {
		x->deadline = wait_deadline(x->s);
		return false;
	}
	return rt_now_ns() >= x->deadline;
}

/* Sleeps in poll until the stream is ready, the deadline passes (-1) or
 * the peer hung up (0: the call that follows reports how). */
static int wait_ready(struct xfer *x, struct rt_error *err)
{
	const struct rt_sock_ops *ops = x->s->ops;
	short want = x->sending ? POLLOUT : POLLIN;

	if (!x->deadline)
		x->deadline = wait_deadline(x->s);
	for (;;) {
		int left = rt_ms_until(x->deadline);
		short ev;

		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		if (left == 0)
			return stalled(x, err);
		ev = rt_sock_poll_one(ops, x->s->fd, want,
			      rt_sock_slice(left, ops->rdma ? RT_SOCK_DATA_SLICE_MS : 0));
		if (ev & (want | POLLERR | POLLHUP)) {
			x->hup = !(ev & want);
			return 0;
		}
	}
}

/* Kernel sockets in blocking mode wait in the call itself (bounded by
 * SO_RCVTIMEO/SO_SNDTIMEO); everything else calls without blocking. */
static int call_flags(const struct xfer *x)
{
	if (x->s->wait == RT_WAIT_BLOCK && !x->s->ops->rdma)
		return x->sending ? 0 : MSG_WAITALL;
	return MSG_DONTWAIT;
}

static bool polls_first(const struct rt_stream *s)
{
	return s->wait == RT_WAIT_POLL || (s->wait == RT_WAIT_BLOCK && s->ops->rdma);
}

static int xfer_all(struct xfer *x, uint8_t *buf, struct rt_error *err)
{
	struct rt_stream *s = x->s;
	int flags = call_flags(x);
	unsigned spins = 0;

	while (x->done < x->len) {
		ssize_t n;
		int rc;

		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		if (past_deadline(s))
			return overran(x, err);
		if (s->wait != RT_WAIT_SPIN && !x->deadline)
			x->deadline = wait_deadline(s);
		if (polls_first(s) && (rc = wait_ready(x, err)))
			return rc;
		if (x->io)
			n = riowrite(s->fd, buf + x->done, x->len - x->done,
				     (off_t)x->done, flags);
		else if (x->sending)
			n = s->ops->send(s->fd, buf + x->done, x->len - x->done, flags);
		else
			n = s->ops->recv(s->fd, buf + x->done, x->len - x->done, flags);
		if (n > 0) {
			x->done += (size_t)n;
			x->deadline = 0;
			continue;
		}
		if ((n == 0 && !x->sending) || (n < 0 && rt_sock_would_block(errno) && x->hup))
			return xfer_fail(x, RT_EXIT_FAIL, 0, err, "closed by the peer "
					 "after %zu of %zu bytes", x->done, x->len);
		if (n < 0 && !rt_sock_would_block(errno))
			return io_failed(x, errno, err);
		/* would block: spinning reads the clock every 64 tries only */
		if ((s->wait != RT_WAIT_SPIN || !(++spins & 63)) && expired(x))
			return stalled(x, err);
	}
	return 0;
}

int rt_stream_send_all(struct rt_stream *s, const void *buf, size_t len,
		       struct rt_error *err)
{
	struct xfer x = { .s = s, .sending = true, .len = len };
	int rc = xfer_all(&x, (uint8_t *)(uintptr_t)buf, err);

	s->sent += x.done;
	return rc;
}

int rt_stream_recv_all(struct rt_stream *s, void *buf, size_t len,
		       struct rt_error *err)
{
	struct xfer x = { .s = s, .sending = false, .len = len };
	int rc = xfer_all(&x, buf, err);

	s->received += x.done;
	return rc;
}

int rt_stream_iowrite_all(struct rt_stream *s, const void *buf, size_t len,
			  struct rt_error *err)
{
	struct xfer x = { .s = s, .sending = true, .io = true, .len = len };
	int rc = xfer_all(&x, (uint8_t *)(uintptr_t)buf, err);

	s->sent += x.done;
	return rc;
}

/* librdmacm gives each connection the iomap slots both ends asked for
 * (RDMA_IOMAPSIZE): none left is ENOMEM, so the peer asked for none. */
int rt_stream_iomap(struct rt_stream *s, void *buf, size_t len, struct rt_error *err)
{
	if (riomap(s->fd, buf, len, PROT_WRITE, 0, 0) != -1)
		return 0;
	if (errno == ENOMEM)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "riomap of %zu bytes: the "
				     "connection has no iomap slot: the peer did not ask "
				     "for RDMA_IOMAPSIZE (is it rstream, not riostream?)", len);
	return rt_fail_errno(err, RT_EXIT_ENV, errno, "riomap of %zu bytes: this "
			     "rsocket cannot map memory for iomap writes (a missing "
			     "capability of librdmacm or the provider)", len);
}

void rt_stream_iounmap(struct rt_stream *s, void *buf, size_t len)
{
	riounmap(s->fd, buf, len);
}

/* The peer's writes land without a call of ours: we spin on the byte, as
 * upstream does, and every 1024 looks read the clock, the interrupt flag
 * and (peeking) the stream, which carries nothing during iomap rows
 * unless the peer closed or runs another test. */
int rt_stream_await_byte(struct rt_stream *s, const volatile uint8_t *p, uint8_t want,
			 size_t len, struct rt_error *err)
{
	struct xfer x = { .s = s, .len = len };
	unsigned spins = 0;
	uint8_t c;

	while (*p != want) {
		ssize_t n;

		if (++spins & 1023)
			continue;
		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		if (expired(&x))
			return xfer_fail(&x, RT_EXIT_TIMEOUT, 0, err, "no iomap write from "
					 "the peer within %g s", (double)s->timeout_ms / 1000);
		n = s->ops->recv(s->fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
		/* the peer's writes travel before its close or next message on
		 * the same QP: what came first is in memory by now */
		if (*p == want)
			break;
		if (n == 0)
			return xfer_fail(&x, RT_EXIT_FAIL, 0, err, "closed by the peer "
					 "before its iomap writes");
		if (n > 0)
			return xfer_fail(&x, RT_EXIT_FAIL, 0, err, "the peer sent stream "
					 "data instead of iomap writes (is it rstream, not "
					 "riostream?)");
		if (!rt_sock_would_block(errno))
			return io_failed(&x, errno, err);
	}
	s->received += len;
	return 0;
}

int rt_stream_await_close(struct rt_stream *s, long long timeout_ms,
			  uint64_t *extra)
{
	uint64_t deadline = rt_deadline_after_ms(timeout_ms);
	uint8_t scratch[4096];

	for (;;) {
		ssize_t n = s->ops->recv(s->fd, scratch, sizeof(scratch), MSG_DONTWAIT);
		int left;

		if (n == 0 || (n < 0 && !rt_sock_would_block(errno)))
			return 0;
		if (n > 0) {
			*extra += (uint64_t)n;
			continue;
		}
		left = rt_ms_until(deadline);
		if (left == 0)
			return -1;
		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		rt_sock_poll_one(s->ops, s->fd, POLLIN,
			 rt_sock_slice(left, s->ops->rdma ? RT_SOCK_DATA_SLICE_MS : 0));
	}
}

/* Measured in the lab (rxe, rdma-core 44): when the peer's link is cut,
 * rclose of the still connected rsocket sends its disconnect, makes the
 * completion channel blocking and sleeps in ibv_get_cq_event for a send
 * completion that never comes (strace: read on the channel fd, 90 s and
 * more after --timeout). Nothing bounds that call, so a thread makes it
 * while the caller waits with a bound, and past the bound the process
 * ends with its last words (interrupt.h): the run is over either way. */
struct closing {
	const struct rt_sock_ops *ops;
	int fd;
	bool orderly;
	int done[2]; /* a pipe: the thread writes a byte once the close returned */
};

static void *close_in_thread(void *arg)
{
	struct closing *c = arg;
	ssize_t ignored;

	if (c->orderly)
		c->ops->shutdown(c->fd, SHUT_RDWR);
	c->ops->close(c->fd);
	ignored = write(c->done[1], "", 1);
	(void)ignored;
	return NULL;
}

static _Noreturn void close_timed_out(long long ms)
{
	char reason[256];

	snprintf(reason, sizeof(reason), "rshutdown (end of the stream): no answer "
		 "within %g s (the rsocket library did not return: is the host up "
		 "and reachable over RDMA?)", (double)ms / 1000);
	rt_last_words_prepare(RT_EXIT_TIMEOUT, reason);
	rt_last_words_exit();
}

/* true once the byte came, false when the bound passed first; signals
 * take nothing off the bound. */
static bool await_done(int fd, long long ms)
{
	uint64_t deadline = rt_deadline_after_ms(ms);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int left;

	while ((left = rt_ms_until(deadline)) != 0)
		if (poll(&p, 1, left) > 0)
			return true;
	return false;
}

static void close_bounded(const struct rt_sock_ops *ops, int fd, bool orderly,
			  long long ms)
{
	struct closing c = { .ops = ops, .fd = fd, .orderly = orderly };
	pthread_t t;

	if (pipe2(c.done, O_CLOEXEC)) {
		c.done[1] = -1; /* the write fails harmlessly */
		close_in_thread(&c); /* no bound possible: close as before */
		return;
	}
	if (pthread_create(&t, NULL, close_in_thread, &c))
		close_in_thread(&c);
	else if (!await_done(c.done[0], ms))
		close_timed_out(ms);
	else
		pthread_join(t, NULL);
	close(c.done[0]);
	close(c.done[1]);
}

void rt_stream_close(struct rt_stream *s, bool orderly)
{
	if (s->fd < 0)
		return;
	if (s->ops->rdma && s->connected && !orderly) {
		s->fd = -1; /* abandoned: see rsock.h */
		return;
	}
	if (s->ops->rdma && s->connected && s->timeout_ms > 0) {
		close_bounded(s->ops, s->fd, orderly, s->timeout_ms + 2000);
	} else {
		if (orderly)
			s->ops->shutdown(s->fd, SHUT_RDWR);
		s->ops->close(s->fd);
	}
	s->fd = -1;
	s->connected = false;
}
