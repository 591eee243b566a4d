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
 * or a target that is no regular file is refused with an error response
 * and one line (applets/rdmacm/confine.c); a bad header is an error response too.
 * Memory is bounded: a 64 KiB transfer buffer and a 4 KiB path. Both sides
 * print the POSIX cksum(1) of the bytes moved, and every wait is bounded
 * by --timeout. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmacm/confine.h"
#include "rdmacm/rsock.h"
#include "rdmatest/util.h"

#define RCOPY_PORT 7427
#define CHUNK ((size_t)64 * 1024)
#define PATH_BYTES 4096 /* the longest destination path, NUL included */

enum { CMD_OPEN = 1, CMD_CLOSE = 2, CMD_WRITE = 3, CMD_RESP = 0x80 };

struct hdr {
	uint8_t version;
	uint8_t command;
	uint16_t len;
	uint32_t data;
	uint64_t id;
};
_Static_assert(sizeof(struct hdr) == 16, "rcopy's header is 16 bytes");

struct rcopy_cfg {
	const char *source;
	const char *target; /* server[:destination] */
	long long port;
	const char *dir;
	long long clients;
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
	/* server */
	int dirfd, fd;
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
	{ 0, "tcp", RT_OPT_FLAG, RT_I(tcp), 0, 0, NULL, NULL,
	  "kernel TCP sockets instead of rsockets (both sides rdmatest)", NULL },
	{ 0 },
};

RT_APPLET(rcopy, "copy a file to a server over an rsocket",
	  "[-p port] [-d dir] [--clients N] | SOURCE SERVER[:DEST] [-p port]",
	  "Without SOURCE it is the server: it accepts one client at a time and "
	  "writes the files they send below -d DIR (default: the current "
	  "directory), refusing absolute paths, '..', symbolic links on the way "
	  "and anything but a regular file, each with an error response and one "
	  "line. With SOURCE and SERVER[:DEST] it is the client. Wire-compatible "
	  "with rdma-core's rcopy (port 7427); both sides print the cksum(1) "
	  "checksum and size of the bytes copied, and every wait is bounded by "
	  "--timeout.");

/* ---- messages ---- */

static int send_hdr(struct rcopy *x, uint8_t cmd, uint16_t len, uint32_t data, uint64_t id)
{
	struct hdr h = { .command = cmd, .len = len, .data = data, .id = id };

	return rt_stream_send_all(&x->s, &h, sizeof(h), &x->run->err);
}

/* Header checks common to both sides; what names the message. */
static int check_hdr(struct rcopy *x, const struct hdr *h, const char *what)
{
	if (h->version || h->len < sizeof(*h))
		return rt_fail(&x->run->err, RT_EXIT_FAIL, "%s: bad header (version %u, "
			       "length %u): is the peer rcopy?", what, h->version, h->len);
	return 0;
}

/* ---- client ---- */

static int get_resp(struct rcopy *x, uint8_t cmd, const char *what)
{
	struct hdr h;

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
	uint8_t msg[sizeof(struct hdr) + PATH_BYTES + 8] = { 0 };
	struct hdr h = { .command = CMD_OPEN, .len = (uint16_t)(sizeof(h) + padded),
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
	uint8_t msg[sizeof(struct hdr) + 8];
	struct hdr h = { .command = CMD_WRITE, .len = sizeof(msg), .id = ++x->id };
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
		     send_hdr(x, CMD_CLOSE, sizeof(struct hdr), 0, ++x->id) ||
		     get_resp(x, CMD_CLOSE, "CLOSE") ? -1 : 0;
	close(fd);
	if (!rc)
		client_report(x, dest, (uint64_t)st.st_size, rt_now_ns() - t0);
	rt_stream_close(&x->s, !rc);
	return rc;
}

/* ---- server ---- */

/* An error response and the refusal line; the client is dropped after it
 * (as upstream ends a client's session at the first error). */
static int refuse(struct rcopy *x, const struct hdr *h, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(struct rcopy *x, const struct hdr *h, int e, const char *fmt, ...)
{
	char why[PATH_BYTES + 200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rt_warn(&x->run->log, "client %u: %s (%s)", x->client, why, strerror(e));
	send_hdr(x, (uint8_t)(h->command | CMD_RESP), sizeof(*h), (uint32_t)e, h->id);
	return -1;
}

static int srv_open(struct rcopy *x, const struct hdr *h)
{
	char path[PATH_BYTES + 8];
	size_t len = h->len - sizeof(*h);
	const char *why;

	if (len > sizeof(path))
		return refuse(x, h, EINVAL, "OPEN with a %zu-byte path, over %zu", len,
			      sizeof(path));
	if (rt_stream_recv_all(&x->s, path, len, &x->run->err))
		return -1;
	if (!memchr(path, 0, len))
		return refuse(x, h, EINVAL, "OPEN path without its NUL");
	if (x->fd >= 0)
		return refuse(x, h, EBUSY, "OPEN '%s' while a file is open", path);
	x->fd = rt_confine_open(x->dirfd, path, (mode_t)h->data, &why);
	if (x->fd < 0)
		return refuse(x, h, errno, "refused '%s': %s", path, why);
	rt_say(&x->run->log, "client %u: opening: %s", x->client, path);
	rt_cksum_init(&x->sum);
	return send_hdr(x, CMD_OPEN | CMD_RESP, sizeof(*h), 0, h->id);
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

static int srv_data(struct rcopy *x, const struct hdr *h, uint64_t size)
{
	uint64_t done = 0;

	while (done < size) {
		size_t n = (size_t)RT_MIN(size - done, (uint64_t)CHUNK);

		if (rt_stream_recv_all(&x->s, x->buf, n, &x->run->err))
			return -1;
		rt_cksum_add(&x->sum, x->buf, n);
		if (write_all(x->fd, x->buf, n))
			return refuse(x, h, errno, "write after byte %llu",
				      (unsigned long long)done);
		done += n;
	}
	rt_say(&x->run->log, "client %u: cksum %u %llu", x->client,
	       rt_cksum_end(&x->sum, size), (unsigned long long)size);
	return send_hdr(x, CMD_WRITE | CMD_RESP, sizeof(*h), 0, h->id);
}

static int srv_write(struct rcopy *x, const struct hdr *h)
{
	uint64_t size;
	int e;

	if (h->len != sizeof(*h) + sizeof(size))
		return refuse(x, h, EINVAL, "WRITE of length %u, not 24", h->len);
	if (rt_stream_recv_all(&x->s, &size, sizeof(size), &x->run->err))
		return -1;
	if (x->fd < 0)
		return refuse(x, h, EINVAL, "WRITE before OPEN");
	if (size > (uint64_t)INT64_MAX)
		return refuse(x, h, EFBIG, "WRITE of %llu bytes", (unsigned long long)size);
	e = size ? posix_fallocate(x->fd, 0, (off_t)size) : 0;
	if (e && e != EOPNOTSUPP && e != EINVAL) /* tmpfs and others may not */
		return refuse(x, h, e, "no room for %llu bytes", (unsigned long long)size);
	return srv_data(x, h, size);
}

static int srv_close(struct rcopy *x, const struct hdr *h)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	rt_say(&x->run->log, "client %u: closing...done", x->client);
	return send_hdr(x, CMD_CLOSE | CMD_RESP, sizeof(*h), 0, h->id);
}

/* 1: the client closed between messages, its normal end. */
static int next_command(struct rcopy *x, struct hdr *h)
{
	struct rt_error e = { 0 };
	uint64_t before = x->s.received;

	if (!rt_stream_recv_all(&x->s, h, sizeof(*h), &e))
		return 0;
	if (e.exit_code == RT_EXIT_FAIL && !e.err_no && x->s.received == before)
		return 1;
	return rt_error_adopt(&x->run->err, &e);
}

static int serve_client(struct rcopy *x)
{
	struct hdr h;
	int rc;

	while (!(rc = next_command(x, &h))) {
		if (h.version || h.len < sizeof(h))
			rc = refuse(x, &h, EINVAL, "bad header (version %u, length %u)",
				    h.version, h.len);
		else if (h.command == CMD_OPEN)
			rc = srv_open(x, &h);
		else if (h.command == CMD_WRITE)
			rc = srv_write(x, &h);
		else if (h.command == CMD_CLOSE)
			rc = srv_close(x, &h);
		else
			rc = refuse(x, &h, EINVAL, "unknown command %u", h.command);
		if (rc)
			break;
	}
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	return rc == 1 ? 0 : -1;
}

static int accept_one(struct rcopy *x, int lfd)
{
	int fd;

	rt_error_phase(&x->run->err, "accept");
	if (rt_sock_accept(x->ops, lfd, rt_run_accept_bound(x->run), &fd, &x->run->err))
		return -1;
	x->s = (struct rt_stream){ .ops = x->ops, .fd = fd, .wait = RT_WAIT_POLL,
				   .timeout_ms = x->run->common.timeout_ms,
				   .connected = true };
	return rt_stream_set_wait(&x->s, &x->run->err);
}

static int server_loop(struct rcopy *x, int lfd)
{
	unsigned n = (unsigned)x->cfg->clients;

	while (!n || x->client < n) {
		struct rt_error keep = x->run->err;
		int rc;

		rt_say(&x->run->log, "waiting for connection...");
		rt_log_flush(&x->run->log);
		if (accept_one(x, lfd))
			return -1;
		x->client++;
		rt_error_phase(&x->run->err, "transfer");
		rc = serve_client(x);
		if (rc && x->run->err.set) /* a client's failure is its own line */
			rt_warn(&x->run->log, "client %u: %s", x->client, x->run->err.reason);
		x->failed += rc ? 1 : 0;
		x->run->err = keep;
		rt_stream_close(&x->s, !rc);
	}
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
	struct rcopy x = { .cfg = cfg, .run = run, .fd = -1, .dirfd = -1,
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
