/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The results of a mesh run in one place (rank 0, or `mesh report`):
 * who said hello, every pair's result, and the verdicts judged from them.
 *   link  bad when its test failed or timed out, or a figure misses an
 *         absolute threshold (--min-gbps, --max-rtt-us) or a relative one
 *         (RTT median above rtt_factor x the cluster's median, bandwidth
 *         below bw_fraction x the cluster's median: outliers). A link's
 *         bandwidth is its slower direction's: a link is as good as its
 *         worse half, and one figure per link keeps one median, one
 *         verdict and one reason per link; the document and the text
 *         still show both directions. With min_line_rate, also bad below
 *         that fraction of the smaller payload rate its ends' hellos
 *         give (linerate.h): a link every link of which is as slow.
 *         Also bad, a failed one too, when its ports' counters rose past
 *         max_errors (a link counter) or max_retrans_ppm per million
 *         packets sent (a retransmit counter): meshctr.h.
 *   node  absent  never said hello (its pairs count against nobody)
 *         bad     lost during the run with a failed pair, or named by
 *                 the blame pass (every pairing with a good host bad), or
 *                 at least 2 bad links, more than half of its tested ones
 *                 (RT_MESH_NODE_BAD_LINKS, RT_MESH_NODE_BAD_ONE_IN),
 *                 not counting bad links to nodes found bad before it
 *                 (worst first): a broken node does not make its
 *                 partners look broken
 *         suspect on no rail did a link pass with a partner that is not
 *                 bad (e.g. the one pair of a random round): the blame
 *                 pass (meshblame.h) pairs it with hosts that passed
 *   With rails, the above is judged rail by rail: a host bad on every
 *   rail it was tested on is a bad host, bad on some a host with bad
 *   rails; a host that passed on one rail is not suspect for another.
 *   Crossed links (--cross-rails: rail i of a against rail j != i of
 *   b) are judged against the medians of their class {i, j} and the
 *   smaller of the two ports' payload rates, but blame no host or rail:
 *   a bad one is a bad link unless a bad host, a's bad rail i or b's bad
 *   rail j explains it.
 *         ok      otherwise (its bad links are the links' fault)
 *         untested  said hello but no pair of it was tested (a random
 *                 round of an odd count leaves one out)
 *   READY when at least one link was tested, every host that said hello
 *   was tested, nothing is bad, suspect, absent or untested, no peer that
 *   showed the job's token was refused (strangers do not count), and the
 *   run was not interrupted.
 * A later result for the same pair replaces the earlier one (re-tests).
 *
 * Memory (meshstore.c says how): 24 B per result dense (a cell per
 * pair of a tournament), 32 B sparse, at most 32 B x max_results (16 Mi
 * results by default: 512 MiB; the largest plan, a full tournament of
 * 5,793 hosts, is 384 MiB dense), 328 B per rank and 196 B per rail a
 * hello lists (with their inventory). Kept by meshstore.c; judged by meshjudge.c (the medians:
 * meshmedian.c). */
#ifndef RDMATEST_MESHAGG_H
#define RDMATEST_MESHAGG_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmatest/error.h"
#include "mesh/meshcong.h"
#include "mesh/meshwire.h"

#define RT_MESH_RESULTS_MAX (1u << 24)
/* The node rule (meshjudge.c): when a node's bad links are the node's
 * fault rather than its partners' or the links' own. */
/* a rank that left the run after a failed pair: its leaving explains it */
#define RT_MESH_LOST_BAD_LINKS 1u
/* one bad link blames its link: it takes two to point at a shared end */
#define RT_MESH_NODE_BAD_LINKS 2u
/* and more than one in this many of its tested links: fewer, and its
 * partners' good links speak for it */
#define RT_MESH_NODE_BAD_ONE_IN 2u
/* (rail, rail_b) classes by min x RT_MESH_RAILS_MAX + max: 32 x 32 */
#define RT_MESH_CLASSES 1024u
_Static_assert(RT_MESH_CLASSES == RT_MESH_RAILS_MAX * RT_MESH_RAILS_MAX, "a class per rail pair");

struct rt_mesh_limits {
	double min_gbps;    /* 0: no absolute bandwidth floor */
	double max_rtt_us;  /* 0: no absolute RTT ceiling */
	double rtt_factor;  /* 0: off; ClusterKit's latency tolerance is 2.1 */
	double bw_fraction; /* 0: off; e.g. 0.93 */
	/* 0: off; e.g. 0.9: a link below this x the smaller of its two ends'
	 * payload rates (their hellos) is bad; not judged where one is unknown */
	double min_line_rate;
	/* fewer measured links than this: a median says nothing, the relative
	 * criteria are "not judged" and the run is not READY (0 takes 1) */
	uint32_t min_links;
	/* a link is bad when a link counter (portctr.h) of either end's port
	 * rose by more than max_errors during its test (--max-errors), or a
	 * retransmit counter by more than max_retrans_ppm per million packets
	 * the two ports sent (--max-retrans) */
	uint64_t max_errors, max_retrans_ppm;
	/* --pattern incast: the senders a link's bandwidth was shared among
	 * (--fan-in); its absolute floors (min_gbps, min_line_rate) are that
	 * many times lower, a sender's fair share; 0 or 1: not shared */
	uint32_t shared_by;
};

/* Why a link is bad (a mask). */
#define RT_LINK_FAILED 1u   /* the test failed or timed out */
#define RT_LINK_RTT_ABS 2u
#define RT_LINK_RTT_REL 4u
#define RT_LINK_BW_ABS 8u
#define RT_LINK_BW_REL 16u
#define RT_LINK_ABSENT 32u  /* an end never said hello: not judged */
#define RT_LINK_LINE_RATE 64u /* below min_line_rate x the ends' payload rate */
/* a port's link counter rose by more than max_errors, or a retransmit
 * counter by more than max_retrans_ppm per million packets sent */
#define RT_LINK_COUNTERS 128u

enum rt_node_verdict {
	RT_NODE_OK, RT_NODE_SUSPECT, RT_NODE_BAD, RT_NODE_ABSENT,
	RT_NODE_UNTESTED,
};

struct rt_mesh_node {
	char host[RT_MESH_HOST_LEN]; /* "" until known */
	bool present;
	bool lost;        /* left the run after its hello (meshrun.h) */
	uint16_t port;    /* its test port, from its hello */
	uint32_t payload_mbps; /* its port's payload rate, from its hello; 0: unknown */
	struct rt_mesh_inv inv; /* its kernel and rdma-core, from its hello */
	uint16_t drift;   /* after judging: inventory fields it differs in (meshinv.h) */
	uint8_t nrails;   /* the rails its hello listed (0: none, its host tested) */
	uint8_t rails_in_use; /* after judging: those not unused (rt_mesh_rail_fault) */
	struct rt_mesh_rail *rails; /* nrails of them, or NULL */
	/* after judging, masks by rail number: tested there, blamed by that
	 * rail's links (0 when the node itself is bad), nothing passed there
	 * with a good partner */
	uint32_t rail_tested, rail_bad, rail_suspect;
	uint8_t verdict;  /* enum rt_node_verdict, after judging */
	bool named;       /* the blame pass found it bad (meshblame.h) */
	uint32_t tested, bad;
};

/* A peer that showed the job's token to rank 0 and was turned away
 * (meshgather.h: a rank taken, from another host than the list's):
 * named in the summary and the document, and the run is not READY, since
 * a real rank may have lost its place. */
#define RT_MESH_REFUSED_LIST 64u /* recorded; the rest are counted */
struct rt_mesh_refusal {
	char addr[64];    /* "192.0.2.2:40312" */
	uint32_t rank;    /* as claimed; RT_MESH_NO_PEER when it never said */
	char reason[96];
};

/* A connection that could not show the job's token: another job's token,
 * another protocol version, a malformed header or hello, or a hello of
 * another mesh size. Anyone who reaches the port can send one, so it is
 * named in the summary and the document and never changes the verdict.
 * Memory is fixed: the first RT_MESH_STRANGER_LIST are recorded (160 B
 * each), the rest only counted. */
#define RT_MESH_STRANGER_LIST 16u
struct rt_mesh_stranger {
	char addr[64];    /* "192.0.2.2:40312" */
	char reason[96];
};

/* One tested link as its consumers see it, decoded from the stored form
 * on their stack: r.a < r.b (the bandwidths turned with the ends: mbps
 * a to b), r.round 0, the figures as stored (meshstore.c). */
struct rt_mesh_link {
	struct rt_mesh_result r;
	uint32_t why;            /* RT_LINK_*, after judging */
};

/* The blame pass's evidence (meshblame.h fills it, at rank 0 from its
 * rounds, in `mesh report` from rank 0's lines). Bounds: at most
 * RT_MESH_RETEST_PER_HOST bad links of a host and RT_MESH_RETEST_MAX in
 * all are re-tested (72 B each: 288 KiB), at most RT_MESH_BLAME_ENDS
 * hosts paired with RT_MESH_BLAME_PARTNERS good ones each (16 B each). */
#define RT_MESH_RETEST_PER_HOST 4u
#define RT_MESH_RETEST_MAX 4096u
#define RT_MESH_BLAME_ENDS 64u
#define RT_MESH_BLAME_PARTNERS 2u

enum rt_retest_state { RT_RETEST_PENDING, RT_RETEST_FLAKY, RT_RETEST_BAD };

struct rt_mesh_retest {
	struct rt_mesh_link first; /* the first pass's result, as judged then */
	uint8_t state;             /* enum rt_retest_state */
};

struct rt_mesh_blame_end {
	uint32_t rank;
	uint32_t partner[RT_MESH_BLAME_PARTNERS];
	uint8_t np;          /* partners given (fewer good hosts than 2) */
	uint8_t tested, bad; /* of its pairings with them, once concluded */
};

struct rt_mesh_blame {
	bool ran;            /* the pass ran (not --no-blame, not interrupted) */
	bool cut;            /* --budget ran out before all its rounds */
	uint32_t rounds, pairs;
	struct rt_mesh_retest *re;
	uint32_t nre, flaky;
	struct rt_mesh_blame_end *ends;
	uint32_t nends;
};

/* A --budget run's coverage (meshrun.h). */
struct rt_mesh_cover {
	double minutes;      /* 0: no budget */
	double elapsed_s;    /* the matchings and the blame pass */
	uint32_t rounds;     /* rounds of matchings run */
	uint32_t matchings;  /* whole matchings among them (alltoall: 0) */
	/* --pattern alltoall: the rounds that have every host send to every
	 * other, of which the budget ran `rounds`; 0 for matchings */
	uint32_t all_rounds;
	uint64_t distinct;   /* distinct pairs tested by them */
	bool counted;        /* distinct is known (sched.h's rt_pairset) */
};

/* One rail's links after judging (by rail number), or one class of
 * crossed links (rail i of one end against rail j != i of the other,
 * either way round). */
struct rt_mesh_rail_stat {
	uint32_t links, bad_links;  /* bad: those no bad node or rail explains */
	double median_rtt_us, median_gbps;
	uint32_t not_judged;        /* RT_LINK_RTT_REL, RT_LINK_BW_REL */
};

/* The inventory fields rank 0 compares between hosts (meshinv.h). */
enum rt_mesh_inv_field {
	RT_INV_KERNEL, RT_INV_RDMA_CORE, /* the host's */
	RT_INV_FW, RT_INV_DRIVER, RT_INV_PCIE_SPEED, RT_INV_PCIE_WIDTH, /* a rail's device's */
	RT_INV_RATE, RT_INV_MTU, /* a rail's port's, when ACTIVE */
	RT_INV_FIELDS
};

/* One host's value of a field that is not the one most hosts have. */
#define RT_MESH_DRIFT_LIST 64u /* recorded; the rest are counted */
#define RT_MESH_INV_VALUE 64u  /* the longest field, the kernel's */
struct rt_mesh_drift {
	uint32_t rank;
	uint8_t field; /* enum rt_mesh_inv_field */
	int8_t rail;   /* its rail number; -1 for the host's fields */
	char value[RT_MESH_INV_VALUE], majority[RT_MESH_INV_VALUE];
};

struct rt_mesh_cell;   /* meshcell.h's stored result */
struct rt_mesh_ctrlog; /* meshcell.h's stored rises */
/* Results whose counters rose, kept with their rises (168 B each). */
#define RT_MESH_CTRLOG_MAX 65536u
struct rt_mesh_sparse; /* meshcell.h's sparse entry */

struct rt_mesh_tally;

struct rt_mesh_agg {
	uint32_t n;              /* ranks, 0 until the first hello (report) */
	struct rt_mesh_node *nodes;
	uint32_t nres, max_results; /* results added (re-tests too), bound */
	/* the stored results, meshstore.c's: one of the two forms */
	struct rt_mesh_cell *dense;    /* n(n-1)/2 cells by pair, or NULL */
	struct rt_mesh_sparse *sparse; /* by arrival; by pair once judged */
	uint32_t nsparse, cap;
	/* the rises of results that carried some, at most RT_MESH_CTRLOG_MAX
	 * (11 MiB); more are counted in ctr_dropped: not judged, and the run
	 * is not READY */
	struct rt_mesh_ctrlog *ctrlog;
	uint32_t nctrlog, ctrcap, ctr_dropped;
	/* the congestion counters' rises of every result (meshcong.h):
	 * reported, never judged, kept apart from the links' */
	struct rt_mesh_cong cong;
	/* after rt_mesh_judge */
	uint32_t nlinks;         /* pairs stored, absent_links among them */
	uint32_t absent_links;   /* stored but not tested: an end was absent */
	double median_rtt_us, median_gbps; /* 0 when nothing measured */
	uint32_t bad_nodes, suspect_nodes, absent_nodes, untested_nodes;
	uint32_t bad_links; /* those no bad node explains */
	bool interrupted;   /* set by the coordinator: never READY */
	/* the run's authentication (meshsecret.h's mode name), set by rank 0
	 * for its summary and document; NULL: not known (mesh report) */
	const char *auth;
	/* rails a pair tests at most, for the plan (rank 0's own before the
	 * hellos; the most a hello lists after them); above 1 the storage
	 * stays sparse, one entry per pair and rail */
	uint32_t rails;
	bool cross;           /* --cross-rails: rails x rails results a pair */
	uint32_t qps;         /* --qps: connections a rail and pair; 0: not known (mesh report) */
	uint32_t rail_mask;   /* rails with a tested link (rail against itself) */
	struct rt_mesh_rail_stat rail_stat[RT_MESH_RAILS_MAX];
	/* crossed links (rail != rail_b) judged, and their classes' figures
	 * by min x RT_MESH_RAILS_MAX + max of the two rails (NULL until a
	 * crossed result is judged): each class against its own medians */
	uint32_t ncross;
	struct rt_mesh_rail_stat *cross_stat;
	/* (host, rail) verdicts: a rail its hello lists not ACTIVE, or one
	 * its links blame on a host whose other rails passed */
	uint32_t bad_rails;
	/* by rail number: some host's rail carries an address there; some
	 * host lists it ACTIVE and none an address (tested over verbs alone) */
	uint32_t rails_addressed, rails_unaddressed;
	uint32_t rails_expected; /* the rail count in use most hosts have */
	/* a traffic pattern's per-round figures (meshtally.h), rank 0's, or
	 * NULL: the pairs pattern, or a report */
	struct rt_mesh_tally *tally;
	uint32_t rail_mismatch;  /* hosts with another count: not READY */
	uint32_t not_judged; /* RT_LINK_RTT_REL, RT_LINK_BW_REL: too few links */
	/* after judging: inventory differences from most hosts (meshinv.h),
	 * the first RT_MESH_DRIFT_LIST in (rank, rail, field) order, all of
	 * them counted, and the hosts with any */
	struct rt_mesh_drift drift[RT_MESH_DRIFT_LIST];
	uint32_t ndrift, drift_hosts;
	/* mesh --expect (meshinv.h): hosts that differ from the expected
	 * state, or did not check while others did (expect_on, below) */
	uint32_t expect_bad;
	struct rt_mesh_refusal refusals[RT_MESH_REFUSED_LIST];
	uint32_t refused;   /* peers refused, recorded or not */
	struct rt_mesh_stranger strangers[RT_MESH_STRANGER_LIST];
	uint32_t nstrangers; /* strangers turned away, recorded or not */
	bool ready;
	bool expect_on; /* some host checked itself against mesh --expect's state */
	struct rt_mesh_blame blame;
	struct rt_mesh_cover cover;
};

/* A walk over the tested links in (a, b) order, after judging. */
struct rt_mesh_iter {
	const struct rt_mesh_agg *g;
	uint64_t at;    /* the next cell or entry */
	uint32_t a, b;  /* the dense cell at's pair */
};

/* n ranks (0: taken from the first hello), max_results 0: the default. */
int rt_mesh_agg_init(struct rt_mesh_agg *g, uint32_t n, uint32_t max_results,
		     struct rt_error *err);
/* A rank said hello: its size must be n (or sets it), a rank says it
 * once. Exit 1 otherwise. */
int rt_mesh_agg_hello(struct rt_mesh_agg *g, const struct rt_mesh_hello *h,
		      struct rt_error *err);
/* A rail of a rank that said hello, from a `mesh report` line (its hello
 * lists none; the binary hello carries them whole): after the rank's
 * others, in increasing order, at most RT_MESH_RAILS_MAX. Exit 1 otherwise. */
int rt_mesh_agg_rail(struct rt_mesh_agg *g, uint32_t rank, const struct rt_mesh_rail *r,
		     struct rt_error *err);
/* The plan makes at most `results` results (rt_mesh_plan_fits checks
 * them against max_results first): before the first result, the storage
 * for them, dense when n is known and n(n-1)/2 cells of 24 B take no
 * more than `results` sparse entries of 32 B. Without it (or with
 * results stored already) the storage stays sparse. */
void rt_mesh_agg_plan(struct rt_mesh_agg *g, uint64_t results);
/* One pair's result; exit 1 past max_results or for a rank outside n
 * (or, n not known yet, above 65535). */
int rt_mesh_agg_add(struct rt_mesh_agg *g, const struct rt_mesh_result *r,
		    struct rt_error *err);
/* The rank said hello and then left the run (its connection closed or
 * broke the protocol): with a failed pair it is bad whatever its other
 * pairs, and blamed first, so that a host lost in the last round is named
 * and not its last partner's link. */
void rt_mesh_agg_lost(struct rt_mesh_agg *g, uint32_t rank);
/* A peer turned away at the gathering: recorded (the first
 * RT_MESH_REFUSED_LIST) and counted. */
void rt_mesh_agg_refuse(struct rt_mesh_agg *g, const char *addr, uint32_t rank,
			const char *reason);
/* A connection that could not show the job's token (above): recorded
 * (the first RT_MESH_STRANGER_LIST) and counted; no verdict changes. */
void rt_mesh_agg_stranger(struct rt_mesh_agg *g, const char *addr, const char *reason);
/* Judges links and nodes (may be called again after more results). */
int rt_mesh_judge(struct rt_mesh_agg *g, const struct rt_mesh_limits *lim,
		  struct rt_error *err);
/* The line rate --min-line-rate judges the link of ranks a and b by: the
 * smaller of their payload rates, Gbit/s; 0 when either is unknown. */
double rt_mesh_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b);
/* The rank's host name: "" until it said hello, or for a rank outside
 * the run. */
const char *rt_mesh_host(const struct rt_mesh_agg *g, uint32_t rank);
/* The rail `rail` of rank's hello, or NULL. */
const struct rt_mesh_rail *rt_mesh_rail_of(const struct rt_mesh_agg *g, uint32_t rank,
					   unsigned rail);
/* A rail's payload rate for --min-line-rate, Mbit/s: its hello's, or
 * where mesh --expect gave its port a rate (want_gbps), the payload at
 * that rate in the ratio its port has now (its encoding and MTU), so a
 * port trained below what it should run at fails its links' line rate. */
uint32_t rt_mesh_rail_payload_mbps(const struct rt_mesh_rail *r);
/* --min-line-rate's figure for a link on `rail`: the smaller of its two
 * ends' rails' payload rates (rt_mesh_rail_payload_mbps), Gbit/s; the
 * hosts' (above) where either lists no such rail; 0 when either is
 * unknown. */
double rt_mesh_rail_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			      unsigned rail);
/* The same for a's rail `rail` against b's `rail_b` (crossed rails). */
double rt_mesh_rails_line_gbps(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			       unsigned rail, unsigned rail_b);
/* Whether rise i of c is more than lim allows: a link counter above
 * max_errors, a retransmit counter above max_retrans_ppm per million
 * packets the link's ports sent (never without a packet count). */
/* What is wrong with rail r of node nd, after judging: nothing (an
 * ACTIVE rail without an address where no host has one on its number is
 * in use, tested over verbs alone); unused (not ACTIVE, no address, and
 * no host's rail of its number has one: not judged); no address where
 * another host's rail of its number has one (it lost it); not ACTIVE;
 * or its links are bad while the host's other rails' are not. */
enum rt_rail_fault {
	RT_RAIL_OK, RT_RAIL_UNUSED, RT_RAIL_NO_ADDR, RT_RAIL_NOT_ACTIVE, RT_RAIL_LINKS_BAD
};
enum rt_rail_fault rt_mesh_rail_fault(const struct rt_mesh_agg *g, const struct rt_mesh_node *nd,
				      const struct rt_mesh_rail *r);
/* "port 1 DOWN", "port 1 carries no IP address (another host's rail 1
 * does)" for the faults a hello shows (NOT_ACTIVE, NO_ADDR). */
void rt_mesh_rail_fault_text(enum rt_rail_fault f, const struct rt_mesh_rail *r, char *buf,
			     size_t len);
bool rt_mesh_ctr_bad(const struct rt_mesh_ctrs *c, unsigned i, const struct rt_mesh_limits *lim);
/* A result's bandwidth as judged: the slower direction, Gbit/s. */
double rt_mesh_gbps(const struct rt_mesh_result *r);
/* The tested links in (a, b) order, after judging: rt_mesh_links starts
 * the walk, rt_mesh_link_next fills l and is false past the last. */
void rt_mesh_links(const struct rt_mesh_agg *g, struct rt_mesh_iter *it);
bool rt_mesh_link_next(struct rt_mesh_iter *it, struct rt_mesh_link *l);
/* After judging: the link of ranks a and b (either order) into l, on its
 * lowest rail tested; false when that pair was not tested. O(1) dense,
 * O(log P) sparse. */
bool rt_mesh_link_of(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
		     struct rt_mesh_link *l);
/* The same on one rail, a's and b's both (-1: its lowest rails). */
bool rt_mesh_link_of_rail(const struct rt_mesh_agg *g, uint32_t a, uint32_t b, int rail,
			  struct rt_mesh_link *l);
/* The same on a's rail `rail` against b's `rail_b` (-1 either: any);
 * l is in (a < b) order, its rails turned with its ends. */
bool rt_mesh_link_of_rails(const struct rt_mesh_agg *g, uint32_t a, uint32_t b, int rail,
			   int rail_b, struct rt_mesh_link *l);
/* After judging: the figures of the class of rail `rail` against rail
 * `rail_b` (the rail's own when they are equal; zeros for a crossed
 * class never tested). */
const struct rt_mesh_rail_stat *rt_mesh_class_stat(const struct rt_mesh_agg *g, unsigned rail,
						   unsigned rail_b);
/* After judging: a bad link that no bad node at either end explains. */
bool rt_mesh_link_blamed(const struct rt_mesh_agg *g, const struct rt_mesh_link *l);
/* After judging, whether the pair of ranks a and b is bad: its RT_LINK_*
 * reasons (0: good), or -1 when it was not tested or an end is absent.
 * The one question the blame pass asks of a pair (a pair of several rails
 * is bad when any rail is). */
int rt_mesh_pair_bad(const struct rt_mesh_agg *g, uint32_t a, uint32_t b);
/* The pair's link that rt_mesh_pair_bad judges by: its first bad
 * (rail, rail_b) in that order (a pair is as bad as its worst: crossed
 * rails count as its rails do), else its first tested one; false when
 * none of it was tested. */
bool rt_mesh_pair_worst(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			struct rt_mesh_link *l);
/* After judging: an ok host, still there and not named bad: one the
 * blame pass may pair a suspect with if no bad link of it is left
 * unexplained (meshblame.h). */
bool rt_mesh_node_clean(const struct rt_mesh_agg *g, uint32_t rank);
/* The blame pass names rank bad: bad at the next judging whatever its
 * counts, and its links explained by it. */
void rt_mesh_agg_name(struct rt_mesh_agg *g, uint32_t rank);
void rt_mesh_agg_free(struct rt_mesh_agg *g);
const char *rt_node_verdict_name(unsigned v);
/* The run's verdict in the document and the JSON of every rank. */
const char *rt_mesh_verdict_word(bool ready, bool interrupted);

#endif
