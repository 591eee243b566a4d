/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mesh/meshmunge.h"

/* The exit status of a child that could not run its program (glibc's
 * posix_spawn, a shell). */
#define SPAWN_NOT_RUN 127

/* What one run of munge or unmunge gave back. */
struct child_out {
	char out[RT_MESH_MUNGE_OUT_MAX + 1];
	size_t out_len;
	char why[160]; /* its standard error's first line */
	int status;    /* exit status; -1: killed */
};

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int spawn(const char *const argv[], int in, int out, int errfd, pid_t *pid,
		 struct rt_error *err)
{
	posix_spawn_file_actions_t fa;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	rc = posix_spawnp(pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return rt_fail_errno(err, RT_EXIT_ENV, rc, "MUNGE: cannot run %s", argv[0]);
	return 0;
}

/* Reads the child's standard output and error until both end or the
 * deadline passes; what does not fit is dropped. */
static void drain(int out, int errfd, struct child_out *c, long long deadline)
{
	char scratch[512] = {0}; /* where what does not fit goes */
	size_t err_len = 0;
	struct pollfd p[2] = { { out, POLLIN, 0 }, { errfd, POLLIN, 0 } };

	while ((p[0].fd >= 0 || p[1].fd >= 0) && now_ms() < deadline) {
		if (poll(p, 2, (int)(deadline - now_ms())) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			char *to = i ? c->why + err_len : c->out + c->out_len;
			size_t room = i ? sizeof(c->why) - 1 - err_len : RT_MESH_MUNGE_OUT_MAX - c->out_len;
			ssize_t n;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, room ? to : scratch, room ? room : sizeof(scratch));
			if (n <= 0 && !(n < 0 && errno == EINTR)) {
				p[i].fd = -1;
				continue;
			}
			if (n > 0 && room)
				*(i ? &err_len : &c->out_len) += (size_t)n;
		}
	}
	c->out[c->out_len] = '\0';
	c->why[err_len] = '\0';
	c->why[strcspn(c->why, "\n")] = '\0';
}

/* Runs argv with in[0..in_len) on its standard input, within wait_ms. */
static int run(const char *const argv[], const void *in, size_t in_len, int wait_ms,
	       struct child_out *c, struct rt_error *err)
{
	int sin[2], sout[2], serr[2], ws, rc = 0;
	long long deadline = now_ms() + wait_ms;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	/* a socket for its input: send(MSG_NOSIGNAL) survives a child that
	 * exits before it reads, where a pipe would raise SIGPIPE */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sin) < 0)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "MUNGE: socketpair");
	if (pipe2(sout, O_CLOEXEC) < 0 || pipe2(serr, O_CLOEXEC) < 0) {
		rc = rt_fail_errno(err, RT_EXIT_ENV, errno, "MUNGE: pipe");
		close(sin[0]), close(sin[1]);
		return rc;
	}
	rc = spawn(argv, sin[1], sout[1], serr[1], &pid, err);
	close(sin[1]), close(sout[1]), close(serr[1]);
	if (!rc) {
		/* a few hundred bytes: the socket's buffer takes them whole;
		 * a child that took none fails, and says why */
		(void)(in_len && send(sin[0], in, in_len, MSG_NOSIGNAL | MSG_DONTWAIT));
		shutdown(sin[0], SHUT_WR);
		drain(sout[0], serr[0], c, deadline);
		while ((rc = (int)waitpid(pid, &ws, WNOHANG)) == 0 && now_ms() < deadline)
			poll(NULL, 0, 10);
		if (rc <= 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &ws, 0);
			rc = rt_fail(err, RT_EXIT_TIMEOUT, "MUNGE: %s did not finish within %d ms",
				     argv[0], wait_ms);
		} else {
			rc = 0;
			c->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
		}
	}
	/* posix_spawnp reports a program it could not run through memory it
	 * shares with the child (glibc's clone(CLONE_VM | CLONE_VFORK)); where
	 * that child is a copy instead (under valgrind, which runs vfork as
	 * fork) the error never comes back, and the child exits 127 as a
	 * shell's does for a command not found: the same cause, named alike */
	if (!rc && c->status == SPAWN_NOT_RUN && !c->out_len)
		rc = rt_fail(err, RT_EXIT_ENV, "MUNGE: cannot run %s: not found or not "
			     "executable (exit %d)", argv[0], SPAWN_NOT_RUN);
	close(sin[0]), close(sout[0]), close(serr[0]);
	return rc;
}

static int job_ok(const char *job, struct rt_error *err)
{
	size_t n = strlen(job);

	if (n > RT_MESH_MUNGE_JOB_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "MUNGE: a job id of %zu characters, at most %u",
			       n, RT_MESH_MUNGE_JOB_MAX);
	for (size_t i = 0; i < n; i++)
		if (job[i] <= ' ' || job[i] > '~')
			return rt_fail(err, RT_EXIT_USAGE, "MUNGE: the job id holds a character "
				       "that is not printable (0x%02x)", (unsigned char)job[i]);
	return 0;
}

static const char *job_of(const struct rt_mesh_munge *m)
{
	return m->job && m->job[0] ? m->job : "-";
}

int rt_mesh_munge_seal(const struct rt_mesh_munge *m, const uint8_t key[RT_MESH_AUTH_SECRET],
		       char *cred, struct rt_error *err)
{
	char payload[32 + RT_MESH_MUNGE_JOB_MAX + 2 * RT_MESH_AUTH_SECRET], uid[24], sock[16 + 108];
	const char *argv[6] = { m->munge ? m->munge : "munge", uid };
	int n = 0, argc = 2, rc;
	struct child_out *c;

	if (job_ok(job_of(m), err))
		return -1;
	snprintf(uid, sizeof(uid), "--restrict-uid=%u", (unsigned)getuid());
	if (m->socket) {
		snprintf(sock, sizeof(sock), "--socket=%s", m->socket);
		argv[argc++] = sock;
	}
	n = snprintf(payload, sizeof(payload), "rdmatest-mesh 1 %s ", job_of(m));
	for (unsigned i = 0; i < RT_MESH_AUTH_SECRET; i++)
		n += snprintf(payload + n, sizeof(payload) - (size_t)n, "%02x", key[i]);
	n += snprintf(payload + n, sizeof(payload) - (size_t)n, "\n");
	c = malloc(sizeof(*c));
	if (!c)
		return rt_fail_errno(err, RT_EXIT_ENV, ENOMEM, "MUNGE");
	rc = run(argv, payload, (size_t)n, m->wait_ms ? m->wait_ms : RT_MESH_MUNGE_WAIT_MS, c, err);
	explicit_bzero(payload, sizeof(payload));
	if (!rc && c->status)
		rc = rt_fail(err, RT_EXIT_ENV, "MUNGE: munge failed (exit %d): %s", c->status,
			     c->why[0] ? c->why : "no message");
	while (!rc && c->out_len && (c->out[c->out_len - 1] == '\n'))
		c->out[--c->out_len] = '\0';
	if (!rc && (c->out_len < 8 || c->out_len >= RT_MESH_MUNGE_CRED_MAX ||
		    strncmp(c->out, "MUNGE:", 6)))
		rc = rt_fail(err, RT_EXIT_ENV, "MUNGE: munge wrote no credential (%zu bytes)",
			     c->out_len);
	if (!rc) {
		memcpy(cred, c->out, c->out_len + 1);
		rc = (int)c->out_len;
	}
	free(c);
	return rc;
}

/* One "KEY: value" line of unmunge --numeric's metadata, as a number;
 * only the lines before the blank one that ends the metadata count, so
 * that a payload cannot pose as metadata. */
static int meta(const char *text, const char *key, long long *v)
{
	size_t kl = strlen(key);

	for (const char *line = text; *line && *line != '\n';) {
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			char *end;

			errno = 0;
			*v = strtoll(line + kl + 1, &end, 10);
			return !errno && end != line + kl + 1 && (*end == '\n' || !*end) ? 0 : -1;
		}
		line = strchr(line, '\n');
		if (!line)
			break;
		line++;
	}
	return -1;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/* The payload after the metadata's blank line. */
static int take_payload(const struct rt_mesh_munge *m, const char *text,
			uint8_t key[RT_MESH_AUTH_SECRET], struct rt_error *err)
{
	const char *p = strstr(text, "\n\n"), *job = job_of(m);
	size_t jl = strlen(job);

	if (!p || strncmp(p + 2, "rdmatest-mesh 1 ", 16))
		return rt_fail(err, RT_EXIT_FAIL, "MUNGE: the credential holds no mesh run key");
	p += 18;
	if (strncmp(p, job, jl) || p[jl] != ' ')
		return rt_fail(err, RT_EXIT_FAIL, "MUNGE: the credential is for job '%.*s', "
			       "not this one ('%s')", (int)strcspn(p, " \n"), p, job);
	p += jl + 1;
	for (unsigned i = 0; i < RT_MESH_AUTH_SECRET; i++) {
		int hi = hexval(p[(size_t)2 * i]), lo = hi < 0 ? -1 : hexval(p[(size_t)2 * i + 1]);

		if (lo < 0)
			return rt_fail(err, RT_EXIT_FAIL, "MUNGE: the credential's key is not "
				       "%u hex digits", 2 * RT_MESH_AUTH_SECRET);
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	if (strcmp(p + (size_t)2 * RT_MESH_AUTH_SECRET, "\n"))
		return rt_fail(err, RT_EXIT_FAIL, "MUNGE: text after the credential's key");
	return 0;
}

/* The metadata: our uid, a TTL not run out. */
static int check_meta(const char *text, struct rt_error *err)
{
	long long status, uid, ttl, enc, dec;

	if (meta(text, "STATUS", &status) || meta(text, "UID", &uid) ||
	    meta(text, "TTL", &ttl) || meta(text, "ENCODE_TIME", &enc) ||
	    meta(text, "DECODE_TIME", &dec))
		return rt_fail(err, RT_EXIT_FAIL, "MUNGE: unmunge wrote no STATUS, UID, TTL, "
			       "ENCODE_TIME and DECODE_TIME");
	if (status)
		return rt_fail(err, RT_EXIT_FAIL, "MUNGE: the credential's status is %lld", status);
	if (uid != (long long)getuid())
		return rt_fail(err, RT_EXIT_FAIL, "MUNGE: the credential comes from uid %lld, "
			       "not this job's user (uid %u): not this job's rank 0", uid,
			       (unsigned)getuid());
	if (ttl <= 0 || dec > enc + ttl)
		return rt_fail(err, RT_EXIT_FAIL, "MUNGE: the credential ran out (encoded at "
			       "%lld, TTL %lld s, decoded at %lld)", enc, ttl, dec);
	return 0;
}

/* unmunge exits with the credential's status and writes it only to its
 * metadata: the names of munge.h's enum munge_err from 7 on */
static const char *munge_status(int status)
{
	static const char *const names[] = {
		"timed out talking to munged", "not a valid credential",
		"unsupported credential version", "unsupported cipher",
		"MAC does not fit: another MUNGE key", "unsupported compression",
		"unsupported security realm", "invalid credential", "expired credential",
		"rewound credential (clocks apart)", "replayed credential",
		"unauthorized: restricted to another user",
	};

	return status >= 7 && status < 7 + (int)(sizeof(names) / sizeof(names[0])) ?
	       names[status - 7] : NULL;
}

int rt_mesh_munge_open(const struct rt_mesh_munge *m, const char *cred, size_t len,
		       uint8_t key[RT_MESH_AUTH_SECRET], struct rt_error *err)
{
	char sock[16 + 108];
	const char *argv[5] = { m->unmunge ? m->unmunge : "unmunge", "--numeric" };
	int argc = 2, rc;
	struct child_out *c;

	if (job_ok(job_of(m), err))
		return -1;
	if (len < 8 || len >= RT_MESH_MUNGE_CRED_MAX || strncmp(cred, "MUNGE:", 6) ||
	    memchr(cred, '\0', len))
		return rt_fail(err, RT_EXIT_FAIL, "MUNGE: not a credential (%zu bytes)", len);
	if (m->socket) {
		snprintf(sock, sizeof(sock), "--socket=%s", m->socket);
		argv[argc++] = sock;
	}
	c = malloc(sizeof(*c));
	if (!c)
		return rt_fail_errno(err, RT_EXIT_ENV, ENOMEM, "MUNGE");
	rc = run(argv, cred, len, m->wait_ms ? m->wait_ms : RT_MESH_MUNGE_WAIT_MS, c, err);
	if (!rc && c->status)
		rc = rt_fail(err, RT_EXIT_FAIL, "MUNGE: unmunge refused the credential (exit %d): %s",
			     c->status, munge_status(c->status) ? munge_status(c->status) :
			     c->why[0] ? c->why : "no message");
	if (!rc)
		rc = check_meta(c->out, err);
	if (!rc)
		rc = take_payload(m, c->out, key, err);
	explicit_bzero(c, sizeof(*c));
	free(c);
	return rc;
}
