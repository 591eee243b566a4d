/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a traffic pattern's rounds carried together (--pattern bisection):
 * per first-pass round, the pairs tested, those that failed, and the sum
 * of their bandwidth in both directions, which, with every pair of a
 * perfect matching running at once in both directions, is the bandwidth
 * the fabric gave half the hosts talking to the other half (the
 * bisection bandwidth that matching found). The worst round is the
 * figure: a spine that collapses, or ECMP that hashes several flows onto
 * one uplink, shows in the matching that hit it.
 *
 * Rank 0 fills it as results come (rt_mesh_agg_add); re-tests of the
 * blame pass, numbered after the first pass, are not counted. Memory:
 * RT_MESH_TALLY_MAX rounds of 16 bytes (4 KiB); a longer run (a budget's
 * matchings) counts its first RT_MESH_TALLY_MAX rounds and says so.
 *
 * --pattern incast adds a table a receiving rank (groups of fan_in
 * senders write into one receiver at once; a result's a is the receiver,
 * b a sender, mbps_rev that sender's write rate into it, mbps its read
 * rate back, measured afterwards). A slow receiver (its NIC, PCIe, or
 * the switch port's buffers giving out under incast) shows as its low
 * aggregate in_mbps; congestion control that starves one flow shows as
 * a sender far below an even share of its receiver's rate. Every
 * first-pass round counts there (round < run), even past
 * RT_MESH_TALLY_MAX. Memory: at most RT_MESH_TALLY_RECV_BYTES a rank,
 * 3 MiB at 65,536 hosts, allocated once for the run. */
#ifndef RDMATEST_MESHTALLY_H
#define RDMATEST_MESHTALLY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mesh/meshwire.h"

#define RT_MESH_TALLY_MAX 256u
#define RT_MESH_TALLY_RECV_BYTES 48u /* sizeof(struct rt_mesh_tally_recv), at most */

struct rt_mesh_tally_round {
	uint32_t pairs, failed; /* results (one a rail), those not OK or without figures */
	uint64_t mbps;          /* both directions, the OK ones */
};

/* One receiver's first-pass results (one a rail: rail is the receiver's). */
struct rt_mesh_tally_recv {
	uint64_t in_mbps;       /* sum of the OK ones' mbps_rev: its aggregate receive rate */
	uint64_t out_mbps;      /* sum of the OK ones' mbps: what its senders read back */
	uint64_t slow_mbps;     /* the slowest OK sender's mbps_rev (ok > 0) */
	uint32_t results, failed; /* counted, those not OK or without figures */
	uint32_t line_mbps;     /* its line rate (rank 0, from its hello), 0 unknown */
	uint32_t slow_rank;     /* that sender (its b) */
	uint8_t slow_rail;      /* and the rail it came in on */
};

/* The sender with the smallest share of its receiver's rate. */
struct rt_mesh_tally_unfair {
	uint32_t sender, receiver;
	uint8_t rail;
	double share; /* mbps_rev x OK results / the receiver's in_mbps: 1 is even */
};

struct rt_mesh_tally {
	const char *pattern;    /* its name, for the summary and the document */
	uint32_t rounds;        /* first-pass rounds counted, <= RT_MESH_TALLY_MAX */
	uint32_t run;           /* first-pass rounds the run had (more: not counted) */
	uint32_t hosts;         /* ranks in the run: the per-host share's divisor */
	uint32_t fan_in;        /* incast: senders a receiver at once; 0: not incast */
	struct rt_mesh_tally_recv *recv; /* incast: hosts of them, by rank; NULL: not incast */
	struct rt_mesh_tally_round r[RT_MESH_TALLY_MAX];
};

/* A tally of run first-pass rounds of `hosts` ranks (up to 65,536;
 * pattern is kept, not copied); fan_in > 0 (incast) adds the receiver
 * table. Exits on allocation failure (rt_xcalloc). */
struct rt_mesh_tally *rt_mesh_tally_new(const char *pattern, uint32_t hosts, uint32_t run,
					uint32_t fan_in);
void rt_mesh_tally_free(struct rt_mesh_tally *t);
/* Receiver rank's line rate, Mbit/s (0 unknown); nothing without a table. */
void rt_mesh_tally_line(struct rt_mesh_tally *t, uint32_t rank, uint32_t line_mbps);

/* A result of round r->round: counted when that round is a counted one. */
void rt_mesh_tally_add(struct rt_mesh_tally *t, const struct rt_mesh_result *r);
/* The round with the least bandwidth among those with a pair, or -1. */
int rt_mesh_tally_worst(const struct rt_mesh_tally *t);
/* Incast: the receiver whose slower direction (in_mbps: its senders'
 * writes; out_mbps: their reads from it) is the least among those with a
 * result (one whose results all failed has 0); on a tie its faster
 * direction, then the lowest rank; -1: none, or no table. */
int rt_mesh_tally_worst_receiver(const struct rt_mesh_tally *t);
/* Incast: over the receivers with two OK results or more, the sender
 * with the least share; false when there is none. */
bool rt_mesh_tally_unfair(const struct rt_mesh_tally *t, struct rt_mesh_tally_unfair *u);
/* A rank's name for the summary (its host), or NULL: "rank N" alone. */
typedef const char *rt_mesh_tally_name_fn(const void *ctx, uint32_t rank);
/* The summary's lines ("bisection: ...", "incast: ..."), ranks by number. */
void rt_mesh_tally_text(const struct rt_mesh_tally *t, FILE *out);
/* The same, a rank also named by name(ctx, rank) when name is not NULL. */
void rt_mesh_tally_text_named(const struct rt_mesh_tally *t, FILE *out,
			      rt_mesh_tally_name_fn *name, const void *ctx);
struct rt_json;
/* The document's "pattern" object (name, rounds[], worst_round, ...;
 * incast: fan_in, receivers[], worst_receiver, unfair_sender). */
void rt_mesh_tally_json(const struct rt_mesh_tally *t, struct rt_json *j);

#endif
