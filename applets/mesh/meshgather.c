/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Gathering the hellos of a mesh run (meshgather.h). */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/fdwait.h"
#include "mesh/meshgather.h"
#include "mesh/meshseal.h"
#include "rdmatest/util.h"

/* A connection's hello comes at once or not at all: a short bound of
 * its own, so that idle connections cannot hold the slots for the whole
 * gathering. */
#define HELLO_MS 2000

/* The addresses a host list's entry resolves to, taken once before the
 * gathering: a rank's hello counts only from one of them. */
#define RANK_ADDRS 4

struct rank_addrs {
	unsigned n;
	struct sockaddr_storage a[RANK_ADDRS];
};

struct admission {
	const struct rt_mesh_admit *req;
	struct rank_addrs *addrs; /* per rank, or NULL: any address */
};

/* Where a pending connection is: authenticated runs start at CHALLENGE,
 * the others at HELLO. */
enum pending_step { AWAIT_HELLO, AWAIT_CHALLENGE, AWAIT_PROOF };

struct pending {
	int fd;
	uint8_t step; /* enum pending_step */
	struct sockaddr_storage peer;
	uint64_t deadline; /* its hello's */
	char addr[64];
	struct rt_mesh_hello_in in; /* the hello, and before it the handshake's messages */
	struct rt_mesh_auth auth;   /* authenticated runs: its end of the handshake */
};

/* Closes pending connection i and refills its slot from the end: 1. */
static int drop(struct rt_mesh_gather *gt, struct pending *p, size_t *np,
		size_t i, bool refused)
{
	close(p[i].fd);
	rt_mesh_auth_wipe(&p[i].auth);
	gt->refused += refused;
	p[i] = p[--*np];
	return 1;
}

/* A peer that showed the job's token and was turned away: named in the
 * summary, and the run is not READY (a real rank may have lost its
 * place). */
static int refuse(struct rt_mesh_gather *gt, struct pending *p, size_t *np,
		  size_t i, struct rt_mesh_agg *g, uint32_t rank, const char *why)
{
	rt_mesh_agg_refuse(g, p[i].addr, rank, why);
	return drop(gt, p, np, i, true);
}

/* A connection that could not show the job's token (meshagg.h): named,
 * but it never makes the run NOT READY, since anyone who reaches the port
 * can send one. */
static int turn_away(struct rt_mesh_gather *gt, struct pending *p, size_t *np,
		     size_t i, struct rt_mesh_agg *g, const char *why)
{
	rt_mesh_agg_stranger(g, p[i].addr, why);
	return drop(gt, p, np, i, true);
}

static void adopt(struct rt_mesh_gather *gt, struct pending *p, uint32_t rank,
		  long long io_ms)
{
	struct rt_oob *o = &gt->conn[rank];
	socklen_t len = sizeof(o->peer);

	rt_oob_init(o, io_ms);
	o->fd = p->fd;
	if (gt->auth)
		gt->auth[rank] = p->auth; /* its frames' keys and sequence numbers */
	explicit_bzero(&p->auth, sizeof(p->auth));
	if (getpeername(o->fd, (struct sockaddr *)&o->peer, &len) == 0)
		rt_addr_str((const struct sockaddr *)&o->peer, o->peer_name,
			    sizeof(o->peer_name));
	gt->present++;
}

static bool same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr;
	return a->ss_family == AF_INET6 &&
	       !memcmp(&a6->sin6_addr, &b6->sin6_addr, sizeof(a6->sin6_addr));
}

static bool is_loopback(const struct sockaddr_storage *a)
{
	const struct sockaddr_in *a4 = (const void *)a;
	const struct sockaddr_in6 *a6 = (const void *)a;

	if (a->ss_family == AF_INET)
		return (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
	return a->ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
}

/* An IPv4 peer on a dual-stack listener comes as ::ffff:a.b.c.d. */
static void unmap_v4(struct sockaddr_storage *a)
{
	struct sockaddr_in6 *a6 = (void *)a;
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = a6->sin6_port};

	if (a->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
		return;
	memcpy(&a4.sin_addr, a6->sin6_addr.s6_addr + 12, 4);
	memcpy(a, &a4, sizeof(a4));
}

/* Rank 0's own rank joins over loopback; every other rank must come from
 * an address its host list entry resolves to. */
static bool from_its_host(const struct admission *adm, uint32_t rank,
			  const struct sockaddr_storage *peer, char *why, size_t len)
{
	const struct rank_addrs *ra;
	char from[64], want[64] = "no address";

	if (!adm->addrs || (rank == 0 && is_loopback(peer)))
		return true;
	ra = &adm->addrs[rank];
	for (unsigned k = 0; k < ra->n; k++)
		if (same_host(peer, &ra->a[k]))
			return true;
	rt_addr_host_str((const struct sockaddr *)peer, from, sizeof(from));
	if (ra->n)
		rt_addr_host_str((const struct sockaddr *)&ra->a[0], want, sizeof(want));
	/* the reason is bounded (a refusal's record): a long name is cut */
	if (snprintf(why, len, "HELLO for rank %u from %s, the host list says %.64s (%s)",
		     rank, from, adm->req->hosts->names[rank], want) < 0)
		why[0] = '\0';
	return false;
}

/* The whole hello of pending connection i is in: taken as its rank or
 * refused by name. */
static int admit(struct rt_mesh_gather *gt, struct pending *p, size_t *np,
		 size_t i, struct rt_mesh_agg *g, long long io_ms,
		 const struct admission *adm)
{
	struct rt_mesh_auth *a = gt->auth ? &p[i].auth : NULL;
	struct rt_error e = {0};
	struct rt_meshmsg m;
	char why[192];

	/* any size first: a hello of another mesh is another job's */
	if (rt_mesh_unframe(a, p[i].in.buf, p[i].in.got, 0, &m, &e))
		return turn_away(gt, p, np, i, g, e.reason);
	if (a && (m.u.hello.rank != a->rank || m.u.hello.size != a->size)) {
		snprintf(why, sizeof(why), "a hello for rank %u of %u after proving rank %u of %u",
			 m.u.hello.rank, m.u.hello.size, a->rank, a->size);
		return turn_away(gt, p, np, i, g, why);
	}
	if (adm->req && m.u.hello.token != adm->req->token)
		return turn_away(gt, p, np, i, g, "another job's token");
	if (m.u.hello.size != gt->n) {
		snprintf(why, sizeof(why), "a hello of a mesh of %u, this one has %u",
			 m.u.hello.size, gt->n);
		return turn_away(gt, p, np, i, g, why);
	}
	if (!from_its_host(adm, m.u.hello.rank, &p[i].peer, why, sizeof(why)))
		return refuse(gt, p, np, i, g, m.u.hello.rank, why);
	if (adm->addrs) /* partners connect where the list says, not the hello */
		rt_strlcpy(m.u.hello.host, adm->req->hosts->names[m.u.hello.rank],
			   RT_MESH_HOST_LEN);
	if (gt->conn[m.u.hello.rank].fd >= 0) {
		/* the first stays: a second claim is an impostor or another job */
		snprintf(why, sizeof(why), "rank %u is taken (by %s)", m.u.hello.rank,
			 gt->conn[m.u.hello.rank].peer_name);
		return refuse(gt, p, np, i, g, m.u.hello.rank, why);
	}
	if (rt_mesh_agg_hello(g, &m.u.hello, &e))
		return refuse(gt, p, np, i, g, m.u.hello.rank, e.reason);
	adopt(gt, &p[i], m.u.hello.rank, io_ms);
	p[i] = p[--*np];
	return 1;
}

enum rt_mesh_hello_step rt_mesh_hello_took(struct rt_mesh_hello_in *h, size_t n,
					   struct rt_error *e)
{
	uint8_t type;
	int plen;

	h->got += n;
	if (h->got < h->want)
		return RT_MESH_HELLO_MORE;
	if (h->want > RT_MESHMSG_HDR)
		return RT_MESH_HELLO_WHOLE;
	plen = rt_meshmsg_header(h->buf, &type, e);
	if (plen < 0 && (h->buf[0] != 'R' || h->buf[1] != 'M'))
		return RT_MESH_HELLO_STRANGER;
	if (plen < 0)
		return RT_MESH_HELLO_REFUSED;
	if (type != RT_MESHMSG_HELLO) {
		rt_fail(e, RT_EXIT_FAIL, "a message before its hello");
		return RT_MESH_HELLO_REFUSED;
	}
	h->want += (size_t)plen + h->trailer;
	return RT_MESH_HELLO_MORE;
}

/* The next handshake message of pending connection i, want bytes. */
static void expect(struct pending *p, uint8_t step, size_t want)
{
	p->step = step;
	p->in.got = 0;
	p->in.want = want;
	p->in.trailer = step == AWAIT_HELLO ? RT_MESH_AUTH_TRAILER : 0;
}

/* Rank 0's ANSWER to the CHALLENGE in p->in.buf (under MUNGE the CRED
 * before it) in one send; 0, or -1 with e set (*ours: rank 0's own
 * failure, munge's, not the peer's). */
static int answer(struct pending *p, struct rt_mesh_key *key, uint32_t n, bool *ours,
		  struct rt_error *e)
{
	uint8_t out[RT_MESH_AUTH_CRED_HEAD + RT_MESH_AUTH_CRED_MAX + RT_MESH_AUTH_ANSWER];
	size_t len = 0;
	int cred;

	rt_mesh_key_end(key, &p->auth, RT_MESH_AUTH_COORDINATOR, 0, n);
	if (rt_mesh_auth_answer(&p->auth, p->in.buf, out + sizeof(out) - RT_MESH_AUTH_ANSWER, e))
		return -1;
	if (rt_mesh_key_munge(key)) {
		*ours = true;
		cred = rt_mesh_munge_seal(rt_mesh_key_munge(key), p->auth.secret,
					  (char *)out + RT_MESH_AUTH_CRED_HEAD, e);
		if (cred < 0)
			return -1;
		*ours = false;
		rt_mesh_auth_cred_head(out, (uint32_t)cred);
		len = RT_MESH_AUTH_CRED_HEAD + (size_t)cred;
	}
	memmove(out + len, out + sizeof(out) - RT_MESH_AUTH_ANSWER, RT_MESH_AUTH_ANSWER);
	len += RT_MESH_AUTH_ANSWER;
	if (send(p->fd, out, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len)
		return rt_fail(e, RT_EXIT_FAIL, "mesh auth: the answer could not be sent whole");
	return 0;
}

/* A whole handshake message of pending connection i: the CHALLENGE
 * answered, the PROOF checked. 1 when the connection was dropped. */
static int shake(struct rt_mesh_gather *gt, struct pending *p, size_t *np, size_t i,
		 struct rt_mesh_agg *g, const struct admission *adm, long long hello_ms)
{
	struct rt_error e = {0};
	bool ours = false;
	const uint8_t *b = p[i].in.buf;

	if (b[0] == 'R' && b[1] == 'M')
		return turn_away(gt, p, np, i, g, "a hello without authentication (the rank "
				 "runs --auth none)");
	if (b[0] != 'R' || b[1] != 'A')
		return drop(gt, p, np, i, true); /* no handshake at all: a scanner */
	if (p[i].step == AWAIT_PROOF) {
		if (rt_mesh_auth_check(&p[i].auth, b, &e))
			return turn_away(gt, p, np, i, g, e.reason);
		expect(&p[i], AWAIT_HELLO, RT_MESHMSG_HDR);
		return 0;
	}
	if (!adm->req || !adm->req->key) /* a gathering without admission */
		return turn_away(gt, p, np, i, g, "a handshake, and this run has no "
				 "authentication");
	if (answer(&p[i], adm->req->key, gt->n, &ours, &e))
		return ours ? refuse(gt, p, np, i, g, p[i].auth.rank, e.reason)
			    : turn_away(gt, p, np, i, g, e.reason);
	/* an answer may have cost rank 0 a munge run: the proof's bound
	 * starts now */
	p[i].deadline = rt_deadline_after_ms(hello_ms);
	expect(&p[i], AWAIT_PROOF, RT_MESH_AUTH_PROOF);
	return 0;
}

/* Reads what has come on pending connection i; 1 when it was taken as a
 * rank or dropped (the slot now holds another one), 0 to wait for more. */
static int advance(struct rt_mesh_gather *gt, struct pending *p, size_t *np,
		   size_t i, struct rt_mesh_agg *g, long long io_ms,
		   const struct admission *adm)
{
	struct rt_mesh_hello_in *h = &p[i].in;
	struct rt_error e = {0};
	ssize_t r = recv(p[i].fd, h->buf + h->got, h->want - h->got, 0);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0)
		return drop(gt, p, np, i, r < 0); /* closed before a hello */
	if (p[i].step != AWAIT_HELLO) {
		h->got += (size_t)r;
		return h->got < h->want ? 0 :
		       shake(gt, p, np, i, g, adm, RT_MIN(io_ms, HELLO_MS));
	}
	switch (rt_mesh_hello_took(h, (size_t)r, &e)) {
	case RT_MESH_HELLO_MORE:
		return 0;
	case RT_MESH_HELLO_WHOLE:
		return admit(gt, p, np, i, g, io_ms, adm);
	case RT_MESH_HELLO_STRANGER:
		return drop(gt, p, np, i, true); /* not a mesh peer: a scanner */
	default: /* a header of another version or length: no token to show */
		return turn_away(gt, p, np, i, g, e.reason);
	}
}

/* With every slot taken, the oldest pending connection makes room: the
 * ranks that come later are never locked out by ones that came idle. */
static void evict_oldest(struct rt_mesh_gather *gt, struct pending *p, size_t *np)
{
	size_t old = 0;

	for (size_t i = 1; i < *np; i++)
		if (p[i].deadline < p[old].deadline)
			old = i;
	drop(gt, p, np, old, true);
}

static int take_new(struct rt_mesh_gather *gt, int lfd, struct pending *p,
		    size_t *np, long long hello_ms, struct rt_error *err)
{
	bool sealed = gt->auth != NULL;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return errno == EAGAIN || errno == ECONNABORTED || errno == EINTR ?
		       0 : rt_fail_errno(err, RT_EXIT_FAIL, errno, "mesh: accept");
	if (*np == RT_MESH_PENDING_MAX)
		evict_oldest(gt, p, np);
	p[*np] = (struct pending){.fd = fd, .in = RT_MESH_HELLO_IN_INIT, .peer = ss,
				  .deadline = rt_deadline_after_ms(hello_ms)};
	if (sealed)
		expect(&p[*np], AWAIT_CHALLENGE, RT_MESH_AUTH_CHALLENGE);
	unmap_v4(&p[*np].peer);
	rt_addr_str((const struct sockaddr *)&ss, p[*np].addr, sizeof(p[*np].addr));
	(*np)++;
	return 0;
}

/* One poll over the listener (always: a full table evicts its oldest)
 * and every pending connection, bounded by the nearest deadline. */
static int step(struct rt_mesh_gather *gt, int lfd, struct pending *p, size_t *np,
		uint64_t deadline, long long io_ms, struct rt_mesh_agg *g,
		const struct admission *adm, struct rt_error *err)
{
	struct pollfd fds[RT_MESH_PENDING_MAX + 2]; /* + the wait's own */
	size_t nf = 0, n = *np;
	uint64_t until = deadline;
	int r;

	for (size_t i = 0; i < n; i++) {
		fds[nf++] = (struct pollfd){.fd = p[i].fd, .events = POLLIN};
		until = RT_MIN(until, p[i].deadline);
	}
	fds[nf++] = (struct pollfd){.fd = lfd, .events = POLLIN};
	r = rt_fdwait_many(fds, nf, until);
	if (r == RT_FDWAIT_INTERRUPTED)
		return r;
	if (r < 0)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "mesh: poll");
	/* walk backwards: a slot taken or dropped is refilled from the end */
	for (size_t i = n; i-- > 0;) {
		if (fds[i].revents)
			advance(gt, p, np, i, g, io_ms, adm);
		else if (rt_ms_until(p[i].deadline) == 0)
			drop(gt, p, np, i, true); /* no hello in time */
	}
	if (fds[n].revents)
		return take_new(gt, lfd, p, np, RT_MIN(io_ms, HELLO_MS), err);
	return 0;
}

/* Every entry resolved once, before any hello: a host that does not
 * resolve admits no one for its rank (refused, named). */
static struct rank_addrs *resolve_hosts(const struct rt_hostlist *hosts)
{
	struct rank_addrs *ra = rt_xcalloc(hosts->n, sizeof(*ra));
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;

	for (uint32_t i = 0; i < hosts->n; i++) {
		if (getaddrinfo(hosts->names[i], NULL, &hints, &res))
			continue;
		for (ai = res; ai && ra[i].n < RANK_ADDRS; ai = ai->ai_next) {
			memcpy(&ra[i].a[ra[i].n], ai->ai_addr, ai->ai_addrlen);
			unmap_v4(&ra[i].a[ra[i].n++]);
		}
		freeaddrinfo(res);
	}
	return ra;
}

int rt_mesh_gather(struct rt_mesh_gather *gt, int lfd, uint32_t n,
		   long long wait_ms, long long io_ms, struct rt_mesh_agg *g,
		   struct rt_error *err)
{
	return rt_mesh_gather_admit(gt, lfd, n, wait_ms, io_ms, NULL, g, err);
}

int rt_mesh_gather_admit(struct rt_mesh_gather *gt, int lfd, uint32_t n,
			 long long wait_ms, long long io_ms,
			 const struct rt_mesh_admit *req, struct rt_mesh_agg *g,
			 struct rt_error *err)
{
	struct admission adm = {.req = req};
	struct pending *p = rt_xmalloc(RT_MESH_PENDING_MAX * sizeof(*p));
	uint64_t deadline = rt_deadline_after_ms(wait_ms);
	size_t np = 0;
	int rc = 0;

	memset(gt, 0, sizeof(*gt));
	if (wait_ms <= 0 || io_ms <= 0) {
		free(p);
		return rt_fail(err, RT_EXIT_USAGE, "mesh: gathering needs bounds (%lld ms, %lld ms)",
			       wait_ms, io_ms);
	}
	gt->n = n;
	if (req && req->hosts && req->hosts->n == n)
		adm.addrs = resolve_hosts(req->hosts);
	gt->conn = rt_xcalloc(n, sizeof(*gt->conn));
	if (req && rt_mesh_key_on(req->key))
		gt->auth = rt_xcalloc(n, sizeof(*gt->auth));
	for (uint32_t i = 0; i < n; i++)
		rt_oob_init(&gt->conn[i], io_ms);
	while (!rc && gt->present < n && rt_ms_until(deadline) > 0)
		rc = step(gt, lfd, p, &np, deadline, io_ms, g, &adm, err);
	while (np)
		drop(gt, p, &np, np - 1, false); /* too late: absent */
	free(p);
	free(adm.addrs);
	/* SIGINT/SIGTERM ends the gathering, not the run: the ranks not here
	 * are absent, and the rounds' first wait reports the interrupt and
	 * sends the verdict on what came, as after a gathering that ended */
	return rc == RT_INTERRUPTED ? 0 : rc;
}

void rt_mesh_gather_close(struct rt_mesh_gather *gt)
{
	for (uint32_t i = 0; gt->conn && i < gt->n; i++)
		rt_oob_close(&gt->conn[i]);
	for (uint32_t i = 0; gt->auth && i < gt->n; i++)
		rt_mesh_auth_wipe(&gt->auth[i]);
	free(gt->conn);
	free(gt->auth);
	memset(gt, 0, sizeof(*gt));
}
