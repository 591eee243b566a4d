/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The run key of a mesh under MUNGE (munge(7)): rank 0 seals it in a
 * credential that only the job's user can open, on a host that shares
 * the cluster's MUNGE key; each rank opens it.
 * Why the programs, munge(1) and unmunge(1), and not libmunge: the static
 * build cannot dlopen libmunge.so.2, and linking libmunge would make
 * every build need it; a run spawns one process a rank, each waited for
 * at most RT_MESH_MUNGE_WAIT_MS.
 * The credential's payload: "rdmatest-mesh 1 JOB KEY\n", JOB the job's id
 * ("-": none; up to RT_MESH_MUNGE_JOB_MAX name characters), KEY the run
 * key in 64 hex digits; it goes to munge on its standard input, never on
 * a command line (ps shows those), restricted to the user's uid
 * (munge --restrict-uid). A rank takes the key only when unmunge decoded
 * it (munged checks the MAC, the TTL and that it was not decoded before
 * on this host), the credential's UID is its own uid (not a stranger's
 * credential around a key of its own), its TTL has not run out and its
 * JOB is the rank's own. Holding the key is not yet proof: rank 0 proves
 * it in the handshake (meshauth.h) over the rank's fresh nonce, so an
 * old credential replayed by a stranger gets it nowhere.
 * munged refuses a credential decoded twice on one host (a replay): rank
 * 0 seals one a rank. */
#ifndef RDMATEST_MESHMUNGE_H
#define RDMATEST_MESHMUNGE_H

#include <stddef.h>
#include <stdint.h>

#include "mesh/meshauth.h"
#include "rdmatest/error.h"

/* a credential's text, bytes, with its NUL (ours: ~250); a CRED's bound */
#define RT_MESH_MUNGE_CRED_MAX RT_MESH_AUTH_CRED_MAX
#define RT_MESH_MUNGE_JOB_MAX 64u
#define RT_MESH_MUNGE_WAIT_MS 5000    /* for munge or unmunge to finish */
#define RT_MESH_MUNGE_OUT_MAX 4096u   /* what either writes, at most */

struct rt_mesh_munge {
	const char *munge, *unmunge; /* the programs; NULL: "munge", "unmunge" on PATH */
	const char *socket;          /* munged's socket; NULL: its default */
	const char *job;             /* the job's id; NULL or "": none */
	int wait_ms;                 /* 0: RT_MESH_MUNGE_WAIT_MS */
};

/* Rank 0: a credential holding key for this user (NUL-terminated in
 * cred[RT_MESH_MUNGE_CRED_MAX]); its length, or -1 (exit 3: munge failed,
 * its line quoted; 124: it did not finish in time). */
int rt_mesh_munge_seal(const struct rt_mesh_munge *m, const uint8_t key[RT_MESH_AUTH_SECRET],
		       char *cred, struct rt_error *err);
/* A rank: the key in the credential cred[0..len), checked as above;
 * 0, or -1 (exit 1 naming what does not fit). */
int rt_mesh_munge_open(const struct rt_mesh_munge *m, const char *cred, size_t len,
		       uint8_t key[RT_MESH_AUTH_SECRET], struct rt_error *err);

#endif
