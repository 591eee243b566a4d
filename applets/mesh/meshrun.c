/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The rounds of a mesh run (meshrun.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mesh/meshblame.h"
#include "mesh/meshline.h"
#include "mesh/meshround.h"
#include "rdmatest/fdwait.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

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
 * settles a rank's pending ones all at once), RT_MESH_NO_PAIR when it has none. */
static uint32_t heard_pair(struct round *rd, uint32_t rank)
{
	while (rd->cur[rank] < rd->nout[rank] && rd->done[rd->out_of[rank] + rd->cur[rank]])
		rd->cur[rank]++;
	return rd->cur[rank] < rd->nout[rank] ? rd->out_of[rank] + rd->cur[rank] : RT_MESH_NO_PAIR;
}

/* Something came from rank (or it closed): only the connecting side of a
 * pending pair may speak, with its pair's RESULTs of this round's wave,
 * one a connection in the assignment's order, pair after pair. */
static int hear(struct rt_mesh_coord *c, struct round *rd, uint32_t rank,
		struct rt_error *err)
{
	uint32_t i = heard_pair(rd, rank);
	struct rt_meshmsg m;
	int got = i != RT_MESH_NO_PAIR ? take(c, rank, &rd->in[i], &m) : -1;
	struct duo d[RT_MESH_CLASSES], want = {0, 0};
	int first, k = i != RT_MESH_NO_PAIR ? rt_mesh_wave_duos(c, rd, i, d, &first) : -1;
	bool ok;

	if (got == 0)
		return 0;
	if (k > 0)
		want = d[first + rd->got[i]];
	ok = got == 1 && m.type == RT_MESHMSG_RESULT && m.u.result.round == rd->r &&
	     m.u.result.a == rd->pairs[i].a && m.u.result.b == rank &&
	     m.u.result.rail == want.ra && m.u.result.rail_b == want.rb;
	if (!ok) {
		rt_mesh_round_lose(c, rank);
		/* its tests as the connecting side fail; a listener gone: its
		 * partners' tests fail and they say so */
		return rt_mesh_round_settle_out(c, rd, rank, RT_MESH_FAILED, err);
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
	return rd->out_of[rank] == RT_MESH_NO_PAIR || heard_pair(rd, rank) != RT_MESH_NO_PAIR;
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
			rt_mesh_round_lose(c, rd->pairs[i].b);
			if (rt_mesh_round_settle(c, rd, i, RT_MESH_TIMEOUT, err))
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
		rd->in_of[i] = rd->out_of[i] = RT_MESH_NO_PAIR;
		rd->nout[i] = 0;
	}
	/* a rank's pairs as the connecting side are in a row (sched.h) */
	for (uint32_t i = 0; i < rd->k; i++) {
		const struct rt_pair *p = &rd->pairs[i];

		rd->in_of[p->a] = i;
		if (rd->out_of[p->b] == RT_MESH_NO_PAIR)
			rd->out_of[p->b] = i;
		rd->nout[p->b]++;
		waves = RT_MAX(waves, rt_mesh_waves_of(c, rd, i));
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
		rc = rt_mesh_round_assign(c, rd, err) ? -1 : collect(c, rd, fds, who, err);
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
		bool alltoall = c->s->kind == RT_SCHED_ALLTOALL;

		cv->matchings = alltoall ? 0 : cv->rounds / c->s->split;
		cv->all_rounds = alltoall ? c->s->rounds : 0;
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
			rt_mesh_round_lose(c, rank); /* gone at the end: judged already */
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
