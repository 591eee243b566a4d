/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rcopy's server (rcopy_server.h): the slots, and one client's messages
 * on a thread of its own. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rdmacm/confine.h"
#include "rdmacm/rcopy.h"
#include "rdmacm/rcopy_server.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"

#define CHUNK ((size_t)64 * 1024)
#define PATH_BYTES RT_RCOPY_PATH_BYTES
#define NS_PER_MS 1000000ull

enum {
	CMD_OPEN = RT_RCOPY_OPEN, CMD_CLOSE = RT_RCOPY_CLOSE, CMD_WRITE = RT_RCOPY_WRITE,
	CMD_RESP = RT_RCOPY_RESP
};

/* One client, served on a thread of its own: nothing in it is shared
 * but the read-only struct rt_rcopy_server. */
struct srv_client {
	const struct rt_rcopy_server *srv;
	unsigned no;
	struct rt_stream s;
	struct rt_error err;
	struct rt_cksum sum;
	struct rt_confined file; /* file.fd -1: none open */
	uint64_t written;        /* bytes into file since OPEN */
	uint64_t accepted_ns;    /* rt_now_ns() when it was accepted */
	uint64_t own_ns;         /* the server's own time (reading files back) */
	bool rate_bound;         /* s.deadline_ns is --min-rate's, not --max-time's */
	pthread_t thread;
	atomic_bool done;
	int rc;
	uint8_t buf[CHUNK];
};

/* ---- the client's time ---- */

/* The --min-rate deadline: one --timeout, plus a second for every
 * min_rate bytes received, plus the server's own time; 0: none. */
static uint64_t rate_deadline(const struct srv_client *c)
{
	const struct rt_rcopy_server *v = c->srv;
	double earned_s;

	if (v->min_rate <= 0)
		return 0;
	earned_s = (double)c->s.received / (double)v->min_rate;
	/* past a year the bound means nothing; the cap keeps the sum in range */
	earned_s = earned_s < 3.2e7 ? earned_s : 3.2e7;
	return c->accepted_ns + c->own_ns + (uint64_t)v->run->common.timeout_ms * NS_PER_MS +
	       (uint64_t)(earned_s * 1e9);
}

/* The whole-connection deadline now: the earlier of --min-rate's and
 * --max-time's, either 0 when off. */
static void renew_deadline(struct srv_client *c)
{
	uint64_t rate = rate_deadline(c), whole = 0;

	if (c->srv->max_time_ms > 0)
		whole = c->accepted_ns + (uint64_t)c->srv->max_time_ms * NS_PER_MS;
	c->rate_bound = rate && (!whole || rate < whole);
	c->s.deadline_ns = c->rate_bound ? rate : whole;
}

/* After a failure past the deadline: which bound it was, for the line. */
static const char *deadline_note(const struct srv_client *c, char *buf, size_t len)
{
	double sec = (double)(rt_now_ns() - c->accepted_ns) / 1e9;

	buf[0] = 0;
	if (!c->rc || !c->s.deadline_ns || rt_now_ns() < c->s.deadline_ns)
		return buf;
	if (c->rate_bound)
		snprintf(buf, len, " (below --min-rate %lld bytes/s: %llu bytes in %.1f s)",
			 c->srv->min_rate, (unsigned long long)c->s.received, sec);
	else
		snprintf(buf, len, " (--max-time %g s)", (double)c->srv->max_time_ms / 1e3);
	return buf;
}

/* ---- lines ---- */

/* One whole line per call even with several clients' threads writing. */
static void srv_say(struct srv_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void srv_say(struct srv_client *c, const char *fmt, ...)
{
	char line[PATH_BYTES * 4 + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	flockfile(c->srv->run->log.human);
	rt_say(&c->srv->run->log, "client %u: %s", c->no, line);
	funlockfile(c->srv->run->log.human);
}

/* An error response and the refusal line; the client is dropped after it
 * (as upstream ends a client's session at the first error). */
static int refuse(struct srv_client *c, const struct rt_rcopy_hdr *h, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(struct srv_client *c, const struct rt_rcopy_hdr *h, int e, const char *fmt, ...)
{
	char why[PATH_BYTES * 4 + 200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rt_warn(&c->srv->run->log, "client %u: %s (%s)", c->no, why, strerror(e));
	rt_rcopy_send_hdr(&c->s, &c->err, (uint8_t)(h->command | CMD_RESP), sizeof(*h),
			  (uint32_t)e, h->id);
	return -1;
}

static int respond(struct srv_client *c, const struct rt_rcopy_hdr *h)
{
	return rt_rcopy_send_hdr(&c->s, &c->err, (uint8_t)(h->command | CMD_RESP),
				 sizeof(*h), 0, h->id);
}

/* ---- the commands ---- */

static int srv_open(struct srv_client *c, const struct rt_rcopy_msg *m)
{
	const struct rt_rcopy_hdr *h = &m->h;
	char shown[PATH_BYTES * 4 + 1];
	const char *why;

	rt_confine_escape(m->path, shown, sizeof(shown));
	if (c->file.fd >= 0)
		return refuse(c, h, EBUSY, "OPEN '%s' while a file is open", shown);
	if (rt_confine_open(c->srv->dirfd, m->path, (mode_t)h->data, c->srv->allow_exec,
			    &c->file, &why) < 0)
		return refuse(c, h, errno, "refused '%s': %s", shown, why);
	srv_say(c, "opening: %s", shown);
	rt_cksum_init(&c->sum);
	c->written = 0;
	return respond(c, h);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int srv_data(struct srv_client *c, const struct rt_rcopy_hdr *h, uint64_t size)
{
	uint64_t done = 0;

	while (done < size) {
		size_t n = (size_t)RT_MIN(size - done, (uint64_t)CHUNK);

		if (rt_stream_recv_all(&c->s, c->buf, n, &c->err))
			return -1;
		renew_deadline(c);
		rt_cksum_add(&c->sum, c->buf, n);
		if (write_all(c->file.fd, c->buf, n))
			return refuse(c, h, errno, "write after byte %llu",
				      (unsigned long long)done);
		done += n;
		c->written += n;
	}
	srv_say(c, "cksum %u %llu", rt_cksum_end(&c->sum, size), (unsigned long long)size);
	return respond(c, h);
}

/* Refuses a size over --max-size or the free space of the target's file
 * system, before any byte lands: nothing is reserved up front. */
static int size_refusal(struct srv_client *c, const struct rt_rcopy_hdr *h, uint64_t size)
{
	uint64_t max = c->srv->max_size, room;
	struct statvfs fs;

	if (size > max)
		return refuse(c, h, EFBIG, "WRITE of %llu bytes, over --max-size %llu",
			      (unsigned long long)size, (unsigned long long)max);
	if (fstatvfs(c->file.fd, &fs))
		return refuse(c, h, errno, "statvfs of the target's file system");
	room = (uint64_t)fs.f_bavail * fs.f_frsize;
	if (size > room)
		return refuse(c, h, ENOSPC, "no room for %llu bytes (%llu free)",
			      (unsigned long long)size, (unsigned long long)room);
	return 0;
}

static int srv_write(struct srv_client *c, const struct rt_rcopy_msg *m)
{
	if (c->file.fd < 0)
		return refuse(c, &m->h, EINVAL, "WRITE before OPEN");
	if (size_refusal(c, &m->h, m->size))
		return -1;
	return srv_data(c, &m->h, m->size);
}

/* Reads the file back: what is on disk must be what arrived. The time it
 * takes is the server's, not counted against the client's --min-rate. */
static int verified(struct srv_client *c)
{
	struct rt_cksum disk;
	uint64_t at = 0, t0 = rt_now_ns();
	ssize_t n;

	rt_cksum_init(&disk);
	while ((n = pread(c->file.fd, c->buf, CHUNK, (off_t)at)) > 0) {
		rt_cksum_add(&disk, c->buf, (size_t)n);
		at += (uint64_t)n;
	}
	c->own_ns += rt_now_ns() - t0;
	renew_deadline(c);
	return n == 0 && at == c->written &&
	       rt_cksum_end(&disk, at) == rt_cksum_end(&c->sum, c->written);
}

static int srv_close(struct srv_client *c, const struct rt_rcopy_hdr *h)
{
	const char *why;

	if (c->file.fd >= 0 && !verified(c)) {
		rt_confine_discard(&c->file);
		return refuse(c, h, EIO, "the file read back differs from what arrived");
	}
	if (c->file.fd >= 0 && rt_confine_commit(&c->file, &why))
		return refuse(c, h, errno, "cannot put the file in place: %s", why);
	srv_say(c, "closing...done");
	return respond(c, h);
}

/* ---- one client ---- */

/* 1: the client closed between messages, its normal end. */
static int next_header(struct srv_client *c)
{
	struct rt_error e = { 0 };
	uint64_t before = c->s.received;

	if (!rt_stream_recv_all(&c->s, c->buf, sizeof(struct rt_rcopy_hdr), &e))
		return 0;
	if (e.exit_code == RT_EXIT_FAIL && !e.err_no && c->s.received == before)
		return 1;
	return rt_error_adopt(&c->err, &e);
}

/* The next whole, valid message in c->buf: 0, 1 at the client's end,
 * else -1 (refused or the stream failed). */
static int next_command(struct srv_client *c, struct rt_rcopy_msg *m)
{
	size_t have = sizeof(struct rt_rcopy_hdr);
	char why[96];
	int rc = next_header(c);

	while (!rc && (rc = rt_rcopy_parse(c->buf, have, m, why, sizeof(why))) ==
		      RT_RCOPY_MORE) {
		rc = rt_stream_recv_all(&c->s, c->buf + have, m->need - have, &c->err);
		have = m->need;
	}
	if (rc > 1) {
		refuse(c, &m->h, rc, "%s", why);
		return -1;
	}
	return rc;
}

static int serve_client(struct srv_client *c)
{
	struct rt_rcopy_msg m;
	int rc;

	while (!(rc = next_command(c, &m))) {
		renew_deadline(c);
		if (m.h.command == CMD_OPEN)
			rc = srv_open(c, &m);
		else if (m.h.command == CMD_WRITE)
			rc = srv_write(c, &m);
		else
			rc = srv_close(c, &m.h);
		if (rc)
			break;
	}
	rt_confine_discard(&c->file); /* a file not closed is not kept */
	return rc == 1 ? 0 : rc == RT_INTERRUPTED ? rc : -1;
}

static void *client_thread(void *arg)
{
	struct srv_client *c = arg;
	char note[96];

	c->rc = serve_client(c);
	if (c->rc && c->err.set) /* a client's failure is its own line */
		rt_warn(&c->srv->run->log, "client %u: %s%s", c->no, c->err.reason,
			deadline_note(c, note, sizeof(note)));
	rt_stream_close(&c->s, !c->rc);
	atomic_store(&c->done, true);
	return NULL;
}

/* ---- the slots ---- */

static int start_client(struct rt_rcopy_server *v, int fd, struct srv_client **slot)
{
	struct srv_client *c = rt_xcalloc(1, sizeof(*c));

	*c = (struct srv_client){ .srv = v, .no = ++v->client, .file = { .fd = -1, .dir = -1 },
		.accepted_ns = rt_now_ns(),
		.s = { .ops = v->ops, .fd = fd, .wait = RT_WAIT_POLL,
		       .timeout_ms = v->run->common.timeout_ms, .connected = true } };
	renew_deadline(c);
	rt_error_phase(&c->err, "transfer");
	if (rt_stream_set_wait(&c->s, &v->run->err) ||
	    pthread_create(&c->thread, NULL, client_thread, c)) {
		rt_stream_close(&c->s, false);
		free(c);
		return v->run->err.set ? -1 : rt_fail(&v->run->err, RT_EXIT_FAIL,
						      "cannot start a client's thread");
	}
	*slot = c;
	return 0;
}

/* Joins the clients that ended (all of them when `all`); returns how
 * many are still being served. */
static unsigned reap(struct rt_rcopy_server *v, struct srv_client **slots, bool all)
{
	unsigned busy = 0;

	for (unsigned i = 0; i < v->concurrent; i++) {
		struct srv_client *c = slots[i];

		if (!c || (!all && !atomic_load(&c->done))) {
			busy += c != NULL;
			continue;
		}
		pthread_join(c->thread, NULL);
		v->failed += c->rc ? 1 : 0;
		free(c);
		slots[i] = NULL;
	}
	return busy;
}

#define REAP_SLICE_MS 100

/* Waits for the next client; while others are served it wakes every
 * REAP_SLICE_MS to join those that ended, and --accept-timeout counts
 * only the time with none being served. */
static int accept_next(struct rt_rcopy_server *v, int lfd, struct srv_client **slots,
		       int *fd)
{
	long long bound = rt_run_accept_bound(v->run);
	uint64_t idle_from = rt_now_ns();

	rt_say(&v->run->log, "waiting for connection...");
	rt_log_flush(&v->run->log);
	rt_error_phase(&v->run->err, "accept");
	for (;;) {
		struct rt_error e = { 0 };
		bool busy = reap(v, slots, false) > 0;
		long long left = bound - (long long)((rt_now_ns() - idle_from) / NS_PER_MS);
		int rc;

		if (busy)
			idle_from = rt_now_ns();
		rc = rt_sock_accept(v->ops, lfd, busy ? REAP_SLICE_MS : bound < 0 ? -1
				    : RT_MAX(left, 0LL), fd, &e);
		if (rc == RT_INTERRUPTED || !rc)
			return rc;
		if (!busy || e.exit_code != RT_EXIT_TIMEOUT)
			return rt_error_adopt(&v->run->err, &e);
	}
}

/* A free slot, waiting while `concurrent` clients are being served. */
static int free_slot(struct rt_rcopy_server *v, struct srv_client **slots,
		     struct srv_client ***slot)
{
	for (;;) {
		reap(v, slots, false);
		for (unsigned i = 0; i < v->concurrent; i++)
			if (!slots[i]) {
				*slot = &slots[i];
				return 0;
			}
		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		usleep(REAP_SLICE_MS * 1000);
	}
}

int rt_rcopy_serve(struct rt_rcopy_server *v, int lfd)
{
	struct srv_client **slots = rt_xcalloc(v->concurrent, sizeof(*slots));
	struct srv_client **slot;
	int rc = 0, fd;

	while (!rc && (!v->clients || v->client < v->clients)) {
		rc = free_slot(v, slots, &slot) || accept_next(v, lfd, slots, &fd) ||
		     start_client(v, fd, slot) ? -1 : 0;
	}
	reap(v, slots, true);
	free(slots);
	return rt_interrupt_pending() ? RT_INTERRUPTED : rc;
}
