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
 * --timeout per stall, --min-rate over its whole connection and
 * --max-time in all (applets/rdmacm/rcopy_server.c), so that slow
 * clients cannot hold every slot. Names from clients are printed escaped.
 * Memory is bounded: a 64 KiB transfer buffer and a 4 KiB path per
 * client. Both sides print the POSIX cksum(1) of the bytes moved. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/applet.h"
#include "rdmatest/cm.h"
#include "rdmacm/confine.h"
#include "rdmacm/rcopy.h"
#include "rdmacm/rcopy_server.h"
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
	long long min_rate;
	long long max_size;
	int allow_exec;
	int tcp;
	long long tos;
};

struct rcopy {
	struct rcopy_cfg *cfg;
	struct rt_run *run;
	const struct rt_sock_ops *ops;
	struct rt_stream s;
	struct rt_cksum sum;
	uint8_t *buf;        /* CHUNK bytes */
	uint64_t id;
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
	{ 0, "min-rate", RT_OPT_SIZE, RT_L(min_rate), 0, 1LL << 40, "1m", "BYTES",
	  "server: drop a client that falls behind BYTES per second since it was "
	  "accepted by more than --timeout: a file of SIZE bytes must be done "
	  "within --timeout + SIZE/BYTES seconds (0: no bound)", NULL },
	{ 0, "max-size", RT_OPT_SIZE, RT_L(max_size), 0, 1LL << 60, "64g", "BYTES",
	  "server: refuse a file larger than BYTES, or than the free space of "
	  "the target's file system", NULL },
	{ 0, "allow-exec", RT_OPT_FLAG, RT_I(allow_exec), 0, 0, NULL, NULL,
	  "server: keep the execute bits of the source's mode (set-id and "
	  "sticky bits are always dropped)", NULL },
	{ 0, "tcp", RT_OPT_FLAG, RT_I(tcp), 0, 0, NULL, NULL,
	  "kernel TCP sockets instead of rsockets (both sides rdmatest)", NULL },
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP_CLIENT("its connection's")),
	{ 0 },
};

RT_APPLET(rcopy, "copy a file to a server over an rsocket",
	  "[-p port] [-d dir] [--clients N] | SOURCE SERVER[:DEST] [-p port] [--tos TOS]",
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
	  "bytes copied. Every wait is bounded by --timeout (a stall); the server "
	  "drops a client that sends slower than --min-rate (default 1 MiB/s; "
	  "a file of SIZE bytes within --timeout + SIZE/--min-rate seconds) and "
	  "any client --max-time (default 3600 s) after accepting it, and frees "
	  "its slot. Serving $HOME or / is warned about: a client may write any "
	  "file below --dir, ~/.ssh/authorized_keys among them.");

/* ---- messages ---- */

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
	int tos = rt_cm_tos_opt(&x->run->tabs[0], x->cfg->tos);
	struct rt_sock_tuning t = { .inline_size = -1, .set_tos = tos >= 0, .tos = (uint8_t)tos };
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
		     rt_rcopy_send_hdr(&x->s, &x->run->err, CMD_CLOSE, sizeof(struct rt_rcopy_hdr), 0, ++x->id) ||
		     get_resp(x, CMD_CLOSE, "CLOSE") ? -1 : 0;
	close(fd);
	if (!rc)
		client_report(x, dest, (uint64_t)st.st_size, rt_now_ns() - t0);
	rt_stream_close(&x->s, !rc);
	return rc;
}

/* ---- server ---- */

/* A peer may write any file below --dir, as upstream's rcopy lets it
 * anywhere: below $HOME or / that takes in ~/.ssh/authorized_keys. */
static void warn_wide_dir(struct rcopy *x, int dirfd)
{
	const char *home = getenv("HOME"), *which = NULL;
	struct stat d, h;

	if (fstat(dirfd, &d))
		return;
	if (!stat("/", &h) && h.st_dev == d.st_dev && h.st_ino == d.st_ino)
		which = "/";
	else if (home && *home && !stat(home, &h) && h.st_dev == d.st_dev &&
		 h.st_ino == d.st_ino)
		which = "$HOME";
	if (which)
		rt_warn(&x->run->log, "serving %s: any client can write any file below "
			"it, ~/.ssh/authorized_keys among them; serve a directory of "
			"its own (-d)", which);
}

static int server_loop(struct rcopy *x, int dirfd, int lfd)
{
	const struct rcopy_cfg *cfg = x->cfg;
	struct rt_rcopy_server v = {
		.run = x->run, .ops = x->ops, .dirfd = dirfd,
		.clients = (unsigned)cfg->clients, .concurrent = (unsigned)cfg->concurrent,
		.max_time_ms = cfg->max_time_ms, .min_rate = cfg->min_rate,
		.max_size = (uint64_t)cfg->max_size, .allow_exec = cfg->allow_exec != 0,
	};
	int rc = rt_rcopy_serve(&v, lfd);

	if (rc)
		return rc;
	rt_error_phase(&x->run->err, "transfer");
	rt_json_kv_uint(&x->run->results, "clients", v.client);
	rt_json_kv_uint(&x->run->results, "failed", v.failed);
	if (v.failed)
		return rt_fail(&x->run->err, RT_EXIT_FAIL, "%u of %u clients failed or "
			       "were refused (see above)", v.failed, v.client);
	return 0;
}

static int server_run(struct rcopy *x)
{
	struct rt_addr_query q = { .port = x->cfg->port, .ps = RDMA_PS_TCP,
				   .passive = true, .what = "-p" };
	struct rt_sockaddr ep = { 0 };
	int lfd = -1, rc;
	int dirfd = open(x->cfg->dir ? x->cfg->dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dirfd < 0)
		return rt_fail_errno(&x->run->err, RT_EXIT_USAGE, errno, "--dir '%s'",
				     x->cfg->dir);
	warn_wide_dir(x, dirfd);
	rt_error_phase(&x->run->err, "listen");
	rc = rt_addr_lookup(&q, false, &ep, &x->run->err) ||
	     rt_sock_open(x->ops, ep.addr.ss_family, &lfd, &x->run->err) ||
	     rt_sock_listen(x->ops, lfd, (struct sockaddr *)&ep.addr, ep.addr_len,
			    &x->run->err) ? -1 : 0;
	rt_sockaddr_free(&ep);
	rt_json_kv_string(&x->run->results, "role", "server");
	if (!rc)
		rc = server_loop(x, dirfd, lfd);
	if (lfd >= 0)
		x->ops->close(lfd);
	close(dirfd);
	return rc;
}

static int rcopy_main(struct rt_run *run, void *cfgp)
{
	struct rcopy_cfg *cfg = cfgp;
	struct rcopy x = { .cfg = cfg, .run = run,
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
