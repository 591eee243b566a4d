/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One instance of a mesh run (meshnode.h). */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmatest/interrupt.h"
#include "mesh/meshtally.h"
#include "mesh/meshline.h"
#include "mesh/meshnode.h"
#include "mesh/meshseal.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

#define ROUND_MARGIN_MS 2000
/* Rank 0's descriptors besides one per rank and the pending ones: stdio,
 * the listener, the interrupt pipe, output files, the resolver. */
#define FD_SLACK 32u

long long rt_mesh_round_ms(long long timeout_ms)
{
	return 2 * timeout_ms + ROUND_MARGIN_MS;
}

static void put_line(FILE *f, const struct rt_meshmsg *m)
{
	struct rt_json j;

	rt_json_init(&j);
	if (m->type == RT_MESHMSG_HELLO)
		rt_mesh_line_hello(&j, &m->u.hello);
	else
		rt_mesh_line_result(&j, &m->u.result);
	rt_json_finish(&j);
	fprintf(f, "%s\n", rt_json_text(&j));
	rt_json_free(&j);
	for (unsigned i = 0; m->type == RT_MESHMSG_HELLO && i < m->u.hello.nrails; i++) {
		rt_json_init(&j);
		rt_mesh_line_rail(&j, m->u.hello.rank, &m->u.hello.rails[i]);
		rt_json_finish(&j);
		fprintf(f, "%s\n", rt_json_text(&j));
		rt_json_free(&j);
	}
	fflush(f);
}

/* The plan's test, and this rank's result lines as rt_mesh_follow will
 * send them (the pair and rails as assigned). */
static void test_and_tell(void *ctx, const struct rt_mesh_assign *a, uint32_t self,
			  struct rt_mesh_result *r)
{
	const struct rt_mesh_plan *p = ctx;

	p->fn(p->ctx, a, self, r);
	if (!p->lines || a->role != RT_MESH_CONNECT)
		return;
	flockfile(p->lines); /* a round's tests may end at once (alltoall) */
	for (unsigned i = 0; i < (a->nrails ? a->nrails : 1u); i++) {
		struct rt_meshmsg m;

		rt_mesh_result_msg(a, self, i, &r[i], &m);
		put_line(p->lines, &m);
	}
	funlockfile(p->lines);
}

static int hello_host(const struct rt_mesh_plan *p, const struct rt_oob *o, char *host,
		      struct rt_error *err)
{
	const struct sockaddr *sa = (const struct sockaddr *)&o->local;
	socklen_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						  : sizeof(struct sockaddr_in);

	if (p->self_host) {
		if (strlen(p->self_host) >= RT_MESH_HOST_LEN)
			return rt_fail(err, RT_EXIT_USAGE, "host %s is longer than %u bytes",
				       p->self_host, RT_MESH_HOST_LEN - 1);
		rt_strlcpy(host, p->self_host, RT_MESH_HOST_LEN);
		return 0;
	}
	if (getnameinfo(sa, len, host, RT_MESH_HOST_LEN, NULL, 0, NI_NUMERICHOST))
		return rt_fail(err, RT_EXIT_FAIL, "no local address of the connection to rank 0");
	return 0;
}

/* The first assignment comes after the gathering, later ones within a
 * round each. */
long long rt_mesh_join_ms(const struct rt_mesh_plan *p)
{
	return p->join_ms > 0 ? p->join_ms : p->timeout_ms;
}

static long long follow_ms(const struct rt_mesh_plan *p)
{
	return rt_mesh_join_ms(p) + rt_mesh_round_ms(p->timeout_ms) + ROUND_MARGIN_MS;
}

/* The handshake's failure, said as what it means for this rank: what
 * came on rank 0's port did not prove the job's secret, so the run is
 * NOT READY here (exit 1); this host's own failures (no HMAC, no munge:
 * exit 3) and an interrupt stay what they are. */
static int not_proved(struct rt_error *err, int rc)
{
	struct rt_error why = *err;
	const char *r = why.reason;

	if (rc == RT_INTERRUPTED || (err->set && err->exit_code == RT_EXIT_ENV))
		return rc;
	if (!strncmp(r, "mesh auth: ", 11))
		r += 11;
	memset(err, 0, sizeof(*err));
	rt_error_phase(err, why.phase);
	if (strstr(r, "rank 0 could not prove the job's secret"))
		return rt_fail(err, RT_EXIT_FAIL, "NOT READY: %s", r);
	return rt_fail(err, RT_EXIT_FAIL, "NOT READY: rank 0 could not prove the job's "
		       "secret (%s)", r);
}

/* Under authentication: rank 0 proves the job's secret (within the join
 * bound: rank 0 answers while it gathers), this rank proves it back. */
static int authenticate(const struct rt_mesh_plan *p, struct rt_oob *o,
			struct rt_mesh_auth *a, struct rt_error *err)
{
	long long follow = o->timeout_ms;
	int rc;

	rt_mesh_key_end(p->key, a, RT_MESH_AUTH_RANK, p->rank, p->size);
	o->timeout_ms = rt_mesh_join_ms(p);
	rt_error_phase(err, "auth");
	rc = rt_mesh_seal_join(o, a, rt_mesh_key_munge(p->key), err);
	o->timeout_ms = follow;
	return rc ? not_proved(err, rc) : 0;
}

int rt_mesh_take_part(const struct rt_mesh_plan *p, struct rt_mesh_verdict *v,
		      struct rt_error *err)
{
	struct rt_meshmsg m = { .type = RT_MESHMSG_HELLO };
	struct rt_mesh_hello *h = &m.u.hello;
	struct rt_mesh_auth auth = {0}, *a = rt_mesh_key_on(p->key) ? &auth : NULL;
	struct rt_oob o;
	int rc;

	rt_oob_init(&o, follow_ms(p));
	h->rank = p->rank;
	h->size = p->size;
	h->port = (uint16_t)p->test_port;
	h->token = p->token;
	rt_error_phase(err, "join");
	rc = rt_oob_connect(&o, p->coord_host, p->coord_port, rt_mesh_join_ms(p), err);
	if (!rc && a)
		rc = authenticate(p, &o, a, err);
	if (!rc)
		rc = hello_host(p, &o, h->host, err);
	if (!rc && !rt_mesh_host_valid(h->host))
		rc = rt_fail(err, RT_EXIT_USAGE, "'%s' cannot name this host in the mesh "
			     "(1 to %u letters, digits, '-', '.', '_', ':')", h->host,
			     RT_MESH_HOST_LEN - 1);
	if (!rc && p->payload_of)
		h->payload_mbps = p->payload_of(h->host);
	h->inv = p->inv;
	h->nrails = (uint8_t)(p->nrails < RT_MESH_RAILS_MAX ? p->nrails : RT_MESH_RAILS_MAX);
	if (h->nrails)
		memcpy(h->rails, p->rails, h->nrails * sizeof(h->rails[0]));
	if (!rc)
		rc = rt_mesh_send(&o, a, &m, err);
	if (!rc && p->lines)
		put_line(p->lines, &m);
	rt_error_phase(err, "tests");
	if (!rc)
		rc = rt_mesh_follow(&o, a, p->rank, p->size, test_and_tell, (void *)p, v, err);
	rt_oob_close(&o);
	if (a)
		rt_mesh_auth_wipe(a);
	return rc;
}

/* Rank 0's own rank runs in a child process rather than a thread: the
 * fork comes before any RDMA resource exists (the coordinator never opens
 * a device), the reactor and its signal handling stay single-threaded,
 * and a test of rank 0 that crashes or hangs is what the coordinator
 * already bounds for any rank (lost, its pairs failed). */
static pid_t start_own_rank(const struct rt_mesh_plan *p, int lfd)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct rt_mesh_plan own = *p;
		struct rt_mesh_key key;
		struct rt_mesh_verdict v;
		struct rt_error e = { 0 };

		rt_interrupt_after_fork();
		close(lfd);
		own.coord_host = "127.0.0.1";
		/* it authenticates as any rank, with an HMAC of its own */
		if (p->key) {
			key = *p->key;
			own.key = &key;
		}
		if ((own.key && rt_mesh_key_fork(own.key, &e)) ||
		    (rt_mesh_take_part(&own, &v, &e) && e.set && e.exit_code != RT_EXIT_OK))
			fprintf(stderr, "mesh: rank 0's own tests: %s\n", e.reason);
		fflush(NULL);
		_exit(e.set ? e.exit_code : 0);
	}
	return pid;
}

static void name_absent(struct rt_mesh_agg *g, const struct rt_hostlist *hosts)
{
	for (uint32_t i = 0; hosts && hosts->n == g->n && i < g->n; i++)
		if (!g->nodes[i].present && !g->nodes[i].host[0])
			rt_strlcpy(g->nodes[i].host, hosts->names[i], RT_MESH_HOST_LEN);
}

/* The child has the verdict by now, or is lost: a bounded wait, then it
 * is killed. */
static void reap(pid_t pid, long long bound_ms)
{
	for (long long t = 0; pid > 0 && t < bound_ms; t += 10) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* In the first child: the listener in a second one, the connection here;
 * the status is the exit code. */
static int loopback_child(const struct rt_mesh_plan *p, const char *host, FILE *out)
{
	struct rt_mesh_assign lis = { .rounds = 1, .peer = p->rank, .role = RT_MESH_LISTEN };
	struct rt_mesh_assign con = { .rounds = 1, .peer = p->rank, .role = RT_MESH_CONNECT,
				      .port = (uint16_t)p->test_port };
	struct rt_mesh_result r = { .status = RT_MESH_FAILED }, x = { 0 };
	pid_t pid;

	rt_strlcpy(con.host, host, sizeof(con.host));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		rt_interrupt_after_fork();
		p->fn(p->ctx, &lis, p->rank, &x);
		fflush(NULL);
		_exit(0);
	}
	if (pid < 0)
		return RT_EXIT_FAIL;
	p->fn(p->ctx, &con, p->rank, &r);
	reap(pid, p->timeout_ms);
	if (r.status != RT_MESH_OK)
		return r.status == RT_MESH_TIMEOUT ? RT_EXIT_TIMEOUT : RT_EXIT_FAIL;
	fprintf(out, "loopback %s: connect %.1f us, RTT median %.1f us, p99 %.1f us\n", host,
		(double)r.connect_ns / 1e3, (double)r.rtt_p50_ns / 1e3, (double)r.rtt_p99_ns / 1e3);
	return 0;
}

int rt_mesh_loopback(const struct rt_mesh_plan *p, const char *host, FILE *out,
		     struct rt_error *err)
{
	long long bound = rt_mesh_round_ms(p->timeout_ms);
	int status = 0, code = RT_EXIT_TIMEOUT;
	bool done = false;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int rc;

		rt_interrupt_after_fork();
		rc = loopback_child(p, host, out);

		fflush(NULL);
		_exit(rc);
	}
	if (pid < 0)
		return rt_fail_errno(err, RT_EXIT_FAIL, errno, "fork");
	for (long long t = 0; !done && t < bound; t += 10) {
		done = waitpid(pid, &status, WNOHANG) == pid;
		if (!done)
			usleep(10000);
	}
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	} else {
		code = WIFEXITED(status) ? WEXITSTATUS(status) : RT_EXIT_FAIL;
	}
	if (!code)
		return 0;
	return rt_fail(err, code, "loopback test to %s port %u %s", host, p->test_port,
		       code == RT_EXIT_TIMEOUT ? "timed out" : "failed");
}

int rt_mesh_fd_limit(uint32_t size, struct rt_error *err)
{
	rlim_t need = (rlim_t)size + RT_MESH_PENDING_MAX + FD_SLACK;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "getrlimit(RLIMIT_NOFILE)");
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
			return rt_fail(err, RT_EXIT_ENV, "mesh: %u hosts need %llu open files at "
				       "rank 0, above its hard RLIMIT_NOFILE of %llu (ulimit -Hn)",
				       size, (unsigned long long)need,
				       (unsigned long long)rl.rlim_max);
		rl.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			return rt_fail_errno(err, RT_EXIT_ENV, errno, "mesh: raising "
					     "RLIMIT_NOFILE to %llu", (unsigned long long)need);
	}
	return 0;
}

/* A pattern's figures: its first-pass rounds counted as they come; a
 * budget's matchings end early, and the blame pass's rounds are numbered
 * after them: only the rounds the first pass ran are kept. */
static void tally_start(const struct rt_mesh_plan *p, const struct rt_sched *s,
			struct rt_mesh_agg *g)
{
	if (!p->pattern)
		return;
	/* incast's receivers each receive once: a table of them; an alltoall
	 * receiver's rounds are many, its figures the rounds' */
	g->tally = rt_mesh_tally_new(p->pattern, p->size, s->rounds,
				     s->kind == RT_SCHED_INCAST ? p->fan_in : 0);
}

/* A host's line: its ACTIVE rails' payload rates summed (what it can
 * receive at once), or its host port's; 0 when not known. */
static uint32_t host_line_mbps(const struct rt_mesh_node *nd)
{
	uint64_t sum = 0;

	if (!nd->nrails)
		return nd->payload_mbps;
	for (unsigned i = 0; i < nd->nrails; i++)
		if (nd->rails[i].state == RT_RAIL_ACTIVE)
			sum += rt_mesh_rail_payload_mbps(&nd->rails[i]);
	return (uint32_t)RT_MIN(sum, (uint64_t)UINT32_MAX);
}

static void tally_end(struct rt_mesh_agg *g)
{
	struct rt_mesh_tally *t = g->tally;

	for (uint32_t i = 0; t && t->recv && i < g->n; i++)
		if (g->nodes[i].present)
			rt_mesh_tally_line(t, i, host_line_mbps(&g->nodes[i]));
	if (!t || !g->cover.minutes)
		return;
	t->run = g->cover.rounds;
	t->rounds = RT_MIN(t->run, RT_MESH_TALLY_MAX);
}

int rt_mesh_lead(const struct rt_mesh_plan *p, struct rt_mesh_agg *g,
		 struct rt_error *err)
{
	struct rt_mesh_gather gt = { 0 };
	struct rt_mesh_coord c = { .gt = &gt, .g = g, .lim = p->lim,
				   .round_ms = rt_mesh_round_ms(p->timeout_ms), .seed = p->seed,
				   .no_blame = p->no_blame, .budget_ms = p->budget_ms,
				   .lines = p->lines, .both_ways = p->both_ways,
				   .qps = RT_MAX(p->qps, 1u), .fan_in = p->fan_in };
	struct rt_sched s = { 0 };
	struct rt_oob lis;
	pid_t own = -1;
	int rc;

	rt_oob_init(&lis, p->timeout_ms);
	lis.backlog = RT_MESH_PENDING_MAX;
	c.s = &s;
	rt_error_phase(err, "listen");
	rc = rt_mesh_fd_limit(p->size, err) ||
	     (p->kind == RT_SCHED_INCAST ?
	      rt_sched_incast(&s, p->size, p->fan_in, p->seed, err) :
	      p->kind == RT_SCHED_ALLTOALL ?
	      rt_sched_alltoall(&s, p->size, p->fan_in, p->seed, err) :
	      rt_sched_init(&s, p->kind, p->size, p->max_pairs, p->seed, err)) ||
	     rt_mesh_agg_init(g, p->size, 0, err) ? -1 : 0;
	if (!rc) {
		g->rails = p->nrails; /* the plan counts results x rails (x rails crossed) */
		g->auth = rt_mesh_auth_mode_name(p->key ? p->key->mode : RT_MESH_AUTH_NONE);
		g->cross = p->cross;
		g->qps = RT_MAX(p->qps, 1u);
		if (p->matchings)
			rt_sched_cap(&s, p->matchings);
		tally_start(p, &s, g);
		rc = rt_mesh_plan_fits(&s, g, err) ||
		     rt_oob_listen(&lis, NULL, p->coord_port, err) ? -1 : 0;
	}
	if (!rc) {
		own = start_own_rank(p, lis.lfd);
		if (own < 0)
			rc = rt_fail_errno(err, RT_EXIT_FAIL, errno, "fork");
	}
	rt_error_phase(err, "gather");
	if (!rc)
		rc = rt_mesh_gather_admit(&gt, lis.lfd, p->size, rt_mesh_join_ms(p), p->timeout_ms,
					  &(struct rt_mesh_admit){p->token, p->hosts, p->key}, g, err);
	rt_oob_close(&lis);
	if (!rc)
		name_absent(g, p->hosts);
	rt_error_phase(err, "rounds");
	if (!rc)
		rc = rt_mesh_coordinate(&c, err);
	tally_end(g);
	rt_mesh_gather_close(&gt);
	reap(own, p->timeout_ms);
	rt_sched_free(&s);
	return rc;
}
