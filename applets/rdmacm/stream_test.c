/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdio.h>
#include <string.h>

#include "rdmatest/interrupt.h"
#include "rdmacm/stream_test.h"
#include "rdmatest/util.h"

#define PEER_DIFFERS (-2) /* the sync showed the peer's parameters differ */

void rt_stream_test_describe(void *arg, char *where, size_t wlen, char *hint, size_t hlen)
{
	struct rt_stream_test *t = arg;
	const struct rt_stream_row *r = t->row;
	static const char *const dir[] = { "sync", "client to server", "server to client" };

	if (!r)
		snprintf(where, wlen, "connection %u", t->conn);
	else if (t->step == RT_STEP_SYNC)
		snprintf(where, wlen, "row %s: sync", r->name);
	else
		snprintf(where, wlen, "row %s (iteration %llu of %llu, transfer %llu of %llu, %s)",
			 r->name, (unsigned long long)t->iter + 1, (unsigned long long)r->iters,
			 (unsigned long long)t->xfer + 1, (unsigned long long)r->count, dir[t->step]);
	snprintf(hint, hlen, "%s", t->hint ? t->hint : "");
}

/* Called per transfer: the fork child's heartbeat, and a progress line on
 * a terminal for rows that run longer than a second. */
static void tick(struct rt_stream_test *t, uint64_t now)
{
	uint64_t bytes, total;

	if (t->child)
		rt_child_beat(t->child);
	if (!rt_progress_due(&t->progress, now))
		return;
	bytes = t->s->sent + t->s->received - t->row_start_bytes;
	total = rt_stream_row_bytes(t->row);
	rt_progress_show(&t->progress, "%s: %s %3llu%%", t->name, t->row->name,
			 (unsigned long long)(total ? bytes * 100 / total : 0));
}

/* ---- one row ---------------------------------------------------------------- */

static int send_xfer(struct rt_stream_test *t, size_t len)
{
	if (t->verify)
		rt_stream_verify_fill(&t->v, t->sbuf, len);
	return rt_stream_send_all(t->s, t->sbuf, len, t->err);
}

static int verify_failed(struct rt_stream_test *t, int64_t byte, bool sync)
{
	struct rt_stream_sync peer;
	char where[128], hint[160];
	bool plain = sync && rt_stream_sync_decode(t->rbuf, &peer) &&
		     peer.role != (t->server ? 's' : 'c');

	rt_say(t->log, "data verification failed byte %lld", (long long)byte);
	rt_stream_test_describe(t, where, sizeof(where), hint, sizeof(hint));
	rt_fail(t->err, RT_EXIT_FAIL, "%s: data verification failed at byte "
		"%lld of the stream from the peer: %s", where, (long long)byte,
		plain ? "the peer (rdmatest) does not use -T v" : "does the peer use -T v too?");
	return sync ? PEER_DIFFERS : -1;
}

static int recv_xfer(struct rt_stream_test *t, size_t len)
{
	int64_t bad;

	if (rt_stream_recv_all(t->s, t->rbuf, len, t->err))
		return -1;
	if (!t->verify)
		return 0;
	bad = rt_stream_verify_check(&t->v, t->rbuf, len);
	return bad < 0 ? 0 : verify_failed(t, bad, t->step == RT_STEP_SYNC);
}

/* Without -T v the peer's sync bytes are free: an rdmatest peer's block
 * names its row; 16 counter bytes mean the peer verifies and we do not. */
static int check_peer_sync(struct rt_stream_test *t)
{
	const struct rt_stream_row *r = t->row;
	struct rt_stream_sync p;
	char where[128], hint[160];
	enum rt_sync_verdict v = rt_stream_sync_check(t->rbuf, t->server ? 's' : 'c', r, &p);

	if (v == RT_SYNC_OK)
		return 0;
	rt_stream_test_describe(t, where, sizeof(where), hint, sizeof(hint));
	if (v == RT_SYNC_VERIFIES)
		rt_fail(t->err, RT_EXIT_FAIL, "%s: the peer sends verification "
			"data: it uses -T v, this side does not", where);
	else
		rt_fail(t->err, RT_EXIT_FAIL, "%s: the peer runs -S %u -C %u -I %u, "
			"this side -S %llu -C %llu -I %llu: %s", where, p.size, p.count,
			p.iters, (unsigned long long)r->size, (unsigned long long)r->count,
			(unsigned long long)r->iters, hint);
	return PEER_DIFFERS;
}

static int send_sync(struct rt_stream_test *t)
{
	if (!t->verify || t->iomap) {
		rt_stream_sync_encode(t->sbuf, t->server ? 's' : 'c', t->row);
		return rt_stream_send_all(t->s, t->sbuf, RT_STREAM_SYNC_LEN, t->err);
	}
	return send_xfer(t, RT_STREAM_SYNC_LEN);
}

static int recv_sync(struct rt_stream_test *t)
{
	struct rt_stream_sync p;
	int rc;

	if (t->iomap) { /* upstream riostream sends stale buffer bytes: only a
			 * differing rdmatest block says something */
		if (rt_stream_recv_all(t->s, t->rbuf, RT_STREAM_SYNC_LEN, t->err))
			return -1;
		return rt_stream_sync_check(t->rbuf, t->server ? 's' : 'c', t->row, &p) ==
		       RT_SYNC_DIFFERS ? check_peer_sync(t) : 0;
	}
	rc = recv_xfer(t, RT_STREAM_SYNC_LEN);
	if (rc || t->verify)
		return rc;
	return check_peer_sync(t);
}

/* A server that finds the client's parameters differ still answers the
 * sync before it closes: then the client can name the difference too. */
static int sync_row(struct rt_stream_test *t)
{
	int rc;

	t->step = RT_STEP_SYNC;
	if (!t->server)
		return send_sync(t) || recv_sync(t) ? -1 : 0;
	rc = recv_sync(t);
	if (rc == PEER_DIFFERS)
		send_sync(t); /* best effort; the first error stays the record */
	return rc || send_sync(t) ? -1 : 0;
}

/* One direction of one iteration: `count` transfers. */
static int one_way(struct rt_stream_test *t, enum rt_stream_step st)
{
	bool sending = t->server == (st == RT_STEP_BACK);
	size_t size = (size_t)t->row->size;

	t->step = st;
	for (t->xfer = 0; t->xfer < t->row->count; t->xfer++) {
		if (sending ? send_xfer(t, size) : recv_xfer(t, size))
			return -1;
		tick(t, rt_now_ns());
	}
	return 0;
}

/* ---- riostream's rows (t->iomap) ---- */

static int io_send(struct rt_stream_test *t, uint8_t marker)
{
	size_t size = (size_t)t->row->size;

	for (t->xfer = 0; t->xfer < t->row->count; t->xfer++) {
		bool last = t->xfer + 1 == t->row->count;

		if (last && t->verify)
			rt_stream_verify_fill(&t->v, t->sbuf, size - 1);
		t->sbuf[size - 1] = (uint8_t)(last ? marker : marker - 1);
		if (rt_stream_iowrite_all(t->s, t->sbuf, size, t->err))
			return -1;
		tick(t, rt_now_ns());
	}
	return 0;
}

static int io_recv(struct rt_stream_test *t, uint8_t marker)
{
	size_t size = (size_t)t->row->size;
	int64_t bad;

	t->xfer = t->row->count - 1; /* only the last one is seen */
	if (rt_stream_await_byte(t->s, &t->iomap[size - 1], marker,
				 size * t->row->count, t->err))
		return -1;
	tick(t, rt_now_ns());
	if (!t->verify)
		return 0;
	bad = rt_stream_verify_check(&t->v, t->iomap, size - 1);
	return bad < 0 ? 0 : verify_failed(t, bad, false);
}

static int io_one_way(struct rt_stream_test *t, enum rt_stream_step st, uint8_t marker)
{
	bool sending = t->server == (st == RT_STEP_BACK);

	t->step = st;
	return sending ? io_send(t, marker) : io_recv(t, marker);
}

static int both_ways(struct rt_stream_test *t)
{
	uint8_t m = (uint8_t)(2 * t->iter);

	if (t->iomap)
		return io_one_way(t, RT_STEP_FORWARD, m) ||
		       io_one_way(t, RT_STEP_BACK, (uint8_t)(m + 1)) ? -1 : 0;
	return one_way(t, RT_STEP_FORWARD) || one_way(t, RT_STEP_BACK) ? -1 : 0;
}

static int iterate(struct rt_stream_test *t, struct rt_hist *lat)
{
	const struct rt_stream_row *r = t->row;
	uint64_t prev = rt_now_ns();

	for (t->iter = 0; t->iter < r->iters; t->iter++) {
		uint64_t now;

		if (both_ways(t))
			return -1;
		now = rt_now_ns();
		if (r->iters > 1) /* comparable with usec/xfer */
			rt_hist_add(lat, (now - prev) / (2 * r->count));
		prev = now;
	}
	return 0;
}

/* The row's JSON goes into the results, or to the parent from a fork child. */
static void report_row(struct rt_stream_test *t, double usec, struct rt_hist *lat)
{
	char line[160];
	struct rt_json j;

	rt_progress_clear(&t->progress);
	rt_stream_row_format(line, sizeof(line), t->row, usec);
	rt_say(t->log, "%s", line);
	rt_json_init(&j);
	rt_stream_row_json(&j, t->row, t->conn, usec, lat);
	rt_json_finish(&j);
	if (t->child && !rt_child_result(t->child, rt_json_text(&j)))
		rt_warn(t->log, "row %s: no room for its JSON record", t->row->name);
	else if (!t->child)
		rt_json_raw(t->results, rt_json_text(&j));
	rt_json_free(&j);
}

/* After an interrupt, the iterations done so far as a row of their own
 * (ping(8)'s summary so far); the message still names where it stopped. */
static void report_partial(struct rt_stream_test *t, uint64_t t0)
{
	const struct rt_stream_row *whole = t->row;
	struct rt_stream_row done = *whole;

	if (!t->iter || t->err->set || !rt_interrupt_signal())
		return;
	done.iters = t->iter;
	t->row = &done;
	report_row(t, (double)(rt_now_ns() - t0) / 1e3, &t->lat);
	t->row = whole;
}

static int run_row(struct rt_stream_test *t, const struct rt_stream_row *r)
{
	uint64_t t0;
	int rc;

	t->row = r;
	t->iter = t->xfer = 0;
	memset(&t->lat, 0, sizeof(t->lat));
	t->row_start_bytes = t->s->sent + t->s->received;
	if (t->iomap) {
		t->iomap[r->size - 1] = 0xff; /* no marker yet: the first is 0 */
		if (rt_stream_iomap(t->s, t->iomap, (size_t)r->size, t->err))
			return -1;
	}
	rc = sync_row(t);
	t0 = rt_now_ns();
	rt_progress_start(&t->progress, t->progress_out, t0);
	if (!rc)
		rc = iterate(t, &t->lat);
	if (!rc)
		report_row(t, (double)(rt_now_ns() - t0) / 1e3, &t->lat);
	else
		report_partial(t, t0);
	rt_progress_clear(&t->progress);
	if (t->iomap)
		rt_stream_iounmap(t->s, t->iomap, (size_t)r->size);
	return rc;
}

/* The server lets the client close first: upstream's -T a client fails
 * (POLLHUP) when the disconnect overtakes its last read. Bytes after the
 * last row mean the client ran more than we did. */
static int await_client_close(struct rt_stream_test *t)
{
	char where[128], hint[160];
	uint64_t extra = 0;
	long long ms = t->s->timeout_ms;
	int rc = rt_stream_await_close(t->s, ms, &extra);

	if (rc == RT_INTERRUPTED || (!rc && !extra))
		return rc;
	rt_stream_test_describe(t, where, sizeof(where), hint, sizeof(hint));
	if (extra)
		return rt_fail(t->err, RT_EXIT_FAIL, "%s: the client sent %llu "
			       "bytes after the last row: %s", where,
			       (unsigned long long)extra, hint);
	rt_warn(t->log, "%s: the client did not close within %g s", where,
		(double)ms / 1000);
	return 0;
}

int rt_stream_test_rows(struct rt_stream_test *t, const struct rt_stream_row *rows, size_t n)
{
	rt_error_phase(t->err, "transfer");
	for (size_t i = 0; i < n; i++)
		if (run_row(t, &rows[i]))
			return -1;
	t->row = NULL;
	return t->server ? await_client_close(t) : 0;
}

/* An interrupt is recorded here, where the row and the byte count that
 * it cut short are known; interrupted runs keep the rows done so far. */
void rt_stream_test_interrupted(struct rt_stream_test *t)
{
	char where[128], hint[160];
	int sig = rt_interrupt_signal();

	if (!sig || t->err->set)
		return;
	rt_progress_clear(&t->progress);
	rt_stream_test_describe(t, where, sizeof(where), hint, sizeof(hint));
	rt_fail(t->err, rt_interrupt_exit_code(sig), "%s: interrupted by %s",
		where, rt_interrupt_name(sig));
}

