/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The run's authentication mode (meshkey.h): --auth's, or the default the
 * launcher gives, and the combinations refused. The environment is
 * scripted (struct rt_mesh_key_env); nothing is opened. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/meshkey.h"

static const struct rt_mesh_key_env slurm_munge = { .slurm_job = "4242", .munge_here = true };
static const struct rt_mesh_key_env slurm_only = { .slurm_job = "4242" };
static const struct rt_mesh_key_env bare = { 0 };

static unsigned mode_of(const char *name, const char *file, const struct rt_mesh_key_env *env,
			const char *why)
{
	struct rt_mesh_key k;
	struct rt_error err = { 0 };

	if (rt_mesh_key_mode(&k, name, file, env, &err))
		fail_msg("%s", err.reason);
	assert_string_equal(k.why, why);
	assert_int_equal(k.mac.alg, -1); /* nothing opened */
	return k.mode;
}

static void defaults(void **state)
{
	(void)state;
	assert_int_equal(mode_of(NULL, "/t", &bare, "--token-file"), RT_MESH_AUTH_FILE);
	assert_int_equal(mode_of(NULL, "/t", &slurm_munge, "--token-file"), RT_MESH_AUTH_FILE);
	assert_int_equal(mode_of(NULL, NULL, &slurm_munge, "Slurm, munge on PATH"),
			 RT_MESH_AUTH_MUNGE);
	assert_int_equal(mode_of(NULL, NULL, &slurm_only, "Slurm without munge on PATH"),
			 RT_MESH_AUTH_NONE);
	assert_int_equal(mode_of(NULL, NULL, &bare, "no --token-file, no Slurm"),
			 RT_MESH_AUTH_NONE);
	assert_int_equal(mode_of("none", "/t", &slurm_munge, "--auth"), RT_MESH_AUTH_NONE);
	assert_int_equal(mode_of("munge", NULL, &bare, "--auth"), RT_MESH_AUTH_MUNGE);
}

/* MUNGE's credential names the Slurm job: a rank takes only its own. */
static void munge_names_the_job(void **state)
{
	struct rt_mesh_key k;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_mesh_key_mode(&k, NULL, NULL, &slurm_munge, &err), 0);
	assert_string_equal(rt_mesh_key_munge(&k)->job, "4242");
	assert_true(rt_mesh_key_on(&k));
	assert_int_equal(rt_mesh_key_mode(&k, NULL, "/t", &slurm_munge, &err), 0);
	assert_null(rt_mesh_key_munge(&k));
	assert_false(rt_mesh_key_on(NULL));
}

static void refused(const char *name, const char *file, const char *want)
{
	struct rt_mesh_key k;
	struct rt_error err = { 0 };

	assert_int_equal(rt_mesh_key_mode(&k, name, file, &bare, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_string_equal(err.reason, want);
}

static void refusals(void **state)
{
	(void)state;
	refused("file", NULL, "--auth file: needs --token-file PATH");
	refused("munge", "/t", "--token-file: the secret of --auth file, not with --auth munge");
	refused("kerberos", NULL, "--auth kerberos: want munge, file or none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(munge_names_the_job),
		cmocka_unit_test(refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
