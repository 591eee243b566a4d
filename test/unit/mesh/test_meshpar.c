/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mesh/meshpar.h"

struct job {
	struct rt_mesh_par par;
	unsigned id, ran, *both; /* both: a count every job adds to */
	pthread_mutex_t *lock;
};

static void *run(void *arg)
{
	struct job *j = arg;

	j->ran++;
	pthread_mutex_lock(j->lock);
	(*j->both) += j->id;
	pthread_mutex_unlock(j->lock);
	return NULL;
}

/* Every job runs once, on a thread of its own, and the call returns only
 * after all of them ended. */
static void every_job_once(void **state)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct job jobs[33];
	unsigned both = 0, want = 0;

	(void)state;
	for (unsigned i = 0; i < 33; i++) {
		jobs[i] = (struct job){ .id = i + 1, .both = &both, .lock = &lock };
		want += i + 1;
	}
	assert_int_equal(rt_mesh_par_run(jobs, 33, sizeof(jobs[0]), run), 33);
	assert_int_equal(both, want);
	for (unsigned i = 0; i < 33; i++) {
		assert_int_equal(jobs[i].ran, 1);
		assert_true(jobs[i].par.threaded);
	}
	assert_int_equal(rt_mesh_par_run(jobs, 0, sizeof(jobs[0]), run), 0);
	assert_int_equal(both, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_job_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
