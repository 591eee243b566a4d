/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Jobs run at once, a thread each (meshpar.h). */
#include "mesh/meshpar.h"

static struct rt_mesh_par *job_at(void *jobs, size_t i, size_t size)
{
	return (struct rt_mesh_par *)((char *)jobs + i * size);
}

size_t rt_mesh_par_run(void *jobs, size_t n, size_t size, void *(*fn)(void *))
{
	size_t threaded = 0, i;

	for (i = 0; i < n; i++) {
		struct rt_mesh_par *j = job_at(jobs, i, size);

		j->threaded = !pthread_create(&j->th, NULL, fn, j);
		threaded += (size_t)j->threaded;
	}
	for (i = 0; i < n; i++)
		if (!job_at(jobs, i, size)->threaded)
			fn(job_at(jobs, i, size));
	for (i = 0; i < n; i++)
		if (job_at(jobs, i, size)->threaded)
			pthread_join(job_at(jobs, i, size)->th, NULL);
	return threaded;
}
