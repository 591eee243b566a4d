/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The authentication a mesh run uses (docs/dev/mesh-auth.md), resolved
 * once before its first connection:
 *   the mode   --auth when given; else file with --token-file, munge
 *              under Slurm (SLURM_JOB_ID set) where munge and unmunge are
 *              on PATH, none otherwise
 *   its needs  the kernel's HMAC (hmac.h), and the secret: the token
 *              file's (meshsecret.h) on every rank; under MUNGE rank 0
 *              draws a random run key and the ranks learn it from its
 *              credential (meshmunge.h, the job id SLURM_JOB_ID's)
 * A process holds one; a child forked to run a rank opens an HMAC of its
 * own (rt_mesh_key_fork): the bound AF_ALG socket holds one key at a
 * time, and two processes setting keys on it would mix them up. */
#ifndef RDMATEST_MESHKEY_H
#define RDMATEST_MESHKEY_H

#include <stdbool.h>

#include "mesh/meshauth.h"
#include "mesh/meshmunge.h"
#include "mesh/meshsecret.h"

struct rt_mesh_key {
	unsigned mode;   /* enum rt_mesh_auth_mode */
	const char *why; /* what chose the mode ("--auth", "--token-file", ...) */
	struct rt_hmac mac; /* open unless mode none */
	/* file: the token file's; munge: rank 0's run key (a rank's comes
	 * in each connection's credential) */
	uint8_t secret[RT_MESH_AUTH_SECRET];
	struct rt_mesh_munge munge;
	char job[RT_MESH_MUNGE_JOB_MAX + 1];
};

/* What rt_mesh_key_mode reads from the process (scripted in tests). */
struct rt_mesh_key_env {
	const char *slurm_job; /* SLURM_JOB_ID, or NULL */
	bool munge_here;       /* munge and unmunge on PATH */
};
void rt_mesh_key_env_process(struct rt_mesh_key_env *env);

/* The mode (name: --auth or NULL), its reason in k->why; exit 2 for an
 * unknown name, --auth file without --token-file, or --token-file with
 * --auth munge. */
int rt_mesh_key_mode(struct rt_mesh_key *k, const char *name, const char *token_file,
		     const struct rt_mesh_key_env *env, struct rt_error *err);
/* After rt_mesh_key_mode: the HMAC and the secret (coordinator: rank 0,
 * which draws MUNGE's run key). Exit 3 without the kernel's HMAC or
 * random bytes, 2 for a token file refused (meshsecret.h). */
int rt_mesh_key_open(struct rt_mesh_key *k, const char *token_file, bool coordinator,
		     struct rt_error *err);
/* In a child process: an HMAC of its own. */
int rt_mesh_key_fork(struct rt_mesh_key *k, struct rt_error *err);
/* The HMAC closed, the secret forgotten. */
void rt_mesh_key_close(struct rt_mesh_key *k);

/* Whether connections under k authenticate (k NULL: no). */
bool rt_mesh_key_on(const struct rt_mesh_key *k);
/* A connection's end before its handshake (rank 0: rank 0). */
void rt_mesh_key_end(struct rt_mesh_key *k, struct rt_mesh_auth *a,
		     enum rt_mesh_auth_side side, uint32_t rank, uint32_t size);
/* MUNGE's settings under munge, else NULL (meshseal.h's munge). */
const struct rt_mesh_munge *rt_mesh_key_munge(const struct rt_mesh_key *k);

#endif
