/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The rounds of a mesh run (meshrun.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mesh/meshblame.h"
#include "mesh/meshline.h"
#include "mesh/meshrun.h"
#include "mesh/meshseal.h"
#include "rdmatest/fdwait.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

#define NONE UINT32_MAX

/* What has come of one pair's RESULT: a rank that sends it a byte at a
 * time must not hold rank 0 in a read past the round's deadline. */
struct inbox {
	/* a RESULT, sealed or not; a HELLO's rails never fit */
	uint8_t buf[RT_MESHMSG_SMALL + RT_MESH_AUTH_TRAILER];
	uint8_t got, need; /* need: the header's length until it is whole */
};

/* One round's state at rank 0. */
struct round {
	uint32_t r, rounds, k;
	uint32_t wave;               /* of the round's waves (crossed rails) */
	const struct rt_pair *pairs; /* a listens, b connects */
	/* per rank: a pair it listens in (an incast or alltoall receiver is
	 * in several: one of them), and its first pair as the connecting
	 * side (an alltoall sender's are in a row), NONE: none */
	uint32_t *in_of, *out_of;
	uint8_t *nout, *cur;         /* per rank: its pairs as sender, the one heard now */
	uint16_t *conns;             /* per rank: connections its listen takes
				      * this wave (every pending pair it is a in) */
	uint8_t *done;               /* per pair */
	uint8_t *want, *got;         /* per pair: RESULTs to come (one a rail), come */
	struct inbox *in;            /* per pair */
	uint32_t left;               /* pairs without a result */
};

static bool alive(const struct rt_mesh_coord *c, uint32_t rank)
{
	return c->gt->conn[rank].fd >= 0;
}

/* The rank's connection's end when the run authenticates, else NULL:
 * what rt_mesh_send and rt_mesh_recv seal with. */
static struct rt_mesh_auth *auth_of(const struct rt_mesh_coord *c, uint32_t rank)
{
	return c->gt->auth ? &c->gt->auth[rank] : NULL;
}

static void lose(struct rt_mesh_coord *c, uint32_t rank)
{
	if (!alive(c, rank))
		return;
	rt_oob_close(&c->gt->conn[rank]);
	if (auth_of(c, rank))
		rt_mesh_auth_wipe(auth_of(c, rank));
	rt_mesh_agg_lost(c->g, rank);
	c->lost++;
}

/* One connection of a pair: a's rail against b's. */
struct duo {
	uint8_t ra, rb;
};

/* The ACTIVE rails a hello lists (with an address or without: those
 * without are tested over verbs, meshvtest.h) into out (rail numbers,
 * increasing); -1 when it lists none. */
static int active_rails(const struct rt_mesh_node *x, uint8_t *out)
{
	int k = 0;

	if (!x->nrails)
		return -1;
	for (unsigned i = 0; i < x->nrails; i++)
		if (x->rails[i].state == RT_RAIL_ACTIVE)
			out[k++] = x->rails[i].rail;
	return k;
}

/* The connections pair (a listens, b connects) makes, in b's order
 * ((rb, ra) increasing): every rail both hellos list ACTIVE against
 * itself, or with crossed rails every ACTIVE rail of b against every
 * ACTIVE rail of a (at most RT_MESH_CLASSES). -1 when either lists
 * none: their hosts are tested, as before rails. */
static int pair_duos(const struct rt_mesh_coord *c, uint32_t a, uint32_t b, struct duo *out)
{
	uint8_t x[RT_MESH_RAILS_MAX], y[RT_MESH_RAILS_MAX];
	int nx = active_rails(&c->g->nodes[a], x), ny = active_rails(&c->g->nodes[b], y), k = 0;

	if (nx < 0 || ny < 0)
		return -1;
	for (int j = 0; j < ny; j++)
		for (int i = 0; i < nx; i++)
			if (c->g->cross || x[i] == y[j])
				out[k++] = (struct duo){x[i], y[j]};
	return k;
}

/* The connections of pair i in this round's wave: *first of them into
 * d (from pair_duos), their count returned (-1: the hosts, in wave 0;
 * 0: none in this wave). A wave is at most RT_MESH_RAILS_MAX of them,
 * what one ASSIGN carries. */
static int wave_duos(const struct rt_mesh_coord *c, const struct round *rd, uint32_t i,
		     struct duo *d, int *first)
{
	int k = pair_duos(c, rd->pairs[i].a, rd->pairs[i].b, d);

	*first = (int)(rd->wave * RT_MESH_RAILS_MAX);
	if (k < 0)
		return rd->wave ? 0 : -1;
	return RT_MAX(RT_MIN(k - *first, (int)RT_MESH_RAILS_MAX), 0);
}

/* The waves pair i needs: its connections, RT_MESH_RAILS_MAX a wave. */
static uint32_t waves_of(const struct rt_mesh_coord *c, const struct round *rd, uint32_t i)
{
	struct duo d[RT_MESH_CLASSES];
	int k = pair_duos(c, rd->pairs[i].a, rd->pairs[i].b, d);

	return k <= 0 ? 1u : ((uint32_t)k + RT_MESH_RAILS_MAX - 1) / RT_MESH_RAILS_MAX;
}

/* The address of rank's rail `rail` (which its hello lists). */
static const char *rail_addr(const struct rt_mesh_agg *g, uint32_t rank, uint8_t rail)
{
	const struct rt_mesh_node *nd = &g->nodes[rank];

	for (unsigned i = 0; i < nd->nrails; i++)
		if (nd->rails[i].rail == rail)
			return nd->rails[i].addr;
	return "";
}

/* Results that rank 0 gives itself, one a connection of the wave still
 * to come: the pair was not (fully) tried. */
static int settle(struct rt_mesh_coord *c, struct round *rd, uint32_t i,
		  uint8_t status, struct rt_error *err)
{
	const struct rt_pair *p = &rd->pairs[i];
	struct duo d[RT_MESH_CLASSES];
	int first, k = wave_duos(c, rd, i, d, &first);

	rd->done[i] = 1;
	rd->left--;
	for (int r = k < 0 ? 0 : rd->got[i]; r < (k < 0 ? 1 : k); r++) {
		struct rt_mesh_result res = {.round = rd->r, .a = p->a, .b = p->b,
					     .status = status};

		if (k > 0) {
			res.rail = d[first + r].ra;
			res.rail_b = d[first + r].rb;
		}
		if (rt_mesh_agg_add(c->g, &res, err))
			return -1;
	}
	return 0;
}

static int cmp_arail(const void *x, const void *y)
{
	const struct rt_mesh_arail *p = x, *q = y;

	return (p->rail * 64 + p->rail_b) - (q->rail * 64 + q->rail_b);
}

/* The rails of rank's assignment in this wave: its own rail and the
 * partner's, and the partner's address on it, in (own, partner) order. */
static void assign_rails(const struct rt_mesh_coord *c, const struct round *rd,
			 struct rt_mesh_assign *a, uint32_t rank, uint32_t i)
{
	struct duo d[RT_MESH_CLASSES];
	int first, k = wave_duos(c, rd, i, d, &first);
	bool listens = rd->pairs[i].a == rank;

	a->nrails = (uint8_t)(k < 0 ? 0 : k);
	for (int r = 0; r < k; r++) {
		const struct duo *x = &d[first + r];

		a->rails[r].rail = listens ? x->ra : x->rb;
		a->rails[r].rail_b = listens ? x->rb : x->ra;
		/* no address at either end: both test it over verbs alone */
		if (rail_addr(c->g, rank, a->rails[r].rail)[0])
			rt_strlcpy(a->rails[r].addr, rail_addr(c->g, a->peer, a->rails[r].rail_b),
				   sizeof(a->rails[r].addr));
		else
			a->rails[r].addr[0] = '\0';
	}
	if (listens) /* b's order is the wave's; a's own comes first for a */
		qsort(a->rails, a->nrails, sizeof(a->rails[0]), cmp_arail);
}

/* The connections of pair i's test in this wave: a rail's qps each, or
 * qps for the hosts; 0 when it is done. */
static unsigned pair_conns(const struct rt_mesh_coord *c, const struct round *rd, uint32_t i)
{
	struct duo d[RT_MESH_CLASSES];
	int first, k = rd->done[i] ? 0 : wave_duos(c, rd, i, d, &first);

	return (unsigned)(k < 0 ? 1 : k) * RT_MAX(c->qps, 1u);
}

/* The connections each listener takes: those of every pending pair it
 * is a in (an incast or alltoall receiver's from every sender). */
static void count_conns(const struct rt_mesh_coord *c, struct round *rd)
{
	for (uint32_t i = 0; i < rd->k; i++)
		rd->conns[rd->pairs[i].a] = 0;
	for (uint32_t i = 0; i < rd->k; i++)
		rd->conns[rd->pairs[i].a] = (uint16_t)(rd->conns[rd->pairs[i].a] +
						       pair_conns(c, rd, i));
}

/* Whether rank listens this wave: it is a in a pending pair. */
static bool listens_now(const struct round *rd, uint32_t rank)
{
	return rd->in_of[rank] != NONE && rd->conns[rank];
}

/* Rank's tests this wave: a listen, and a connect for each pending pair
 * it is b in (nout is 0 for a rank that is b in none). */
static unsigned tests_of(const struct round *rd, uint32_t rank)
{
	unsigned n = listens_now(rd, rank);

	for (uint32_t j = 0; j < rd->nout[rank]; j++)
		n += !rd->done[rd->out_of[rank] + j];
	return n;
}

/* Every pending pair that rank connects in fails (it is gone). */
static int settle_out(struct rt_mesh_coord *c, struct round *rd, uint32_t rank,
		      uint8_t status, struct rt_error *err)
{
	for (uint32_t j = 0; j < rd->nout[rank]; j++)
		if (!rd->done[rd->out_of[rank] + j] &&
		    settle(c, rd, rd->out_of[rank] + j, status, err))
			return -1;
	return 0;
}

/* One of rank's ASSIGNs of this wave: for pair i, listening (the
 * connections of all its pairs as a) or connecting; `tests` of them. */
static int send_test(struct rt_mesh_coord *c, const struct round *rd, uint32_t rank,
		     uint32_t i, unsigned tests, struct rt_error *err)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_ASSIGN};
	struct rt_mesh_assign *a = &m.u.assign;
	bool listens = rd->pairs[i].a == rank;

	a->round = rd->r;
	a->rounds = rd->rounds;
	a->role = listens ? RT_MESH_LISTEN : RT_MESH_CONNECT;
	a->peer = listens ? rd->pairs[i].b : rd->pairs[i].a;
	a->flags = c->both_ways ? RT_MESH_ASSIGN_BOTH_WAYS : 0;
	a->qps = (uint8_t)RT_MAX(c->qps, 1u);
	a->conns = listens ? rd->conns[rank] : (uint16_t)pair_conns(c, rd, i);
	a->tests = (uint8_t)tests;
	a->port = c->g->nodes[a->peer].port;
	rt_strlcpy(a->host, c->g->nodes[a->peer].host, sizeof(a->host));
	assign_rails(c, rd, a, rank, i);
	return rt_mesh_send(&c->gt->conn[rank], auth_of(c, rank), &m, err);
}

/* Rank's ASSIGNs of this wave, its listen first, or a rest. */
static int send_tests(struct rt_mesh_coord *c, const struct round *rd, uint32_t rank,
		      struct rt_error *err)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_ASSIGN,
			       .u.assign = {.round = rd->r, .rounds = rd->rounds,
					    .role = RT_MESH_REST, .peer = RT_MESH_NO_PEER}};
	unsigned tests = tests_of(rd, rank);

	if (!tests)
		return rt_mesh_send(&c->gt->conn[rank], auth_of(c, rank), &m, err);
	if (listens_now(rd, rank) && send_test(c, rd, rank, rd->in_of[rank], tests, err))
		return -1;
	for (uint32_t j = 0; j < rd->nout[rank]; j++)
		if (!rd->done[rd->out_of[rank] + j] &&
		    send_test(c, rd, rank, rd->out_of[rank] + j, tests, err))
			return -1;
	return 0;
}

/* Pairs with an end that is absent or lost fail without a try; the rest
 * are assigned. A rank whose ASSIGN cannot be written is lost: its pair
 * fails now if it was to connect, else when its partner reports. */
static int assign(struct rt_mesh_coord *c, struct round *rd, struct rt_error *err)
{
	for (uint32_t i = 0; i < rd->k; i++) {
		const struct rt_pair *p = &rd->pairs[i];
		bool gone = !c->g->nodes[p->a].present || !c->g->nodes[p->b].present;
		struct duo d[RT_MESH_CLASSES];
		int first, k = wave_duos(c, rd, i, d, &first); /* gone: no rails, -1 */

		rd->want[i] = (uint8_t)(k < 0 ? 1 : k);
		/* no rail of theirs to test: bad rails, judged from the hellos;
		 * or none left for this wave */
		if (!k) {
			rd->done[i] = 1;
			rd->left--;
			continue;
		}
		if ((gone || !alive(c, p->a) || !alive(c, p->b)) &&
		    settle(c, rd, i, gone ? RT_MESH_ABSENT : RT_MESH_FAILED, err))
			return -1;
	}
	count_conns(c, rd);
	for (uint32_t rank = 0; rank < c->s->n; rank++) {
		struct rt_error e = {0};

		if (!alive(c, rank) || !send_tests(c, rd, rank, &e))
			continue;
		lose(c, rank);
		if (settle_out(c, rd, rank, RT_MESH_FAILED, err))
			return -1;
	}
	return 0;
}

/* Takes what the connecting side has sent without waiting: 1 with the
 * whole message in *m, 0 while more is to come, -1 when the connection
 * closed or failed or the bytes are no message of this mesh. */
static int take(struct rt_mesh_coord *c, uint32_t rank, struct inbox *in,
		struct rt_meshmsg *m)
{
	struct rt_error e = {0};
	uint8_t type;

	for (;;) {
		ssize_t n = recv(c->gt->conn[rank].fd, in->buf + in->got,
				 in->need - in->got, MSG_DONTWAIT);
		int plen;

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			       errno != EINTR))
			return -1;
		if (n < 0)
			return 0;
		in->got += (uint8_t)n;
		if (in->got < in->need)
			return 0;
		if (in->need > RT_MESHMSG_HDR)
			return rt_mesh_unframe(auth_of(c, rank), in->buf, in->got, c->s->n, m,
					       &e) ? -1 : 1;
		plen = rt_meshmsg_header(in->buf, &type, &e);
		if (plen < 0 || type != RT_MESHMSG_RESULT)
			return -1;
		/* a RESULT's payload is fixed: the inbox holds it, sealed too */
		in->need = (uint8_t)(RT_MESHMSG_HDR + (unsigned)plen +
				     rt_mesh_trailer(auth_of(c, rank)));
	}
}

/* The pair whose RESULTs rank sends now: its first pending pair as the
 * connecting side (they come in the order of its ASSIGNs, and rank 0
 * settles a rank's pending ones all at once), NONE when it has none. */
static uint32_t heard_pair(struct round *rd, uint32_t rank)
{
	while (rd->cur[rank] < rd->nout[rank] && rd->done[rd->out_of[rank] + rd->cur[rank]])
		rd->cur[rank]++;
	return rd->cur[rank] < rd->nout[rank] ? rd->out_of[rank] + rd->cur[rank] : NONE;
}

/* Something came from rank (or it closed): only the connecting side of a
 * pending pair may speak, with its pair's RESULTs of this round's wave,
 * one a connection in the assignment's order, pair after pair. */
static int hear(struct rt_mesh_coord *c, struct round *rd, uint32_t rank,
		struct rt_error *err)
{
	uint32_t i = heard_pair(rd, rank);
	struct rt_meshmsg m;
	int got = i != NONE ? take(c, rank, &rd->in[i], &m) : -1;
	struct duo d[RT_MESH_CLASSES], want = {0, 0};
	int first, k = i != NONE ? wave_duos(c, rd, i, d, &first) : -1;
	bool ok;

	if (got == 0)
		return 0;
	if (k > 0)
		want = d[first + rd->got[i]];
	ok = got == 1 && m.type == RT_MESHMSG_RESULT && m.u.result.round == rd->r &&
	     m.u.result.a == rd->pairs[i].a && m.u.result.b == rank &&
	     m.u.result.rail == want.ra && m.u.result.rail_b == want.rb;
	if (!ok) {
		lose(c, rank);
		/* its tests as the connecting side fail; a listener gone: its
		 * partners' tests fail and they say so */
		return settle_out(c, rd, rank, RT_MESH_FAILED, err);
	}
	rd->in[i] = (struct inbox){.need = RT_MESHMSG_HDR};
	if (++rd->got[i] == rd->want[i]) {
		rd->done[i] = 1;
		rd->left--;
	}
	return rt_mesh_agg_add(c->g, &m.u.result, err);
}

/* Whether what came from rank is heard now: a connecting side's while it
 * has a pending pair; one that only listens always (it must say nothing:
 * it is lost). */
static bool speaks(struct round *rd, uint32_t rank)
{
	return rd->out_of[rank] == NONE || heard_pair(rd, rank) != NONE;
}

/* One poll over both ends of every pending pair, until the deadline. */
static int collect(struct rt_mesh_coord *c, struct round *rd,
		   struct pollfd *fds, uint32_t *who, struct rt_error *err)
{
	uint64_t deadline = rt_deadline_after_ms(c->round_ms);

	while (rd->left && rt_ms_until(deadline) > 0) {
		uint32_t nf = 0;
		int r;

		if (rt_interrupt_pending())
			return RT_INTERRUPTED; /* the pending pairs stay untested */

		for (uint32_t i = 0; i < rd->k; i++) {
			uint32_t ends[2] = {rd->pairs[i].a, rd->pairs[i].b};

			for (int e = 0; e < 2 && !rd->done[i]; e++)
				if (alive(c, ends[e])) {
					who[nf] = ends[e];
					fds[nf++] = (struct pollfd){
						.fd = c->gt->conn[ends[e]].fd, .events = POLLIN};
				}
		}
		r = rt_fdwait_many(fds, nf, deadline);
		if (r == RT_FDWAIT_INTERRUPTED)
			return RT_INTERRUPTED; /* the pending pairs stay untested */
		if (r < 0)
			return rt_fail_errno(err, RT_EXIT_FAIL, errno, "mesh: poll");
		for (uint32_t f = 0; r == RT_FDWAIT_READY && f < nf; f++)
			if (fds[f].revents && speaks(rd, who[f]) && alive(c, who[f]) &&
			    hear(c, rd, who[f], err))
				return -1;
	}
	/* never answered within the round: lost, its pair timed out */
	for (uint32_t i = 0; i < rd->k; i++)
		if (!rd->done[i]) {
			lose(c, rd->pairs[i].b);
			if (settle(c, rd, i, RT_MESH_TIMEOUT, err))
				return -1;
		}
	return 0;
}

static int run_round(struct rt_mesh_coord *c, struct round *rd,
		     struct rt_error *err)
{
	uint32_t n = c->s->n;
	struct pollfd *fds = rt_xmalloc((2 * (size_t)rd->k + 1) * sizeof(*fds));
	uint32_t *who = rt_xmalloc((2 * (size_t)rd->k + 1) * sizeof(*who));
	uint32_t waves = 1;
	int rc = 0;

	for (uint32_t i = 0; i < n; i++) {
		rd->in_of[i] = rd->out_of[i] = NONE;
		rd->nout[i] = 0;
	}
	/* a rank's pairs as the connecting side are in a row (sched.h) */
	for (uint32_t i = 0; i < rd->k; i++) {
		const struct rt_pair *p = &rd->pairs[i];

		rd->in_of[p->a] = i;
		if (rd->out_of[p->b] == NONE)
			rd->out_of[p->b] = i;
		rd->nout[p->b]++;
		waves = RT_MAX(waves, waves_of(c, rd, i));
	}
	/* crossed rails: RT_MESH_RAILS_MAX connections a pair a wave, each
	 * wave a round's bound; at most RT_MESH_RAILS_MAX waves */
	for (rd->wave = 0; !rc && rd->wave < waves; rd->wave++) {
		for (uint32_t i = 0; i < rd->k; i++) {
			rd->done[i] = rd->got[i] = 0;
			rd->want[i] = 1;
			rd->in[i] = (struct inbox){.need = RT_MESHMSG_HDR};
		}
		rd->left = rd->k;
		memset(rd->cur, 0, n);
		rc = assign(c, rd, err) ? -1 : collect(c, rd, fds, who, err);
	}
	free(fds);
	free(who);
	c->rounds++;
	return rc;
}

static uint64_t ms_since(uint64_t t0)
{
	return (rt_now_ns() - t0) / 1000000u;
}

/* Whether `rounds` more rounds as long as the longest so far still end
 * within the budget (always, without one). */
static bool budget_fits(const struct rt_mesh_coord *c, uint64_t longest_ms,
			uint32_t rounds)
{
	return c->budget_ms <= 0 ||
	       ms_since(c->start) + longest_ms * rounds <= (uint64_t)c->budget_ms;
}

static int timed_round(struct rt_mesh_coord *c, struct round *rd, struct rt_error *err)
{
	uint64_t t0 = rt_now_ns();
	int rc = run_round(c, rd, err);

	c->longest_ms = RT_MAX(c->longest_ms, ms_since(t0));
	return rc;
}

/* The pairs all[0..np) in rounds of disjoint pairs of at most the
 * schedule's bound, numbered on from the rounds run. Returns 0 or the
 * round's error; *ran the rounds run (fewer when the budget ran out:
 * c->g->blame.cut), round_of[] which round each pair had. */
static int run_pairs(struct rt_mesh_coord *c, struct round *rd, struct rt_pair *pairs,
		     const struct rt_pair *all, uint32_t np, uint32_t *round_of,
		     uint32_t *ran, struct rt_error *err)
{
	uint32_t nr = rt_sched_disjoint(all, np, c->s->n, c->s->bound, round_of);
	uint32_t base = c->rounds;
	int rc = 0;

	*ran = 0;
	for (uint32_t r = 0; !rc && r < nr; r++) {
		if (!budget_fits(c, c->longest_ms, 1)) {
			c->g->blame.cut = true;
			break;
		}
		rd->k = 0;
		for (uint32_t i = 0; i < np; i++)
			if (round_of[i] == r)
				pairs[rd->k++] = all[i];
		rd->r = base + r;
		rd->rounds = base + nr;
		rc = timed_round(c, rd, err);
		*ran = r + 1;
		c->g->blame.rounds++;
		c->g->blame.pairs += rd->k;
	}
	return rc;
}

/* The re-tests that ran: those of the rounds before `ran`, in order. */
static uint32_t keep_run(struct rt_mesh_blame *b, const uint32_t *round_of, uint32_t ran)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < b->nre; i++)
		if (round_of[i] < ran)
			b->re[k++] = b->re[i];
	return k;
}

static void put_json(FILE *f, struct rt_json *j)
{
	rt_json_finish(j);
	fprintf(f, "%s\n", rt_json_text(j));
	rt_json_free(j);
}

/* Rank 0's evidence lines, for `mesh report` (meshline.h). */
static void evidence_lines(const struct rt_mesh_coord *c)
{
	const struct rt_mesh_blame *b = &c->g->blame;
	struct rt_json j;

	if (!c->lines)
		return;
	for (uint32_t i = 0; i < b->nre; i++)
		if (b->re[i].state == RT_RETEST_FLAKY) {
			rt_json_init(&j);
			rt_mesh_line_flaky(&j, &b->re[i].first);
			put_json(c->lines, &j);
		}
	for (uint32_t i = 0; i < b->nends; i++) {
		rt_json_init(&j);
		rt_mesh_line_blame(&j, &b->ends[i]);
		put_json(c->lines, &j);
	}
	fflush(c->lines);
}

/* The blame pass (meshblame.h): the bad links re-tested, then the ends
 * of those still bad and the suspects each paired with good hosts. */
static int blame_pass(struct rt_mesh_coord *c, struct round *rd, struct rt_pair *pairs,
		      struct rt_error *err)
{
	uint32_t cap = RT_MESH_RETEST_MAX + RT_MESH_BLAME_PARTNERS * RT_MESH_BLAME_ENDS;
	struct rt_pair *all = rt_xmalloc(cap * sizeof(*all));
	uint32_t *round_of = rt_xmalloc(cap * sizeof(*round_of)), np, ran = 0;
	struct rt_mesh_agg *g = c->g;
	int rc = rt_mesh_judge(g, c->lim, err);

	g->blame.ran = true;
	np = rc ? 0 : rt_mesh_blame_retests(g, all);
	if (np && !rc)
		rc = run_pairs(c, rd, pairs, all, np, round_of, &ran, err);
	g->blame.nre = keep_run(&g->blame, round_of, ran);
	if (!rc && np)
		rc = rt_mesh_judge(g, c->lim, err);
	if (!rc)
		rt_mesh_blame_retested(g, g->blame.nre);
	np = rc || g->blame.cut ? 0 : rt_mesh_blame_pairings(g, c->seed, all);
	if (np && !rc)
		rc = run_pairs(c, rd, pairs, all, np, round_of, &ran, err);
	if (!rc && np)
		rc = rt_mesh_judge(g, c->lim, err);
	if (!rc) {
		rt_mesh_blame_conclude(g);
		evidence_lines(c);
	}
	free(all);
	free(round_of);
	return rc;
}

/* The first pass: the schedule's rounds; a budget's matchings while the
 * next one and the blame pass's reserve still fit, every rank once
 * whatever the budget (cover_rounds). */
static int first_pass(struct rt_mesh_coord *c, struct round *rd, struct rt_pair *pairs,
		      struct rt_error *err)
{
	struct rt_mesh_cover *cv = &c->g->cover;
	struct rt_pairset ps;
	int rc = 0;

	cv->counted = c->budget_ms > 0 && rt_pairset_init(&ps, c->s->n);
	for (uint32_t r = 0; !rc && r < c->s->rounds; r++) {
		if (r >= c->s->cover_rounds &&
		    !budget_fits(c, c->longest_ms, 1 + RT_MESH_BUDGET_RESERVE))
			break;
		rd->r = r;
		rd->rounds = c->s->rounds;
		rd->k = rt_sched_round(c->s, r, pairs);
		rc = timed_round(c, rd, err);
		for (uint32_t i = 0; cv->counted && i < rd->k; i++)
			rt_pairset_add(&ps, pairs[i].a, pairs[i].b);
		cv->rounds = r + 1;
	}
	if (c->budget_ms > 0) {
		cv->matchings = cv->rounds / c->s->split;
		cv->distinct = cv->counted ? ps.count : 0;
		rt_pairset_free(&ps);
	}
	return rc;
}

static void send_verdict(struct rt_mesh_coord *c)
{
	struct rt_mesh_agg *g = c->g;
	struct rt_meshmsg m = {.type = RT_MESHMSG_VERDICT,
		.u.verdict = {.ready = g->ready, .interrupted = g->interrupted,
			      .bad_nodes = g->bad_nodes, .bad_links = g->bad_links,
			      .absent = g->absent_nodes, .untested = g->untested_nodes}};

	for (uint32_t rank = 0; rank < c->s->n; rank++) {
		struct rt_error e = {0};

		m.u.verdict.self = !g->ready && rt_mesh_host_blamed(g, rank);
		if (alive(c, rank) && rt_mesh_send(&c->gt->conn[rank], auth_of(c, rank), &m, &e))
			lose(c, rank); /* gone at the end: judged already */
	}
}

int rt_mesh_coordinate(struct rt_mesh_coord *c, struct rt_error *err)
{
	uint32_t n = c->s->n, cap = RT_MAX(c->s->max_pairs, n / 2 + 1);
	struct rt_pair *pairs = rt_xmalloc(cap * sizeof(*pairs));
	struct round rd = {.pairs = pairs,
			   .in_of = rt_xmalloc(n * sizeof(*rd.in_of)),
			   .out_of = rt_xmalloc(n * sizeof(*rd.out_of)),
			   .nout = rt_xmalloc(n), .cur = rt_xmalloc(n),
			   .conns = rt_xcalloc(n, sizeof(*rd.conns)),
			   .done = rt_xmalloc(cap), .want = rt_xmalloc(cap),
			   .got = rt_xmalloc(cap),
			   .in = rt_xmalloc(cap * sizeof(*rd.in))};
	int rc = 0;

	if (c->round_ms <= 0)
		rc = rt_fail(err, RT_EXIT_USAGE, "mesh: a round needs a bound (%lld ms)",
			     c->round_ms);
	if (!rc)
		rc = rt_mesh_plan_fits(c->s, c->g, err);
	if (!rc)
		rc = rt_mesh_conns_fit(c, err);
	c->lost = c->rounds = 0;
	c->longest_ms = 0;
	c->start = rt_now_ns();
	c->g->cover.minutes = (double)RT_MAX(c->budget_ms, 0) / 60000.0;
	if (!rc)
		rc = first_pass(c, &rd, pairs, err);
	if (!rc && !c->no_blame && !rt_interrupt_pending())
		rc = blame_pass(c, &rd, pairs, err);
	c->g->cover.elapsed_s = (double)ms_since(c->start) / 1e3;
	if (!rc && rt_interrupt_pending())
		rc = RT_INTERRUPTED; /* after the last wait: still not a clean run */
	/* a verdict on what came, sent within bounds; the pairs not run vouch
	 * for nobody, so it is never READY, on any rank */
	if (rc == RT_INTERRUPTED) {
		c->g->interrupted = true;
		rt_interrupt_wind_down(err);
	}
	if ((!rc || rc == RT_INTERRUPTED) && rt_mesh_judge(c->g, c->lim, err))
		rc = -1;
	if (!rc || rc == RT_INTERRUPTED)
		send_verdict(c);
	free(pairs);
	free(rd.in_of);
	free(rd.out_of);
	free(rd.nout);
	free(rd.cur);
	free(rd.conns);
	free(rd.done);
	free(rd.want);
	free(rd.got);
	free(rd.in);
	return rc == RT_INTERRUPTED ? rc : rc ? -1 : 0;
}
