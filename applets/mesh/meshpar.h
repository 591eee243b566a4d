/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Jobs run at once, a thread each: a rank's tests of one round
 * (meshfollow.c) and a test's rails on the connecting side (meshtest.c).
 * A job whose thread cannot start runs on the caller's, after the others
 * started; the call returns when every job has ended. At most n threads
 * (the callers bound n: RT_MESH_TESTS_MAX tests, RT_MESH_RAILS_MAX
 * rails), and a thread handle per job that the caller's job holds. */
#ifndef RDMATEST_MESHPAR_H
#define RDMATEST_MESHPAR_H

#include <pthread.h>
#include <stddef.h>

/* The job's thread, filled by rt_mesh_par_run: the first member of a
 * caller's job struct, so that the job is found from it. */
struct rt_mesh_par {
	pthread_t th;
	int threaded; /* its own thread ran it (else the caller's did) */
};

/* Runs fn(job) for each of the n jobs of `size` bytes at `jobs` (each
 * starting with its struct rt_mesh_par), at once; returns how many ran
 * on threads of their own. */
size_t rt_mesh_par_run(void *jobs, size_t n, size_t size, void *(*fn)(void *));

#endif
