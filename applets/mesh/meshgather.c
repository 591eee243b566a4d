/* Gathering the hellos of a mesh run (meshgather.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/fdwait.h"
#include "mesh/meshgather.h"
#include "rdmatest/util.h"

struct pending {
	int fd;
	uint64_t deadline; /* its hello's */
	size_t got, want;  /* want: the header, then the whole message */
	uint8_t buf[RT_MESHMSG_MAX];
};

/* Closes pending connection i and refills its slot from the end: 1. */
static int drop(struct rt_mesh_gather *gt, struct pending *p, size_t *np,
		size_t i, bool refused)
{
	close(p[i].fd);
	gt->refused += refused;
	p[i] = p[--*np];
	return 1;
}

static void adopt(struct rt_mesh_gather *gt, struct pending *p, uint32_t rank,
		  long long io_ms)
{
	struct rt_oob *o = &gt->conn[rank];
	socklen_t len = sizeof(o->peer);

	rt_oob_init(o, io_ms);
	o->fd = p->fd;
	if (getpeername(o->fd, (struct sockaddr *)&o->peer, &len) == 0)
		rt_addr_str((const struct sockaddr *)&o->peer, o->peer_name,
			    sizeof(o->peer_name));
	gt->present++;
}

/* Reads what has come on pending connection i; 1 when it was taken as a
 * rank or dropped (the slot now holds another one), 0 to wait for more. */
static int advance(struct rt_mesh_gather *gt, struct pending *p, size_t *np,
		   size_t i, struct rt_mesh_agg *g, long long io_ms)
{
	struct pending *c = &p[i];
	struct rt_error e = {0};
	struct rt_meshmsg m;
	uint8_t type;
	ssize_t r = recv(c->fd, c->buf + c->got, c->want - c->got, 0);
	int plen;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0)
		return drop(gt, p, np, i, r < 0); /* closed before a hello */
	c->got += (size_t)r;
	if (c->got < c->want)
		return 0;
	if (c->want == RT_MESHMSG_HDR) {
		plen = rt_meshmsg_header(c->buf, &type, &e);
		if (plen < 0 || type != RT_MESHMSG_HELLO)
			return drop(gt, p, np, i, true);
		c->want += (size_t)plen;
		return 0;
	}
	if (rt_meshmsg_decode(c->buf, c->got, gt->n, &m, &e) ||
	    gt->conn[m.u.hello.rank].fd >= 0 ||
	    rt_mesh_agg_hello(g, &m.u.hello, &e))
		return drop(gt, p, np, i, true);
	adopt(gt, c, m.u.hello.rank, io_ms);
	p[i] = p[--*np];
	return 1;
}

static int take_new(int lfd, struct pending *p, size_t *np, long long io_ms,
		    struct rt_error *err)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return errno == EAGAIN || errno == ECONNABORTED || errno == EINTR ?
		       0 : rt_fail_errno(err, RT_EXIT_FAIL, errno, "mesh: accept");
	p[(*np)++] = (struct pending){.fd = fd, .want = RT_MESHMSG_HDR,
				      .deadline = rt_deadline_after_ms(io_ms)};
	return 0;
}

/* One poll over the listener (while a slot is free) and every pending
 * connection, bounded by the nearest deadline. */
static int step(struct rt_mesh_gather *gt, int lfd, struct pending *p, size_t *np,
		uint64_t deadline, long long io_ms, struct rt_mesh_agg *g,
		struct rt_error *err)
{
	struct pollfd fds[RT_MESH_PENDING_MAX + 2]; /* + the wait's own */
	size_t nf = 0, n = *np;
	uint64_t until = deadline;
	int r;

	for (size_t i = 0; i < n; i++) {
		fds[nf++] = (struct pollfd){.fd = p[i].fd, .events = POLLIN};
		until = RT_MIN(until, p[i].deadline);
	}
	if (n < RT_MESH_PENDING_MAX)
		fds[nf++] = (struct pollfd){.fd = lfd, .events = POLLIN};
	r = rt_fdwait_many(fds, nf, until);
	if (r == RT_FDWAIT_INTERRUPTED)
		return r;
	if (r < 0)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "mesh: poll");
	/* walk backwards: a slot taken or dropped is refilled from the end */
	for (size_t i = n; i-- > 0;) {
		if (fds[i].revents)
			advance(gt, p, np, i, g, io_ms);
		else if (rt_ms_until(p[i].deadline) == 0)
			drop(gt, p, np, i, true); /* no hello within io_ms */
	}
	if (n < RT_MESH_PENDING_MAX && fds[nf - 1].revents)
		return take_new(lfd, p, np, io_ms, err);
	return 0;
}

int rt_mesh_gather(struct rt_mesh_gather *gt, int lfd, uint32_t n,
		   long long wait_ms, long long io_ms, struct rt_mesh_agg *g,
		   struct rt_error *err)
{
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
	gt->conn = rt_xcalloc(n, sizeof(*gt->conn));
	for (uint32_t i = 0; i < n; i++)
		rt_oob_init(&gt->conn[i], io_ms);
	while (!rc && gt->present < n && rt_ms_until(deadline) > 0)
		rc = step(gt, lfd, p, &np, deadline, io_ms, g, err);
	while (np)
		drop(gt, p, &np, np - 1, false); /* too late: absent */
	free(p);
	/* SIGINT/SIGTERM ends the gathering, not the run: the ranks not here
	 * are absent, and the rounds' first wait reports the interrupt and
	 * sends the verdict on what came, as after a gathering that ended */
	return rc == RT_INTERRUPTED ? 0 : rc;
}

void rt_mesh_gather_close(struct rt_mesh_gather *gt)
{
	for (uint32_t i = 0; gt->conn && i < gt->n; i++)
		rt_oob_close(&gt->conn[i]);
	free(gt->conn);
	memset(gt, 0, sizeof(*gt));
}
