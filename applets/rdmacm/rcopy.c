/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rcopy: copy one file to a server over a stream rsocket (or kernel TCP
 * with --tcp), wire-compatible with rdma-core's rcopy (v44).
 *
 * Messages start with a 16-byte header in host byte order, as upstream
 * (its code has a "TODO: handle byte swapping"): version 0, command (OPEN
 * 1, CLOSE 2, WRITE 3; a response has bit 0x80 and the status, 0 or an
 * errno, in `data`), length including the header, data, id. OPEN carries
 * the destination path, NUL-terminated and padded to a multiple of 8,
 * with the source's st_mode in `data`; WRITE carries a 64-bit byte count
 * after the header, then that many raw bytes; every command is answered.
 *
 * Unlike upstream, the server writes only below its --dir (default the
 * current directory): an absolute path, "..", a symbolic link on the way
 * or a target that is no regular file with one link is refused with an
 * error response and one line (applets/rdmacm/confine.c); a bad header is
 * an error response too. The data goes to a temporary file renamed over
 * the target at CLOSE once read back and matched, so a client that
 * vanishes leaves nothing; nothing is reserved before it arrives, and a
 * size over --max-size or the free space is refused. Clients are served
 * on threads of their own, --concurrent at a time, each bounded by
 * --timeout per stall and --max-time in all. Names from clients are
 * printed escaped. Memory is bounded: a 64 KiB transfer buffer and a
 * 4 KiB path per client. Both sides print the POSIX cksum(1) of the bytes
 * moved. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/interrupt.h"
#include "rdmacm/confine.h"
#include "rdmacm/rcopy.h"
#include "rdmacm/rsock.h"
#include "rdmatest/util.h"

#define RCOPY_PORT 7427
#define CHUNK ((size_t)64 * 1024)
#define PATH_BYTES RT_RCOPY_PATH_BYTES

enum {
	CMD_OPEN = RT_RCOPY_OPEN, CMD_CLOSE = RT_RCOPY_CLOSE, CMD_WRITE = RT_RCOPY_WRITE,
	CMD_RESP = RT_RCOPY_RESP
};

struct rcopy_cfg {
	const char *source;
	const char *target; /* server[:destination] */
	long long port;
	const char *dir;
	long long clients;
	long long concurrent;
	long long max_time_ms;
	long long max_size;
	int allow_exec;
	int tcp;
};

struct rcopy {
	struct rcopy_cfg *cfg;
	struct rt_run *run;
	const struct rt_sock_ops *ops;
	struct rt_stream s;
	struct rt_cksum sum;
	uint8_t *buf;        /* CHUNK bytes */
	uint64_t id;
	/* server: clients are served by srv_client threads */
	int dirfd;
	unsigned client, failed;
};

#define RT_CFG struct rcopy_cfg

static const struct rt_opt rcopy_opts[] = {
	{ 0, "source", RT_OPT_OPERAND, RT_S(source), 0, 0, NULL, "SOURCE",
	  "client: the file to copy (without it, this is the server)", NULL },
	{ 0, "target", RT_OPT_OPERAND, RT_S(target), 0, 0, NULL, "SERVER[:DEST]",
	  "client: the server, and the destination path below the server's "
	  "--dir (default: SOURCE as given)", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7427", "PORT", "port", NULL },
	{ 'd', "dir", RT_OPT_STRING, RT_S(dir), 0, 0, NULL, "DIR",
	  "server: write only below DIR (default: the current directory)", NULL },
	{ 0, "clients", RT_OPT_INT, RT_L(clients), 0, 1 << 20, "0", "N",
	  "server: end after N clients (0: serve until interrupted)", NULL },
	{ 0, "concurrent", RT_OPT_INT, RT_L(concurrent), 1, 64, "4", "N",
	  "server: serve up to N clients at once", NULL },
	{ 0, "max-time", RT_OPT_SECONDS, RT_L(max_time_ms), 0, 604800000, "3600", "SEC",
	  "server: drop a client still connected SEC seconds after it was "
	  "accepted, however steadily it sends (0: no bound; --timeout bounds "
	  "each stall)", NULL },
	{ 0, "max-size", RT_OPT_SIZE, RT_L(max_size), 0, 1LL << 60, "64g", "BYTES",
	  "server: refuse a file larger than BYTES, or than the free space of "
	  "the target's file system", NULL },
	{ 0, "allow-exec", RT_OPT_FLAG, RT_I(allow_exec), 0, 0, NULL, NULL,
	  "server: keep the execute bits of the source's mode (set-id and "
	  "sticky bits are always dropped)", NULL },
	{ 0, "tcp", RT_OPT_FLAG, RT_I(tcp), 0, 0, NULL, NULL,
	  "kernel TCP sockets instead of rsockets (both sides rdmatest)", NULL },
	{ 0 },
};

RT_APPLET(rcopy, "copy a file to a server over an rsocket",
	  "[-p port] [-d dir] [--clients N] | SOURCE SERVER[:DEST] [-p port]",
	  "Without SOURCE it is the server: it serves up to --concurrent clients "
	  "at once and writes the files they send below -d DIR (default: the "
	  "current directory), refusing absolute paths, '..', symbolic links on "
	  "the way and anything but a regular file with one link, each with an "
	  "error response and one line. A file is written under a temporary name "
	  "beside the target and renamed over it only when the client closes it "
	  "and it reads back as sent; a client that goes away leaves nothing. "
	  "Sizes over --max-size (default 64 GiB) or the free space are refused; "
	  "modes lose set-id and sticky bits, and execute bits unless "
	  "--allow-exec; the umask applies. Names from clients are printed "
	  "with control characters escaped (\\n, \\x1b). With SOURCE and "
	  "SERVER[:DEST] it is the client. Wire-compatible with rdma-core's rcopy "
	  "(port 7427); both sides print the cksum(1) checksum and size of the "
	  "bytes copied. Every wait is bounded by --timeout (a stall), and the "
	  "server drops a client --max-time (default 3600 s) after accepting it.");

/* ---- messages ---- */

static int send_hdr(struct rt_stream *s, struct rt_error *err, uint8_t cmd,
		    uint16_t len, uint32_t data, uint64_t id)
{
	struct rt_rcopy_hdr h = { .command = cmd, .len = len, .data = data, .id = id };

	return rt_stream_send_all(s, &h, sizeof(h), err);
}

/* Header checks common to both sides; what names the message. */
static int check_hdr(struct rcopy *x, const struct rt_rcopy_hdr *h, const char *what)
{
	if (h->version || h->len < sizeof(*h))
		return rt_fail(&x->run->err, RT_EXIT_FAIL, "%s: bad header (version %u, "
			       "length %u): is the peer rcopy?", what, h->version, h->len);
	return 0;
}

/* ---- client ---- */

static int get_resp(struct rcopy *x, uint8_t cmd, const char *what)
{
	struct rt_rcopy_hdr h;

	if (rt_stream_recv_all(&x->s, &h, sizeof(h), &x->run->err) ||
	    check_hdr(x, &h, what))
		return -1;
	if (h.len != sizeof(h) || h.command != (cmd | CMD_RESP) || h.id != x->id)
		return rt_fail(&x->run->err, RT_EXIT_FAIL, "%s: unexpected response "
			       "(command 0x%x, length %u, id %llu)", what, h.command,
			       h.len, (unsigned long long)h.id);
	if (h.data)
		return rt_fail_errno(&x->run->err, RT_EXIT_FAIL, (int)h.data,
				     "the server refused %s", what);
	return 0;
}

static int client_open(struct rcopy *x, const char *dest, mode_t mode)
{
	size_t padded = (strlen(dest) + 8) & ~(size_t)7;
	uint8_t msg[sizeof(struct rt_rcopy_hdr) + PATH_BYTES + 8] = { 0 };
	struct rt_rcopy_hdr h = { .command = CMD_OPEN, .len = (uint16_t)(sizeof(h) + padded),
			 .data = (uint32_t)mode, .id = ++x->id };
	char what[PATH_BYTES + 16];

	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), dest, strlen(dest) + 1);
	snprintf(what, sizeof(what), "OPEN '%s'", dest);
	if (rt_stream_send_all(&x->s, msg, h.len, &x->run->err))
		return -1;
	return get_resp(x, CMD_OPEN, what);
}

static int client_write(struct rcopy *x, int fd, uint64_t size)
{
	uint8_t msg[sizeof(struct rt_rcopy_hdr) + 8];
	struct rt_rcopy_hdr h = { .command = CMD_WRITE, .len = sizeof(msg), .id = ++x->id };
	uint64_t done = 0;

	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), &size, sizeof(size));
	if (rt_stream_send_all(&x->s, msg, sizeof(msg), &x->run->err))
		return -1;
	while (done < size) {
		ssize_t n = read(fd, x->buf, (size_t)RT_MIN(size - done, (uint64_t)CHUNK));

		if (n <= 0)
			return rt_fail_errno(&x->run->err, RT_EXIT_FAIL, n ? errno : 0,
					     "reading the source at byte %llu of %llu%s",
					     (unsigned long long)done, (unsigned long long)size,
					     n ? "" : ": it shrank");
		rt_cksum_add(&x->sum, x->buf, (size_t)n);
		if (rt_stream_send_all(&x->s, x->buf, (size_t)n, &x->run->err))
			return -1;
		done += (uint64_t)n;
	}
	return get_resp(x, CMD_WRITE, "WRITE");
}

static void client_report(struct rcopy *x, const char *dest, uint64_t size, uint64_t ns)
{
	double sec = (double)ns / 1e9;
	uint32_t ck = rt_cksum_end(&x->sum, size);
	struct rt_json *j = &x->run->results;

	rt_say(&x->run->log, "opening...transferring...closing...done");
	rt_say(&x->run->log, "%llu bytes in %.2f seconds = %.2f Gb/sec",
	       (unsigned long long)size, sec, sec > 0 ? (double)size * 8 / sec / 1e9 : 0.0);
	rt_say(&x->run->log, "cksum %u %llu %s", ck, (unsigned long long)size, dest);
	rt_json_kv_string(j, "role", "client");
	rt_json_kv_string(j, "destination", dest);
	rt_json_kv_uint(j, "bytes", size);
	rt_json_kv_uint(j, "cksum", ck);
	rt_json_kv_double(j, "seconds", sec);
}

static int open_source(struct rcopy *x, int *fd, struct stat *st)
{
	*fd = open(x->cfg->source, O_RDONLY | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, st))
		return rt_fail_errno(&x->run->err, RT_EXIT_USAGE, errno, "source '%s'",
				     x->cfg->source);
	if (!S_ISREG(st->st_mode))
		return rt_fail(&x->run->err, RT_EXIT_USAGE, "source '%s' is not a "
			       "regular file", x->cfg->source);
	return 0;
}

static int client_run(struct rcopy *x)
{
	char server[256];
	const char *colon = strchr(x->cfg->target, ':'), *dest;
	struct rt_addr_query q = { .node = server, .port = x->cfg->port, .ps = RDMA_PS_TCP,
				   .what = "SERVER" };
	struct rt_sockaddr ep = { 0 };
	struct rt_sock_tuning t = { .inline_size = -1 };
	struct stat st = { 0 };
	uint64_t t0;
	int fd = -1, rc;

	dest = colon ? colon + 1 : x->cfg->source; /* the first ':', as upstream */
	rt_strlcpy(server, x->cfg->target, RT_MIN(sizeof(server),
		   (size_t)(colon ? colon - x->cfg->target + 1 : (long)sizeof(server))));
	if (!*dest || strlen(dest) >= PATH_BYTES)
		return rt_fail(&x->run->err, RT_EXIT_USAGE, "destination: 1 to %d bytes, "
			       "not %zu", PATH_BYTES - 1, strlen(dest));
	if (open_source(x, &fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rt_error_phase(&x->run->err, "connect");
	x->s = (struct rt_stream){ .ops = x->ops, .fd = -1, .wait = RT_WAIT_POLL,
				   .timeout_ms = x->run->common.timeout_ms };
	rc = rt_addr_lookup(&q, false, &ep, &x->run->err) ||
	     rt_stream_dial(&x->s, &ep, &t, x->run->common.wait_server_ms,
			    &x->run->log, &x->run->err) ? -1 : 0;
	rt_sockaddr_free(&ep);
	rt_error_phase(&x->run->err, "transfer");
	t0 = rt_now_ns();
	if (!rc)
		rc = client_open(x, dest, st.st_mode) ||
		     client_write(x, fd, (uint64_t)st.st_size) ||
		     send_hdr(&x->s, &x->run->err, CMD_CLOSE, sizeof(struct rt_rcopy_hdr), 0, ++x->id) ||
		     get_resp(x, CMD_CLOSE, "CLOSE") ? -1 : 0;
	close(fd);
	if (!rc)
		client_report(x, dest, (uint64_t)st.st_size, rt_now_ns() - t0);
	rt_stream_close(&x->s, !rc);
	return rc;
}

/* ---- server ---- */

/* One client, served on a thread of its own: nothing in it is shared
 * but the read-only struct rcopy. */
struct srv_client {
	const struct rcopy *x;
	unsigned no;
	struct rt_stream s;
	struct rt_error err;
	struct rt_cksum sum;
	struct rt_confined file; /* file.fd -1: none open */
	uint64_t written;        /* bytes into file since OPEN */
	pthread_t thread;
	atomic_bool done;
	int rc;
	uint8_t buf[CHUNK];
};

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
	flockfile(c->x->run->log.human);
	rt_say(&c->x->run->log, "client %u: %s", c->no, line);
	funlockfile(c->x->run->log.human);
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
	rt_warn(&c->x->run->log, "client %u: %s (%s)", c->no, why, strerror(e));
	send_hdr(&c->s, &c->err, (uint8_t)(h->command | CMD_RESP), sizeof(*h),
		 (uint32_t)e, h->id);
	return -1;
}

static int srv_open(struct srv_client *c, const struct rt_rcopy_msg *m)
{
	const struct rt_rcopy_hdr *h = &m->h;
	char shown[PATH_BYTES * 4 + 1];
	const char *why;

	rt_confine_escape(m->path, shown, sizeof(shown));
	if (c->file.fd >= 0)
		return refuse(c, h, EBUSY, "OPEN '%s' while a file is open", shown);
	if (rt_confine_open(c->x->dirfd, m->path, (mode_t)h->data, c->x->cfg->allow_exec,
			    &c->file, &why) < 0)
		return refuse(c, h, errno, "refused '%s': %s", shown, why);
	srv_say(c, "opening: %s", shown);
	rt_cksum_init(&c->sum);
	c->written = 0;
	return send_hdr(&c->s, &c->err, CMD_OPEN | CMD_RESP, sizeof(*h), 0, h->id);
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
		rt_cksum_add(&c->sum, c->buf, n);
		if (write_all(c->file.fd, c->buf, n))
			return refuse(c, h, errno, "write after byte %llu",
				      (unsigned long long)done);
		done += n;
		c->written += n;
	}
	srv_say(c, "cksum %u %llu", rt_cksum_end(&c->sum, size), (unsigned long long)size);
	return send_hdr(&c->s, &c->err, CMD_WRITE | CMD_RESP, sizeof(*h), 0, h->id);
}

/* Refuses a size over --max-size or the free space of the target's file
 * system, before any byte lands: nothing is reserved up front. */
static int size_refusal(struct srv_client *c, const struct rt_rcopy_hdr *h, uint64_t size)
{
	uint64_t max = (uint64_t)c->x->cfg->max_size, room;
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

/* Reads the file back: what is on disk must be what arrived. */
static int verified(struct srv_client *c)
{
	struct rt_cksum disk;
	uint64_t at = 0;
	ssize_t n;

	rt_cksum_init(&disk);
	while ((n = pread(c->file.fd, c->buf, CHUNK, (off_t)at)) > 0) {
		rt_cksum_add(&disk, c->buf, (size_t)n);
		at += (uint64_t)n;
	}
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
	return send_hdr(&c->s, &c->err, CMD_CLOSE | CMD_RESP, sizeof(*h), 0, h->id);
}

/* The path and size read into c->buf, then parsed there (rt_rcopy_parse). */
int rt_rcopy_parse(const uint8_t *buf, size_t len, struct rt_rcopy_msg *m, char *why,
		   size_t whylen)
{
	const struct rt_rcopy_hdr *h = &m->h;
	size_t body;

	m->need = sizeof(*h);
	if (len < m->need)
		return RT_RCOPY_MORE;
	memcpy(&m->h, buf, sizeof(*h));
	body = h->len - sizeof(*h);
	if (h->version || h->len < sizeof(*h))
		return snprintf(why, whylen, "bad header (version %u, length %u)", h->version,
				h->len), EINVAL;
	if (h->command == CMD_OPEN && body > PATH_BYTES + 8)
		return snprintf(why, whylen, "OPEN with a %zu-byte path, over %zu", body,
				(size_t)PATH_BYTES + 8), EINVAL;
	if (h->command == CMD_WRITE && body != sizeof(m->size))
		return snprintf(why, whylen, "WRITE of length %u, not 24", h->len), EINVAL;
	if (h->command != CMD_OPEN && h->command != CMD_WRITE && h->command != CMD_CLOSE)
		return snprintf(why, whylen, "unknown command %u", h->command), EINVAL;
	m->need += h->command == CMD_CLOSE ? 0 : body;
	if (len < m->need)
		return RT_RCOPY_MORE;
	if (h->command == CMD_OPEN && !memchr(buf + sizeof(*h), 0, body))
		return snprintf(why, whylen, "OPEN path without its NUL"), EINVAL;
	m->path = (const char *)buf + sizeof(*h);
	if (h->command == CMD_WRITE)
		memcpy(&m->size, buf + sizeof(*h), sizeof(m->size));
	return 0;
}

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

	c->rc = serve_client(c);
	if (c->rc && c->err.set) /* a client's failure is its own line */
		rt_warn(&c->x->run->log, "client %u: %s", c->no, c->err.reason);
	rt_stream_close(&c->s, !c->rc);
	atomic_store(&c->done, true);
	return NULL;
}

static int start_client(struct rcopy *x, int fd, struct srv_client **slot)
{
	struct srv_client *c = rt_xcalloc(1, sizeof(*c));
	long long max_ms = x->run->common.timeout_ms, whole = x->cfg->max_time_ms;

	*c = (struct srv_client){ .x = x, .no = ++x->client, .file = { .fd = -1, .dir = -1 },
		.s = { .ops = x->ops, .fd = fd, .wait = RT_WAIT_POLL, .timeout_ms = max_ms,
		       .connected = true,
		       .deadline_ns = whole > 0 ? rt_deadline_after_ms(whole) : 0 } };
	rt_error_phase(&c->err, "transfer");
	if (rt_stream_set_wait(&c->s, &x->run->err) ||
	    pthread_create(&c->thread, NULL, client_thread, c)) {
		rt_stream_close(&c->s, false);
		free(c);
		return x->run->err.set ? -1 : rt_fail(&x->run->err, RT_EXIT_FAIL,
						      "cannot start a client's thread");
	}
	*slot = c;
	return 0;
}

/* Joins the clients that ended (all of them when `all`); returns how
 * many are still being served. */
static unsigned reap(struct rcopy *x, struct srv_client **slots, bool all)
{
	unsigned busy = 0;

	for (long long i = 0; i < x->cfg->concurrent; i++) {
		struct srv_client *c = slots[i];

		if (!c || (!all && !atomic_load(&c->done))) {
			busy += c != NULL;
			continue;
		}
		pthread_join(c->thread, NULL);
		x->failed += c->rc ? 1 : 0;
		free(c);
		slots[i] = NULL;
	}
	return busy;
}

#define REAP_SLICE_MS 100

/* Waits for the next client; while others are served it wakes every
 * REAP_SLICE_MS to join those that ended, and --accept-timeout counts
 * only the time with none being served. */
static int accept_next(struct rcopy *x, int lfd, struct srv_client **slots, int *fd)
{
	long long bound = rt_run_accept_bound(x->run);
	uint64_t idle_from = rt_now_ns();

	rt_say(&x->run->log, "waiting for connection...");
	rt_log_flush(&x->run->log);
	rt_error_phase(&x->run->err, "accept");
	for (;;) {
		struct rt_error e = { 0 };
		bool busy = reap(x, slots, false) > 0;
		long long left = bound - (long long)((rt_now_ns() - idle_from) / 1000000u);
		int rc;

		if (busy)
			idle_from = rt_now_ns();
		rc = rt_sock_accept(x->ops, lfd, busy ? REAP_SLICE_MS : bound < 0 ? -1
				    : RT_MAX(left, 0LL), fd, &e);
		if (rc == RT_INTERRUPTED || !rc)
			return rc;
		if (!busy || e.exit_code != RT_EXIT_TIMEOUT)
			return rt_error_adopt(&x->run->err, &e);
	}
}

/* A free slot, waiting while --concurrent clients are being served. */
static int free_slot(struct rcopy *x, struct srv_client **slots, struct srv_client ***slot)
{
	for (;;) {
		reap(x, slots, false);
		for (long long i = 0; i < x->cfg->concurrent; i++)
			if (!slots[i]) {
				*slot = &slots[i];
				return 0;
			}
		if (rt_interrupt_pending())
			return RT_INTERRUPTED;
		usleep(REAP_SLICE_MS * 1000);
	}
}

static int serve_clients(struct rcopy *x, int lfd, struct srv_client **slots)
{
	unsigned n = (unsigned)x->cfg->clients;
	struct srv_client **slot;
	int rc = 0, fd;

	while (!rc && (!n || x->client < n)) {
		rc = free_slot(x, slots, &slot) || accept_next(x, lfd, slots, &fd) ||
		     start_client(x, fd, slot) ? -1 : 0;
	}
	reap(x, slots, true);
	return rt_interrupt_pending() ? RT_INTERRUPTED : rc;
}

static int server_loop(struct rcopy *x, int lfd)
{
	struct srv_client **slots = rt_xcalloc((size_t)x->cfg->concurrent, sizeof(struct srv_client *));
	int rc = serve_clients(x, lfd, slots);

	free(slots);
	if (rc)
		return rc;
	rt_error_phase(&x->run->err, "transfer");
	rt_json_kv_uint(&x->run->results, "clients", x->client);
	rt_json_kv_uint(&x->run->results, "failed", x->failed);
	if (x->failed)
		return rt_fail(&x->run->err, RT_EXIT_FAIL, "%u of %u clients failed or "
			       "were refused (see above)", x->failed, x->client);
	return 0;
}

static int server_run(struct rcopy *x)
{
	struct rt_addr_query q = { .port = x->cfg->port, .ps = RDMA_PS_TCP,
				   .passive = true, .what = "-p" };
	struct rt_sockaddr ep = { 0 };
	int lfd = -1, rc;

	x->dirfd = open(x->cfg->dir ? x->cfg->dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (x->dirfd < 0)
		return rt_fail_errno(&x->run->err, RT_EXIT_USAGE, errno, "--dir '%s'",
				     x->cfg->dir);
	rt_error_phase(&x->run->err, "listen");
	rc = rt_addr_lookup(&q, false, &ep, &x->run->err) ||
	     rt_sock_open(x->ops, ep.addr.ss_family, &lfd, &x->run->err) ||
	     rt_sock_listen(x->ops, lfd, (struct sockaddr *)&ep.addr, ep.addr_len,
			    &x->run->err) ? -1 : 0;
	rt_sockaddr_free(&ep);
	rt_json_kv_string(&x->run->results, "role", "server");
	if (!rc)
		rc = server_loop(x, lfd);
	if (lfd >= 0)
		x->ops->close(lfd);
	close(x->dirfd);
	return rc;
}

static int rcopy_main(struct rt_run *run, void *cfgp)
{
	struct rcopy_cfg *cfg = cfgp;
	struct rcopy x = { .cfg = cfg, .run = run, .dirfd = -1,
			   .ops = cfg->tcp ? &rt_sock_kernel : &rt_sock_rdma };
	int rc;

	if (cfg->source && !cfg->target)
		return rt_fail(&run->err, RT_EXIT_USAGE, "a client needs SOURCE and "
			       "SERVER[:DEST]");
	x.s.fd = -1;
	x.buf = rt_xcalloc(1, CHUNK);
	rt_cksum_init(&x.sum);
	rc = cfg->source ? client_run(&x) : server_run(&x);
	free(x.buf);
	return rc;
}
