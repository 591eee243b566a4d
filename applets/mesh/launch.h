/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Who am I in a mesh run: rank, size and (when the launcher says) the
 * host of every rank, from the launcher that started this instance.
 * Checked in this order, the first that sets a rank wins:
 *   --hosts LIST|@FILE  rank = the one listed host that is this machine
 *   Slurm     SLURM_PROCID, SLURM_NTASKS, SLURM_STEP_NODELIST (or
 *             SLURM_JOB_NODELIST, SLURM_NODELIST; hostlist.h)
 *   Open MPI  OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
 *   PMI       PMI_RANK, PMI_SIZE (MPICH's Hydra, Intel MPI)
 *   PMIx      PMIX_RANK (size from --size)
 *   Kubernetes Indexed Job  JOB_COMPLETION_INDEX (size from --size)
 * The job token every rank shares (meshgather.h admits only hellos that
 * carry it), the first found of:
 *   --token STRING, --token-file PATH (at most 4 KiB, a trailing newline
 *   stripped), RDMATEST_MESH_TOKEN (a Kubernetes Job sets it from its
 *   controller-uid label), Slurm SLURM_JOB_ID.SLURM_STEP_ID, Open MPI
 *   OMPI_MCA_ess_base_jobid, PMIx PMIX_NAMESPACE; none for --hosts
 *   alone. Only its 64-bit hash is kept: it is not a secret.
 * Memory: the host list (hostlist.h: at most 65536 names, 16 MiB). */
#ifndef RDMATEST_LAUNCH_H
#define RDMATEST_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"
#include "mesh/hostlist.h"

enum rt_launcher {
	RT_LAUNCH_HOSTS,
	RT_LAUNCH_SLURM,
	RT_LAUNCH_OMPI,
	RT_LAUNCH_PMI,
	RT_LAUNCH_PMIX,
	RT_LAUNCH_K8S,
};

/* Where the environment and "is this host me" come from: the process's
 * in a run, scripted ones in tests. */
struct rt_launch_env {
	const char *(*get)(void *ctx, const char *name);
	bool (*is_self)(void *ctx, const char *host);
	void *ctx;
};

struct rt_launch_req {
	const char *hosts; /* --hosts: a hostlist, or @FILE; NULL if not given */
	uint32_t size;     /* --size, 0 if not given */
	const char *token;      /* --token, or NULL */
	const char *token_file; /* --token-file, or NULL */
};

struct rt_launch {
	enum rt_launcher via;
	uint32_t rank, size;
	/* The host of every rank (hosts.n == size), or empty when the
	 * launcher does not say (MPI, PMIx, Kubernetes, Slurm with several
	 * tasks per node). */
	struct rt_hostlist hosts;
	uint64_t token;         /* rt_launch_token_hash of it; 0: none */
	const char *token_from; /* where it came from, or NULL */
};

/* No launcher found, a rank outside the size, a size above
 * RT_HOSTLIST_MAX, a malformed variable or list: exit 2; --hosts naming
 * no host or two hosts that are this machine: exit 3. */
int rt_launch_detect(struct rt_launch *l, const struct rt_launch_req *req,
		     const struct rt_launch_env *env, struct rt_error *err);
void rt_launch_free(struct rt_launch *l);
/* FNV-1a (64 bits) of the token's n bytes, never 0 (0 means no token).
 * A checksum that tells jobs apart, not a MAC. */
uint64_t rt_launch_token_hash(const char *token, size_t n);
const char *rt_launcher_name(enum rt_launcher via);

/* --coordinator's HOST, HOST:PORT, [V6]:PORT or a bare IPv6 address into
 * host (len bytes) and, when it names one, *port (1..65534); anything
 * else is exit 2 naming it. */
int rt_launch_coordinator(const char *text, char *host, size_t len, long long *port,
			  struct rt_error *err);

/* The process's environment, and a host that is this machine when it is
 * its host name (short or full) or a numeric address of one of its
 * interfaces. No DNS lookup: the match never waits on the network. */
extern const struct rt_launch_env rt_launch_env_process;
bool rt_launch_is_self(void *ctx, const char *host);

#endif
