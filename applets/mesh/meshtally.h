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
 * matchings) counts its first RT_MESH_TALLY_MAX rounds and says so. */
#ifndef RDMATEST_MESHTALLY_H
#define RDMATEST_MESHTALLY_H

#include <stdint.h>
#include <stdio.h>

#include "mesh/meshwire.h"

#define RT_MESH_TALLY_MAX 256u

struct rt_mesh_tally_round {
	uint32_t pairs, failed; /* results (one a rail), those not OK or without figures */
	uint64_t mbps;          /* both directions, the OK ones */
};

struct rt_mesh_tally {
	const char *pattern;    /* its name, for the summary and the document */
	uint32_t rounds;        /* first-pass rounds counted, <= RT_MESH_TALLY_MAX */
	uint32_t run;           /* first-pass rounds the run had (more: not counted) */
	uint32_t hosts;         /* ranks in the run: the per-host share's divisor */
	struct rt_mesh_tally_round r[RT_MESH_TALLY_MAX];
};

/* A result of round r->round: counted when that round is a counted one. */
void rt_mesh_tally_add(struct rt_mesh_tally *t, const struct rt_mesh_result *r);
/* The round with the least bandwidth among those with a pair, or -1. */
int rt_mesh_tally_worst(const struct rt_mesh_tally *t);
/* The summary's lines ("bisection: ..."). */
void rt_mesh_tally_text(const struct rt_mesh_tally *t, FILE *out);
struct rt_json;
/* The document's "pattern" object (name, rounds[], worst_round, ...). */
void rt_mesh_tally_json(const struct rt_mesh_tally *t, struct rt_json *j);

#endif
