/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The blame pass of a mesh run, after the first pass (every schedule,
 * unless --no-blame), so that a transient blip is not a verdict and a bad
 * link is told from a bad host:
 *   1 re-test  every bad link whose ends are both still there, once, in
 *              rounds of disjoint pairs: at most RT_MESH_RETEST_PER_HOST
 *              of a host's bad links (a host with more is bad by them
 *              already) and RT_MESH_RETEST_MAX in all. A link good on
 *              re-test is "flaky, good on re-test": listed with its first
 *              figures, and it does not fail READY (the re-test replaces
 *              the result; a link that fails twice is what a verdict
 *              needs).
 *   2 pairing  both ends of every re-tested link still bad, and every
 *              suspect host (no link passed), at most RT_MESH_BLAME_ENDS
 *              of them, each with RT_MESH_BLAME_PARTNERS distinct hosts
 *              whose links all passed, a link to a host found bad aside
 *              (sched.h's rt_sched_blame), never the other end of its bad
 *              link (an end with no such host left, e.g. a host bad with
 *              every other, keeps its first-pass verdict), each pair run
 *              once, in rounds of disjoint pairs.
 *   conclusion an end all of whose pairings are bad is named a bad host
 *              (meshagg.h's rt_mesh_agg_name); a still-bad link both of
 *              whose ends passed with good hosts is a bad link on its own;
 *              an end without pairings counts as bad when its node is.
 * Pairs: at most min(RT_MESH_RETEST_MAX, 2n) re-tests and 2 x
 * RT_MESH_BLAME_ENDS pairings; rounds, by rt_sched_disjoint's bound with
 * at most D pairs of one rank and bound B on concurrent pairs: at most
 * 2 x 4 - 1 + 4096 / B re-test rounds and 2D - 1 + 128 / B pairing
 * rounds, D at most 128 (one good host left for every end), 2 or 3 when
 * good hosts are plenty. Each round keeps meshrun.h's bound (round_ms).
 * Whether a pair is bad comes from meshagg.h's rt_mesh_pair_bad alone
 * (rt_mesh_pair_worst): a pair of several rails, crossed or not, is as
 * bad as its worst (rail, rail_b), re-tested once and whole (every
 * connection of it again), its worst result kept as the first.
 * The evidence is kept in the aggregate (g->blame), at rank 0 and in
 * `mesh report`, which rebuilds it from rank 0's "flaky" and "blame"
 * lines (meshline.h). */
#ifndef RDMATEST_MESHBLAME_H
#define RDMATEST_MESHBLAME_H

#include "mesh/meshagg.h"
#include "mesh/sched.h"

/* The most pairs the blame pass of n ranks adds (results to plan for). */
uint64_t rt_mesh_blame_max_pairs(uint32_t n);

/* After a judging of the first pass: the links to re-test into out (room
 * for RT_MESH_RETEST_MAX) with their first results kept in g->blame;
 * returns their number. */
uint32_t rt_mesh_blame_retests(struct rt_mesh_agg *g, struct rt_pair *out);
/* After the re-tests' rounds (ran: how many of the pairs out gave were
 * run, the first ones) and a judging: each re-test flaky or still bad. */
void rt_mesh_blame_retested(struct rt_mesh_agg *g, uint32_t ran);
/* After that judging: the ends to pair and their good partners into out
 * (room for 2 x RT_MESH_BLAME_ENDS), recorded in g->blame; returns the
 * number of pairs. */
uint32_t rt_mesh_blame_pairings(struct rt_mesh_agg *g, uint64_t seed, struct rt_pair *out);
/* Records an end and its partners (report: rank 0's "blame" line). */
void rt_mesh_blame_end_add(struct rt_mesh_agg *g, uint32_t rank, const uint32_t *partner,
			   uint8_t np);
/* Records a flaky link (report: rank 0's "flaky" line). */
void rt_mesh_blame_flaky_add(struct rt_mesh_agg *g, const struct rt_mesh_link *first);
/* After the pairings' rounds and a judging: counts each end's pairings,
 * names the ends all of whose pairings are bad; the caller judges again. */
void rt_mesh_blame_conclude(struct rt_mesh_agg *g);

enum rt_blame_verdict {
	RT_BLAME_NONE,     /* no evidence: neither end paired nor bad */
	RT_BLAME_HOST_A,   /* a's pairings all bad (or a bad, unpaired), b's not */
	RT_BLAME_HOST_B,
	RT_BLAME_HOSTS,    /* both ends' pairings all bad */
	RT_BLAME_LINK,     /* both ends passed with good hosts: the link */
	RT_BLAME_UNSURE,   /* mixed: some pairing of an end good, some bad */
	RT_BLAME_PORT_A,   /* no host to blame, and only a's port counted link errors */
	RT_BLAME_PORT_B,
};
/* After concluding: what the pairings say of the link of a and b. */
enum rt_blame_verdict rt_mesh_blame_link(const struct rt_mesh_agg *g, uint32_t a, uint32_t b);
/* What the pairings and the link's own counters say of judged link l:
 * rt_mesh_blame_link's verdict, unless it names no host and l is bad by
 * its counters with link-level errors (portctr.h's link class: bit
 * errors, retraining, drops by the port) counted by one end's port
 * alone: that end's link (its cable, transceiver or switch port), the
 * other end's port having seen none. Retransmit counters name no end: a
 * packet lost either way makes the requester retry and the responder
 * see a sequence error. */
enum rt_blame_verdict rt_mesh_blame_of(const struct rt_mesh_agg *g, const struct rt_mesh_link *l);
/* The end of a RT_BLAME_HOST_* or RT_BLAME_PORT_* verdict on l, or -1. */
int64_t rt_mesh_blame_rank(enum rt_blame_verdict v, const struct rt_mesh_link *l);
/* The end record of rank, or NULL. */
const struct rt_mesh_blame_end *rt_mesh_blame_end_of(const struct rt_mesh_agg *g, uint32_t rank);
const char *rt_blame_verdict_name(enum rt_blame_verdict v);
/* After judging: whether the verdict puts rank's own host at fault, a bad
 * host or a host with a bad rail; suspect, absent and untested hosts are
 * not (nothing proves them bad), nor the ends of a bad link. */
bool rt_mesh_host_blamed(const struct rt_mesh_agg *g, uint32_t rank);

#endif
